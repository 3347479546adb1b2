/**
 * A per-user cap on the heavy dashboard reads (the activity summaries, a talent's usage,
 * insights and adoption, the rules view, as JSON or as pages), so one user polling them cannot
 * starve another tenant's requests of the one thread that serves them all. It is work-conserving:
 * a user alone on the thread is never slowed by it (but for the reads running at once).
 *
 * - at most DASHBOARD_READS_PER_USER of a user's reads run at once;
 * - a user's reads use the thread's time: while k users have reads running, each of them owes
 *   1/k of the CPU time the thread spent (once, however many of its reads run together: not the
 *   wall time, which other processes of a loaded machine stretch), and the debt is repaid at
 *   `share` ms per ms of wall time (a tenth: 100 ms a second);
 * - past a debt of `burstMs`, a user's next read waits only while the thread is contended: another
 *   request (another tenant's key call, any request that is not a heavy read) was answered in the
 *   last `quietMs`, or another user with less debt has a heavy read running or waiting. So the
 *   least-served user always goes first, and nobody waits on an idle thread;
 * - a read beyond either waits its turn, up to WAIT_MS, with at most QUEUE_MAX waiting per user
 *   (a poller that sends its next read as soon as the last one answers is slowed to its share,
 *   not answered at once to try again); past that, 429 rate_limited with Retry-After: 1, before
 *   anything is read.
 *
 * Per process and per database (tests open several), counted in memory.
 */
import type { Database } from "../db/client";
import { AppError } from "../http/errors";

/** The CPU time (user and system) this thread has used, in ms: ~0.5 µs a call. */
const threadCpuMs: () => number = (() => {
  const p = process as { threadCpuUsage?: () => NodeJS.CpuUsage };
  const usage = p.threadCpuUsage ? () => p.threadCpuUsage!() : () => process.cpuUsage();
  return () => {
    const u = usage();
    return (u.user + u.system) / 1000;
  };
})();

/** The seconds a refused read is told to wait. */
export const RETRY_AFTER_S = 1;

/** How a cap shares the thread. */
export interface CapLimits {
  /** Reads of one user running at once. */
  perUser: number;
  /** The share of the thread's time one user's reads may use over time while contended (0.1: 100 ms a second). */
  share: number;
  /** Read time a user may owe before its next read may wait (a dashboard's first load is never slowed). */
  burstMs: number;
  /** The longest a read waits for its turn before 429. */
  waitMs: number;
  /** Reads of one user waiting at once; the next one gets 429 at once. */
  queueMax: number;
  /** The thread counts as contended this long after another request (not a heavy read) was answered. */
  quietMs: number;
}

/** The routes (as the router matched them) whose answer is no contention: probes, the metrics scrape, the pages' assets. */
const NO_CONTENTION = new Set(["/healthz", "/readyz", "/metrics", "/assets/*"]);

export const DEFAULT_LIMITS: Omit<CapLimits, "perUser"> = { share: 0.1, burstMs: 1_000, waitMs: 2_000, queueMax: 8, quietMs: 1_000 };

interface UserState {
  running: number;
  waiting: number;
  /** Read time owed (ms) as of `at`: its part of the busy time charged, repaid at `share`. */
  debt: number;
  at: number;
  /** The cap's service clock when this user's debt was last charged. */
  charged: number;
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
  /** The requests that are heavy reads (the others mark the thread contended when answered). */
  private readonly heavy = new WeakSet<Request>();
  /** When a request other than a heavy read was last answered (-Infinity: never). */
  private otherAt = -Infinity;
  /** Users with a read running, and the service clock: ms of the thread's CPU time per running user, as of `cpuAt`. */
  private usersRunning = 0;
  private clock = 0;
  private cpuAt = threadCpuMs();
  /** Wakes the waiting reads (of every user: one was released, a debt repaid, or the quiet came). */
  private wake: (() => void)[] = [];

  constructor(readonly limits: CapLimits) {}

  /** Runs `read` for `userId` (`request`: a heavy read's) when its turn comes (see the module comment), or throws 429 rate_limited. */
  async run<T>(userId: string, request: Request | undefined, read: () => Promise<T>): Promise<T> {
    if (request) this.heavy.add(request);
    const s = this.users.get(userId) ?? { running: 0, waiting: 0, debt: 0, at: performance.now(), charged: this.tick() };
    this.users.set(userId, s);
    await this.turn(userId, s);
    try {
      return await read();
    } finally {
      this.release(userId, s);
    }
  }

