/**
 * The Database interface on PostgreSQL (src/db/pgClient.ts), against a real server: placeholders,
 * transactions, write jobs, the configuration epoch, and the ported triggers doing their work.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client";
import { migrateDatabase } from "../../src/db/migratePg";
import { numberPlaceholders, type PgDatabaseHandle } from "../../src/db/pgClient";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";

test("SQLite's ? placeholders become $1…$n in order, ?N keeps its number, camelCase aliases are quoted; a ? in a string, a quoted name or a comment stays", () => {
  expect(numberPlaceholders("SELECT * FROM t WHERE a = ? AND b IN (?, ?)")).toBe("SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)");
  expect(numberPlaceholders("SELECT '?', 'it''s ?', \"a?b\" FROM t WHERE c = ? -- why?\nAND d = ?")).toBe(
    "SELECT '?', 'it''s ?', \"a?b\" FROM t WHERE c = $1 -- why?\nAND d = $2",
  ); // numbered ones keep their number, and a bare ? after them takes the next (SQLite's rule)
  expect(numberPlaceholders("SELECT ?1, ?2 WHERE a = ?1 AND b = ?")).toBe("SELECT $1, $2 WHERE a = $1 AND b = $3");
  // PostgreSQL folds unquoted names to lower case: camelCase aliases are quoted, as SQLite keeps them
  expect(numberPlaceholders("SELECT s.user_id AS userId, 'AS notMe' AS x, count(*) as nRows FROM s")).toBe(
    `SELECT s.user_id AS "userId", 'AS notMe' AS x, count(*) as "nRows" FROM s`,
  );
});

const skip = pgUnavailable();

describe.skipIf(skip !== null)("the Database interface on PostgreSQL", () => {
  let pg: PgDatabase;
  let db: PgDatabaseHandle;
  const now = Date.now();

  beforeAll(async () => {
    pg = await pgDatabase("client");
    db = (await openDatabase(pg.url)) as PgDatabaseHandle;
    await migrateDatabase(db);
  }, 60_000); // a cluster's start on a loaded machine
  afterAll(() => {
    db?.close();
    pg?.drop();
  });

  test("a postgres:// URL opens PostgreSQL: dialect postgres, no local file, no data version", () => {
    expect(db.dialect).toBe("postgres");
    expect(db.isLocal).toBe(false);
    expect(db.path).toBeNull();
    expect(db.dataVersion()).toBeNull();
    expect(db.allSync).toBeNull();
  });

  test("get/all take ? placeholders and give int8 values as numbers, take booleans as 0/1", async () => {
    await db.client.execute({
      sql: "INSERT INTO users (id, email, name, password_hash, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      args: ["usr_a", "a@example.com", "A", "x", "user", now, now],
    });
    const row = await db.get<{ id: string; created_at: number }>("SELECT id, created_at FROM users WHERE email = ?", ["a@example.com"]);
    expect(row).toEqual({ id: "usr_a", created_at: now });
    expect(await db.all("SELECT id FROM users WHERE id = ?", ["nobody"])).toEqual([]);
    const n = await db.get<{ n: number }>("SELECT count(*) AS n FROM users");
    expect(n?.n).toBe(1);
    expect(await db.get("SELECT ?::int AS yes, ?::int AS no", [true, false])).toEqual({ yes: 1, no: 0 });
  });

  test("drizzle's reads give numbers for int8 expressions too (count, max), not BigInt", async () => {
    const { sql } = await import("drizzle-orm");
    const { users } = await import("../../src/db/schema");
    const [row] = await db.db.select({ n: sql<number>`count(*)`, last: sql<number>`max(${users.createdAt})` }).from(users);
    expect(row).toEqual({ n: 1, last: now });
    const [tuple] = await db.db.select({ id: users.id, at: users.createdAt }).from(users);
    expect(tuple).toEqual({ id: "usr_a", at: now });
  });

  test("write is one transaction: a failure inside rolls every row of it back", async () => {
    const { users } = await import("../../src/db/schema");
    await expect(
      db.write(async (tx) => {
        await tx
          .insert(users)
          .values({ id: "usr_b", email: "b@example.com", name: "B", passwordHash: "x", createdAt: now, updatedAt: now });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await db.get("SELECT id FROM users WHERE id = ?", ["usr_b"])).toBeUndefined();
  });

  test("a write job's `unless` finds the row: nothing written, the row returned; else its statements run", async () => {
    const insert = { sql: "INSERT INTO setup_tokens (token_hash, expires_at, created_at) VALUES (?, ?, ?)", args: ["h1", now + 1000, now] };
    const unless = { sql: "SELECT token_hash FROM setup_tokens WHERE token_hash = ?", args: ["h1"] };
    expect(await db.writeJob({ unless, statements: [insert] })).toBeUndefined();
    expect(await db.writeJob({ unless, statements: [insert] })).toEqual({ token_hash: "h1" });
    expect((await db.all("SELECT * FROM setup_tokens")).length).toBe(1);
  });

  test("configEpoch: kept in memory; this process's configuration write is seen by its next request, the activity log leaves it alone", async () => {
    await Bun.sleep(600); // one poll after the migration: the clock is ready
    const before = db.configEpoch();
    expect(typeof before).toBe("number");
    expect(await db.readConfigEpoch()).toBe(before);
    await db.writeJob({ statements: [{ sql: "DELETE FROM setup_tokens WHERE token_hash = ?", args: ["h1"] }] });
    const after = db.configEpoch(); // at once: the transaction read its own bump
    expect(after).toBe(before! + 1);
    await db.writeJob({
      statements: [
        {
          sql: "INSERT INTO security_events (id, kind, ip, detail, created_at) VALUES (?, ?, ?, ?, ?)",
          args: ["sev_1", "test", "127.0.0.1", "{}", now],
        },
      ],
    });
    expect(db.configEpoch()).toBe(after);
    await Bun.sleep(1); // a later turn: still known (no per-turn reading on PostgreSQL)
    expect(db.configEpoch()).toBe(after);
  });

  test("the audit log is append-only on PostgreSQL too: an update is refused by its trigger", async () => {
    await db.writeJob({
      statements: [
        {
          sql: "INSERT INTO organizations (id, slug, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
          args: ["org_a", "a", "A", now, now],
        },
        {
          sql: "INSERT INTO audit_entries (id, organization_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          args: ["aud_1", "org_a", now, "system", "system", "system", "test.made", "organization", "org_a"],
        },
      ],
    });
    await expect(db.writeJob({ statements: [{ sql: "UPDATE audit_entries SET action = 'x'" }] })).rejects.toThrow(
      "audit_entries is append-only",
    );
  });
});
