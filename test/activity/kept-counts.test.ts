/**
 * Kept counts (migration 0012), so a dashboard read costs bounded work however busy the project:
 * one talent's usage from counts kept per day and version (talent_days), and the hours of a
 * traces summary from counts kept per hour (trace_hours, resolution_hours). Each equals a
 * straightforward count over the raw rows on generated data (fast-check), and the reads touch
 * neither the resolutions nor the journal.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import fc from "fast-check";
import {
  DAY_MS,
  SETTLE_MS,
  HOUR_EVENTS,
  HOUR_MS,
  KEPT_HOUR_EVENTS,
  KEPT_HOUR_SPAN_SQL,
  projectDays,
  SPAN_COUNTS_SQL,
  SPAN_VERDICTS,
} from "../../src/activity/daily";
import { readWindow } from "../../src/activity/summaries";
import { talentAdoption } from "../../src/activity/adoption";
import { OPEN_PAGE_ROWS, OPEN_PAGE_SQL, openResolutions } from "../../src/activity/neverAudited";
import { AUDITED, TALENT_DAYS_SQL, talentUsage } from "../../src/activity/usage";
import type { Database } from "../../src/db/client";
import { POSTGRES, SQLITE } from "../../src/db/sqlDialect";
import { statementsOf } from "../../src/db/migrate";
import { orderedId } from "../../src/lib/ids";
import { migrations } from "../../migrations";
import { VERDICTS } from "../../src/resolution/reports";
import { orgWithProject, queryPlan, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
let owner: Awaited<ReturnType<typeof orgWithProject>>;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
  owner = await orgWithProject(env);
});
afterAll(() => env.close());

const TALENTS = ["typescript-strict", "javascript-base", "sql-base"] as const;
const DAYS = 5;

const designationArb = fc.uniqueArray(fc.record({ talent: fc.constantFrom(...TALENTS), version: fc.constantFrom("1.0.0", "1.1.0") }), {
  minLength: 1,
  maxLength: 3,
  selector: (i) => i.talent,
});
/** A resolution: its designation, its day (days ago) and its time in the day. */
const resolutionArb = fc.record({
  designation: fc.nat(3),
  daysAgo: fc.integer({ min: 0, max: DAYS }),
  ms: fc.integer({ min: 0, max: DAY_MS - 1 }),
});
/** Something that happens to a resolution later: a trace event naming it, or a report with results. */
const afterArb = fc.oneof(
  fc.record({
    type: fc.constant("event" as const),
    resolution: fc.nat(),
    kind: fc.constantFrom("validate", "deepen"),
    status: fc.constantFrom(200, 204, 404, 500),
  }),
  fc.record({
    type: fc.constant("report" as const),
    resolution: fc.nat(),
    late: fc.integer({ min: 0, max: 3 }), // ms after the resolution: equal times make the id decide which report is the latest
    idRand: fc.nat(999_999),
    results: fc.uniqueArray(fc.record({ talent: fc.constantFrom(...TALENTS, "not-served"), verdict: fc.constantFrom(...VERDICTS) }), {
      maxLength: 3,
      selector: (r) => r.talent,
    }),
  }),
);

type AfterStep = typeof afterArb extends fc.Arbitrary<infer T> ? T : never;

