/**
 * No tenant can starve another: one user's heavy dashboard reads are capped at
 * DASHBOARD_READS_PER_USER in flight (src/activity/readCap.ts); the next answers 429 rate_limited
 * with Retry-After at once, while another user's read is served. The reads are held open by a
 * real write transaction that the journal's flush (every reader settles the journal first) waits on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config";
import { loopProject } from "./activity-support";
import { nextTurn, orgWithProject, testEnv, type TestEnv } from "./helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false", DASHBOARD_READS_PER_USER: "2" });
});
afterAll(() => env.close());

/** Holds the database's writer (a real write transaction) until released; resolves once it is held. */
async function holdWriter(): Promise<{ held: Promise<void>; release: () => void }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const holding = new Promise<void>((r) => (started = r));
  const held = env.database.write(async () => {
    started();
    await gate;
  });
  await holding;
  return { held, release };
}

describe("per-user cap on heavy dashboard reads (DASHBOARD_READS_PER_USER)", () => {
  test("the cap answers 429 rate_limited with Retry-After for the 3rd concurrent heavy read of one user (cap 2) while another user is served", async () => {
    const a = await loopProject(env);
    const b = await orgWithProject(env);
    const heavy = [
      `/web/projects/${a.project.id}/talents/typescript-strict/usage?days=90`,
      `/web/projects/${a.project.id}/traces/summary?days=90`,
      "/web/activity/summary?days=90",
      "/web/orgs/current/insights",
      "/web/orgs/current/talent-adoption",
    ];
    for (const third of heavy) {
      // a call waiting in the journal, and the writer held: every heavy read waits in its journal settle
      expect((await a.api("GET", "/api/doctor")).status).toBe(200);
      const { held, release } = await holdWriter();
      const first = [a.owner.get(heavy[0]!), a.owner.get(heavy[1]!)];
      for (let i = 0; i < 5; i++) await nextTurn();
      const other = b.owner.get(`/web/projects/${b.project.id}/traces/summary?days=90`);
      const refused = await a.owner.get(third);
      expect(`${third} → ${refused.status} ${refused.body.error}`).toBe(`${third} → 429 rate_limited`);
      expect(refused.res.headers.get("retry-after")).toBe("1");
      expect(refused.body).toMatchObject({ retryAfter: 1 });
      release();
      await held;
      expect((await other).status).toBe(200);
      for (const r of await Promise.all(first)) expect(r.status).toBe(200);
    }
    // the cap is released: one user's reads one after another are all served
    for (const path of heavy) expect((await a.owner.get(path)).status).toBe(200);
  });

  test("the page of a heavy read counts against the same cap (insights page → 429)", async () => {
    const a = await loopProject(env);
    expect((await a.api("GET", "/api/doctor")).status).toBe(200);
    const { held, release } = await holdWriter();
    const first = [a.owner.get(`/web/projects/${a.project.id}/traces/summary`), a.owner.get("/web/activity/summary")];
    for (let i = 0; i < 5; i++) await nextTurn();
    const page = await a.owner.call("GET", "/org/insights");
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBe("1");
    release();
    await held;
    for (const r of await Promise.all(first)) expect(r.status).toBe(200);
  });

  test("DASHBOARD_READS_PER_USER: default 2, 1–100, anything else refused at start", () => {
    expect(loadConfig({}).dashboardReadsPerUser).toBe(2);
    expect(loadConfig({ DASHBOARD_READS_PER_USER: "5" }).dashboardReadsPerUser).toBe(5);
    for (const bad of ["0", "101", "1.5", "x"]) expect(() => loadConfig({ DASHBOARD_READS_PER_USER: bad })).toThrow("DASHBOARD_READS_PER_USER");
  });
});
