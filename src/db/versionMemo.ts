/**
 * Reads kept for one data version of the database (Database.dataVersion: any commit, by this
 * process or another, changes it), the way the key guard keeps key rows: the rows every page
 * reads first — the session, the person's organizations, the project — cost a query each, and
 * between two commits they cannot have changed. The version is read before the rows, so a row
 * is never labelled newer than it is; a libSQL server (no version) reads every time. Callers
 * must not mutate what they get.
 */
import type { InValue } from "@libsql/client";
import type { Database } from "./client";

interface Kept {
  version: number;
  /** By statement (the same string object each call), then by arguments. */
  rows: Map<string, Map<string, unknown>>;
  size: number;
}
const kept = new WeakMap<Database, Kept>();
const KEPT_MAX = 10_000;

/** `database.get` kept for the current data version, by SQL and arguments (misses included). */
export async function keptGet<T>(database: Database, sql: string, args: InValue[]): Promise<T | undefined> {
  return keptRead(database, sql, args, () => database.get<T>(sql, args));
}

/** `database.all` kept for the current data version, by SQL and arguments. */
export async function keptAll<T>(database: Database, sql: string, args: InValue[]): Promise<T[]> {
  return keptRead(database, sql, args, () => database.all<T>(sql, args));
}

/** Any value read from the database, kept for the current data version by a group (e.g. a statement) and arguments. */
export async function keptRead<T>(database: Database, sql: string, args: InValue[], read: () => Promise<T>): Promise<T> {
  const version = database.dataVersion();
  if (version === null) return read();
  let k = kept.get(database);
  if (!k || k.version !== version) kept.set(database, (k = { version, rows: new Map(), size: 0 }));
  let bySql = k.rows.get(sql);
  if (!bySql) k.rows.set(sql, (bySql = new Map()));
  const key = args.length === 1 ? String(args[0]) : args.join("\u0000");
  if (bySql.has(key)) return bySql.get(key) as T;
  const value = await read();
  if (k.size >= KEPT_MAX) {
    k.rows.clear();
    k.rows.set(sql, (bySql = new Map()));
    k.size = 0;
  }
  bySql.set(key, value);
  k.size++;
  return value;
}
