import { afterAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { jobInTransaction, openDatabase } from "../../src/db/client";
import { EPOCH_TABLES, NON_EPOCH_TABLES } from "../../src/db/epoch";
import { WIRE_TEXTS_MAX, type WriteJob } from "../../src/db/writeJob";
import { migrate } from "../../src/db/migrate";
import { snapshotDatabase } from "../../src/db/backup";
import { BlobCache, getBlob, getBlobs, putBlob } from "../../src/db/blobs";
import { migrations } from "../../migrations";
import * as s from "../../src/db/schema";
import { nextTurn, ROOT, tempDir } from "../helpers";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** A new database file in this file's temp folder, migrated. */
async function migrated(name: string, authToken?: string, opts?: Parameters<typeof openDatabase>[2]) {
  const database = await openDatabase(`file:${join(dir, name)}`, authToken, opts);
  await migrate(database.client);
  return database;
}

describe("migrations", () => {
  test("migrations/index.ts lists exactly the journal's migrations (run `bun run db:generate` after a schema change)", () => {
    const journal = JSON.parse(readFileSync(join(ROOT, "migrations", "meta", "_journal.json"), "utf8"));
    expect(migrations.map((m) => m.tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag));
    for (const m of migrations) expect(m.sql).toBe(readFileSync(join(ROOT, "migrations", `${m.tag}.sql`), "utf8"));
  });

  test("apply to an empty database, then again as a no-op (idempotent)", async () => {
    const database = await openDatabase(`file:${join(dir, "m.db")}`);
    const first = await migrate(database.client);
    expect(first.applied).toEqual(migrations.map((m) => m.tag));
    const second = await migrate(database.client);
    expect(second.applied).toEqual([]);
    expect(second.skipped).toEqual(first.applied);
    const tables = (await database.client.execute("SELECT name FROM sqlite_master WHERE type='table'")).rows.map((r) => r.name);
    for (const t of [
      "users",
      "organizations",
      "projects",
      "api_keys",
      "resolutions",
      "reports",
      "trace_events",
      "oauth_tokens",
      "expertises",
      "content_blobs",
    ]) {
      expect(tables).toContain(t);
    }
    database.close();
  });

  test("a migration edited after it was applied is refused", async () => {
    const database = await openDatabase(`file:${join(dir, "m2.db")}`);
    await migrate(database.client, [{ tag: "0000_x", sql: "CREATE TABLE x (a INTEGER)" }]);
    await expect(migrate(database.client, [{ tag: "0000_x", sql: "CREATE TABLE x (b INTEGER)" }])).rejects.toThrow(
      /was changed after it was applied/,
    );
    database.close();
  });

  test("a failing migration leaves nothing half-applied", async () => {
    const database = await openDatabase(`file:${join(dir, "m3.db")}`);
    await expect(
      migrate(database.client, [{ tag: "0000_bad", sql: "CREATE TABLE y (a INTEGER);\n--> statement-breakpoint\nCREATE TABLE oops (" }]),
    ).rejects.toThrow();
    const tables = (await database.client.execute("SELECT name FROM sqlite_master WHERE type='table' AND name = 'y'")).rows;
    expect(tables).toEqual([]);
    database.close();
  });
});

describe("connection pragmas hold on every pooled connection", () => {
  test("WAL, synchronous FULL, foreign keys ON, busy_timeout 5000 — also on a connection opened for a transaction", async () => {
    const database = await openDatabase(`file:${join(dir, "p.db")}`);
    const one = async (sql: string) => Object.values((await database.client.execute(sql)).rows[0]!)[0];
    expect(await one("PRAGMA journal_mode")).toBe("wal");
    expect(await one("PRAGMA synchronous")).toBe(2);
    expect(await one("PRAGMA foreign_keys")).toBe(1);
    expect(await one("PRAGMA busy_timeout")).toBe(5000);
    const tx = await database.client.transaction("read");
    // the pool hands out a second connection while the transaction holds the first
    expect(Object.values((await database.client.execute("PRAGMA foreign_keys")).rows[0]!)[0]).toBe(1);
    expect(Object.values((await database.client.execute("PRAGMA busy_timeout")).rows[0]!)[0]).toBe(5000);
    await tx.commit();
    database.close();
  });
});

describe("foreign keys cascade from organization and project", () => {
  test("deleting an organization removes its projects, keys, selection, resolutions and traces", async () => {
    const database = await migrated("c.db");
    const now = Date.now();
    await database.write(async (tx) => {
      await tx.insert(s.users).values({ id: "usr_1", email: "a@b.co", createdAt: now, updatedAt: now });
      await tx.insert(s.organizations).values({ id: "org_1", slug: "acme", name: "Acme", createdAt: now, updatedAt: now });
      await tx.insert(s.projects).values({ id: "prj_1", organizationId: "org_1", name: "P", createdAt: now, updatedAt: now });
      await tx
        .insert(s.apiKeys)
        .values({ id: "key_1", projectId: "prj_1", name: "k", tools: ["doctor"], keyHash: "h", createdBy: "usr_1", createdAt: now });
      await tx
        .insert(s.installedTalents)
        .values({ projectId: "prj_1", talentId: "sql-base", kind: "talent", installedAt: now, updatedAt: now });
      await tx.insert(s.resolutions).values({
        id: "res_1",
        projectId: "prj_1",
        tokens: 1,
        catalogDigest: "d",
        authorType: "key",
        authorId: "key_1",
        via: "api",
        createdAt: now,
      });
      await tx.insert(s.traceEvents).values({
        id: "trc_1",
        projectId: "prj_1",
        kind: "doctor",
        via: "api",
        authorType: "key",
        authorId: "key_1",
        authorName: "k",
        talentsEntered: [],
        talentsLeft: [],
        status: 200,
        durationMs: 1,
        createdAt: now,
      });
    });
    await database.write((tx) => tx.delete(s.organizations).where(eq(s.organizations.id, "org_1")));
    for (const table of ["projects", "api_keys", "installed_talents", "resolutions", "trace_events"]) {
      const n = (await database.client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n;
      expect(`${table}: ${n}`).toBe(`${table}: 0`);
    }
    database.close();
  });

  test("a failing write transaction commits nothing", async () => {
    const database = await migrated("t.db");
    const now = Date.now();
    await expect(
      database.write(async (tx) => {
        await tx.insert(s.users).values({ id: "usr_2", email: "x@y.co", createdAt: now, updatedAt: now });
        await tx.insert(s.users).values({ id: "usr_3", email: "x@y.co", createdAt: now, updatedAt: now }); // unique e-mail
      }),
    ).rejects.toThrow();
    expect((await database.client.execute("SELECT count(*) AS n FROM users")).rows[0]!.n).toBe(0);
    database.close();
  });

  test("concurrent write transactions are serialized, none lost", async () => {
    const database = await migrated("w.db");
    const now = Date.now();
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        database.write(async (tx) => {
          await tx.insert(s.users).values({ id: `usr_${i}`, email: `u${i}@y.co`, createdAt: now, updatedAt: now });
          await new Promise((r) => setTimeout(r, 1)); // an await inside the transaction
          await tx
            .update(s.users)
            .set({ name: `n${i}` })
            .where(eq(s.users.id, `usr_${i}`));
        }),
      ),
    );
    expect((await database.client.execute("SELECT count(*) AS n FROM users WHERE name LIKE 'n%'")).rows[0]!.n).toBe(25);
    database.close();
  });
});

