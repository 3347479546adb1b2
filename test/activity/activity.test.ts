/**
 * Activity (docs/api.md "Activity, insights and adoption"): the traces summary of a project, one talent's use in
 * a project (from the counts kept per day in talent_days: test/activity/kept-counts.test.ts), and the
 * organization's activity per project — read from the journal, the
 * resolutions and the reports, never from counters kept beside them — with their query plans
 * (the 1,000,000-event figure rests on them) and every failure path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  ANY_EVENT_SQL,
  DAY_MS,
  dayOf,
  eachDay,
  eachSpan,
  forgetDays,
  HOUR_EVENTS_SQL,
  HOUR_MS,
  projectDays,
  SPAN_COUNTS_SQL,
  SPAN_ROWS,
  SPAN_VERDICTS_SQL,
} from "../../src/activity/daily";
import { FAILED_CALLS_ORG } from "../../src/activity/insights";
import { readWindow } from "../../src/activity/summaries";
import { AUDITED } from "../../src/activity/usage";
import { loopProject, publishedExpertise, seedTraceEvents, type SeedEvent } from "../activity-support";
import { joinedMember, queryPlan, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
});
afterAll(() => env.close());

const today = () => new Date().toISOString().slice(0, 10);
const setup = () => loopProject(env);
const seedEvents = (projectId: string, events: SeedEvent[]) => seedTraceEvents(env, projectId, events);

const plan = async (sql: string, args: unknown[]) => queryPlan(env.database, sql, args).join("\n");

// SQLite's query plans (EXPLAIN QUERY PLAN): PostgreSQL plans its own way
describe.skipIf(process.env.TEST_DATABASE === "postgres")(
  "query plans: the summary reads indexes only (the 1,000,000-event figure, docs/performance.md)",
  () => {
    test("one hour of a project's events: SEARCH USING COVERING INDEX trace_events_summary_idx (project_id=? AND <expr>=?), grouped by kind and client in index order — no temporary sort", async () => {
      const p = await plan(HOUR_EVENTS_SQL, ["prj_x", 480_000]);
      expect(p).toContain("USING COVERING INDEX trace_events_summary_idx (project_id=? AND <expr>=?)");
      expect(p).not.toContain("TEMP B-TREE");
      expect(await plan(ANY_EVENT_SQL, ["prj_x", 480_000, 480_023])).toContain(
        "USING COVERING INDEX trace_events_summary_idx (project_id=? AND <expr>>? AND <expr><?)",
      );
    });

    test("resolutions and reports of a period: covering (project_id, created_at) indexes; verdicts join the results by their primary key", async () => {
      const p = await plan(SPAN_COUNTS_SQL, ["prj_x", 0, DAY_MS]);
      expect(p).toContain("USING COVERING INDEX resolutions_project_idx (project_id=? AND created_at>? AND created_at<?)");
      expect(p).toContain("USING COVERING INDEX reports_project_created_idx (project_id=? AND created_at>? AND created_at<?)");
      const v = await plan(SPAN_VERDICTS_SQL, ["prj_x", 0, DAY_MS]);
      expect(v).toContain("reports_project_created_idx");
      expect(v).toContain("SEARCH rr USING INDEX sqlite_autoindex_report_results_1 (report_id=?)");
      expect(v).not.toContain("TEMP B-TREE");
    });

    test("insights' failed calls walk the partial index trace_events_failed_idx (failed calls only), never a project's successful ones", async () => {
      const p = await plan(FAILED_CALLS_ORG.sqlite, ["org_x", 0, DAY_MS]);
      expect(p).toContain("USING INDEX trace_events_failed_idx (project_id=? AND created_at>? AND created_at<?)");
    });

    test("'audited' (the playbook of a resolution was fetched) is answered by the partial index trace_events_resolution_idx alone", async () => {
      const p = await plan(`SELECT count(*) FROM resolutions r WHERE r.project_id = ? AND r.created_at >= ? AND ${AUDITED}`, ["prj_x", 0]);
      expect(p).toContain("USING COVERING INDEX resolutions_project_idx (project_id=? AND created_at>?)");
      expect(p).toContain("USING COVERING INDEX trace_events_resolution_idx (resolution_id=? AND kind=? AND status>? AND status<?)");
    });
  },
);

describe("GET /web/projects/:id/traces/summary?days= (any member): counts per day by kind and by client, resolutions, reports, verdicts", () => {
  test("the agent loop's calls, counted from the journal and the reports: totals and today's line agree; a failed call counts as failed", async () => {
    const s = await setup();
    const r1 = await s.prepare(["typescript-strict"]);
    await s.prepare(["typescript-strict", "javascript-base"]);
    expect((await s.api("POST", "/api/prepare-task", { talentIds: ["nope"] })).status).toBe(400);
    expect((await s.api("GET", `/api/validation/playbook?resolutionId=${r1}`)).status).toBe(200);
    expect((await s.report(r1, "s1", "fail")).status).toBe(201);
    expect((await s.report(r1, "s2", "pass")).status).toBe(201);
    expect((await s.api("GET", "/api/doctor", undefined, "ci-bot/2")).status).toBe(200);

    const r = await s.owner.get(`/web/projects/${s.project.id}/traces/summary`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ projectId: s.project.id, days: 30, retentionDays: 90 });
    const expected = {
      events: 8, // the web install, then seven key calls
      failed: 1,
      byKind: { doctor: 1, install: 1, prepare_task: 3, record_validation: 2, validate: 1 },
      byClient: { "agent-a/1.0": 6, "ci-bot/2": 1, "": 1 },
      otherClients: 0,
      resolutions: 2,
      reports: 2,
      verdicts: { pass: 1, fail: 1, not_applicable: 0 },
    };
    expect(r.body.totals).toEqual({ ...expected, clients: 3 });
    expect(r.body.byDay).toHaveLength(30);
    expect(r.body.byDay.at(-1)).toEqual({ date: today(), ...expected });
    expect(r.body.byDay[0].events).toBe(0);
    expect(Date.parse(r.body.from)).toBe((dayOf(Date.now()) - 29) * DAY_MS);
  });

  test("days=1 is today only; days=90 reaches a past day's events; events before the window are not counted", async () => {
    const s = await setup();
    const now = Date.now();
    await seedEvents(s.project.id, [{ at: now - 3 * DAY_MS }, { at: now - 3 * DAY_MS, kind: "search" }, { at: now - 40 * DAY_MS }]);
    const one = await s.owner.get(`/web/projects/${s.project.id}/traces/summary?days=1`);
    expect(one.body.byDay).toHaveLength(1);
    expect(one.body.totals.events).toBe(1); // the web install of today
    const thirty = await s.owner.get(`/web/projects/${s.project.id}/traces/summary`);
    expect(thirty.body.totals.events).toBe(3);
    const line = thirty.body.byDay.find((d: { date: string }) => d.date === new Date(now - 3 * DAY_MS).toISOString().slice(0, 10));
    expect(line).toMatchObject({ events: 2, byKind: { doctor: 1, search: 1 }, byClient: { "seed/1": 2 } });
    const ninety = await s.owner.get(`/web/projects/${s.project.id}/traces/summary?days=90`);
    expect(ninety.body.totals.events).toBe(4);
    expect(ninety.body.byDay).toHaveLength(90);
  });

  // the settled periods are kept on SQLite only: on PostgreSQL another replica's retention purge
  // could not reach this process's memo, so every period is read again there (design.md "Several replicas")
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "a day that is over is read once (its counts cannot change: events are written within 250 ms of their call); today is read on every call",
    async () => {
      const s = await setup();
      const now = Date.now();
      await seedEvents(s.project.id, [{ at: now - 2 * DAY_MS }]);
      expect((await s.owner.get(`/web/projects/${s.project.id}/traces/summary`)).body.totals.events).toBe(2);
      // rows written behind the journal's back into a settled day are not seen until the memo is dropped…
      await seedEvents(s.project.id, [{ at: now - 2 * DAY_MS }]);
      expect((await s.owner.get(`/web/projects/${s.project.id}/traces/summary`)).body.totals.events).toBe(2);
      forgetDays(env.database);
      expect((await s.owner.get(`/web/projects/${s.project.id}/traces/summary`)).body.totals.events).toBe(3);
      // …while today's calls always are
      await s.api("GET", "/api/doctor");
      expect((await s.owner.get(`/web/projects/${s.project.id}/traces/summary`)).body.totals.events).toBe(4);
    },
  );

  // the settled periods are kept on SQLite only: on PostgreSQL another replica's retention purge
  // could not reach this process's memo, so every period is read again there (design.md "Several replicas")
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "today is read hour by hour: an hour that is over (plus 5 minutes) is read once, the current hour on every call",
    async () => {
      const s = await setup();
      const now = Date.UTC(2026, 0, 10, 12, 30); // a fixed "now": 12:30 UTC
      const day = dayOf(now);
      await seedEvents(s.project.id, [{ at: Date.UTC(2026, 0, 10, 10, 15) }, { at: Date.UTC(2026, 0, 10, 12, 10) }]);
      const count = async () => (await projectDays(env.database, s.project.id, day, day, now))[0]!.groups.reduce((n, g) => n + g.events, 0);
      expect(await count()).toBe(2);
      await seedEvents(s.project.id, [{ at: Date.UTC(2026, 0, 10, 10, 20) }, { at: Date.UTC(2026, 0, 10, 12, 20) }]);
      expect(await count()).toBe(3); // 10:00–11:00 was read once; 12:00– is read again
      forgetDays(env.database);
      expect(await count()).toBe(4);
      expect(HOUR_MS * 24).toBe(DAY_MS);
    },
  );

  test(`clients beyond the ten most active are summed as otherClients; "" counts calls that named no client`, async () => {
    const s = await setup();
    const at = Date.now() - 5 * DAY_MS;
    const events = [];
    for (let c = 0; c < 12; c++) for (let i = 0; i <= c; i++) events.push({ at, client: `tool-${String(c).padStart(2, "0")}` });
    events.push({ at, client: null });
    await seedEvents(s.project.id, events);
    const r = await s.owner.get(`/web/projects/${s.project.id}/traces/summary`);
    expect(Object.keys(r.body.totals.byClient)).toHaveLength(10);
    expect(r.body.totals.byClient["tool-11"]).toBe(12);
    expect(r.body.totals.byClient["tool-00"]).toBeUndefined();
    expect(r.body.totals.otherClients).toBe(1 + 2 + 2); // tool-00, tool-01, and the two calls without a client (the seed's and the web install's)
    expect(r.body.totals.clients).toBe(13);
  });

  test("long windows are walked a day at a time (yielding between days) once a read would walk more than SPAN_ROWS rows; small ones in one piece", async () => {
    const spans: [number, number][] = [];
    await eachSpan(100, 102, SPAN_ROWS, async (from, to) => void spans.push([from, to]));
    expect(spans).toEqual([[100 * DAY_MS, 103 * DAY_MS]]);
    spans.length = 0;
    await eachSpan(100, 102, SPAN_ROWS + 1, async (from, to) => void spans.push([from, to]));
    expect(spans).toEqual([
      [100 * DAY_MS, 101 * DAY_MS],
      [101 * DAY_MS, 102 * DAY_MS],
      [102 * DAY_MS, 103 * DAY_MS],
    ]);
    const seen: number[] = [];
    await eachDay(100, 109, async (_f, _t, day) => void seen.push(day), { newestFirst: true, stop: () => seen.length >= 3 });
    expect(seen).toEqual([109, 108, 107]);
  });

  test("the window: 1–90 days, default 30, cut to EVENT_RETENTION_DAYS when that is shorter (the answer says so)", () => {
    const now = Date.UTC(2026, 10, 23, 12);
    expect(readWindow({}, 90, now)).toMatchObject({ days: 30, fromDay: dayOf(now) - 29, toDay: dayOf(now) });
    expect(readWindow({ days: "90" }, 7, now)).toMatchObject({ days: 7, retentionDays: 7 });
    expect(readWindow({ days: "90" }, 0, now)).toMatchObject({ days: 90, retentionDays: 0 });
    expect(readWindow({ days: "1" }, 90, now).from).toBe(Date.UTC(2026, 10, 23));
  });
});

describe("GET /web/projects/:id/talents/<talentId>/usage?days= (any member): designated, audited, verdicts, versions served, last use", () => {
  test("a talent designated twice, audited once, with a fail then a pass on the same resolution: outcomes count the latest verdict", async () => {
    const s = await setup();
    const r1 = await s.prepare(["typescript-strict"]);
    await s.prepare(["typescript-strict", "javascript-base"]);
    await s.api("GET", `/api/validation/playbook?resolutionId=${r1}&talent=typescript-strict`);
    await s.api("GET", "/api/validation/playbook?resolutionId=res_unknown"); // a 404 playbook call audits nothing
    await s.report(r1, "u1", "fail");
    await s.report(r1, "u2", "pass");
    const r = await s.owner.get(`/web/projects/${s.project.id}/talents/typescript-strict/usage`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      projectId: s.project.id,
      talentId: "typescript-strict",
      kind: "talent",
      days: 30,
      installed: { state: "active" },
      designated: 2,
      audited: 1,
      auditRate: 0.5,
      withVerdict: 1,
      verdictRate: 0.5,
      verdicts: { pass: 1, fail: 1, not_applicable: 0 },
      outcomes: { pass: 1, fail: 0, not_applicable: 0 },
      latestVersion: env.state.catalog!.get("typescript-strict")!.version,
      lastVerdict: { verdict: "pass", resolutionId: r1 },
    });
    expect(r.body.versions).toEqual([
      expect.objectContaining({ version: env.state.catalog!.get("typescript-strict")!.version, latest: true, designated: 2, audited: 1 }),
    ]);
    expect(Date.now() - Date.parse(r.body.lastUsedAt)).toBeLessThan(60_000);
    expect(r.body.byDay.at(-1)).toEqual({ date: today(), designated: 2, audited: 1 });
    const other = await s.owner.get(`/web/projects/${s.project.id}/talents/javascript-base/usage?days=7`);
    expect(other.body).toMatchObject({ designated: 1, audited: 0, withVerdict: 0, verdictRate: 0, days: 7 });
    expect(other.body.byDay).toHaveLength(7);
  });

  test("a catalog talent this project never used → 200 with zeros and state not_installed; an unknown id → 404; a path without /usage → 404", async () => {
    const s = await setup();
    const never = await s.owner.get(`/web/projects/${s.project.id}/talents/sql-base/usage`);
    expect(never.status).toBe(200);
    expect(never.body).toMatchObject({
      installed: { state: "not_installed", installedAt: null },
      designated: 0,
      auditRate: null,
      lastUsedAt: null,
      lastVerdict: null,
      versions: [],
    });
    for (const path of [
      "talents/no-such-talent/usage",
      "talents/%40nobody%2Fx/usage",
      "talents/@nobody/x/usage",
      "talents/typescript-strict",
      "talents/typescript-strict/usage/more",
      "talents//usage",
      "talents/usage",
    ]) {
      const r = await s.owner.get(`/web/projects/${s.project.id}/${path}`);
      expect(`${path} → ${r.status} ${r.body.error}`).toBe(`${path} → 404 not_found`);
    }
  });

  test("an expertise ref @org/slug, raw or percent-encoded, names the expertise; its usage carries the expertise id", async () => {
    const s = await setup();
    const { id, ref } = await publishedExpertise(s.owner, s.org.slug, "billing");
    await s.api("PATCH", "/api/projects/current/talents", { talent: ref });
    const rid = await s.prepare([ref, "typescript-strict"]);
    await s.api("GET", `/api/validation/playbook?resolutionId=${rid}`);
    expect(
      (
        await s.api("POST", "/api/validation/reports", {
          submissionId: "e1",
          resolutionId: rid,
          expertiseResults: [{ id: ref, verdict: "fail", missing: ["idempotency key"] }],
        })
      ).status,
    ).toBe(201);
    for (const path of [`talents/${ref}/usage`, `talents/${encodeURIComponent(ref)}/usage`]) {
      const r = await s.owner.get(`/web/projects/${s.project.id}/${path}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        talentId: ref,
        kind: "expertise",
        expertiseId: id,
        designated: 1,
        audited: 1,
        latestVersion: "1",
        outcomes: { fail: 1 },
        installed: { state: "active" },
      });
      expect(r.body.versions).toEqual([expect.objectContaining({ version: "1", latest: true })]);
    }
  });
});

describe("GET /web/activity/summary?days= (any member): the same per project for the organization", () => {
  test("each project's totals and days, and the organization's totals as their sum; the busiest project first", async () => {
    const s = await setup();
    const second = (await s.owner.post("/web/projects", { name: "quiet" })).body.project;
    await s.prepare(["typescript-strict"]);
    await s.api("GET", "/api/doctor");
    await seedEvents(second.id, [{ at: Date.now() - DAY_MS, kind: "catalog" }]);
    const member = await joinedMember(env, s.owner);
    const r = await member.get("/web/activity/summary?days=7");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ organizationId: s.org.id, days: 7 });
    expect(r.body.projects.map((p: { id: string }) => p.id)).toEqual([s.project.id, second.id]);
    const [busy, quiet] = r.body.projects;
    expect(busy.totals).toMatchObject({ events: 3, resolutions: 1, byKind: { install: 1, prepare_task: 1, doctor: 1 } });
    expect(quiet.totals).toMatchObject({ events: 1, resolutions: 0, byKind: { catalog: 1 } });
    expect(quiet.byDay).toHaveLength(7);
    expect(quiet.byDay.at(-2)).toMatchObject({ events: 1 });
    expect(r.body.totals).toMatchObject({
      events: 4,
      resolutions: 1,
      projects: 2,
      byKind: { install: 1, prepare_task: 1, doctor: 1, catalog: 1 },
    });
    expect(r.body.byDay.at(-1)).toMatchObject({ date: today(), events: 3, resolutions: 1 });
  });
});

describe("failure paths of the activity routes (organization rule 1; docs/design.md 'One error model')", () => {
  const routes = (p: string) => [
    `/web/projects/${p}/traces/summary`,
    `/web/projects/${p}/talents/typescript-strict/usage`,
    "/web/activity/summary",
    "/web/orgs/current/insights",
    "/web/orgs/current/talent-adoption",
  ];

  test("no session → 401 unauthenticated, whatever the query", async () => {
    const s = await setup();
    const anonymous = new WebClient(env);
    for (const path of routes(s.project.id)) {
      const r = await anonymous.get(`${path}?days=abc`);
      expect(`${path} → ${r.status} ${r.body.error}`).toBe(`${path} → 401 unauthenticated`);
    }
  });

  test("a pending organization → 403 organization_not_approved", async () => {
    const u = await signedUp(env);
    await u.post("/web/orgs", { name: "Waiting" });
    for (const path of routes("prj_x")) {
      const r = await u.get(path);
      expect(`${path} → ${r.status} ${r.body.error}`).toBe(`${path} → 403 organization_not_approved`);
    }
  });

  test("days=0, 91, 1.5, -1, abc, 1e1 → 400 validation_failed with issues naming days", async () => {
    const s = await setup();
    for (const path of routes(s.project.id)) {
      for (const q of ["0", "91", "1.5", "-1", "abc", "1e1"]) {
        const r = await s.owner.get(`${path}?days=${q}`);
        expect(`${path}?days=${q} → ${r.status} ${r.body.error}`).toBe(`${path}?days=${q} → 400 validation_failed`);
        expect(r.body.issues).toEqual([{ path: "days", message: "must be a whole number from 1 to 90" }]);
      }
    }
  });

  test("an unknown project → 404 not_found", async () => {
    const s = await setup();
    for (const path of routes("prj_nope").slice(0, 2)) {
      const r = await s.owner.get(path);
      expect(`${path} → ${r.status} ${r.body.error}`).toBe(`${path} → 404 not_found`);
    }
  });
});
