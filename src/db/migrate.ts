/**
 * Applies the SQL migrations embedded in the binary (migrations/index.ts), each in one
 * transaction, recording what ran in `__talentd_migrations`. Safe to run again: applied
 * migrations are skipped. A database that records a migration this binary does not know was
 * migrated by a newer talentd: nothing is applied to it and the caller refuses to start.
 */
import type { Client } from "@libsql/client";
import { migrations as embedded, type EmbeddedMigration } from "../../migrations";
import { sha256Hex } from "../lib/crypto";

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

/** What `migrate` would do to a database, read without writing anything. */
export interface MigrationPlan {
  /** Migrations recorded in the database and known to this binary. */
  applied: string[];
  /** Migrations this binary would apply, in order, with their statements. */
  pending: { tag: string; statements: string[] }[];
  /** Migrations recorded in the database that this binary does not know (a newer talentd made them). */
  unknown: string[];
  /** True when the database has no table of its own yet (a new, empty file). */
  empty: boolean;
}

/** The database was migrated by a newer talentd: this binary must not run on it. */
export class NewerSchemaError extends Error {
  override name = "NewerSchemaError";
  constructor(
    readonly unknown: string[],
    where: string,
  ) {
    super(
      `the database${where ? ` at ${where}` : ""} was migrated by a newer talentd (it records ${unknown.join(", ")}, which ` +
        `this version does not know); run that version or a newer one, or restore a backup made for this version`,
    );
  }
}

/** The statements of one migration (drizzle-kit separates them with `--> statement-breakpoint`). */
export function statementsOf(m: EmbeddedMigration): string[] {
  return m.sql
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Reads what migrate would apply; writes nothing (a dry run). */
export async function planMigrations(client: Client, list: EmbeddedMigration[] = embedded): Promise<MigrationPlan> {
  const tables = (await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")).rows.map((r) =>
    String(r.name),
  );
  const done = new Map<string, string>();
  if (tables.includes("__talentd_migrations")) {
    for (const r of (await client.execute("SELECT tag, hash FROM __talentd_migrations")).rows) done.set(String(r.tag), String(r.hash));
  }
  return planOf(list, done, tables.length === 0);
}

/**
 * The plan from what a database records (`done`: tag → hash of the applied SQL), either engine's:
 * the migrations still to apply, those applied, those it records but this binary does not know;
 * a recorded migration whose SQL changed since is refused.
 */
export function planOf(list: EmbeddedMigration[], done: Map<string, string>, empty: boolean): MigrationPlan {
  const known = new Set(list.map((m) => m.tag));
  const plan: MigrationPlan = { applied: [], pending: [], unknown: [...done.keys()].filter((t) => !known.has(t)).sort(), empty };
  for (const m of list) {
    const seen = done.get(m.tag);
    if (seen === undefined) plan.pending.push({ tag: m.tag, statements: statementsOf(m) });
    else if (seen !== sha256Hex(m.sql)) throw new Error(`migration ${m.tag} was changed after it was applied (hash differs)`);
    else plan.applied.push(m.tag);
  }
  return plan;
}

/**
 * Applies every migration not yet recorded; returns which ran and which were already there.
 * Throws NewerSchemaError, applying nothing, when the database records a migration this
 * binary does not know.
 */
export async function migrate(client: Client, list: EmbeddedMigration[] = embedded, where = ""): Promise<MigrationResult> {
  const plan = await planMigrations(client, list);
  if (plan.unknown.length > 0) throw new NewerSchemaError(plan.unknown, where);
  await client.execute(
    "CREATE TABLE IF NOT EXISTS __talentd_migrations (tag TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const result: MigrationResult = { applied: [], skipped: plan.applied };
  const record = (m: EmbeddedMigration) => ({
    sql: "INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES (?, ?, ?)",
    args: [m.tag, sha256Hex(m.sql), Date.now()],
  });
  if (plan.empty) {
    // a new database: every migration in one transaction (one commit instead of one each: the
    // first start's ready time; all or nothing, as each one is on its own)
    const pending = list.filter((m) => plan.pending.some((p) => p.tag === m.tag));
    await client.batch(
      pending.flatMap((m) => [...statementsOf(m), record(m)]),
      "write",
    );
    result.applied.push(...pending.map((m) => m.tag));
    return result;
  }
  for (const m of list) {
    if (!plan.pending.some((p) => p.tag === m.tag)) continue;
    await client.batch([...statementsOf(m), record(m)], "write");
    result.applied.push(m.tag);
  }
  return result;
}
