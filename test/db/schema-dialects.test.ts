/**
 * One schema, two dialects (docs/design.md "PostgreSQL: one schema, two dialects"): a fresh
 * libSQL file and a fresh PostgreSQL database, each migrated by its own migrations, are read back
 * (SQLite's pragmas; PostgreSQL's information_schema and catalogs) and compared — tables and views, columns
 * (name, nullability, type family), indexes (columns, uniqueness, partial or not), foreign keys
 * and the triggers by table and event. A change to one dialect's migrations without the other's
 * fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openDatabase, type Database } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { migratePg, planPgMigrations } from "../../src/db/migratePg";
import { migrations as pgMigrations } from "../../migrations-pg";
import { ROOT, tempDir } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const skip = pgUnavailable();

interface Shape {
  columns: Record<string, string>; // table.column → "family null|not null"
  indexes: string[]; // "table(cols) unique? partial?"
  foreignKeys: string[]; // "table(cols) → table(cols) on delete x"
  triggers: string[]; // "table event"
}

/** SQLite's declared type → the family the PostgreSQL column must have. */
function familyOfSqlite(type: string): string {
  const t = type.toLowerCase();
  if (t === "integer") return "integer";
  if (t === "text") return "text";
  if (t === "blob") return "bytes";
  if (t === "real") return "float";
  return `unknown ${t}`;
}

function familyOfPg(type: string): string {
  if (type === "bigint" || type === "integer" || type === "smallint") return "integer";
  if (type === "text") return "text";
  if (type === "bytea") return "bytes";
  if (type === "double precision" || type === "real") return "float";
  return `unknown ${type}`;
}

