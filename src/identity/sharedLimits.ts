/**
 * The rate limits on PostgreSQL, counted in the database so they hold across replicas
 * (docs/design.md "Several replicas: what is shared"): a guesser spread over several replicas
 * behind a balancer gets the same 5 tries as against one. On SQLite the limits count in memory
 * (limits.ts, lib/rateLimit.ts), as before.
 *
 * Each limit counts hits per key in fixed windows of its length, in `rate_counters`, by one
 * atomic upsert (`INSERT … ON CONFLICT … DO UPDATE … RETURNING`: concurrent takes from any
 * replica each get their own count), and weighs the previous window by the part of it still
 * inside the sliding window (the usual sliding-window estimate), so the bound is the same as the
 * in-memory limiter's within the estimate. A hit over the limit is given back at once, so a
 * refused attempt counts nothing, as in memory. Housekeeping deletes the windows that have
 * expired (ops/housekeeping.ts).
 */
import type { Database } from "../db/database";
import type { LimitResult } from "../lib/rateLimit";

const TAKE = `INSERT INTO rate_counters (scope, key, window_start, count, expires_at) VALUES (?1, ?2, ?3, 1, ?4)
ON CONFLICT (scope, key, window_start) DO UPDATE SET count = rate_counters.count + 1
RETURNING count, (SELECT p.count FROM rate_counters p WHERE p.scope = ?1 AND p.key = ?2 AND p.window_start = ?5) AS previous`;
const GIVE_BACK = "UPDATE rate_counters SET count = count - 1 WHERE scope = ? AND key = ? AND window_start = ? AND count > 0";
const CLEAR = "DELETE FROM rate_counters WHERE scope = ? AND key = ?";

/** One taken hit: whether it was allowed, and how to give it back. */
export interface SharedHit extends LimitResult {
  giveBack(): Promise<void>;
}

/** One limit over the database: at most `limit` hits per key in a sliding `windowMs`. */
export interface SharedWindow {
  take(key: string, now?: number): Promise<SharedHit>;
  /** Forgets every hit of `key` (a successful sign-in clears its pair's failures). */
  clear(key: string): Promise<void>;
}

/**
 * A limit of `scope` on `database`. `sliding: false` counts fixed windows only (a gate of one
 * pass per window: the sign-in slow path).
 */
export function sharedWindow(database: Database, scope: string, limit: number, windowMs: number, sliding = true): SharedWindow {
  return {
    async take(key, now = Date.now()) {
      const start = now - (now % windowMs);
      const row = await database.get<{ count: number; previous: number | null }>(TAKE, [
        scope,
        key,
        start,
        start + 2 * windowMs,
        start - windowMs,
      ]);
      const previous = sliding ? Number(row?.previous ?? 0) * (1 - (now - start) / windowMs) : 0;
      const giveBack = async () => void (await database.get(GIVE_BACK, [scope, key, start]));
      if (Number(row?.count ?? 1) + previous <= limit) return { allowed: true, retryAfter: 0, giveBack };
      await giveBack(); // refused: counts nothing
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((start + windowMs - now) / 1000)), giveBack: async () => {} };
    },
    async clear(key) {
      await database.get(CLEAR, [scope, key]);
    },
  };
}
