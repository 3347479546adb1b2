/**
 * The configuration epoch's clock on PostgreSQL (src/db/pgEpoch.ts), against a real server: it
 * moves only forward, by notification or by poll; without LISTEN the poll alone sees another
 * connection's change within its period; an unknown commit keeps nothing until the next read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openDatabase } from "../../src/db/client";
import { migrateDatabase } from "../../src/db/migratePg";
import type { PgDatabaseHandle } from "../../src/db/pgClient";
import { startEpochClock } from "../../src/db/pgEpoch";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";

const skip = pgUnavailable();

describe.skipIf(skip !== null)("the configuration epoch's clock on PostgreSQL", () => {
  let pg: PgDatabase;
  let db: PgDatabaseHandle;
  let pool: SQL;

  beforeAll(async () => {
    pg = await pgDatabase("epoch");
    db = (await openDatabase(pg.url)) as PgDatabaseHandle;
    await migrateDatabase(db);
    pool = new SQL({ url: pg.url, max: 2 });
  }, 60_000);
  afterAll(async () => {
    db?.close();
    await pool?.close();
    pg?.drop();
  });

  const bump = () => db.writeJob({ statements: [{ sql: "DELETE FROM setup_tokens WHERE token_hash = ?", args: ["none"] }] });

  test("without LISTEN (its connection lost), the poll alone sees another connection's change within its period", async () => {
    const clock = await startEpochClock(pg.url, pool, { listen: false, pollMs: 500 });
    try {
      expect(clock.stats().listening).toBe(false);
      const start = clock.current()!;
      await bump();
      const after = db.configEpoch()!;
      expect(after).toBeGreaterThan(start);
      const t0 = performance.now();
      while ((clock.current() ?? -1) < after) {
        expect(performance.now() - t0).toBeLessThan(2_000);
        await Bun.sleep(10);
      }
      expect(performance.now() - t0).toBeLessThan(600); // a poll period, and the read
      expect(clock.stats().notified).toBe(0);
    } finally {
      clock.close();
    }
  });

  test("with LISTEN, a notification moves it before any poll (the poll set to a minute)", async () => {
    const clock = await startEpochClock(pg.url, pool, { pollMs: 60_000 });
    try {
      expect(clock.stats().listening).toBe(true);
      await bump();
      const after = db.configEpoch()!;
      const t0 = performance.now();
      while ((clock.current() ?? -1) < after) {
        expect(performance.now() - t0).toBeLessThan(2_000);
        await Bun.sleep(5);
      }
      expect(clock.stats().notified).toBeGreaterThan(0);
      expect(clock.stats().polled).toBe(1); // the first read at start only
    } finally {
      clock.close();
    }
  });

  test("only forward: an older value is not taken; a commit of unknown epoch keeps nothing until a read after it", async () => {
    const clock = await startEpochClock(pg.url, pool, { listen: false, pollMs: 100 });
    try {
      const now = clock.current()!;
      clock.committed(now - 1);
      expect(clock.current()).toBe(now);
      clock.committed(null);
      expect(clock.current()).toBeNull(); // nothing may be kept
      const t0 = performance.now();
      while (clock.current() === null) {
        expect(performance.now() - t0).toBeLessThan(1_000);
        await Bun.sleep(10);
      }
      expect(clock.current()).toBe(now); // the poll read after it: the same epoch, kept again
    } finally {
      clock.close();
    }
  });
});