const userInsert = (id: string, email: string, now = Date.now()) => ({
  sql: "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (?, ?, '', 'user', ?, ?)",
  args: [id, email, now, now],
});

describe("write jobs (the hot-path writer)", () => {
  test("all or nothing: a failing statement rolls back the job's statements before it", async () => {
    const database = await migrated("raw1.db");
    await expect(database.writeJob({ statements: [userInsert("usr_r1", "r1@x.co"), userInsert("usr_r2", "r1@x.co")] })).rejects.toThrow(
      /UNIQUE/,
    );
    expect((await database.client.execute("SELECT count(*) AS n FROM users")).rows[0]!.n).toBe(0);
    // and the writer is usable afterwards
    expect(await database.writeJob({ statements: [userInsert("usr_r3", "r3@x.co")] })).toBeUndefined();
    expect((await database.get<{ n: number }>("SELECT count(*) AS n FROM users"))!.n).toBe(1);
    database.close();
  });

  test("a statement's SQL crosses to the writer thread once, then by its number: 1,500 jobs over 700 distinct texts (past the 512 the request thread keeps, so the numbers are reset mid-stream) all write their own rows", async () => {
    const database = await migrated("texts.db");
    expect(WIRE_TEXTS_MAX).toBeLessThan(700);
    const now = Date.now();
    // queued together (one stream of posts), each text used again 0–2 times after the reset
    const jobs = Array.from({ length: 1500 }, (_, i) => {
      const text = i % 700;
      return database.writeJob({
        statements: [
          {
            sql: `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (?, ?, '${text}', 'user', ?, ?)`,
            args: [`usr_t${i}`, `t${i}@x.co`, now, now],
          },
          ...(i % 3 === 0 ? [{ sql: "UPDATE users SET name = name || '!' WHERE id = ?", args: [`usr_t${i}`] }] : []),
        ],
      });
    });
    await Promise.all(jobs);
    const rows = await database.all<{ id: string; name: string }>("SELECT id, name FROM users WHERE id LIKE 'usr_t%'");
    const byId = new Map(rows.map((r) => [r.id, r.name]));
    expect(rows.length).toBe(1500);
    for (let i = 0; i < 1500; i++) expect(byId.get(`usr_t${i}`)).toBe(`${i % 700}${i % 3 === 0 ? "!" : ""}`);
    database.close();
  });

  test("a job naming a statement number the thread was never sent is refused alone, and the transaction it would have joined still commits (nothing waits for a later job)", async () => {
    const database = await migrated("wire-unknown.db");
    database.close();
    const proc = Bun.spawn([process.execPath, join(ROOT, "test", "fixtures", "writer-wire-probe.ts"), join(dir, "wire-unknown.db")], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const replies = JSON.parse(out) as { outcomes?: [number, { ok: boolean; error?: { message: string } }][] }[];
    expect(replies.map((r) => r.outcomes?.map(([id, o]) => [id, o.ok]))).toEqual([[[2, false]], [[1, true]]]);
    expect(replies[0]!.outcomes![0]![1].error!.message).toContain("never sent statement 7");
    const again = await openDatabase(`file:${join(dir, "wire-unknown.db")}`);
    expect((await again.all<{ id: string }>("SELECT id FROM users")).map((r) => r.id)).toEqual(["usr_w1"]);
    again.close();
  });

  test("foreign keys hold on the writer thread, and job and drizzle writes interleave without loss", async () => {
    const database = await migrated("raw2.db");
    const now = Date.now();
    await expect(
      database.writeJob({
        statements: [
          {
            sql: "INSERT INTO projects (id, organization_id, name, description, created_at, updated_at) VALUES ('prj_x', 'org_missing', 'p', '', ?, ?)",
            args: [now, now],
          },
        ],
      }),
    ).rejects.toThrow(/FOREIGN KEY/);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2
          ? database.writeJob({ statements: [userInsert(`usr_${i}`, `u${i}@x.co`)] })
          : database.write((tx) => tx.insert(s.users).values({ id: `usr_${i}`, email: `u${i}@x.co`, createdAt: now, updatedAt: now })),
      ),
    );
    expect((await database.get<{ n: number }>("SELECT count(*) AS n FROM users"))!.n).toBe(30);
    database.close();
  });

  // the same semantics on both paths: the writer thread (local file) and one interactive
  // transaction per job (a libSQL server; run here on a local file, same client API)
  const paths: [string, (database: Awaited<ReturnType<typeof openDatabase>>, job: WriteJob) => Promise<unknown>][] = [
    ["writer thread", (database, job) => database.writeJob(job)],
    ["libSQL server path", (database, job) => jobInTransaction(database.client, job)],
  ];
  for (const [name, run] of paths) {
    test(`${name}: \`unless\` decides inside the transaction: a row found means nothing is written and the row is the result; a failing statement undoes the job`, async () => {
      const database = await migrated(`unless-${name.split(" ")[0]}.db`);
      const unless = { sql: "SELECT id, email FROM users WHERE email = ?", args: ["u@x.co"] };
      await expect(
        run(database, { unless, statements: [userInsert("usr_u0", "u@x.co"), userInsert("usr_u0", "dup@x.co")] }),
      ).rejects.toThrow(/UNIQUE/);
      expect(await run(database, { unless, statements: [userInsert("usr_u1", "u@x.co")] })).toBeUndefined();
      expect(
        await run(database, { unless, statements: [userInsert("usr_u2", "u@x.co"), userInsert("usr_u3", "other@x.co")] }),
      ).toMatchObject({ id: "usr_u1", email: "u@x.co" });
      expect((await database.all<{ id: string }>("SELECT id FROM users ORDER BY id")).map((r) => r.id)).toEqual(["usr_u1"]);
      database.close();
    });
  }
});

