/**
 * One tenant's traces must not slow everyone. A page of a project's trace events
 * is read by keyset on an index that matches its order (project_id, id): no request sorts or
 * scans a project's whole history. Paging through a project returns each of its events once,
 * in call order, newest first, and nothing of another project.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TRACE_PAGE_SQL } from "../../src/journal/journal";
import { orderedId } from "../../src/lib/ids";
import { orgWithProject, queryPlan, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
});
afterAll(() => env.close());

/** Inserts `n` events for a project directly (one per millisecond from `t0`); returns their ids. */
async function seed(projectId: string, n: number, t0: number): Promise<string[]> {
  const ids: string[] = [];
  const stmts = [];
  for (let i = 0; i < n; i++) {
    const id = `trc_${orderedId(t0 + i, i)}`;
    ids.push(id);
    stmts.push({
      sql: `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
            VALUES (?, ?, 'doctor', 'api', 'key', 'key_x', 'ci', NULL, '[]', '[]', NULL, 200, 1, NULL, ?)`,
      args: [id, projectId, t0 + i],
    });
  }
  await env.database.client.batch(stmts, "write");
  return ids;
}

describe("trace pages by keyset", () => {
  // SQLite's query plan (PostgreSQL plans its own way)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "the page query walks the (project_id, id) index: no temporary sort, no scan of the project's history",
    async () => {
      const plan = queryPlan(env.database, TRACE_PAGE_SQL, ["prj_x", "trc_z", 50]);
      expect(plan.join("\n")).toContain("USING INDEX trace_events_project_id_idx (project_id=? AND id<?)");
      expect(plan.join("\n")).not.toContain("TEMP B-TREE");
    },
  );

  test("GET /web/projects/:id/traces pages through 250 events in pages of 60: each once, newest first, none of another project", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const idsA = await seed(a.project.id, 250, 1_700_000_000_000);
    await seed(b.project.id, 100, 1_700_000_000_100); // interleaved in time with A's
    const seen: string[] = [];
    let before: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const r = await a.owner.get(`/web/projects/${a.project.id}/traces?limit=60${before ? `&before=${before}` : ""}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.events.map((e: { id: string }) => e.id));
      before = r.body.nextBefore;
      if (!before) break;
    }
    expect(seen).toEqual([...idsA].reverse());
  });
});

describe("paging parameters: one set of readers, 400 validation_failed for anything else", () => {
  const bad = [
    "limit=1.5",
    "limit=0",
    "limit=-3",
    "limit=abc",
    "limit=1e2",
    "limit=201",
    "before=abc",
    "before=trc_short",
    "limit=&before=%00",
  ];
  test("GET /web/projects/:id/traces with " + bad.join(", ") + " → 400 naming the parameter", async () => {
    const a = await orgWithProject(env);
    for (const q of bad) {
      const r = await a.owner.get(`/web/projects/${a.project.id}/traces?${q}`);
      expect({ q, status: r.status, error: r.body.error }).toEqual({ q, status: 400, error: "validation_failed" });
      expect(["limit", "before"]).toContain(r.body.issues[0].path);
    }
  });
  test("GET /web/admin/security-events with limit=1.5, limit=501, before=abc, before=1.5 → 400; before=<a createdAt> pages", async () => {
    const { makePlatformAdmin, signedUp } = await import("../helpers");
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    for (const q of ["limit=1.5", "limit=501", "limit=0", "before=abc", "before=1.5", "before=-1"]) {
      const r = await admin.get(`/web/admin/security-events?${q}`);
      expect({ q, status: r.status, error: r.body.error }).toEqual({ q, status: 400, error: "validation_failed" });
    }
    const first = await admin.get("/web/admin/security-events?limit=1");
    expect(first.status).toBe(200);
    const next = await admin.get(`/web/admin/security-events?limit=1&before=${first.body.nextBefore}`);
    expect(next.status).toBe(200);
  });
});

describe("retention: EVENT_RETENTION_DAYS (default 90) applied by housekeeping", () => {
  test("trace and security events (and reported findings' days, served and audited per client) older than the retention go, in batches; newer ones stay; 0 keeps everything", async () => {
    const { purgeOldEvents, RETENTION_BATCH } = await import("../../src/ops/housekeeping");
    const { loadConfig } = await import("../../src/config");
    expect(loadConfig({}).eventRetentionDays).toBe(90);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: "1.5" })).toThrow("EVENT_RETENTION_DAYS");
    const day = 24 * 3600 * 1000;
    const now = Date.now();
    const a = await orgWithProject(env);
    const old = await seed(a.project.id, RETENTION_BATCH + 500, now - 100 * day); // more than one batch
    const recent = await seed(a.project.id, 30, now - 10 * day);
    await env.database.client.batch(
      [
        { sql: "INSERT INTO security_events (id, kind, created_at) VALUES ('sev_old', 'sign_in.failure', ?)", args: [now - 91 * day] },
        { sql: "INSERT INTO security_events (id, kind, created_at) VALUES ('sev_new', 'sign_in.failure', ?)", args: [now - 89 * day] },
        ...[100, 10].map((ago) => ({
          sql: "INSERT INTO rule_finding_days (project_id, day, talent_id, rule_id, client, served, findings, reports) VALUES (?, ?, 'typescript-strict', 'TS-002', '', 1, 3, 1)",
          args: [a.project.id, Math.floor((now - ago * day) / day)],
        })),
        ...[100, 10].map((ago) => ({
          sql: "INSERT INTO talent_client_days (project_id, day, talent_id, client, served, audited) VALUES (?, ?, 'typescript-strict', 'Claude Code', 2, 1)",
          args: [a.project.id, Math.floor((now - ago * day) / day)],
        })),
      ],
      "write",
    );
    expect(await purgeOldEvents(env.database, 0, now)).toEqual({ traceEvents: 0, securityEvents: 0, auditEntries: 0 });
    const older = Number(
      (await env.database.get<{ n: number }>("SELECT count(*) AS n FROM trace_events WHERE created_at < ?", [now - 90 * day]))!.n,
    );
    expect(older).toBeGreaterThanOrEqual(old.length); // the earlier tests' events (2023) are older too
    const gone = await purgeOldEvents(env.database, 90, now);
    expect(gone.traceEvents).toBe(older);
    expect(gone.securityEvents).toBeGreaterThanOrEqual(1);
    const left = (
      await env.database.all<{ id: string }>("SELECT id FROM trace_events WHERE project_id = ? ORDER BY id", [a.project.id])
    ).map((r) => r.id);
    expect(left).toEqual(recent);
    const sec = (await env.database.all<{ id: string }>("SELECT id FROM security_events WHERE id IN ('sev_old', 'sev_new')")).map(
      (r) => r.id,
    );
    expect(sec).toEqual(["sev_new"]);
    // the reported findings' days before the cut go with the events
    const findingDays = await env.database.all<{ day: number }>("SELECT day FROM rule_finding_days WHERE project_id = ?", [a.project.id]);
    expect(findingDays.map((r) => Number(r.day))).toEqual([Math.floor((now - 10 * day) / day)]);
    const clientDays = await env.database.all<{ day: number }>("SELECT day FROM talent_client_days WHERE project_id = ?", [a.project.id]);
    expect(clientDays.map((r) => Number(r.day))).toEqual([Math.floor((now - 10 * day) / day)]);
  }, 30_000);

  test("the purge invalidates what it deleted, whoever calls it (here its function, as housekeeping does, no route): the settled day counts and the insights' kept days read again", async () => {
    const { purgeOldEvents } = await import("../../src/ops/housekeeping");
    const { DAY_MS, dayOf, projectDays } = await import("../../src/activity/daily");
    const { foldWindow } = await import("../../src/journal/dayMemo");
    const now = Date.now();
    const a = await orgWithProject(env);
    await seed(a.project.id, 3, now - 5 * DAY_MS);
    const [fromDay, toDay] = [dayOf(now) - 7, dayOf(now)];
    const days = async () =>
      (await projectDays(env.database, a.project.id, fromDay, toDay, now)).reduce(
        (n, d) => n + d.groups.reduce((m, g) => m + g.events, 0),
        0,
      );
    const COUNT = {
      init: () => ({ n: 0 }),
      add: (acc: { n: number }, v: number) => void (acc.n += v),
      copy: (acc: { n: number }) => ({ ...acc }),
    };
    const events = (from: number, to: number) =>
      env.database
        .get<{ n: number }>("SELECT count(*) AS n FROM trace_events WHERE project_id = ? AND created_at >= ? AND created_at < ?", [
          a.project.id,
          from,
          to,
        ])
        .then((r) => Number(r!.n));
    const folded = async () => (await foldWindow(env.database, `purge|${a.project.id}`, fromDay, toDay, events, COUNT, { now })).n;
    expect(await days()).toBe(3);
    expect(await folded()).toBe(3);
    expect((await purgeOldEvents(env.database, 3, now)).traceEvents).toBeGreaterThanOrEqual(3);
    expect(await days()).toBe(0);
    expect(await folded()).toBe(0);
  });
});
