/** In-memory sliding-window counters (sign-in attempts per e-mail and per IP). */

export interface LimitResult {
  allowed: boolean;
  /** Seconds until the oldest counted hit leaves the window (for Retry-After). */
  retryAfter: number;
}

export class SlidingWindowLimiter {
  readonly #hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly maxKeys = 100_000,
  ) {}

  /** Whether `key` is under the limit now, without counting a hit. */
  check(key: string, now = Date.now()): LimitResult {
    const hits = this.#live(key, now);
    if (hits.length < this.limit) return { allowed: true, retryAfter: 0 };
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((hits[0]! + this.windowMs - now) / 1000)) };
  }

  /** Counts one hit for `key`. */
  hit(key: string, now = Date.now()): void {
    const hits = this.#live(key, now);
    hits.push(now);
    this.#hits.set(key, hits);
    if (this.#hits.size > this.maxKeys) {
      // forget the oldest keys rather than grow without bound
      const drop = this.#hits.size - this.maxKeys;
      let i = 0;
      for (const k of this.#hits.keys()) {
        if (i++ >= drop) break;
        this.#hits.delete(k);
      }
    }
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