  /**
   * The edge's word that `request` was answered, with the route the router matched: unless it was a
   * heavy read, a probe or an asset (NO_CONTENTION: a load balancer's /healthz every second must not
   * slow every dashboard read), the thread is contended for a while.
   */
  answered(request: Request, route?: string): void {
    if (this.heavy.has(request) || (route !== undefined && NO_CONTENTION.has(route))) return;
    this.otherAt = performance.now();
  }

  /** The ms since a request other than a heavy read was answered (tests, diagnostics). */
  quietFor(): number {
    return performance.now() - this.otherAt;
  }

  /** A user's reads running and waiting now (tests, diagnostics). */
  pending(userId: string): { running: number; waiting: number } {
    const s = this.users.get(userId);
    return { running: s?.running ?? 0, waiting: s?.waiting ?? 0 };
  }

  /** A user's read time owed now, in ms (tests, diagnostics). */
  debt(userId: string): number {
    const s = this.users.get(userId);
    if (!s) return 0;
    this.account(s);
    return s.debt;
  }

  /**
   * Resolves when a read of `s` may start, counted as running (in the same turn as the check:
   * an `await` between them would let concurrent reads pass the same check); throws 429 when the
   * queue is full or the wait too long.
   */
  private async turn(userId: string, s: UserState): Promise<void> {
    const { perUser, waitMs, queueMax } = this.limits;
    if (s.waiting === 0 && this.mayStart(userId, s)) return this.start(s);
    if (s.waiting >= queueMax) throw rateLimited(`At most ${perUser} dashboard summaries at a time per user and ${queueMax} waiting`);
    const deadline = performance.now() + waitMs;
    s.waiting++;
    try {
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0) throw rateLimited("Too many dashboard summaries of this user");
        // woken by a release, or when the debt is repaid down to the burst, or the quiet comes
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, this.nextChange(s)));
          this.wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (this.mayStart(userId, s)) return this.start(s);
      }
    } finally {
      s.waiting--;
    }
  }

  /** A free slot, and a debt within the burst or no one else wanting the thread. */
  private mayStart(userId: string, s: UserState): boolean {
    if (s.running >= this.limits.perUser) return false;
    this.account(s);
    return s.debt <= this.limits.burstMs || !this.contended(userId, s);
  }

  /** Another request answered lately, or another user owing less with a read running or waiting. */
  private contended(userId: string, s: UserState): boolean {
    if (performance.now() - this.otherAt < this.limits.quietMs) return true;
    for (const [id, o] of this.users) {
      if (id === userId) continue;
      this.account(o);
      if (o.running + o.waiting > 0) {
        if (o.debt < s.debt) return true;
      } else if (o.debt === 0) this.users.delete(id); // repaid and idle: forgotten
    }
    return false;
  }

  /** The ms until `s` may be let in without a release: its debt repaid to the burst, or the quiet after other requests. */
  private nextChange(s: UserState): number {
    const { burstMs, share, quietMs } = this.limits;
    const repaid = s.debt > burstMs ? (s.debt - burstMs) / share + 1 : Infinity;
    const quiet = this.otherAt + quietMs - performance.now();
    return Math.min(repaid, quiet > 0 ? quiet + 1 : Infinity);
  }

  private start(s: UserState): void {
    this.account(s);
    if (s.running++ === 0) {
      this.tick();
      this.usersRunning++;
    }
  }

  private release(userId: string, s: UserState): void {
    this.account(s);
    if (--s.running === 0) {
      this.tick();
      this.usersRunning--;
    }
    for (const w of this.wake.splice(0)) w();
    if (s.running === 0 && s.waiting === 0 && s.debt === 0) this.users.delete(userId);
  }

  /** Advances the service clock to now (each running user's part of the thread's CPU time since) and returns it. */
  private tick(): number {
    const cpu = threadCpuMs();
    if (this.usersRunning > 0) this.clock += (cpu - this.cpuAt) / this.usersRunning;
    this.cpuAt = cpu;
    return this.clock;
  }

  /** Charges `s` its part of the busy time since the last count (while a read of it ran), repaid at `share` all along. */
  private account(s: UserState): void {
    const clock = this.tick();
    const now = performance.now();
    const owed = s.running > 0 ? clock - s.charged : 0;
    s.debt = Math.max(0, s.debt + owed - (now - s.at) * this.limits.share);
    s.charged = clock;
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
