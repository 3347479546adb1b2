/** A prepared-statement cache for one native libSQL connection (the reader, bulk writes, the writer thread). */
import type LibsqlDatabase from "libsql";
import { declareKept } from "../lib/kept";
import { KeptMap } from "../lib/keptMap";

declareKept("Prepared statements by SQL text", { clock: "none", limit: "1,024 per connection (writer thread 128), FIFO" });

/** What the hot paths call on a prepared statement. */
export interface Prepared {
  run(...args: unknown[]): unknown;
  get(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
}

/**
 * Returns `sql` prepared once on `conn`, then from the cache. At most `max` statements are kept
 * (the oldest prepared goes first): the writer thread's statements carry a designation's items
 * as literals (src/resolution/prepare.ts), so their texts are many.
 */
export function statementCache(conn: InstanceType<typeof LibsqlDatabase>, max = 1024): (sql: string) => Prepared {
  const cache = new KeptMap<string, Prepared>(max);
  return (sql) => {
    let s = cache.get(sql);
    if (!s) {
      cache.set(sql, (s = conn.prepare(sql) as unknown as Prepared));
    }
    return s;
  };
}
