/**
 * No tenant can starve another: one user's heavy dashboard reads are capped at
 * DASHBOARD_READS_PER_USER running and QUEUE_MAX waiting (src/activity/readCap.ts); the next
 * answers 429 rate_limited with Retry-After at once, while another user's read is served. The
 * reads are held open by a real write transaction that the journal's flush (every reader settles
 * the journal first) waits on. A user's reads also get only a share of the thread's time, but only
 * while another request or another user wants the thread (a lone user is not slowed).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dashboardReadCap, DEFAULT_LIMITS, ReadCap } from "../../src/activity/readCap";
import { AppError } from "../../src/http/errors";
import { loadConfig } from "../../src/config";
import { loopProject } from "../activity-support";
import { nextTurn, orgWithProject, testEnv, type TestEnv } from "../helpers";

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

/** Waits (a turn at a time, at most 10 s: a loaded machine starts the requests slowly) until the user has 2 reads running and QUEUE_MAX waiting. */
async function capFull(userId: string): Promise<void> {
  const cap = dashboardReadCap(env.database, 2);
  const until = performance.now() + 10_000;
  while (performance.now() < until) {
    const p = cap.pending(userId);
    if (p.running === 2 && p.waiting === DEFAULT_LIMITS.queueMax) return;
    await Bun.sleep(1);
  }
  throw new Error(`cap not full: ${JSON.stringify(cap.pending(userId))}`);
}

