/** In-memory sliding-window counters and a minimum-interval gate (sign-in, sign-up, password change). */
import { KeptMap } from "./keptMap";

export interface LimitResult {
  allowed: boolean;
  /** Seconds until the oldest counted hit leaves the window (for Retry-After). */
  retryAfter: number;
}

export class SlidingWindowLimiter {
  // at most maxKeys keys: the oldest inserted are forgotten rather than grow without bound
  readonly #hits: KeptMap<string, number[]>;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly maxKeys = 100_000,
  ) {
    this.#hits = new KeptMap(maxKeys);
  }

  /** Whether `key` is under the limit now, without counting a hit. */
  check(key: string, now = Date.now()): LimitResult {
    const hits = this.#live(key, now);
    if (hits.length < this.limit) return { allowed: true, retryAfter: 0 };
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((hits[0]! + this.windowMs - now) / 1000)) };
  }

  /**
   * Counts a hit for `key` if it is under the limit, in the same synchronous step as the
   * check: concurrent callers cannot all pass a check before any of them counts (the way 200
   * parallel sign-ins once found a password). Returns the time to give to `release`.
   */
  take(key: string, now = Date.now()): LimitResult & { at: number } {
    const r = this.check(key, now);
    if (r.allowed) this.hit(key, now);
    return { ...r, at: now };
  }

  /** Gives back one hit taken at `at` (the attempt succeeded, so it was no failure). */
  release(key: string, at: number): void {
    const hits = this.#hits.get(key);
    const i = hits?.lastIndexOf(at) ?? -1;
    if (i >= 0) hits!.splice(i, 1);
  }

  /** Counts one hit for `key`. */
  hit(key: string, now = Date.now()): void {
    const hits = this.#live(key, now);
    hits.push(now);
    this.#hits.set(key, hits);
  }

  /** Forgets `key` (a successful sign-in clears its e-mail's failures). */
  reset(key: string): void {
    this.#hits.delete(key);
  }

  #live(key: string, now: number): number[] {
    const hits = this.#hits.get(key);
    if (!hits) return [];
    const live = hits.filter((t) => t > now - this.windowMs);
    if (live.length === 0) this.#hits.delete(key);
    return live;
  }
}

/**
 * At most one pass per `intervalMs` per key, whoever asks: the slow path of a limit that must
 * not lock anyone out for good (an e-mail over its sign-in ceiling still gets an attempt now
 * and then, so its owner is delayed, not locked out, while a guesser gets two a minute).
 */
export class IntervalGate {
  readonly #last: KeptMap<string, number>;

  constructor(
    readonly intervalMs: number,
    readonly maxKeys = 100_000,
  ) {
    this.#last = new KeptMap(maxKeys);
  }

  /** Lets one caller through if the key's interval has passed, marking it; else the wait in seconds. */
  take(key: string, now = Date.now()): LimitResult {
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.intervalMs)
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((last + this.intervalMs - now) / 1000)) };
    this.#last.delete(key); // re-insert at the end: the map's order is the age order for eviction
    this.#last.set(key, now);
    return { allowed: true, retryAfter: 0 };
  }
}