describe("bulk writes (start-up's blob offload, on the request thread)", () => {
  test("one transaction: all statements or none; serialized with the other writes", async () => {
    const database = await migrated("bulk.db");
    await expect(database.bulkWrite([userInsert("usr_b1", "b1@x.co"), userInsert("usr_b2", "b1@x.co")])).rejects.toThrow(/UNIQUE/);
    expect((await database.get<{ n: number }>("SELECT count(*) AS n FROM users"))!.n).toBe(0);
    await Promise.all([
      database.bulkWrite([userInsert("usr_b3", "b3@x.co"), userInsert("usr_b4", "b4@x.co")]),
      database.writeJob({ statements: [userInsert("usr_b5", "b5@x.co")] }),
      database.write((tx) => tx.insert(s.users).values({ id: "usr_b6", email: "b6@x.co", createdAt: 1, updatedAt: 1 })),
    ]);
    expect((await database.all<{ id: string }>("SELECT id FROM users ORDER BY id")).map((r) => r.id)).toEqual([
      "usr_b3",
      "usr_b4",
      "usr_b5",
      "usr_b6",
    ]);
    database.close();
  });
});

describe("durability of write jobs (synchronous FULL for business writes)", () => {
  test("a durable job (the default) always commits with synchronous FULL; a job that is not durable commits with NORMAL only in a transaction holding no durable job", async () => {
    const database = await migrated("sync.db");
    const level = { unless: { sql: "PRAGMA synchronous" }, statements: [] };
    expect(await database.writeJob({ ...level, durable: false })).toMatchObject({ synchronous: 1 }); // NORMAL: trace events, last use
    expect(await database.writeJob(level)).toMatchObject({ synchronous: 2 }); // FULL
    // queued together (posted together, one transaction): FULL for both, in either order
    for (let i = 0; i < 20; i++) {
      const looseFirst = (await Promise.all([database.writeJob({ ...level, durable: false }), database.writeJob(level)])) as {
        synchronous: number;
      }[];
      const durableFirst = (await Promise.all([database.writeJob(level), database.writeJob({ ...level, durable: false })])) as {
        synchronous: number;
      }[];
      expect([...looseFirst, ...durableFirst].map((r) => r.synchronous)).toEqual([2, 2, 2, 2]);
    }
    expect(await database.writeJob({ ...level, durable: false })).toMatchObject({ synchronous: 1 });
    database.close();
  });
});

