/**
 * The PostgreSQL schema, derived from the SQLite declarations of src/db/schema (docs/design.md
 * "PostgreSQL: one schema, two dialects"): every table, column, default, primary key, foreign key,
 * unique constraint and index is read with sqlite-core's getTableConfig and declared again with
 * pg-core, so the two cannot drift. The mapping keeps what raw SQL reads the same in both:
 *
 * - integer → bigint (numbers in JavaScript: timestamps are milliseconds, past int4);
 * - integer in boolean mode → integer 0/1 (raw SQL compares them with 1 and 0 in both dialects);
 * - text, enums included → text; text in JSON mode → text holding the JSON (raw SQL reads the
 *   text and parses it, as on SQLite), not jsonb;
 * - blob → bytea; real → double precision.
 */
import { is, SQL, type SQLChunk, sql } from "drizzle-orm";
import {
  bigint,
  customType,
  doublePrecision,
  foreignKey,
  index,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { getTableConfig, SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";

/** 0/1 in an integer column, true/false in JavaScript: the boolean mode of SQLite's integer. */
const intBoolean = customType<{ data: boolean; driverData: number | string }>({
  dataType: () => "integer",
  toDriver: (v) => (v ? 1 : 0),
  fromDriver: (v) => Number(v) !== 0,
});

/** JSON kept as text, as SQLite's text in JSON mode keeps it. */
const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => "text",
  toDriver: (v) => JSON.stringify(v),
  fromDriver: (v) => (typeof v === "string" ? JSON.parse(v) : v),
});

/** The pg column type family of a SQLite column type (drizzle's columnType names). */
export function pgFamilyOf(columnType: string): "bigint" | "int-boolean" | "text" | "json-text" | "bytea" | "double" {
  switch (columnType) {
    case "SQLiteInteger":
    case "SQLiteTimestamp":
      return "bigint";
    case "SQLiteBoolean":
      return "int-boolean";
    case "SQLiteText":
      return "text";
    case "SQLiteTextJson":
    case "SQLiteBlobJson":
      return "json-text";
    case "SQLiteBlobBuffer":
    case "SQLiteBlobBigInt":
      return "bytea";
    case "SQLiteReal":
    case "SQLiteNumeric":
      return "double";
    default:
      throw new Error(`no PostgreSQL type for the SQLite column type ${columnType}`);
  }
}

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

function columnBuilder(col: SQLiteColumn): PgColumnBuilderBase {
  const family = pgFamilyOf(col.columnType);
  let b: any;
  if (family === "bigint") b = bigint(col.name, { mode: "number" });
  else if (family === "int-boolean") b = intBoolean(col.name);
  else if (family === "text") b = text(col.name);
  else if (family === "json-text") b = jsonText(col.name);
  else if (family === "bytea") b = bytea(col.name);
  else b = doublePrecision(col.name);
  if (col.notNull) b = b.notNull();
  if (col.primary) b = b.primaryKey();
  if (col.default !== undefined) {
    const d = col.default;
    // a boolean default of an 0/1 column is written as its number (DEFAULT false is no integer)
    // and a JSON default as its text, as SQLite's declaration writes it
    if (is(d, SQL)) b = b.default(toPgSql(d, () => undefined));
    else if (family === "int-boolean") b = b.default(sql.raw(d ? "1" : "0"));
    else if (family === "json-text") b = b.default(sql.raw(`'${JSON.stringify(d).replaceAll("'", "''")}'`));
    else b = b.default(d);
  }
  if (col.defaultFn) b = b.$defaultFn(col.defaultFn);
  if (col.onUpdateFn) b = b.$onUpdateFn(col.onUpdateFn);
  if (col.isUnique && !col.primary) b = b.unique(col.uniqueName);
  return b;
}

/** A SQL fragment of the SQLite declarations with its column references pointing at the pg table's. */
function toPgSql(s: SQL, columnOf: (c: SQLiteColumn) => unknown): SQL {
  const chunks = s.queryChunks.map((c): SQLChunk => {
    if (is(c, SQLiteColumn)) {
      const mapped = columnOf(c);
      if (!mapped) throw new Error(`a column of another table in a derived SQL fragment: ${c.name}`);
      return mapped as SQLChunk;
    }
    if (is(c, SQL)) return toPgSql(c, columnOf);
    return c;
  });
  return new SQL(chunks);
}

export type DerivedTable = PgTableWithColumns<{
  name: string;
  schema: undefined;
  dialect: "pg";
  columns: Record<string, any>;
}>;

/**
 * Derives every table of `tables` (SQLite tables by any key): the pg tables by SQL name. Foreign
 * keys refer to the derived tables, so every referenced table must be among `tables`.
 */
export function derivePgTables(tables: SQLiteTable[]): Map<string, DerivedTable> {
  const out = new Map<string, DerivedTable>();
  const byName = (name: string): DerivedTable => {
    const t = out.get(name);
    if (!t) throw new Error(`a foreign key refers to ${name}, which is not derived`);
    return t;
  };
  for (const table of tables) {
    const cfg = getTableConfig(table);
    const keyOf = new Map<SQLiteColumn, string>();
    const columns: Record<string, PgColumnBuilderBase> = {};
    for (const [key, col] of Object.entries(table as unknown as Record<string, unknown>)) {
      if (!is(col, SQLiteColumn) || col.table !== table) continue;
      keyOf.set(col, key);
      columns[key] = columnBuilder(col);
    }
    const derived = pgTable(cfg.name, columns, (t) => {
      const pgCol = (c: SQLiteColumn): any => {
        const k = keyOf.get(c);
        return k === undefined ? undefined : (t as Record<string, unknown>)[k];
      };
      const extras = [];
      for (const pk of cfg.primaryKeys) extras.push(primaryKey({ name: pk.getName(), columns: pk.columns.map(pgCol) as [never] }));
      for (const u of cfg.uniqueConstraints) extras.push(unique(u.getName()).on(...(u.columns.map(pgCol) as [never])));
      for (const fk of cfg.foreignKeys) {
        const ref = fk.reference();
        const target = byName(getTableConfig(ref.foreignTable).name);
        const targetCol = (c: SQLiteColumn) => {
          const key = Object.entries(ref.foreignTable as unknown as Record<string, unknown>).find(([, v]) => v === c)?.[0];
          return key ? (target as unknown as Record<string, unknown>)[key] : undefined;
        };
        let b = foreignKey({
          name: fk.getName(),
          columns: ref.columns.map(pgCol) as [never],
          foreignColumns: ref.foreignColumns.map(targetCol) as [never],
        });
        if (fk.onDelete) b = b.onDelete(fk.onDelete);
        if (fk.onUpdate) b = b.onUpdate(fk.onUpdate);
        extras.push(b);
      }
      for (const ix of cfg.indexes) {
        const c = ix.config;
        // an expression among an index's columns is parenthesized (PostgreSQL requires it; SQLite takes it bare)
        const cols = c.columns.map((x) => (is(x, SQLiteColumn) ? pgCol(x) : sql`(${toPgSql(x as SQL, pgCol)})`));
        let b = (c.unique ? uniqueIndex(c.name) : index(c.name)).on(...(cols as [never]));
        if (c.where) b = b.where(toPgSql(c.where, pgCol));
        extras.push(b);
      }
      if (cfg.checks.length > 0) throw new Error(`${cfg.name}: CHECK constraints are not derived yet`);
      return extras;
    });
    out.set(cfg.name, derived as unknown as DerivedTable);
  }
  return out;
}