describe("per-user cap on heavy dashboard reads (DASHBOARD_READS_PER_USER)", () => {
  test("the cap answers 429 rate_limited with Retry-After for the heavy read beyond 2 running and QUEUE_MAX waiting of one user, while another user is served", async () => {
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
      // the writer held, then a call waiting in the journal (held first, so the journal's own
      // flush cannot write it in between): every heavy read waits in its journal settle
      const { held, release } = await holdWriter();
      expect((await a.api("GET", "/api/doctor")).status).toBe(200);
      const first = [a.owner.get(heavy[0]!), a.owner.get(heavy[1]!)];
      for (let i = 0; i < 5; i++) await nextTurn();
      for (let i = 0; i < DEFAULT_LIMITS.queueMax; i++) first.push(a.owner.get(heavy[i % heavy.length]!)); // these wait their turn
      await capFull(a.owner.userId);
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
    for (let i = 0; i < DEFAULT_LIMITS.queueMax; i++) first.push(a.owner.get("/web/activity/summary"));
    await capFull(a.owner.userId);
    const page = await a.owner.call("GET", "/org/insights");
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBe("1");
    release();
    await held;
    for (const r of await Promise.all(first)) expect(r.status).toBe(200);
  });

  const limits = { perUser: 2, share: 0.1, burstMs: 50, waitMs: 200, queueMax: 2, quietMs: 1_000 };
  /** A read that keeps this thread busy `ms` of its CPU time (as the cap counts it), in 5 ms slices (other reads run between them). */
  const busy = async (ms: number) => {
    const cpu = () => {
      const u = (process as unknown as { threadCpuUsage(): NodeJS.CpuUsage }).threadCpuUsage();
      return (u.user + u.system) / 1000;
    };
    for (let used = 0; used < ms; await Bun.sleep(0)) {
      const from = cpu();
      for (const slice = from + Math.min(5, ms - used); cpu() < slice; );
      used += cpu() - from; // its own slices only: the other reads' run between them
    }
  };
  const slow = () => busy(150); // ~150 ms owed: ~100 over the burst, repaid in ~1 s at a tenth
  const otherTenant = () => new Request("http://talentd.test/api/doctor");

  test("a lone user is not slowed: past the burst, with no other request answered lately and no other user's read, its next read runs at once", async () => {
    const cap = new ReadCap({ ...limits, waitMs: 2_000 });
    await cap.run("u1", undefined, slow);
    expect(cap.debt("u1")).toBeGreaterThan(limits.burstMs);
    const t = performance.now();
    expect(await cap.run("u1", undefined, async () => "served")).toBe("served");
    expect(performance.now() - t).toBeLessThan(250); // under contention it would wait ~1 s (the next test)
  });

  test("under contention (another request answered within quietMs) a user's reads get a share of the thread's time: past the burst, the next read waits until the debt is repaid (429 when that is longer than the wait), another user's read runs at once", async () => {
    const short = new ReadCap(limits);
    await short.run("u1", undefined, slow);
    short.answered(otherTenant());
    let t = performance.now();
    const refused = await short.run("u1", undefined, async () => "read").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("rate_limited");
    expect(performance.now() - t).toBeGreaterThanOrEqual(190); // it waited its WAIT_MS first
    t = performance.now();
    expect(await short.run("u2", undefined, async () => "other")).toBe("other");
    expect(performance.now() - t).toBeLessThan(100);

    const patient = new ReadCap({ ...limits, waitMs: 2_000 });
    await patient.run("u1", undefined, slow);
    patient.answered(otherTenant());
    t = performance.now();
    expect(await patient.run("u1", undefined, async () => "served")).toBe("served");
    expect(performance.now() - t).toBeGreaterThanOrEqual(350); // ~1 s less the time since the slow read ended
  });

  test("a heavy read's own answer is no contention: only another request marks the thread contended", async () => {
    const cap = new ReadCap({ ...limits, waitMs: 2_000 });
    const mine = new Request("http://talentd.test/org/insights");
    await cap.run("u1", mine, slow);
    cap.answered(mine);
    let t = performance.now();
    await cap.run("u1", undefined, async () => "served");
    expect(performance.now() - t).toBeLessThan(250);
    cap.answered(otherTenant());
    t = performance.now();
    await cap.run("u1", undefined, async () => "served");
    expect(performance.now() - t).toBeGreaterThanOrEqual(300);
  });

  test("probes, the metrics scrape and the pages' assets are no contention: a lone user past the burst is not slowed by a load balancer's /healthz", async () => {
    const cap = new ReadCap({ ...limits, waitMs: 2_000 });
    await cap.run("u1", undefined, slow);
    for (const [path, route] of [
      ["/healthz", "/healthz"],
      ["/readyz", "/readyz"],
      ["/metrics", "/metrics"],
      ["/healthz?x=1", "/healthz"],
      ["/assets/htmx.min.js", "/assets/*"],
    ])
      cap.answered(new Request(`http://talentd.test${path}`), route);
    let t = performance.now();
    await cap.run("u1", undefined, async () => "served");
    expect(performance.now() - t).toBeLessThan(250);
    cap.answered(new Request("http://talentd.test/healthzz"), undefined); // not a probe: no route matched it
    t = performance.now();
    await cap.run("u1", undefined, async () => "served");
    expect(performance.now() - t).toBeGreaterThanOrEqual(300);
  });

  test("two users share: past the burst, a user waits while another user owing less has a read running, and runs as soon as it is alone (not when its debt is repaid)", async () => {
    const cap = new ReadCap({ ...limits, waitMs: 2_000 });
    await cap.run("u1", undefined, slow); // u1 owes ~150 ms, u2 nothing
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const other = cap.run("u2", undefined, () => gate);
    const t = performance.now();
    let startedAt = -1;
    const mine = cap.run("u1", undefined, async () => void (startedAt = performance.now() - t));
    await Bun.sleep(150);
    expect(startedAt).toBe(-1); // waiting its turn while u2's read runs
    open();
    await Promise.all([other, mine]);
    expect(startedAt).toBeGreaterThanOrEqual(140);
    expect(startedAt).toBeLessThan(600); // released with u2's read, not ~1 s later when repaid
  });

  test("a read owes the thread's CPU time, not the wall time: a read that waits 300 ms on something else owes next to nothing", async () => {
    const cap = new ReadCap(limits);
    await cap.run("u1", undefined, () => Bun.sleep(300));
    expect(cap.debt("u1")).toBeLessThan(limits.burstMs);
  });

  test("while k users have reads running each owes 1/k of the thread's time: two users' reads of 150 ms CPU each, side by side, cost each ~150 ms, not the ~300 ms the pair took", async () => {
    const cap = new ReadCap({ ...limits, burstMs: 1_000 });
    const t = performance.now();
    await Promise.all([cap.run("u1", undefined, () => busy(150)), cap.run("u2", undefined, () => busy(150))]);
    const repaid = (performance.now() - t) * limits.share;
    for (const u of ["u1", "u2"]) {
      const owed = cap.debt(u) + repaid; // charged: ~150 ms each; both charged their whole time: ~300
      expect(owed).toBeGreaterThan(100);
      expect(owed).toBeLessThan(225);
    }
  });

  test("the edge tells the app's cap of each answered request: a key call marks the thread contended, a heavy read does not", async () => {
    const a = await loopProject(env);
    const cap = dashboardReadCap(env.database, 2);
    const settled = () => Bun.sleep(20); // the edge tells it after the answer is sent
    expect((await a.owner.get("/web/activity/summary")).status).toBe(200);
    await settled();
    const quietBefore = cap.quietFor();
    expect((await a.owner.get("/web/activity/summary")).status).toBe(200);
    await settled();
    expect(cap.quietFor()).toBeGreaterThan(quietBefore + 15); // the heavy read did not reset it (20 ms later)
    const quietProbes = cap.quietFor();
    expect((await env.request("/healthz")).status).toBe(200);
    expect((await env.request("/assets/htmx.min.js")).status).toBe(200);
    await settled();
    expect(cap.quietFor()).toBeGreaterThan(quietProbes + 15); // nor did a probe or an asset (their routes)
    const t = performance.now();
    expect((await a.api("GET", "/api/doctor")).status).toBe(200);
    await settled();
    expect(cap.quietFor()).toBeLessThanOrEqual(performance.now() - t); // answered after t
  });

  test("DASHBOARD_READS_PER_USER: default 2, 1–100, anything else refused at start", () => {
    expect(loadConfig({}).dashboardReadsPerUser).toBe(2);
    expect(loadConfig({ DASHBOARD_READS_PER_USER: "5" }).dashboardReadsPerUser).toBe(5);
    for (const bad of ["0", "101", "1.5", "x"])
      expect(() => loadConfig({ DASHBOARD_READS_PER_USER: bad })).toThrow("DASHBOARD_READS_PER_USER");
  });
});