describe("a writer thread that fails", () => {
  test("the batch in flight is rejected with a clear error (nothing hangs), and every later job gets a new thread", async () => {
    const database = await migrated("crash.db", undefined, { writerModule: join(ROOT, "test", "fixtures", "crashing-writer.ts") });
    for (let i = 0; i < 2; i++) {
      await expect(database.writeJob({ statements: [userInsert(`usr_c${i}`, `c${i}@x.co`)] })).rejects.toThrow(/writer thread stopped/);
    }
    expect((await database.get<{ n: number }>("SELECT count(*) AS n FROM users"))!.n).toBe(0);
    database.close();
  });

  test("after a crash, the next batch is answered by the replacement thread alone: the dead thread's late close does not reject it", async () => {
    const database = await migrated("crash-once.db", undefined, { writerModule: join(ROOT, "test", "fixtures", "crash-once-writer.ts") });
    await expect(database.writeJob({ statements: [userInsert("usr_a", "a@x.co")] })).rejects.toThrow(/writer thread stopped/);
    expect(await database.writeJob({ statements: [userInsert("usr_b", "b@x.co")] })).toBeUndefined();
    await Bun.sleep(50); // any late event of the dead thread has arrived by now
    expect(await database.writeJob({ statements: [userInsert("usr_c", "c@x.co")] })).toBeUndefined();
    expect((await database.all<{ id: string }>("SELECT id FROM users ORDER BY id")).map((r) => r.id)).toEqual(["usr_b", "usr_c"]);
    database.close();
  });

  test("a writer thread that cannot start: jobs are rejected, not left waiting", async () => {
    const database = await migrated("nowriter.db", undefined, { writerModule: join(ROOT, "test", "fixtures", "no-such-writer.ts") });
    await expect(database.writeJob({ statements: [userInsert("usr_n", "n@x.co")] })).rejects.toThrow(/writer thread stopped/);
    database.close();
  });
});

describe("shutdown waits for queued writes", () => {
  test("idle() resolves only once every job queued before it has committed", async () => {
    const database = await migrated("idle.db");
    for (let i = 0; i < 20; i++) void database.writeJob({ statements: [userInsert(`usr_i${i}`, `i${i}@x.co`)] });
    await database.idle();
    expect((await database.get<{ n: number }>("SELECT count(*) AS n FROM users"))!.n).toBe(20);
    database.close();
    // and a job after close is refused, not run on a new writer thread
    await expect(database.writeJob({ statements: [userInsert("usr_late", "late@x.co")] })).rejects.toThrow(/closed/);
  });
});