let seq = 0;
/** Writes the generated rows the way the service does (items before their resolution), each write its own statement. */
async function write(
  projectId: string,
  designations: { talent: string; version: string }[][],
  resolutions: { designation: number; daysAgo: number; ms: number }[],
  after: AfterStep[],
): Promise<void> {
  const c = env.database.client;
  const today = Math.floor(Date.now() / DAY_MS);
  const dsg = designations.map(() => `dsg_t${++seq}`);
  for (const [k, items] of designations.entries()) {
    for (const [position, it] of items.entries()) {
      await c.execute({
        sql: "INSERT INTO designation_items (designation_id, position, project_id, talent_id, kind, version, digest, definition_digest, files, expertise_id) VALUES (?, ?, ?, ?, 'talent', ?, 'sha256:x', 'sha256:y', '{}', NULL)",
        args: [dsg[k]!, position, projectId, it.talent, it.version],
      });
    }
  }
  const made: { id: string; at: number }[] = [];
  for (const r of resolutions) {
    const at = Math.min((today - r.daysAgo) * DAY_MS + r.ms, Date.now() - 1);
    const id = `res_${orderedId(at, ++seq)}`;
    await c.execute({
      sql: "INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?, ?, NULL, 1, 'sha256:c', 'key', 'key_t', 'api', ?, ?)",
      args: [id, projectId, at, dsg[r.designation % dsg.length]!],
    });
    made.push({ id, at });
  }
  if (made.length === 0) return;
  for (const a of after) {
    const r = made[a.resolution % made.length]!;
    if (a.type === "event") {
      await c.execute({
        sql: `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
              VALUES (?, ?, ?, 'api', 'key', 'key_t', 't', NULL, '[]', '[]', ?, ?, 1, NULL, ?)`,
        args: [`trc_${orderedId(r.at + 1, ++seq)}`, projectId, a.kind, r.id, a.status, r.at + 1],
      });
      continue;
    }
    const reportId = `rep_${String(a.idRand).padStart(6, "0")}_${++seq}`;
    await c.execute({
      sql: "INSERT INTO reports (id, project_id, resolution_id, submission_id, payload_digest, response, author_type, author_id, created_at) VALUES (?, ?, ?, ?, 'sha256:p', '{}', 'key', 'key_t', ?)",
      args: [reportId, projectId, r.id, `s${seq}`, r.at + a.late],
    });
    for (const res of a.results) {
      await c.execute({
        sql: "INSERT INTO report_results (report_id, talent_id, kind, verdict, evidence, missing, note) VALUES (?, ?, 'talent', ?, '[]', '[]', NULL)",
        args: [reportId, res.talent, res.verdict],
      });
    }
  }
}

/** The usage figures counted straight from the raw rows of the window (resolutions, their items, the journal, the reports). */
async function rawUsage(database: Database, projectId: string, talentId: string, fromDay: number, toDay: number) {
  const d = database.dialect === "sqlite" ? SQLITE : POSTGRES;
  const rows = await database.all<{ day: number; version: string; designated: number; audited: number; first: number; last: number }>(
    `SELECT r.created_at / 86400000 AS day, i.version, count(*) AS designated, ${d.countWhere(AUDITED)} AS audited, min(r.created_at) AS first, max(r.created_at) AS last
     FROM resolutions r JOIN resolution_items i ON i.resolution_id = r.id AND i.talent_id = ?
     WHERE r.project_id = ? AND r.created_at >= ? AND r.created_at < ? GROUP BY 1, 2`,
    [talentId, projectId, fromDay * DAY_MS, (toDay + 1) * DAY_MS],
  );
  const verdicts = await database.all<{ verdict: string; total: number; latest: number }>(
    `SELECT verdict, count(*) AS total, ${d.countWhere("k = 1")} AS latest FROM (
       SELECT rr.verdict, row_number() OVER (PARTITION BY rep.resolution_id ORDER BY rep.created_at DESC, rep.id DESC) AS k
       FROM resolutions r JOIN resolution_items i ON i.resolution_id = r.id AND i.talent_id = ?1
       JOIN reports rep ON rep.resolution_id = r.id JOIN report_results rr ON rr.report_id = rep.id AND rr.talent_id = ?1
       WHERE r.project_id = ?2 AND r.created_at >= ?3 AND r.created_at < ?4) AS v GROUP BY verdict`,
    [talentId, projectId, fromDay * DAY_MS, (toDay + 1) * DAY_MS],
  );
  const byDay = new Map<number, { designated: number; audited: number }>();
  for (let d = fromDay; d <= toDay; d++) byDay.set(d, { designated: 0, audited: 0 });
  const versions = new Map<string, { designated: number; audited: number; first: number; last: number }>();
  for (const r of rows) {
    const line = byDay.get(Number(r.day))!;
    line.designated += Number(r.designated);
    line.audited += Number(r.audited);
    const v = versions.get(r.version) ?? { designated: 0, audited: 0, first: Infinity, last: 0 };
    versions.set(r.version, {
      designated: v.designated + Number(r.designated),
      audited: v.audited + Number(r.audited),
      first: Math.min(v.first, Number(r.first)),
      last: Math.max(v.last, Number(r.last)),
    });
  }
  const count = (key: "total" | "latest"): Record<string, number> =>
    Object.fromEntries(VERDICTS.map((v) => [v, Number(verdicts.find((x) => x.verdict === v)?.[key] ?? 0)]));
  return {
    designated: rows.reduce((n, r) => n + Number(r.designated), 0),
    audited: rows.reduce((n, r) => n + Number(r.audited), 0),
    verdicts: count("total"),
    outcomes: count("latest"),
    byDay: [...byDay.values()],
    versions: Object.fromEntries(
      [...versions.entries()].map(([v, c]) => [
        v,
        {
          designated: c.designated,
          audited: c.audited,
          firstServedAt: new Date(c.first).toISOString(),
          lastServedAt: new Date(c.last).toISOString(),
        },
      ]),
    ),
  };
}

