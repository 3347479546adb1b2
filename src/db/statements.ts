/** A prepared-statement cache for one native libSQL connection (the reader, bulk writes, the writer thread). */
import type LibsqlDatabase from "libsql";

/** What the hot paths call on a prepared statement. */
export interface Prepared {
  run(...args: unknown[]): unknown;
  get(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
}

/** Returns `sql` prepared once on `conn`, then from the cache. */
export function statementCache(conn: InstanceType<typeof LibsqlDatabase>): (sql: string) => Prepared {
  const cache = new Map<string, Prepared>();
  return (sql) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = conn.prepare(sql) as unknown as Prepared));
    return s;
  };
}