describe("group commit of write jobs", () => {
  test("jobs queued together share one transaction: a failing job rolls back alone, the others commit and see earlier jobs' rows", async () => {
    const database = await migrated("group.db");
    const results = await Promise.allSettled([
      database.writeJob({ statements: [userInsert("usr_g1", "g1@x.co")] }),
      database.writeJob({ statements: [userInsert("usr_g2", "g2@x.co"), userInsert("usr_g3", "g1@x.co")] }), // duplicate e-mail: this whole job fails
      database.writeJob({ unless: { sql: "SELECT id FROM users WHERE id = 'usr_g1'" }, statements: [userInsert("usr_g5", "g5@x.co")] }), // sees job 1's row
      database.writeJob({ statements: [userInsert("usr_g4", "g4@x.co")] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((results[2] as PromiseFulfilledResult<unknown>).value).toMatchObject({ id: "usr_g1" }); // inside the shared transaction
    const ids = (await database.all<{ id: string }>("SELECT id FROM users ORDER BY id")).map((r) => r.id);
    expect(ids).toEqual(["usr_g1", "usr_g4"]); // job 2's first insert rolled back with it; job 3 wrote nothing
    database.close();
  });
});

describe("a job of one statement runs without a savepoint (~7 µs of the writer's ~36 per job; docs/performance.md)", () => {
  test("a one-statement job that fails — a single row, or a many-row INSERT failing at its second row — is undone alone; the jobs around it in the same transaction commit", async () => {
    const database = await migrated("alone.db");
    const now = Date.now();
    const results = await Promise.allSettled([
      database.writeJob({ statements: [userInsert("usr_a1", "a1@x.co")] }),
      database.writeJob({ statements: [userInsert("usr_a2", "a1@x.co")] }), // duplicate e-mail
      database.writeJob({
        statements: [
          {
            sql: "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (?, ?, '', 'user', ?, ?), (?, ?, '', 'user', ?, ?)",
            args: ["usr_a3", "a3@x.co", now, now, "usr_a4", "a1@x.co", now, now],
          },
        ],
      }), // its second row is a duplicate: its first row must not stay either
      database.writeJob({ unless: { sql: "SELECT id FROM users WHERE id = 'usr_a3'" }, statements: [userInsert("usr_a5", "a5@x.co")] }), // usr_a3 is gone: runs
      database.writeJob({ statements: [userInsert("usr_a6", "a6@x.co")] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain("UNIQUE");
    const ids = (await database.all<{ id: string }>("SELECT id FROM users ORDER BY id")).map((r) => r.id);
    expect(ids).toEqual(["usr_a1", "usr_a5", "usr_a6"]);
    database.close();
  });
});

describe("an error that ends the transaction (RAISE(ROLLBACK) here; a full disk or an I/O error in life)", () => {
  for (const [shape, trapped] of [
    ["a job of one statement (no savepoint)", (n: string) => [{ sql: "INSERT INTO trap (v) VALUES (?)", args: [n] }]],
    [
      "a job of two statements (its savepoint gone with the transaction)",
      (n: string) => [userInsert(`usr_${n}`, `${n}@x.co`), { sql: "INSERT INTO trap (v) VALUES (?)", args: [n] }],
    ],
  ] as const) {
    test(`${shape}: every job of that transaction is rejected with the error, none of their rows stays, and the next job commits on a working thread`, async () => {
      const database = await migrated(`trap-${shape.length}.db`);
      await database.client.execute("CREATE TABLE trap (v TEXT)");
      await database.client.execute(
        "CREATE TRIGGER trap_rollback BEFORE INSERT ON trap BEGIN SELECT RAISE(ROLLBACK, 'trapped: the transaction is rolled back'); END",
      );
      const results = await Promise.allSettled([
        database.writeJob({ statements: [userInsert("usr_t1", "t1@x.co")] }),
        database.writeJob({ statements: [...trapped("t2")] }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
      for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toContain("trapped: the transaction is rolled back");
      expect(await database.all("SELECT id FROM users WHERE id IN ('usr_t1', 'usr_t2')")).toEqual([]);
      // the thread goes on (it did not die on a savepoint that no longer exists)
      await database.writeJob({ statements: [userInsert("usr_t3", "t3@x.co")] });
      expect((await database.all<{ id: string }>("SELECT id FROM users WHERE id = 'usr_t3'")).length).toBe(1);
      database.close();
    });
  }
});

describe("the writer thread writes while the request thread is busy (jobs posted as they are queued)", () => {
  test("a job queued while earlier jobs are out is posted at once and committed during the request thread's turn, not after it", async () => {
    const database = await migrated("stream.db");
    await database.writeJob({ statements: [userInsert("usr_s0", "s0@x.co")] }); // the thread is up
    const first = database.writeJob({ statements: [userInsert("usr_s1", "s1@x.co")] });
    for (let i = 0; i < 100; i++) await Promise.resolve(); // the mutex is taken and job 1 posted (microtasks: no reply can arrive)
    const second = database.writeJob({ statements: [userInsert("usr_s2", "s2@x.co")] });
    // this thread now stays busy without yielding to its event loop (a synchronous child
    // process polls the file for up to 2 s): job 2 must be committed meanwhile
    const child = Bun.spawnSync(
      [
        process.execPath,
        "-e",
        `const D = require("libsql"); const d = new D(${JSON.stringify(join(dir, "stream.db"))}); const t = Date.now(); let n = 0; while (Date.now() - t < 2000 && (n = d.prepare("SELECT count(*) AS n FROM users WHERE id = 'usr_s2'").get().n) === 0); console.log(n);`,
      ],
      { cwd: ROOT },
    );
    expect(child.stdout.toString().trim()).toBe("1");
    expect(await Promise.all([first, second])).toEqual([undefined, undefined]);
    database.close();
  });

  test("a write waiting for the mutex is not starved by a stream of jobs: jobs queued after it asked commit after it", async () => {
    const database = await migrated("starve.db");
    let n = 0;
    // the write must have waited for the scenario to happen: an attempt whose write found the
    // writer free (no job queued meanwhile) says nothing, and the next attempt tries again
    let waited = false;
    for (let attempt = 0; attempt < 5 && !waited; attempt++) {
      let streaming = true;
      const jobs: Promise<unknown>[] = [];
      const stream = (async () => {
        while (streaming) {
          jobs.push(database.writeJob({ statements: [userInsert(`usr_j${n}`, `j${n}@x.co`)] }));
          n++;
          await new Promise((r) => setImmediate(r));
        }
      })();
      await Bun.sleep(100);
      const queuedBefore = n;
      let seenByWrite = -1;
      await database.write(async (tx) => {
        seenByWrite = (await tx.all<{ n: number }>(sql`SELECT count(*) AS n FROM users`))[0]!.n;
        await tx.insert(s.users).values({ id: `usr_w${attempt}`, email: `w${attempt}@x.co`, createdAt: 1, updatedAt: 1 });
      });
      const queuedAfter = n;
      streaming = false;
      await stream;
      await Promise.all(jobs);
      expect(seenByWrite).toBeGreaterThan(0);
      expect(seenByWrite).toBeLessThanOrEqual(queuedBefore + attempt); // jobs queued after it asked commit after it
      waited = queuedAfter > queuedBefore;
      if (waited) expect((await database.get<{ n: number }>("SELECT count(*) AS n FROM users"))!.n).toBe(n + attempt + 1);
    }
    expect(waited).toBe(true); // the stream went on while the write waited
    database.close();
  }, 20_000);
});

describe("dataVersion: the change counter hot-path caches are keyed by", () => {
  test("changes after every commit by this process's writers (at once), by another connection and by another process (from the next event-loop turn), also across a WAL checkpoint; stays put without commits", async () => {
    const path = join(dir, "dv.db");
    const database = await openDatabase(`file:${path}`);
    await database.client.execute("CREATE TABLE dv (x INTEGER)");
    const seen = new Set<number>();
    const changed = () => {
      const v = database.dataVersion()!;
      const fresh = !seen.has(v);
      seen.add(v);
      return fresh;
    };
    changed();
    expect(changed()).toBe(false); // nothing committed: same version
    await database.writeJob({ statements: [{ sql: "INSERT INTO dv VALUES (1)" }] });
    expect(changed()).toBe(true);
    await database.write(async (tx) => void (await tx.run(sql`INSERT INTO dv VALUES (2)`)));
    expect(changed()).toBe(true);
    const other = createClient({ url: `file:${path}` });
    await other.execute("INSERT INTO dv VALUES (3)");
    await nextTurn();
    expect(changed()).toBe(true);
    await other.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    await nextTurn();
    changed();
    await other.execute("INSERT INTO dv VALUES (4)");
    await nextTurn();
    expect(changed()).toBe(true);
    other.close();
    for (let i = 0; i < 3; i++) {
      const proc = Bun.spawn(
        [
          process.execPath,
          "-e",
          `const D = require("libsql"); const d = new D(${JSON.stringify(path)}); d.exec("INSERT INTO dv VALUES (${10 + i})"); d.close();`,
        ],
        { cwd: ROOT },
      );
      expect(await proc.exited).toBe(0);
      await nextTurn();
      expect(changed()).toBe(true);
    }
    expect(changed()).toBe(false);
    expect(Number((await database.client.execute("SELECT count(*) AS n FROM dv")).rows[0]!.n)).toBe(7);
    database.close();
  });

  test("read once per event-loop turn: another connection's commit within the turn is seen from the next turn on; this process's write clears it at once", async () => {
    const path = join(dir, "dv-memo.db");
    const database = await openDatabase(`file:${path}`);
    await database.client.execute("CREATE TABLE dv (x INTEGER)");
    await nextTurn();
    const v0 = database.dataVersion();
    const other = createClient({ url: `file:${path}` });
    await other.execute("INSERT INTO dv VALUES (1)");
    const sameTurn = database.dataVersion();
    await nextTurn();
    const v1 = database.dataVersion();
    expect({ sameTurn: sameTurn === v0, nextTurn: v1 !== v0 }).toEqual({ sameTurn: true, nextTurn: true });
    await database.write(async (tx) => void (await tx.run(sql`INSERT INTO dv VALUES (2)`)));
    expect(database.dataVersion()).not.toBe(v1); // no turn in between: the write cleared the memo
    other.close();
    database.close();
  });
});

describe("configEpoch: the clock of the configuration caches (src/db/epoch.ts, migration 0008)", () => {
  test("every table is either a configuration table, with its three epoch triggers, or listed as activity; no table is both or neither", async () => {
    const path = join(dir, "epoch-tables.db");
    const database = await openDatabase(`file:${path}`);
    await migrate(database.client);
    const tables = (
      await database.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    ).map((t) => t.name);
    const triggers = new Set(
      (await database.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger'")).map((t) => t.name),
    );
    const epoch = new Set<string>(EPOCH_TABLES);
    const other = new Set<string>(NON_EPOCH_TABLES);
    expect(tables.filter((t) => !epoch.has(t) && !other.has(t))).toEqual([]);
    expect(tables.filter((t) => epoch.has(t) && other.has(t))).toEqual([]);
    expect([...epoch].filter((t) => !tables.includes(t))).toEqual([]);
    expect([...epoch].flatMap((t) => ["insert", "update", "delete"].map((e) => `${t}_epoch_${e}`)).filter((n) => !triggers.has(n))).toEqual(
      [],
    );
    database.close();
  });

  test("a change to a configuration table moves it — by this process at once, by another connection or process from the next turn; rows of the activity log (here a blob) and nothing at all leave it", async () => {
    const path = join(dir, "epoch.db");
    const database = await openDatabase(`file:${path}`);
    await migrate(database.client);
    await nextTurn();
    const e0 = database.configEpoch()!;
    expect(typeof e0).toBe("number");
    await database.writeJob({
      statements: [
        {
          sql: "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES ('usr_e1', 'e1@example.com', 'e1', 'user', 1, 1)",
        },
      ],
    });
    const e1 = database.configEpoch()!;
    expect(e1).toBeGreaterThan(e0);
    await database.writeJob({
      statements: [{ sql: "INSERT INTO content_blobs (digest, content, size, created_at) VALUES ('sha256:e', 'x', 1, 1)" }],
    });
    await nextTurn();
    expect(database.configEpoch()).toBe(e1); // the activity log and its blobs do not move it…
    expect(database.dataVersion()).not.toBeNull(); // …though the data version moved
    const other = createClient({ url: `file:${path}` });
    await other.execute("UPDATE users SET name = 'renamed' WHERE id = 'usr_e1'");
    await nextTurn();
    const e2 = database.configEpoch()!;
    expect(e2).toBeGreaterThan(e1);
    other.close();
    const proc = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const D = require("libsql"); const d = new D(${JSON.stringify(path)}); d.exec("DELETE FROM users WHERE id = 'usr_e1'"); d.close();`,
      ],
      { cwd: ROOT },
    );
    expect(await proc.exited).toBe(0);
    await nextTurn();
    expect(database.configEpoch()!).toBeGreaterThan(e2);
    database.close();
  });
});

describe("blob cache (content-addressed: a digest names its bytes forever)", () => {
  test("stays within its character budget, drops the least recently read first, and skips blobs over an eighth of it", () => {
    const cache = new BlobCache(80);
    cache.set("a", "x".repeat(10));
    cache.set("b", "y".repeat(10));
    expect(cache.get("a")).toBe("x".repeat(10)); // a is now the most recent
    for (let i = 0; i < 7; i++) cache.set(`c${i}`, "z".repeat(10)); // 90 chars: one must go
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe("x".repeat(10));
    cache.set("big", "w".repeat(11));
    expect(cache.get("big")).toBeUndefined();
  });

  test("reads through the cache return the stored bytes, the same before and after caching", async () => {
    const database = await migrated("blobs.db");
    const contents = Array.from({ length: 60 }, (_, i) => `content ${i} ${"·".repeat(i)}`);
    const digests = await database.write(async (tx) => Promise.all(contents.map((c) => putBlob(tx, c))));
    const first = await getBlobs(database, [...digests, "sha256:missing"]);
    const second = await getBlobs(database, digests);
    expect(digests.map((d) => first.get(d))).toEqual(contents);
    expect(digests.map((d) => second.get(d))).toEqual(contents);
    expect(first.has("sha256:missing")).toBe(false);
    expect(await getBlob(database, digests[7]!)).toBe(contents[7]);
    database.close();
  });
});

describe("housekeeping", () => {
  test("expired sessions, long-expired OAuth codes and tokens, setup and reset tokens, stale invitations and old delivered mails go; live rows and waiting mails stay", async () => {
    const database = await migrated("hk.db");
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    await database.write(async (tx) => {
      await tx.insert(s.users).values({ id: "usr_h", email: "h@x.co", createdAt: now, updatedAt: now });
      await tx.insert(s.organizations).values({ id: "org_h", slug: "h", name: "H", createdAt: now, updatedAt: now });
      await tx.insert(s.projects).values({ id: "prj_h", organizationId: "org_h", name: "P", createdAt: now, updatedAt: now });
      await tx
        .insert(s.oauthClients)
        .values({ id: "ocl_h", name: "c", redirectUris: ["http://127.0.0.1/cb"], metadata: {}, createdAt: now });
      for (const [id, exp] of [
        ["ses_old", now - 1],
        ["ses_live", now + day],
      ] as const) {
        await tx.insert(s.sessions).values({ id, userId: "usr_h", tokenHash: id, expiresAt: exp, createdAt: now, lastSeenAt: now });
      }
      const code = {
        clientId: "ocl_h",
        userId: "usr_h",
        projectId: "prj_h",
        redirectUri: "http://127.0.0.1/cb",
        codeChallenge: "x",
        scopes: [],
        resource: "r",
        createdAt: now,
      };
      await tx.insert(s.oauthCodes).values({ ...code, codeHash: "code_old", expiresAt: now - 2 * day });
      await tx.insert(s.oauthCodes).values({ ...code, codeHash: "code_recent", expiresAt: now - 60_000, usedAt: now - 120_000 }); // used: reuse must still be recognised
      const tok = {
        kind: "refresh" as const,
        familyId: "f",
        clientId: "ocl_h",
        userId: "usr_h",
        projectId: "prj_h",
        scopes: [],
        resource: "r",
        createdAt: now,
      };
      await tx.insert(s.oauthTokens).values({ ...tok, id: "otk_old", tokenHash: "t_old", expiresAt: now - 2 * day });
      await tx.insert(s.oauthTokens).values({ ...tok, id: "otk_rotated", tokenHash: "t_rot", expiresAt: now + day, rotatedAt: now - 1000 });
      await tx.insert(s.setupTokens).values({ tokenHash: "st_old", expiresAt: now - 2 * day, createdAt: now });
      await tx
        .insert(s.invitations)
        .values({ id: "inv_old", organizationId: "org_h", email: "i@x.co", expiresAt: now - 31 * day, createdAt: now });
      await tx
        .insert(s.invitations)
        .values({ id: "inv_new", organizationId: "org_h", email: "j@x.co", expiresAt: now - day, createdAt: now });
      await tx
        .insert(s.passwordResets)
        .values({ tokenHash: "pr_old", userId: "usr_h", expiresAt: now - 2 * day, createdAt: now - 2 * day });
      await tx.insert(s.passwordResets).values({ tokenHash: "pr_live", userId: "usr_h", expiresAt: now + 60_000, createdAt: now });
      const mail = { organizationId: "org_h", to: "m@x.co", subject: "s", body: "b" };
      for (const [id, status, age] of [
        ["mail_sent_old", "sent", 31],
        ["mail_sent_new", "sent", 29],
        ["mail_failed_kept", "failed", 31],
        ["mail_failed_old", "failed", 91],
        ["mail_pending_old", "pending", 91],
      ] as const) {
        await tx.insert(s.mailOutbox).values({ ...mail, id, status, createdAt: now - age * day });
      }
      await tx
        .insert(s.ssoNonces)
        .values({ kind: "saml_request", id: "req_old", organizationId: "org_h", expiresAt: now - 1, createdAt: now });
      await tx
        .insert(s.ssoNonces)
        .values({ kind: "saml_assertion", id: "asr_live", organizationId: "org_h", expiresAt: now + 60_000, createdAt: now });
    });
    await database.write(async (tx) => {
      // the rate-limit windows of PostgreSQL's shared limits: an expired one goes, a live one stays
      await tx.insert(s.rateCounters).values([
        { scope: "sign-in-pair", key: "old", windowStart: now - 3_600_000, count: 3, expiresAt: now - 1 },
        { scope: "sign-in-pair", key: "live", windowStart: now, count: 1, expiresAt: now + 60_000 },
      ]);
    });
    const { purgeExpired } = await import("../../src/ops/housekeeping");
    expect(await purgeExpired(database, now)).toEqual({
      ssoNonces: 1,
      sessions: 1,
      oauthCodes: 1,
      oauthTokens: 1,
      setupTokens: 1,
      invitations: 1,
      passwordResets: 1,
      mails: 2,
      oauthClients: 0,
      rateCounters: 1,
    });
    const ids = async (sql: string) => (await database.all<{ id: string }>(sql)).map((r) => r.id);
    expect(await ids("SELECT id FROM sessions")).toEqual(["ses_live"]);
    expect(await ids("SELECT code_hash AS id FROM oauth_codes")).toEqual(["code_recent"]);
    expect(await ids("SELECT id FROM oauth_tokens")).toEqual(["otk_rotated"]);
    expect(await ids("SELECT id FROM invitations")).toEqual(["inv_new"]);
    expect(await ids("SELECT token_hash AS id FROM password_resets")).toEqual(["pr_live"]);
    expect(await ids("SELECT id FROM mail_outbox ORDER BY id")).toEqual(["mail_failed_kept", "mail_pending_old", "mail_sent_new"]);
    expect(await ids("SELECT id FROM sso_nonces")).toEqual(["asr_live"]); // SAML request and assertion ids go once expired
    expect(await purgeExpired(database, now)).toEqual({
      ssoNonces: 0,
      sessions: 0,
      oauthCodes: 0,
      oauthTokens: 0,
      setupTokens: 0,
      invitations: 0,
      passwordResets: 0,
      mails: 0,
      oauthClients: 0,
      rateCounters: 0,
    });
    expect(await ids("SELECT key AS id FROM rate_counters")).toEqual(["live"]);
    database.close();
  });
});

describe("backup", () => {
  test("produces a file that passes integrity_check and opens with the data", async () => {
    const database = await migrated("b.db");
    const now = Date.now();
    await database.write((tx) => tx.insert(s.users).values({ id: "usr_b", email: "b@b.co", createdAt: now, updatedAt: now }));
    const r = snapshotDatabase(database.path!, join(dir, "snap.db"));
    expect(r.bytes).toBeGreaterThan(0);
    const copy = createClient({ url: `file:${r.file}` });
    expect((await copy.execute("PRAGMA integrity_check")).rows[0]![0]).toBe("ok");
    expect((await copy.execute("SELECT email FROM users")).rows[0]!.email).toBe("b@b.co");
    copy.close();
    expect(() => snapshotDatabase(database.path!, join(dir, "snap.db"))).toThrow(/already exists/);
    database.close();
  });
});
