/**
 * `talentd migrate-to postgres://…` (docs/operations.md "Moving an embedded instance into
 * PostgreSQL"): copies the embedded database (DATA_DIR, or a file: DATABASE_URL) into an empty
 * PostgreSQL database. The target is migrated first; a target that already holds data is refused;
 * every table is copied in foreign-key order in one transaction (all or nothing) with the tables'
 * own triggers off, so the counts they keep (selection revisions, hourly counts, the configuration
 * epoch) arrive as the source kept them instead of being counted twice; then the rows of each
 * table are counted on both sides. The signing keys of DATA_DIR's key file go into the target's
 * `signing_keys` table in the same transaction (on PostgreSQL every replica reads them there), so
 * what the embedded instance signed still verifies.
 */
import { SQL } from "bun";
import { existsSync } from "node:fs";
import LibsqlDatabase from "libsql";
import { migrations as sqliteMigrations } from "../../migrations";
import { loadConfig } from "../config";
import { databasePath } from "../db/backup";
import { NewerSchemaError, planOf } from "../db/migrate";
import { migratePg } from "../db/migratePg";
import { isPostgresUrl, PgUnreachableError } from "../db/pgClient";
import { readSigningKeys, type StoredSigningKey } from "../signing/keys";
import type { CommandLine } from "./args";
import { CliError } from "./errors";

type Native = InstanceType<typeof LibsqlDatabase>;
interface Table {
  name: string;
  /** Column names and PostgreSQL types, in the target's order. */
  columns: { name: string; type: string }[];
}

/** Tables a migration fills itself (one seeded row): replaced by the source's rows, not counted as data. */
const SEEDED = ["config_epoch"];
/** Values per INSERT statement (PostgreSQL takes at most 65,535 parameters). */
const MAX_PARAMS = 30_000;

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, "//***@");

/** The source at this binary's schema, or one line saying why not. */
function checkSource(native: Native, where: string): void {
  const tables = native.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").raw().all() as [string][];
  const done = new Map<string, string>();
  if (tables.some(([n]) => n === "__talentd_migrations"))
    for (const [tag, hash] of native.prepare("SELECT tag, hash FROM __talentd_migrations").raw().all() as [string, string][])
      done.set(tag, hash);
  const plan = planOf(sqliteMigrations, done, tables.length === 0);
  if (plan.unknown.length > 0) throw new NewerSchemaError(plan.unknown, where);
  if (plan.empty) throw new Error(`the database at ${where} is empty: there is nothing to move`);
  if (plan.pending.length > 0)
    throw new Error(`the database at ${where} lacks migrations of this version (${plan.pending[0]!.tag}…): run talentd migrate first`);
}

/** The target's tables (the migrations' record aside) in foreign-key order: a table after those it references. */
async function targetTables(sql: SQL): Promise<Table[]> {
  const cols = (await sql.unsafe(
    `SELECT c.table_name AS t, c.column_name AS c, c.data_type AS type FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
     WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> '__talentd_migrations'
     ORDER BY c.table_name, c.ordinal_position`,
  )) as { t: string; c: string; type: string }[];
  const byName = new Map<string, Table>();
  for (const r of cols) {
    const t = byName.get(r.t) ?? { name: r.t, columns: [] };
    t.columns.push({ name: r.c, type: r.type });
    byName.set(r.t, t);
  }
  const edges = (await sql.unsafe(
    `SELECT DISTINCT src.relname AS child, dst.relname AS parent FROM pg_constraint k
     JOIN pg_class src ON src.oid = k.conrelid JOIN pg_class dst ON dst.oid = k.confrelid
     WHERE k.contype = 'f' AND src.relnamespace = current_schema()::regnamespace`,
  )) as { child: string; parent: string }[];
  const ordered: Table[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: string[]) => {
    if (placed.has(name)) return;
    if (path.includes(name)) throw new Error(`foreign keys form a cycle through ${name}: no order to copy in`);
    for (const e of edges) if (e.child === name && e.parent !== name) place(e.parent, [...path, name]);
    placed.add(name);
    ordered.push(byName.get(name)!);
  };
  for (const name of [...byName.keys()].sort()) place(name, []);
  return ordered;
}

/** Refuses a target that holds any row (the seeded ones aside): migrate-to never merges. */
async function refuseData(sql: SQL, tables: Table[], target: string): Promise<void> {
  const full: string[] = [];
  for (const t of tables) {
    if (SEEDED.includes(t.name)) continue;
    const [row] = (await sql.unsafe(`SELECT count(*)::int AS n FROM "${t.name}"`)) as { n: number }[];
    if (row!.n > 0) full.push(`${t.name} (${row!.n})`);
  }
  if (full.length > 0)
    throw new Error(
      `the target ${target} already holds data (${full.slice(0, 3).join(", ")}…): migrate-to copies into an empty database only`,
    );
}

