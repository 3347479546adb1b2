/**
 * A per-user cap on the heavy dashboard reads (the activity summaries, a talent's usage,
 * insights and adoption, as JSON or as pages), so one user polling them cannot starve another
 * tenant's requests of the one thread that serves them all:
 *
 * - at most DASHBOARD_READS_PER_USER of a user's reads run at once;
 * - a user's reads may use a share of the thread's time (`share` of it over time, after a burst of
 *   `burstMs`): the time during which the user has a read running is owed (once, however many
 *   run together), and the debt is repaid at `share` ms per ms;
 * - a read beyond either waits its turn, up to WAIT_MS, with at most QUEUE_MAX waiting per user
 *   (a poller that sends its next read as soon as the last one answers is slowed to its share,
 *   not answered at once to try again); past that, 429 rate_limited with Retry-After: 1, before
 *   anything is read.
 *
 * Per process and per database (tests open several), counted in memory; durations are wall time.
 */
import type { Database } from "../db/client";
import { AppError } from "../http/errors";

/** The seconds a refused read is told to wait. */
export const RETRY_AFTER_S = 1;

/** How a cap shares the thread. */
export interface CapLimits {
  /** Reads of one user running at once. */
  perUser: number;
  /** The share of the thread's time one user's reads may use over time (0.1: 100 ms a second). */
  share: number;
  /** Read time a user may owe before its next read waits (a dashboard's first load is never slowed). */
  burstMs: number;
  /** The longest a read waits for its turn before 429. */
  waitMs: number;
  /** Reads of one user waiting at once; the next one gets 429 at once. */
  queueMax: number;
}

export const DEFAULT_LIMITS: Omit<CapLimits, "perUser"> = { share: 0.1, burstMs: 1_000, waitMs: 2_000, queueMax: 8 };

interface UserState {
  running: number;
  waiting: number;
  /** Read time owed (ms) as of `at`: busy time charged, repaid at `share`. */
  debt: number;
  at: number;
  /** Wakes the waiting reads (one was released, or the debt was repaid). */
  wake: (() => void)[];
}

const rateLimited = (why: string): AppError =>
  new AppError(
    "rate_limited",
    `${why}; retry in ${RETRY_AFTER_S} s.`,
    { retryAfter: RETRY_AFTER_S },
    { "retry-after": String(RETRY_AFTER_S) },
  );

/** Heavy reads per user, under one set of limits. */
export class ReadCap {
  private readonly users = new Map<string, UserState>();

  constructor(readonly limits: CapLimits) {}

  /** Runs `read` for `userId` when its turn comes (see the module comment), or throws 429 rate_limited. */
  async run<T>(userId: string, read: () => Promise<T>): Promise<T> {
    const s = this.users.get(userId) ?? { running: 0, waiting: 0, debt: 0, at: performance.now(), wake: [] };
    this.users.set(userId, s);
    await this.turn(s);
    try {
      return await read();
    } finally {
      this.account(s);
      s.running--;
      for (const w of s.wake.splice(0)) w();
      if (s.running === 0 && s.waiting === 0 && s.debt === 0) this.users.delete(userId);
    }
  }

  /** A user's reads running and waiting now (tests, diagnostics). */
  pending(userId: string): { running: number; waiting: number } {
    const s = this.users.get(userId);
    return { running: s?.running ?? 0, waiting: s?.waiting ?? 0 };
  }

  /**
   * Resolves when a read of `s` may start, counted as running (in the same turn as the check:
   * an `await` between them would let concurrent reads pass the same check); throws 429 when the
   * queue is full or the wait too long.
   */
  private async turn(s: UserState): Promise<void> {
    const { perUser, waitMs, queueMax, burstMs, share } = this.limits;
    this.account(s);
    if (s.running < perUser && s.debt <= burstMs && s.waiting === 0) return void s.running++;
    if (s.waiting >= queueMax) throw rateLimited(`At most ${perUser} dashboard summaries at a time per user and ${queueMax} waiting`);
    const deadline = performance.now() + waitMs;
    s.waiting++;
    try {
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0) throw rateLimited("Too many dashboard summaries of this user");
        // woken by a release, or when the debt is repaid down to the burst
        const repaid = s.debt > burstMs ? (s.debt - burstMs) / share + 1 : Infinity;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, repaid));
          s.wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        this.account(s);
        if (s.running < perUser && s.debt <= burstMs) return void s.running++;
      }
    } finally {
      s.waiting--;
    }
  }

  /** Counts the time since the last count: owed while a read of the user ran, repaid at `share` all along. */
  private account(s: UserState): void {
    const now = performance.now();
    const dt = now - s.at;
    s.debt = Math.max(0, s.debt + (s.running > 0 ? dt : 0) - dt * this.limits.share);
    s.at = now;
  }
}

const caps = new WeakMap<Database, ReadCap>();

/** The one cap of an app (by its database), shared by the JSON routes and the pages, so both count against the same limits. */
export function dashboardReadCap(database: Database, perUser: number): ReadCap {
  let cap = caps.get(database);
  if (!cap || cap.limits.perUser !== perUser) caps.set(database, (cap = new ReadCap({ perUser, ...DEFAULT_LIMITS })));
  return cap;
}
