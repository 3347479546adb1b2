/**
 * Several replicas on one PostgreSQL database (docs/design.md "Several replicas: what is shared"):
 * two apps in this process, each with its own database handle, clock, signer and limiters, on one
 * real database — the same key set, a receipt of one verified by the other, a sign-in limit counted
 * across both, a revoked key refused and a published expertise served by the other within 2 s
 * (the delays printed), the polling fallback when the LISTEN connection is dropped; then two
 * spawned `talentd serve` processes: exactly one leads, and when it is killed the other takes over.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { compactVerify, createLocalJWKSet } from "jose";
import type { PgDatabaseHandle } from "../../src/db/pgClient";
import { alwaysLeader, LEADER_LOCK, pgLeadership } from "../../src/db/leader";
import { issueSetupToken } from "../../src/identity/service";
import { createLogger } from "../../src/lib/log";
import { startHousekeeping } from "../../src/ops/housekeeping";
import { runWhileLeader } from "../../src/ops/leaderJobs";
import {
  BUN,
  createKey,
  expertiseMd,
  orgWithProject,
  publishedExpertise,
  ROOT,
  signedUp,
  tempDir,
  testEnv,
  WebClient,
  withKey,
  type TestEnv,
} from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { freePort, waitReady } from "../proc";

const skip = pgUnavailable();
const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/** p50 and p99 of `ms`, rounded to 0.1 ms. */
function percentiles(ms: number[]): { p50: number; p99: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 10) / 10;
  return { p50: at(0.5), p99: at(0.99), max: Math.round(s.at(-1)! * 10) / 10 };
}

/** Polls `check` every 5 ms until it holds; the milliseconds it took, or throws after `ms`. */
async function within(check: () => Promise<boolean>, ms = 2_000): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return performance.now() - t0;
    if (performance.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(5);
  }
}

/** The same person on another replica: the session cookie is a row of the shared database. */
function on(env: TestEnv, c: WebClient): WebClient {
  const other = new WebClient(env);
  other.cookie = c.cookie;
  return other;
}

