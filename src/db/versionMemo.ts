/**
 * Reads kept while the database has not changed, the way the key guard keeps key rows: the rows
 * every page reads first — the session, the person's organizations, the project — cost a query
 * each, and between two changes they cannot have changed. Two clocks:
 *
 * - configuration rows (`keptGet`, `keptAll`): the configuration epoch (Database.configEpoch,
 *   src/db/epoch.ts), which any change to a configuration table by anyone bumps, and which the
 *   service's own activity commits (resolutions, reports, trace events) leave alone;
 * - anything read from the activity log (`keptRead`): the data version (Database.dataVersion),
 *   which every commit changes.
 *
 * The clock is read before the rows, so a row is never labelled newer than it is; a libSQL
 * server (no clock) reads every time. Callers must not mutate what they get.
 */
import type { InValue } from "@libsql/client";
import type { Database } from "./client";
import { type KeptByVersion, keptTableByVersion } from "../lib/kept";
import type { KeptTable } from "../lib/keptMap";

type Kept = KeptByVersion<Database, KeptTable<string, string, unknown>>;
/** By statement (the same string object each call), then by arguments; FIFO: a full memo drops its oldest rows. */
const byEpoch: Kept = keptTableByVersion("Configuration rows by SQL and arguments", {
  clock: "configuration epoch",
  limit: 10_000,
  per: "database",
});
const byDataVersion: Kept = keptTableByVersion("Activity reads by group and arguments", {
  clock: "data version",
  limit: 10_000,
  per: "database",
});

/** `database.get` of configuration rows, kept for the current configuration epoch, by SQL and arguments (misses included). */
export async function keptGet<T>(database: Database, sql: string, args: InValue[]): Promise<T | undefined> {
  return kept(byEpoch, database, database.configEpoch(), sql, args, () => database.get<T>(sql, args));
}

/** `database.all` of configuration rows, kept for the current configuration epoch, by SQL and arguments. */
export async function keptAll<T>(database: Database, sql: string, args: InValue[]): Promise<T[]> {
  return kept(byEpoch, database, database.configEpoch(), sql, args, () => database.all<T>(sql, args));
}

/**
 * Any value read from the database (the activity log included), kept for the current data version by a group (e.g. a statement) and
 * arguments.
 */
export async function keptRead<T>(database: Database, group: string, args: InValue[], read: () => Promise<T>): Promise<T> {
  return kept(byDataVersion, database, database.dataVersion(), group, args, read);
}

async function kept<T>(
  stores: Kept,
  database: Database,
  version: number | null,
  sql: string,
  args: InValue[],
  read: () => Promise<T>,
): Promise<T> {
  const rows = stores.current(database, version);
  if (rows === null) return read();
  const key = args.length === 1 ? String(args[0]) : args.join("\u0000");
  if (rows.has(sql, key)) return rows.get(sql, key) as T;
  const value = await read();
  rows.set(sql, key, value);
  return value;
}