describe("talent usage from kept per-day counts (bounded work per request)", () => {
  test("kept counts equal a straightforward count over the raw rows: designated, audited, verdicts, latest outcomes, versions, days", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(designationArb, { minLength: 1, maxLength: 4 }),
        fc.array(resolutionArb, { maxLength: 12 }),
        fc.array(afterArb, { maxLength: 16 }),
        async (designations, resolutions, after) => {
          const project = (await owner.owner.post("/web/projects", { name: `p${++seq}` })).body.project;
          await write(project.id, designations, resolutions, after);
          const w = readWindow({ days: String(DAYS + 1) }, 90);
          for (const talentId of TALENTS) {
            const got = await talentUsage(env.database, env.state.catalog!, { id: project.id, organizationId: owner.org.id }, talentId, w);
            const want = await rawUsage(env.database, project.id, talentId, w.fromDay, w.toDay);
            expect<unknown>({
              designated: got.designated,
              audited: got.audited,
              verdicts: got.verdicts,
              outcomes: got.outcomes,
              byDay: got.byDay.map((d) => ({ designated: d.designated, audited: d.audited })),
              versions: Object.fromEntries(
                got.versions.map((v) => [
                  v.version,
                  { designated: v.designated, audited: v.audited, firstServedAt: v.firstServedAt, lastServedAt: v.lastServedAt },
                ]),
              ),
            }).toEqual(want);
            expect(got.withVerdict).toBe(Object.values(want.outcomes).reduce((a, b) => a + b, 0));
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  test("the usage read touches neither resolutions nor trace events: its window is one range of talent_days' primary key", async () => {
    const project = (await owner.owner.post("/web/projects", { name: `p${++seq}` })).body.project;
    await write(
      project.id,
      [[{ talent: "typescript-strict", version: "1.0.0" }]],
      [
        { designation: 0, daysAgo: 0, ms: 0 },
        { designation: 0, daysAgo: 2, ms: 5 },
      ],
      [],
    );
    const seen: string[] = [];
    const db = env.database;
    const spy: Database = {
      ...db,
      all: (sql, args) => (seen.push(sql), db.all(sql, args)),
      get: (sql, args) => (seen.push(sql), db.get(sql, args)),
    };
    const got = await talentUsage(
      spy,
      env.state.catalog!,
      { id: project.id, organizationId: owner.org.id },
      "typescript-strict",
      readWindow({ days: "90" }, 90),
    );
    expect(got.designated).toBe(2);
    expect(seen.filter((s) => /\b(FROM|JOIN) (resolutions|resolution_items|trace_events)\b/.test(s))).toEqual([]);
    expect(seen).toContain(TALENT_DAYS_SQL);
    // SQLite's query plan (PostgreSQL plans its own way)
    if (db.dialect === "sqlite")
      expect(queryPlan(db, TALENT_DAYS_SQL, ["prj_x", "t", 1, 90]).join("\n")).toContain(
        "SEARCH talent_days USING INDEX sqlite_autoindex_talent_days_1 (project_id=? AND talent_id=? AND day>? AND day<?)",
      );
  });
});

/** A row written into one fixed day of a project: a trace event, a resolution, or a report with its verdicts. */
const hourRowArb = fc.oneof(
  fc.record({
    type: fc.constant("event" as const),
    ms: fc.integer({ min: 0, max: DAY_MS - 1 }),
    kind: fc.constantFrom("doctor", "validate", "catalog"),
    client: fc.constantFrom("a/1", "b/2", "", null),
    status: fc.constantFrom(200, 404, 500),
  }),
  fc.record({ type: fc.constant("resolution" as const), ms: fc.integer({ min: 0, max: DAY_MS - 1 }) }),
  fc.record({
    type: fc.constant("report" as const),
    ms: fc.integer({ min: 0, max: DAY_MS - 1 }),
    verdicts: fc.uniqueArray(fc.constantFrom(...VERDICTS), { maxLength: 3 }),
  }),
);

describe("talent adoption from kept per-day counts", () => {
  test("adoption's days, today included, are read from talent_days: no read walks the organization's resolutions", async () => {
    // in the first SETTLE_MS after midnight yesterday is still read hour by hour from the resolutions (not settled
    // yet): the test runs at noon of today's date, whenever the suite runs
    const now = Date.now();
    if (now % DAY_MS < SETTLE_MS + 5_000) setSystemTime(new Date(now - (now % DAY_MS) + DAY_MS / 2));
    try {
      const fresh = await orgWithProject(env); // an organization of its own: nothing else designated
      const project = fresh.project;
      await write(
        project.id,
        [
          [
            { talent: "typescript-strict", version: "1.0.0" },
            { talent: "sql-base", version: "1.0.0" },
          ],
        ],
        [
          { designation: 0, daysAgo: 0, ms: 0 },
          { designation: 0, daysAgo: 3, ms: 5 },
        ],
        [{ type: "event", resolution: 1, kind: "validate", status: 200 }],
      );
      const seen: string[] = [];
      const db = env.database;
      const spy: Database = {
        ...db,
        all: (sql, args) => (seen.push(sql), db.all(sql, args)),
        get: (sql, args) => (seen.push(sql), db.get(sql, args)),
      };
      const entries = await talentAdoption(
        spy,
        env.state.catalog!,
        { id: fresh.org.id, slug: fresh.org.slug },
        readWindow({ days: "90" }, 90),
      );
      expect(entries.find((e) => e.id === "typescript-strict")).toMatchObject({ designations: 2, audited: 1 });
      expect(seen.filter((s) => /\b(FROM|JOIN) (resolutions|resolution_items)\b/.test(s))).toEqual([]);
    } finally {
      setSystemTime();
    }
  });
});

describe("traces summary hours from kept per-hour counts (the current hour is not re-read from the journal)", () => {
  test("each hour's events by kind and client, resolutions, reports and verdicts equal the raw counts of the journal and the reports", async () => {
    const day = Math.floor(Date.now() / DAY_MS) - 3;
    const c = env.database.client;
    await fc.assert(
      fc.asyncProperty(fc.array(hourRowArb, { maxLength: 30 }), async (rows) => {
        const project = (await owner.owner.post("/web/projects", { name: `h${++seq}` })).body.project;
        const resolution = `res_${orderedId(day * DAY_MS, ++seq)}`;
        for (const r of rows) {
          const at = day * DAY_MS + r.ms;
          if (r.type === "event") {
            await c.execute({
              sql: `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
                    VALUES (?, ?, ?, 'api', 'key', 'key_t', 't', ?, '[]', '[]', NULL, ?, 1, NULL, ?)`,
              args: [`trc_${orderedId(at, ++seq)}`, project.id, r.kind, r.client, r.status, at],
            });
            continue;
          }
          const id = r.type === "resolution" ? `res_${orderedId(at, ++seq)}` : resolution;
          if (r.type === "resolution" || !(await c.execute({ sql: "SELECT 1 FROM resolutions WHERE id = ?", args: [id] })).rows.length) {
            await c.execute({
              sql: "INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?, ?, NULL, 1, 'sha256:c', 'key', 'key_t', 'api', ?, 'dsg_none')",
              args: [id, project.id, r.type === "resolution" ? at : day * DAY_MS - 1],
            });
          }
          if (r.type === "report") {
            const reportId = `rep_${++seq}`;
            await c.execute({
              sql: "INSERT INTO reports (id, project_id, resolution_id, submission_id, payload_digest, response, author_type, author_id, created_at) VALUES (?, ?, ?, ?, 'sha256:p', '{}', 'key', 'key_t', ?)",
              args: [reportId, project.id, id, `s${seq}`, at],
            });
            for (const [k, verdict] of r.verdicts.entries()) {
              await c.execute({
                sql: "INSERT INTO report_results (report_id, talent_id, kind, verdict, evidence, missing, note) VALUES (?, ?, 'talent', ?, '[]', '[]', NULL)",
                args: [reportId, `t${k}`, verdict],
              });
            }
          }
        }
        for (let hour = day * 24; hour < day * 24 + 24; hour++) {
          const norm = (g: { kind: string; client: string | null; events: number; failed: number }[]) =>
            g
              .map((x) => ({ kind: x.kind, client: x.client, events: Number(x.events), failed: Number(x.failed ?? 0) }))
              .sort((a, b) => `${a.kind}|${a.client}`.localeCompare(`${b.kind}|${b.client}`));
          const dialect = env.database.dialect;
          expect(norm(await env.database.all(KEPT_HOUR_EVENTS[dialect], [project.id, hour]))).toEqual(
            norm(await env.database.all(HOUR_EVENTS[dialect], [project.id, hour])),
          );
          const kept = await env.database.get<Record<string, number>>(KEPT_HOUR_SPAN_SQL, [project.id, hour]);
          const span = (await env.database.get<Record<string, number>>(SPAN_COUNTS_SQL, [
            project.id,
            hour * HOUR_MS,
            (hour + 1) * HOUR_MS,
          ]))!;
          const v = (await env.database.get<Record<string, number | null>>(SPAN_VERDICTS[dialect], [
            project.id,
            hour * HOUR_MS,
            (hour + 1) * HOUR_MS,
          ]))!;
          expect({
            resolutions: Number(kept?.resolutions ?? 0),
            reports: Number(kept?.reports ?? 0),
            ...Object.fromEntries(VERDICTS.map((x) => [x, Number(kept?.[x] ?? 0)])),
          }).toEqual({
            resolutions: Number(span.resolutions),
            reports: Number(span.reports),
            ...Object.fromEntries(VERDICTS.map((x) => [x, Number(v[x] ?? 0)])),
          });
        }
      }),
      { numRuns: 25 },
    );
  }, 60_000);

  test("today's hours are answered from trace_hours and resolution_hours: the read never walks the hour's events or resolutions", async () => {
    const project = (await owner.owner.post("/web/projects", { name: `h${++seq}` })).body.project;
    const seen: string[] = [];
    const db = env.database;
    const spy: Database = {
      ...db,
      all: (sql, args) => (seen.push(sql), db.all(sql, args)),
      get: (sql, args) => (seen.push(sql), db.get(sql, args)),
    };
    const today = Math.floor(Date.now() / DAY_MS);
    const [line] = await projectDays(spy, project.id, today, today);
    expect(line!.day).toBe(today);
    expect(seen).toContain(KEPT_HOUR_EVENTS[db.dialect]);
    expect(seen.filter((s) => /\b(FROM|JOIN) (resolutions|reports|report_results|trace_events)\b/.test(s))).toEqual([]);
    // SQLite's query plans (PostgreSQL plans its own way)
    if (db.dialect === "sqlite") {
      expect(queryPlan(db, KEPT_HOUR_EVENTS.sqlite, ["prj_x", 1]).join("\n")).toContain("(project_id=? AND hour=?)");
      expect(queryPlan(db, KEPT_HOUR_SPAN_SQL, ["prj_x", 1]).join("\n")).toContain("(project_id=? AND hour=?)");
    }
  });
});

// runs SQLite's migration file (PostgreSQL's databases start with the kept counts, migrations-pg/0001_triggers.sql)
describe.skipIf(process.env.TEST_DATABASE === "postgres")("migration 0012 fills the kept counts from the rows already written", () => {
  test("its backfill, run over this database's rows, gives the very rows the triggers kept (talent_days, trace_hours, resolution_hours)", async () => {
    const project = (await owner.owner.post("/web/projects", { name: `b${++seq}` })).body.project;
    const results = [
      { talent: "typescript-strict" as const, verdict: "fail" as const },
      { talent: "sql-base" as const, verdict: "pass" as const },
    ];
    await write(
      project.id,
      [
        [
          { talent: "typescript-strict", version: "1.0.0" },
          { talent: "sql-base", version: "1.1.0" },
        ],
        [{ talent: "sql-base", version: "1.0.0" }],
      ],
      [
        { designation: 0, daysAgo: 0, ms: 0 },
        { designation: 1, daysAgo: 2, ms: 9 },
        { designation: 0, daysAgo: 2, ms: 7 },
      ],
      [
        { type: "event", resolution: 0, kind: "validate", status: 200 },
        { type: "report", resolution: 2, late: 1, idRand: 1, results },
        { type: "report", resolution: 2, late: 1, idRand: 0, results },
      ],
    );
    const tables = ["talent_days", "trace_hours", "resolution_hours"];
    const all = async (t: string) =>
      (await env.database.client.execute(`SELECT * FROM ${t} ORDER BY 1, 2, 3, 4`)).rows.map((r) => JSON.stringify(r));
    const kept = await Promise.all(tables.map(all));
    expect(kept[0]!.length).toBeGreaterThanOrEqual(4);
    const m = migrations.find((x) => x.tag.startsWith("0012_"))!;
    const backfill = statementsOf(m).filter((st) => /^(--[^\n]*\n)*\s*(INSERT|UPDATE) /.test(st));
    expect(backfill).toHaveLength(5);
    await env.database.client.batch([...tables.map((t) => `DELETE FROM ${t}`), ...backfill], "write");
    expect(await Promise.all(tables.map(all))).toEqual(kept);
  });
});

describe("insights' unsettled resolutions are read in pages (no read holds the thread for a busy hour)", () => {
  test("the pages, keyed by (created_at, id) on resolutions_project_idx, return every resolution of the span once, ties included", async () => {
    const fresh = await orgWithProject(env);
    const second = (await fresh.owner.post("/web/projects", { name: "second" })).body.project;
    const at = Date.now() - 2 * 3_600_000;
    for (const p of [fresh.project.id, second.id]) {
      // 2.5 pages, many resolutions sharing a millisecond (the key's id breaks the ties), one just outside each end
      const n = Math.floor(OPEN_PAGE_ROWS * 2.5);
      const rows = Array.from({ length: n }, (_, i) => ({ at: at + Math.floor(i / 7) }));
      await env.database.client.batch(
        [
          ...rows.map((r, i) => ({
            sql: "INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?, ?, NULL, 1, 'c', 'key', 'k', 'api', ?, 'dsg_none')",
            args: [`res_${orderedId(r.at, 500_000 + i)}${p.slice(-4)}`, p, r.at],
          })),
          {
            sql: "INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?, ?, NULL, 1, 'c', 'key', 'k', 'api', ?, 'dsg_none')",
            args: [`res_before${p}`, p, at - 1],
          },
          {
            sql: "INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?, ?, NULL, 1, 'c', 'key', 'k', 'api', ?, 'dsg_none')",
            args: [`res_after${p}`, p, at + 1000],
          },
        ],
        "write",
      );
    }
    const got = (await openResolutions(env.database, fresh.org.id, at, at + 1000)).map((r) => r.id).sort();
    const want = (
      await env.database.all<{ id: string }>(
        "SELECT id FROM resolutions WHERE project_id IN (?, ?) AND created_at >= ? AND created_at < ?",
        [fresh.project.id, second.id, at, at + 1000],
      )
    )
      .map((r) => r.id)
      .sort();
    expect(want).toHaveLength(2 * Math.floor(OPEN_PAGE_ROWS * 2.5));
    expect(got).toEqual(want);
    if (env.database.dialect !== "sqlite") return; // SQLite's query plan (PostgreSQL plans its own way)
    const plan = queryPlan(env.database, OPEN_PAGE_SQL, ["p", 0, "x", 10]).join("\n");
    expect(plan).toContain("SEARCH r USING INDEX resolutions_project_idx (project_id=? AND (created_at,id)>(?,?) AND created_at<?)");
    expect(plan).not.toContain("TEMP B-TREE");
  });
});