describe.skipIf(skip !== null)("two replicas on one PostgreSQL database", () => {
  let pg: PgDatabase;
  let A: TestEnv;
  let B: TestEnv;

  beforeAll(async () => {
    pg = await pgDatabase("replicas");
    // started together: the migrations and the first signing key are made once
    [A, B] = await Promise.all([testEnv({ DATABASE_URL: pg.url }), testEnv({ DATABASE_URL: pg.url })]);
    await Bun.sleep(600); // one poll after the migration: both clocks read the epoch
  }, 60_000);
  afterAll(() => {
    A?.close();
    B?.close();
    pg?.drop();
  });

  test("one signing key for both, made once; the same key set from A and B; a receipt signed by A verifies with B's key set", async () => {
    expect((await A.database.all("SELECT kid FROM signing_keys")).length).toBe(1);
    const jwksA = await (await A.request("/.well-known/jwks.json")).json();
    const jwksB = await (await B.request("/.well-known/jwks.json")).json();
    expect(jwksA.keys).toHaveLength(1);
    expect(jwksB).toEqual(jwksA);
    const o = await orgWithProject(A);
    expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] })).status).toBe(201);
    const key = (await createKey(o.owner, o.project.id, ALL)).value;
    const r = await withKey(A, key, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    expect(r.status).toBe(201);
    const { payload } = await compactVerify(((await r.json()) as { attestation: string }).attestation, createLocalJWKSet(jwksB));
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ typ: "talentd.resolution", projectId: o.project.id });
  });

  test("a sign-in limit counts across replicas: 3 wrong passwords on A and 2 on B use up the pair's 5; the next, on either, is 429", async () => {
    const person = await signedUp(A);
    const attempt = (env: TestEnv) =>
      env.request("/api/auth/sign-in", {
        method: "POST",
        headers: { "content-type": "application/json", origin: new URL(env.config.baseUrl).origin },
        body: JSON.stringify({ email: person.email, password: "wrong password!" }),
      });
    for (const env of [A, A, A, B, B]) expect((await attempt(env)).status).toBe(401);
    const sixth = await attempt(B);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await attempt(A)).status).toBe(429);
  });

  test("the setup link: each replica logs its own; two completed at once, through A and B, make one administrator (the other is 403)", async () => {
    const [ta, tb] = [(await issueSetupToken(A.database))!, (await issueSetupToken(B.database))!];
    const complete = (env: TestEnv, token: string, email: string) =>
      env.request("/setup", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", origin: new URL(env.config.baseUrl).origin },
        body: JSON.stringify({ token, email, password: "correct horse battery staple" }),
      });
    const [ra, rb] = await Promise.all([complete(A, ta, "root-a@example.com"), complete(B, tb, "root-b@example.com")]);
    expect([ra.status, rb.status].sort()).toEqual([201, 403]);
    expect(await A.database.all("SELECT id FROM users WHERE role = 'admin'")).toHaveLength(1);
    expect(await issueSetupToken(B.database)).toBeNull();
  });

  test("a key revoked through A is refused by B within 2 s (20 tries: the delays printed)", async () => {
    const o = await orgWithProject(A);
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const k = await createKey(o.owner, o.project.id, ["catalog"]);
      const use = (env: TestEnv) => withKey(env, k.value, "/api/catalog");
      expect((await use(B)).status).toBe(200); // B keeps the key's row
      expect((await use(B)).status).toBe(200);
      expect((await o.owner.del(`/web/projects/${o.project.id}/keys/${k.key.id}`)).status).toBe(200);
      expect((await use(A)).status).toBe(401); // A, which revoked it, at once
      delays.push(await within(async () => (await use(B)).status === 401));
    }
    const p = percentiles(delays);
    console.log(`revoked on A, refused by B after (ms): p50 ${p.p50}, p99 ${p.p99}, max ${p.max} (20 tries)`);
    expect(p.max).toBeLessThan(2_000);
  });

  test("the clock alone: a configuration change committed through A moves B's epoch by notification (B writes nothing; delays printed)", async () => {
    const b = B.database as PgDatabaseHandle;
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = b.configEpoch()!;
      await A.database.writeJob({ statements: [{ sql: "DELETE FROM setup_tokens WHERE token_hash = ?", args: [`none-${i}`] }] });
      const after = A.database.configEpoch()!;
      expect(after).toBeGreaterThan(before);
      delays.push(await within(async () => (b.configEpoch() ?? -1) >= after));
    }
    const p = percentiles(delays);
    console.log(`epoch moved on B after (ms), LISTEN: p50 ${p.p50}, p99 ${p.p99}, max ${p.max} (20 tries)`);
    expect(b.epochClock.stats().listening).toBe(true);
    expect(p.max).toBeLessThan(2_000);
  });

  test("an expertise published through A is served by B's prepare-task within 2 s (B had served the version before)", async () => {
    const o = await orgWithProject(A);
    const { id, ref } = await publishedExpertise(o.owner, o.org.slug, "ledger");
    expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", ref] })).status).toBe(201);
    const key = (await createKey(o.owner, o.project.id, ALL)).value;
    const prepare = async (env: TestEnv) => {
      const r = await withKey(env, key, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: [ref] }),
      });
      return ((await r.json()) as { talents: { id: string; version: string }[] }).talents.find((t) => t.id === ref)?.version;
    };
    expect(await prepare(B)).toBe("1");
    const detail = await o.owner.get(`/web/orgs/current/expertises/${id}`);
    const edit = await o.owner.patch(`/web/orgs/current/expertises/${id}`, {
      expectedRevision: detail.body.revision,
      content: expertiseMd("ledger", "Use the ledger v2."),
    });
    expect(edit.status).toBe(200);
    expect((await o.owner.post(`/web/orgs/current/expertises/${id}/publish`)).status).toBe(200);
    expect(await prepare(A)).toBe("2");
    const ms = await within(async () => (await prepare(B)) === "2");
    console.log(`published on A, served by B after ${Math.round(ms)} ms`);
    // a person signed in on A is signed in on B (sessions are rows), and sees the same version there
    expect((await on(B, o.owner).get(`/web/orgs/current/expertises/${id}`)).body.revision).toBe(
      (await o.owner.get(`/web/orgs/current/expertises/${id}`)).body.revision,
    );
  });

  test("failure path: B's LISTEN connection dropped by the server — its poll still moves the epoch, and a revoked key is refused, within 2 s", async () => {
    const b = B.database as PgDatabaseHandle;
    const notifiedBefore = b.epochClock.stats().notified;
    // every LISTEN connection on the database ends (A's too); the pools stay
    pg.cluster.psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${pg.name}' AND query LIKE 'LISTEN%'`);
    await Bun.sleep(100);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await A.database.writeJob({ statements: [{ sql: "DELETE FROM setup_tokens WHERE token_hash = ?", args: [`gone-${i}`] }] });
      const after = A.database.configEpoch()!;
      delays.push(await within(async () => (b.configEpoch() ?? -1) >= after));
    }
    const p = percentiles(delays);
    console.log(
      `LISTEN dropped: epoch moved on B after (ms): p50 ${p.p50}, max ${p.max}; notifications meanwhile: ${b.epochClock.stats().notified - notifiedBefore}`,
    );
    expect(p.max).toBeLessThan(2_000);
    const o = await orgWithProject(A);
    const k = await createKey(o.owner, o.project.id, ["catalog"]);
    expect((await withKey(B, k.value, "/api/catalog")).status).toBe(200);
    expect((await o.owner.del(`/web/projects/${o.project.id}/keys/${k.key.id}`)).status).toBe(200);
    await within(async () => (await withKey(B, k.value, "/api/catalog")).status === 401);
  });

  test("/readyz on PostgreSQL says whether this replica leads (an app without serve's background work does not)", async () => {
    const r = await (await A.request("/readyz")).json();
    expect(r).toMatchObject({ status: "ready", database: "postgres", leader: false });
  });

  test("housekeeping runs on the leader only: of two replicas, exactly one purges; when its lock's connection ends, the other takes over", async () => {
    const opts = { retryMs: 200, checkMs: 200 };
    const [la, lb] = await Promise.all([pgLeadership(pg.url, opts), pgLeadership(pg.url, opts)]);
    const lines = { a: [] as string[], b: [] as string[] };
    const housekeeping = (who: "a" | "b", env: TestEnv) => () =>
      startHousekeeping(
        env.database,
        createLogger("debug", (l) => lines[who].push(l)),
        { everyMs: 50 },
      );
    const ran = (who: "a" | "b") => lines[who].filter((l) => l.includes("housekeeping")).length;
    const stopA = runWhileLeader(la, [housekeeping("a", A)]);
    const stopB = runWhileLeader(lb, [housekeeping("b", B)]);
    try {
      expect([la.isLeader(), lb.isLeader()].filter(Boolean)).toHaveLength(1);
      const [leader, other] = la.isLeader() ? (["a", "b"] as const) : (["b", "a"] as const);
      await within(async () => ran(leader) > 1, 5_000); // every 50 ms, each run a few transactions
      expect(ran(other)).toBe(0);
      // the leader's connection is ended by the server (as when its process dies): the other leads within the retry
      pg.cluster.psql(
        `SELECT pg_terminate_backend(l.pid) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objid = ${LEADER_LOCK % 2 ** 32} AND l.granted`,
      );
      const took = await within(async () => (other === "a" ? la : lb).isLeader(), 5_000);
      await within(async () => !(leader === "a" ? la : lb).isLeader(), 5_000);
      const before = ran(leader);
      await within(async () => ran(other) > 0, 5_000);
      await Bun.sleep(200);
      expect(ran(leader)).toBeLessThanOrEqual(before + 1); // a run already begun may finish
      console.log(`leadership moved after ${Math.round(took)} ms (retry every 200 ms)`);
    } finally {
      await stopA();
      await stopB();
      await la.close();
      await lb.close();
    }
    expect(alwaysLeader.isLeader()).toBe(true);
  });
});

