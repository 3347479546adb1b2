/**
 * The PostgreSQL migrations (migrations-pg/index.ts, embedded like SQLite's): the same rules as
 * src/db/migrate.ts — recorded in `__talentd_migrations` with their hash, skipped when applied,
 * nothing applied to a database that records a migration this binary does not know — with
 * PostgreSQL's transactional DDL: a new database gets every migration in one transaction, an
 * existing one each pending migration in its own. Every migrating transaction first takes one
 * advisory lock and reads the plan again under it, so replicas starting together apply each
 * migration once. `planDatabase` and `migrateDatabase` pick the dialect's migrations for a
 * Database (the commands use them).
 */
import type { SQL } from "bun";
import type { EmbeddedMigration } from "../../migrations";
import { migrations as embedded } from "../../migrations-pg";
import { sha256Hex } from "../lib/crypto";
import type { Database } from "./database";
import { type MigrationPlan, type MigrationResult, migrate, NewerSchemaError, planMigrations, planOf } from "./migrate";
import type { PgDatabaseHandle } from "./pgClient";

/** The advisory lock key migrating transactions take (any constant of this application). */
const MIGRATION_LOCK = 7_482_917_301;

type Queryable = Pick<SQL, "unsafe">;

/** Reads what migrate would apply; writes nothing (a dry run). */
export async function planPgMigrations(sql: Queryable, list: EmbeddedMigration[] = embedded): Promise<MigrationPlan> {
  const tables = (
    (await sql.unsafe(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    )) as { name: string }[]
  ).map((r) => r.name);
  const done = new Map<string, string>();
  if (tables.includes("__talentd_migrations")) {
    for (const r of (await sql.unsafe("SELECT tag, hash FROM __talentd_migrations")) as { tag: string; hash: string }[])
      done.set(r.tag, r.hash);
  }
  return planOf(list, done, tables.length === 0);
}

/**
 * Applies every migration not yet recorded; returns which ran and which were already there.
 * Throws NewerSchemaError, applying nothing, when the database records a migration this binary
 * does not know.
 */
export async function migratePg(sql: SQL, list: EmbeddedMigration[] = embedded, where = ""): Promise<MigrationResult> {
  const first = await planPgMigrations(sql, list);
  if (first.unknown.length > 0) throw new NewerSchemaError(first.unknown, where);
  const result: MigrationResult = { applied: [], skipped: first.applied };
  if (first.pending.length === 0) return result;
  const apply = (only?: string) =>
    sql.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await tx.unsafe(
        "CREATE TABLE IF NOT EXISTS __talentd_migrations (tag text PRIMARY KEY, hash text NOT NULL, applied_at bigint NOT NULL)",
      );
      // under the lock: another replica may have applied some meanwhile
      const plan = await planPgMigrations(tx, list);
      if (plan.unknown.length > 0) throw new NewerSchemaError(plan.unknown, where);
      const ran: string[] = [];
      for (const p of plan.pending) {
        if (only !== undefined && p.tag !== only) continue;
        for (const st of p.statements) await tx.unsafe(st);
        const m = list.find((x) => x.tag === p.tag) as EmbeddedMigration;
        await tx.unsafe("INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES ($1, $2, $3)", [
          m.tag,
          sha256Hex(m.sql),
          Date.now(),
        ]);
        ran.push(p.tag);
      }
      return ran;
    });
  if (first.empty) {
    // a new database: every migration in one transaction, all or nothing
    result.applied.push(...(await apply()));
    return result;
  }
  for (const p of first.pending) result.applied.push(...(await apply(p.tag)));
  return result;
}

/** What migrate would apply to `database`, in its dialect. */
export function planDatabase(database: Database): Promise<MigrationPlan> {
  return database.dialect === "postgres" ? planPgMigrations((database as PgDatabaseHandle).sql) : planMigrations(database.client);
}

/** Migrates `database` with its dialect's migrations (SQLite's: src/db/migrate.ts). */
export function migrateDatabase(database: Database, where = ""): Promise<MigrationResult> {
  if (database.dialect !== "postgres") return migrate(database.client, undefined, where);
  const pg = database as PgDatabaseHandle;
  // the clock reads the epoch at once: opened before the migration, it would keep nothing until its next poll
  return migratePg(pg.sql, embedded, where).then(async (r) => (await pg.readConfigEpoch(), r));
}