async function sqliteShape(database: Database): Promise<Shape> {
  const shape: Shape = { columns: {}, indexes: [], foreignKeys: [], triggers: [] };
  const tables = await database.all<{ name: string }>(
    // the views too: PostgreSQL's information_schema lists their columns beside the tables'
    "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name <> '__talentd_migrations' ORDER BY name",
  );
  for (const { name } of tables) {
    const info = await database.all<{ name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info("${name}")`);
    for (const c of info) shape.columns[`${name}.${c.name}`] = `${familyOfSqlite(c.type)} ${c.notnull || c.pk ? "not null" : "null"}`;
    // an INTEGER PRIMARY KEY is the rowid, unique without an index of its own
    const pk = info.filter((c) => c.pk > 0);
    if (pk.length === 1 && pk[0]!.type.toLowerCase() === "integer") shape.indexes.push(`${name}(${pk[0]!.name}) unique`);
    for (const ix of await database.all<{ name: string; unique: number; partial: number; origin: string }>(
      `PRAGMA index_list("${name}")`,
    )) {
      const cols = (await database.all<{ name: string | null }>(`PRAGMA index_info("${ix.name}")`)).map((c) => c.name ?? "<expression>");
      shape.indexes.push(`${name}(${cols.join(",")})${ix.unique ? " unique" : ""}${ix.partial ? " partial" : ""}`);
    }
    const fks = await database.all<{ id: number; table: string; from: string; to: string; on_delete: string }>(
      `PRAGMA foreign_key_list("${name}")`,
    );
    const byId = new Map<number, typeof fks>();
    for (const fk of fks) byId.set(fk.id, [...(byId.get(fk.id) ?? []), fk]);
    for (const parts of byId.values()) {
      const f = parts[0]!;
      shape.foreignKeys.push(
        `${name}(${parts.map((p) => p.from).join(",")}) → ${f.table}(${parts.map((p) => p.to).join(",")}) on delete ${f.on_delete.toLowerCase()}`,
      );
    }
  }
  for (const t of await database.all<{ tbl_name: string; sql: string }>("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'")) {
    const event = /\b(?:AFTER|BEFORE)\s+(INSERT|UPDATE|DELETE)\b/i.exec(t.sql)?.[1]?.toUpperCase() ?? "?";
    shape.triggers.push(`${t.tbl_name} ${event}`);
  }
  for (const k of Object.keys(shape) as (keyof Shape)[]) if (Array.isArray(shape[k])) (shape[k] as string[]).sort();
  return shape;
}

async function pgShape(sql: SQL): Promise<Shape> {
  const shape: Shape = { columns: {}, indexes: [], foreignKeys: [], triggers: [] };
  const cols = await sql`SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name <> '__talentd_migrations'`;
  for (const c of cols)
    shape.columns[`${c.table_name}.${c.column_name}`] = `${familyOfPg(c.data_type)} ${c.is_nullable === "YES" ? "null" : "not null"}`;
  // every index, the primary keys' and unique constraints' included (SQLite lists those as autoindexes)
  const ixs = await sql`SELECT t.relname AS table, i.indisunique AS unique, i.indpred IS NOT NULL AS partial,
      array(SELECT coalesce(a.attname, '<expression>') FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
        LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum <> 0 ORDER BY k.n) AS cols
    FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
    WHERE ns.nspname = 'public' AND t.relname <> '__talentd_migrations'`;
  for (const ix of ixs)
    shape.indexes.push(`${ix.table}(${(ix.cols as string[]).join(",")})${ix.unique ? " unique" : ""}${ix.partial ? " partial" : ""}`);
  const fks = await sql`SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS target, c.confdeltype AS del,
      array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS cols,
      array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS tcols
    FROM pg_constraint c JOIN pg_namespace ns ON ns.oid = c.connamespace WHERE c.contype = 'f' AND ns.nspname = 'public'`;
  const action: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };
  for (const f of fks)
    shape.foreignKeys.push(`${f.table}(${f.cols.join(",")}) → ${f.target}(${f.tcols.join(",")}) on delete ${action[f.del]}`);
  for (const t of await sql`SELECT event_object_table AS table, event_manipulation AS event FROM information_schema.triggers WHERE trigger_schema = 'public'`) {
    shape.triggers.push(`${t.table} ${t.event}`);
  }
  for (const k of Object.keys(shape) as (keyof Shape)[]) if (Array.isArray(shape[k])) (shape[k] as string[]).sort();
  return shape;
}

describe.skipIf(skip !== null)("one schema, two dialects", () => {
  let pg: PgDatabase;
  let sql: SQL;
  let lite: Database;
  let cleanup: () => void;
  let a: Shape;
  let b: Shape;

  beforeAll(async () => {
    pg = await pgDatabase("dialects");
    sql = new SQL(pg.url);
    const dir = tempDir();
    cleanup = dir.cleanup;
    lite = await openDatabase(`file:${join(dir.dir, "t.db")}`);
    await migrate(lite.client);
    await migratePg(sql);
    a = await sqliteShape(lite);
    b = await pgShape(sql);
  }, 60_000); // a cluster's start on a loaded machine
  afterAll(async () => {
    lite?.close();
    cleanup?.();
    await sql?.close();
    pg?.drop();
  });

  test("migrations-pg/index.ts lists exactly the journal's migrations (run `bun run db:generate:pg` after a schema change)", () => {
    const journal = JSON.parse(readFileSync(join(ROOT, "migrations-pg", "meta", "_journal.json"), "utf8"));
    expect(pgMigrations.map((m) => m.tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag));
    for (const m of pgMigrations) expect(m.sql).toBe(readFileSync(join(ROOT, "migrations-pg", `${m.tag}.sql`), "utf8"));
  });

  test("the same tables and views and their columns, each with the same nullability and type family (integer → bigint, booleans 0/1, JSON as text)", () => {
    expect(Object.keys(a.columns).length).toBeGreaterThan(300);
    expect(a.columns["resolution_items.definition_digest"]).toBe("text null"); // a view's column
    expect(b.columns).toEqual(a.columns);
  });

  test("the same indexes: columns in order (an expression as one), uniqueness, partial or not — primary keys and unique constraints included", () => {
    expect(b.indexes).toEqual(a.indexes);
  });

  test("the same foreign keys with the same ON DELETE", () => {
    expect(b.foreignKeys).toEqual(a.foreignKeys);
  });

  test("the same triggers by table and event: configuration epoch, append-only guard, selection revision, kept counts", () => {
    expect(a.triggers.length).toBe(90);
    expect(b.triggers).toEqual(a.triggers);
  });

  test("migrating PostgreSQL again applies nothing; a plan then has nothing pending", async () => {
    const again = await migratePg(sql);
    expect(again.applied).toEqual([]);
    expect(again.skipped).toEqual(pgMigrations.map((m) => m.tag));
    expect((await planPgMigrations(sql)).pending).toEqual([]);
  });
});