describe.skipIf(skip !== null)("two talentd serve processes on one PostgreSQL database", () => {
  let pg: PgDatabase;
  const procs: ReturnType<typeof Bun.spawn>[] = [];
  const dirs: (() => void)[] = [];
  beforeAll(async () => {
    pg = await pgDatabase("serve");
  }, 60_000);
  afterAll(() => {
    for (const p of procs) p.kill("SIGKILL");
    for (const d of dirs) d();
    pg?.drop();
  });

  const start = async () => {
    const { dir, cleanup } = tempDir();
    dirs.push(cleanup);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: join(dir, "data"), DATABASE_URL: pg.url, LOG_FORMAT: "json", ACCESS_LOG: "false" },
      stdout: "ignore",
      stderr: "ignore",
    });
    procs.push(proc);
    return { proc, base };
  };
  const readyz = async (base: string) => (await (await fetch(`${base}/readyz`)).json()) as { leader?: boolean };

  test("exactly one of two replicas leads (/readyz); the leader SIGKILLed, the other leads within 10 s", async () => {
    const [a, b] = [await start(), await start()];
    await Promise.all([waitReady(a.base, 60_000), waitReady(b.base, 60_000)]);
    await Bun.sleep(500);
    const leaders = [(await readyz(a.base)).leader, (await readyz(b.base)).leader];
    expect(leaders.filter((l) => l === true)).toHaveLength(1);
    expect(leaders.filter((l) => l === false)).toHaveLength(1);
    const [leader, other] = leaders[0] ? [a, b] : [b, a];
    // one key set from both
    expect(await (await fetch(`${a.base}/.well-known/jwks.json`)).json()).toEqual(
      await (await fetch(`${b.base}/.well-known/jwks.json`)).json(),
    );
    leader.proc.kill("SIGKILL");
    await leader.proc.exited;
    const took = await within(async () => (await readyz(other.base)).leader === true, 10_000);
    console.log(`leader SIGKILLed: the other replica led after ${Math.round(took)} ms`);
  }, 120_000);
});