/** Copies one table's rows, in batches of one INSERT each; returns how many. */
async function copyTable(tx: SQL, native: Native, t: Table): Promise<number> {
  const have = new Set((native.prepare(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]).map((c) => c.name));
  const missing = t.columns.filter((c) => !have.has(c.name)).map((c) => c.name);
  const extra = [...have].filter((c) => !t.columns.some((x) => x.name === c));
  if (missing.length > 0 || extra.length > 0)
    throw new Error(`table ${t.name} differs between the two databases (${[...missing, ...extra].join(", ")}): nothing was copied`);
  const names = t.columns.map((c) => `"${c.name}"`).join(", ");
  const per = Math.max(1, Math.min(1000, Math.floor(MAX_PARAMS / t.columns.length)));
  // every value as text cast to its column's type (SQLite's typing is per value, PostgreSQL's per column); bytes as bytes
  const value = (v: unknown) => (v === null || v === undefined || v instanceof Uint8Array ? (v ?? null) : String(v));
  let batch: unknown[][] = [];
  let n = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const params: unknown[] = [];
    const rows = batch.map((r) => `(${t.columns.map((c, i) => `$${params.push(value(r[i]))}::${c.type}`).join(", ")})`);
    await tx.unsafe(`INSERT INTO "${t.name}" (${names}) VALUES ${rows.join(", ")}`, params);
    n += batch.length;
    batch = [];
  };
  const stmt = native.prepare(`SELECT ${names} FROM "${t.name}"`).raw();
  for (const row of stmt.iterate() as Iterable<unknown[]>) {
    batch.push(row);
    if (batch.length >= per) await flush();
  }
  await flush();
  return n;
}

/** Copies every table in one transaction with the tables' triggers off; returns the rows per table. */
async function copyAll(sql: SQL, native: Native, tables: Table[], keys: StoredSigningKey[]): Promise<Map<string, number>> {
  const copied = new Map<string, number>();
  native.exec("BEGIN"); // one snapshot of the source for every table
  try {
    await sql.begin(async (tx) => {
      for (const t of tables) await tx.unsafe(`ALTER TABLE "${t.name}" DISABLE TRIGGER USER`);
      for (const t of tables) {
        if (SEEDED.includes(t.name)) await tx.unsafe(`DELETE FROM "${t.name}"`);
        copied.set(t.name, await copyTable(tx, native, t));
      }
      for (const k of keys)
        await tx.unsafe(
          "INSERT INTO signing_keys (kid, x, d, created_at, retired_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (kid) DO NOTHING",
          [k.kid, k.x, k.d, k.createdAt, k.retiredAt],
        );
      for (const t of tables) await tx.unsafe(`ALTER TABLE "${t.name}" ENABLE TRIGGER USER`);
    });
  } finally {
    native.exec("ROLLBACK");
  }
  return copied;
}

/** `migrate-to URL`: see the header. Prints the rows per table; exit 0 when every count matches. */
export async function migrateTo(cli: Extract<CommandLine, { kind: "run" }>): Promise<number> {
  const url = cli.args[0]!;
  if (!isPostgresUrl(url)) throw new CliError(`migrate-to copies into PostgreSQL: give a postgres:// URL, not ${redact(url)}`);
  const config = loadConfig(process.env, cli.config, { checkDataDir: false });
  const path = databasePath(config.databaseUrl);
  if (path === null) throw new CliError("migrate-to reads the embedded database: set DATA_DIR (or a file: DATABASE_URL), not a server");
  if (!existsSync(path)) throw new CliError(`there is no database at ${path} (set DATA_DIR or DATABASE_URL)`);
  const target = redact(url);
  const native = new LibsqlDatabase(path);
  const sql = new SQL({ url, bigint: true, max: 2, connectionTimeout: 5 });
  try {
    checkSource(native, path);
    await sql.unsafe("SELECT 1").catch((e: unknown) => {
      throw new PgUnreachableError(url, e);
    });
    const migrated = await migratePg(sql, undefined, target);
    console.log(`target ${target}: ${migrated.applied.length} migration(s) applied, ${migrated.skipped.length} already there`);
    const tables = await targetTables(sql);
    await refuseData(sql, tables, target);
    const keys = readSigningKeys(config.dataDir) ?? [];
    const copied = await copyAll(sql, native, tables, keys);
    const wrong: string[] = [];
    for (const t of tables) {
      const n = ((await sql.unsafe(`SELECT count(*)::int AS n FROM "${t.name}"`)) as { n: number }[])[0]!.n;
      const source = (native.prepare(`SELECT count(*) FROM "${t.name}"`).raw().all() as [number][])[0]![0];
      // the key file's keys join the (empty on SQLite) key table
      const m = t.name === "signing_keys" ? source + keys.length : source;
      console.log(`  ${t.name.padEnd(28)} ${String(copied.get(t.name)).padStart(9)} row(s)`);
      if (n !== m) wrong.push(`${t.name}: ${m} in the source, ${n} in the target`);
    }
    if (wrong.length > 0) throw new Error(`the counts differ after the copy: ${wrong.join("; ")}`);
    const total = [...copied.values()].reduce((a, b) => a + b, 0);
    console.log(`copied ${total} row(s) of ${tables.length} tables from ${path} in one transaction; every count verified`);
    console.log(
      keys.length > 0
        ? `signing keys: ${keys.length} from ${config.dataDir} copied into the database (every replica signs with them)`
        : `signing keys: none in ${config.dataDir}: the first replica to start makes one in the database`,
    );
    console.log(`next: start talentd with DATABASE_URL=${target}`);
    return 0;
  } finally {
    native.close();
    await sql.close().catch(() => {});
  }
}
