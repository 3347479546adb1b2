/**
 * Writes on PostgreSQL (src/db/pgWrites.ts, docs/design.md "Writes on PostgreSQL"): the
 * statements one prepare-task sends (its round trips), jobs group-committed and a refused one
 * failing alone, write jobs of two requests and of two replicas racing on the same rows
 * (designations, blobs, a report's submissionId), and answers under concurrency equal to the
 * sequential ones. Two apps in this process on one real database
 * stand for two replicas (signing off: see beforeAll).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PgDatabaseHandle } from "../../src/db/pgClient";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";

const skip = pgUnavailable();
const TALENTS = ["typescript-strict", "javascript-base", "conventional-commits"];

describe.skipIf(skip !== null)("writes on PostgreSQL, at once", () => {
  let pg: PgDatabase;
  let A: TestEnv;
  let B: TestEnv;
  let key = "";
  let projectId = "";

  const api = async (env: TestEnv, method: string, path: string, body?: unknown) => {
    const r = await withKey(env, key, path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  const tally = (env: TestEnv) => (env.database as PgDatabaseHandle).tally;

  beforeAll(async () => {
    pg = await pgDatabase("writes");
    // unsigned: a signed report's replay reads its results in SQLite's rowid order, which PostgreSQL has not (yet)
    const env = { DATABASE_URL: pg.url, SIGNING: "false" };
    [A, B] = await Promise.all([testEnv(env), testEnv(env)]);
    const o = await orgWithProject(A);
    projectId = o.project.id;
    const r = await o.owner.post(`/web/projects/${projectId}/talents`, { talents: TALENTS });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    key = (await createKey(o.owner, projectId, ["prepare_task", "record_validation", "catalog"])).value;
  });
  afterAll(() => {
    A?.close();
    B?.close();
    pg?.drop();
  });

  test("one prepare-task sends a handful of statements: its reads, then one transaction whose writes are pipelined", async () => {
    await api(A, "POST", "/api/prepare-task", { talentIds: TALENTS }); // the designation and blobs written once
    await A.database.idle();
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = tally(A).statements;
      const r = await api(A, "POST", "/api/prepare-task", { talentIds: TALENTS });
      expect(r.status).toBe(201);
      counts.push(tally(A).statements - before);
    }
    console.log(`statements per prepare-task (warm): ${counts.join(", ")}`);
    // BEGIN, the resolution's insert and the epoch read (pipelined), COMMIT: every read is kept per
    // configuration epoch; a try whose count is higher also carried the trace journal's batch
    expect(Math.min(...counts)).toBe(4);
  });

  test("the key route reads nothing from the database once warm: its rows are kept per configuration epoch", async () => {
    await api(A, "GET", "/api/catalog?limit=1");
    await A.database.idle();
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = tally(A).statements;
      expect((await api(A, "GET", "/api/catalog?limit=1")).status).toBe(200);
      counts.push(tally(A).statements - before);
    }
    console.log(`statements per GET /api/catalog?limit=1 (warm): ${counts.join(", ")}`);
    expect(Math.min(...counts)).toBe(0);
  });

  test("N prepare-tasks at once on two replicas, half of them designating the same talents in another order: all 201, every resolution stored", async () => {
    const designations = [TALENTS, [...TALENTS].reverse(), [TALENTS[1]!, TALENTS[0]!], [TALENTS[2]!]];
    const sequential = [];
    for (const ids of designations) sequential.push(await api(A, "POST", "/api/prepare-task", { talentIds: ids }));
    const t0 = performance.now();
    const retries = tally(A).retries + tally(B).retries;
    const racing = await Promise.all(
      Array.from({ length: 24 }, (_, i) => api(i % 2 ? A : B, "POST", "/api/prepare-task", { talentIds: designations[i % 4]! })),
    );
    console.log(
      `24 prepare-tasks at once on two replicas: ${Math.round(performance.now() - t0)} ms, ` +
        `${tally(A).retries + tally(B).retries - retries} jobs retried`,
    );
    expect(racing.map((r) => r.status)).toEqual(racing.map(() => 201));
    // the same answer as sequentially, the resolution's own fields aside
    const strip = (b: Record<string, unknown>) => ({
      ...b,
      resolutionId: undefined,
      createdAt: undefined,
      attestation: undefined,
      next: undefined,
    });
    for (let i = 0; i < racing.length; i++) expect(strip(racing[i]!.body)).toEqual(strip(sequential[i % 4]!.body));
    const ids = racing.map((r) => r.body.resolutionId as string);
    const stored = await A.database.all<{ n: number }>("SELECT count(*) AS n FROM resolutions WHERE id = ANY(?::text[])", [
      `{${ids.join(",")}}`,
    ]);
    expect(Number(stored[0]!.n)).toBe(24);
  });

  test("designations and blobs inserted by two replicas at once (a fresh project each time): both commit, each row stored once", async () => {
    const o = await orgWithProject(A, "Fresh org");
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: TALENTS });
    expect(r.status).toBe(201);
    const k = (await createKey(o.owner, o.project.id, ["prepare_task"])).value;
    const call = (env: TestEnv) =>
      withKey(env, k, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: TALENTS }),
      });
    const both = await Promise.all([call(A), call(B), call(A), call(B)]);
    expect(both.map((x) => x.status)).toEqual([201, 201, 201, 201]);
    const designations = await A.database.all<{ n: number }>(
      "SELECT count(DISTINCT designation_id) AS n FROM resolutions WHERE project_id = ?",
      [o.project.id],
    );
    expect(Number(designations[0]!.n)).toBe(1);
    const items = await A.database.all<{ n: number }>(
      "SELECT count(*) AS n FROM designation_items WHERE designation_id = (SELECT designation_id FROM resolutions WHERE project_id = ? LIMIT 1)",
      [o.project.id],
    );
    expect(Number(items[0]!.n)).toBe(TALENTS.length);
  });

  test("a write job whose unless check both racers miss: the unique constraint makes the loser answer the winner's row, not an error", async () => {
    const unless = { sql: "SELECT token_hash FROM setup_tokens WHERE token_hash = ?", args: ["race-1"] };
    const insert = (at: number) => ({
      sql: "INSERT INTO setup_tokens (token_hash, created_at, expires_at) VALUES (?, ?, ?)",
      args: ["race-1", at, at + 60_000],
    });
    const outcomes = await Promise.all([
      A.database.writeJob({ unless, statements: [insert(1)] }),
      B.database.writeJob({ unless, statements: [insert(2)] }),
      A.database.writeJob({ unless, statements: [insert(3)] }),
      B.database.writeJob({ unless, statements: [insert(4)] }),
    ]);
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(1); // one wrote
    expect(outcomes.filter((o) => o !== undefined)).toEqual([{ token_hash: "race-1" }, { token_hash: "race-1" }, { token_hash: "race-1" }]);
    // a job without unless that breaks a unique key is refused, not retried into silence
    await expect(A.database.writeJob({ statements: [insert(5)] })).rejects.toThrow(/duplicate key|unique/i);
  });

  test("jobs queued together share one transaction; a refused job in a batch fails alone, the others of its batch commit", async () => {
    await A.database.idle();
    const insert = (hash: string) => ({
      sql: "INSERT INTO setup_tokens (token_hash, created_at, expires_at) VALUES (?, ?, ?)",
      args: [hash, 1, 60_000],
    });
    const before = tally(A).statements;
    // the first starts a transaction at once; the three queued meanwhile share the next one
    await Promise.all(["b-1", "b-2", "b-3", "b-4"].map((h) => A.database.writeJob({ statements: [insert(h)] })));
    const sent = tally(A).statements - before;
    console.log(`four jobs queued together: ${sent} statements (16 one transaction each)`);
    expect(sent).toBeLessThan(16);
    const outcomes = await Promise.allSettled([
      A.database.writeJob({ statements: [insert("b-5")] }),
      A.database.writeJob({ statements: [insert("b-6")] }),
      A.database.writeJob({ statements: [insert("b-1")] }), // already there: refused
      A.database.writeJob({ statements: [insert("b-7")] }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key|unique/i);
    // bookkeeping (durable: false) batched alone commits too (SET LOCAL: the connections' setting stays as it was)
    const setting = (await A.database.get<{ s: string }>("SHOW synchronous_commit"))!.s;
    await Promise.all(["b-8", "b-9"].map((h) => A.database.writeJob({ statements: [insert(h)], durable: false })));
    const rows = await A.database.all<{ h: string }>("SELECT token_hash AS h FROM setup_tokens WHERE token_hash LIKE 'b-%' ORDER BY 1");
    expect(rows.map((r) => r.h)).toEqual(["b-1", "b-2", "b-3", "b-4", "b-5", "b-6", "b-7", "b-8", "b-9"]);
    const settings = await Promise.all(Array.from({ length: 10 }, () => A.database.get<{ s: string }>("SHOW synchronous_commit")));
    expect(settings.map((x) => x!.s)).toEqual(settings.map(() => setting));
  });

  test("a report's submissionId sent to two replicas at once: one report recorded (201), the other answers it as a replay", async () => {
    const p = await api(A, "POST", "/api/prepare-task", { talentIds: TALENTS });
    const report = {
      submissionId: "race-sub",
      resolutionId: p.body.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "pass" }],
    };
    const retries = tally(A).retries + tally(B).retries;
    const answers = await Promise.all([
      api(A, "POST", "/api/validation/reports", report),
      api(B, "POST", "/api/validation/reports", report),
      api(A, "POST", "/api/validation/reports", report),
      api(B, "POST", "/api/validation/reports", report),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    console.log(
      `the same submissionId four times at once: ${statuses.join(", ")}; ${tally(A).retries + tally(B).retries - retries} jobs run again`,
    );
    expect(statuses).toEqual([200, 200, 200, 201]);
    const first = answers.find((a) => a.status === 201)!.body;
    for (const a of answers.filter((x) => x.status === 200)) expect(a.body).toEqual({ ...first, replayed: true });
    const rows = await A.database.all<{ n: number }>("SELECT count(*) AS n FROM reports WHERE submission_id = ?", ["race-sub"]);
    expect(Number(rows[0]!.n)).toBe(1);
  });
});
