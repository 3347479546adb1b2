/**
 * A per-user cap on the heavy dashboard reads (the activity summaries, a talent's usage,
 * insights and adoption, as JSON or as pages): at most DASHBOARD_READS_PER_USER of one user's
 * reads are in flight at once; the next one gets 429 rate_limited with Retry-After: 1 at once,
 * before it reads anything. One user polling many tabs or scripts then holds at most that many
 * of the server's reads, whatever it sends, and another tenant's requests are served meanwhile.
 * Per process and per database (tests open several), counted in memory.
 */
import type { Database } from "../db/client";
import { AppError } from "../http/errors";

/** The seconds a capped read is told to wait. */
export const RETRY_AFTER_S = 1;

/** Reads in flight per user, under one limit. */
export class ReadCap {
  private readonly inFlight = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Runs `read` for `userId`, or throws 429 rate_limited when the user already has `limit` reads in flight. */
  async run<T>(userId: string, read: () => Promise<T>): Promise<T> {
    const n = this.inFlight.get(userId) ?? 0;
    if (n >= this.limit) {
      throw new AppError(
        "rate_limited",
        `At most ${this.limit} dashboard summaries at a time per user; retry in ${RETRY_AFTER_S} s.`,
        { retryAfter: RETRY_AFTER_S },
        { "retry-after": String(RETRY_AFTER_S) },
      );
    }
    this.inFlight.set(userId, n + 1);
    try {
      return await read();
    } finally {
      const left = (this.inFlight.get(userId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(userId, left);
      else this.inFlight.delete(userId);
    }
  }
}

const caps = new WeakMap<Database, ReadCap>();

/** The one cap of an app (by its database), shared by the JSON routes and the pages, so both count against the same limit. */
export function dashboardReadCap(database: Database, limit: number): ReadCap {
  let cap = caps.get(database);
  if (!cap || cap.limit !== limit) caps.set(database, (cap = new ReadCap(limit)));
  return cap;
}
