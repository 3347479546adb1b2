/**
 * Deadlines for reading request bodies (REQUEST_DEADLINE), kept by one timer for all requests:
 * a timer per request added ~3 µs to every request with a body, this ~0.5 µs. A deadline is met
 * to within one tick (100 ms).
 */

interface Entry {
  deadline: number;
  expire(): void;
}

/** One expiry: `expired` rejects with the given error once the deadline passes, unless `done()` came first. */
export interface Expiry {
  expired: Promise<never>;
  done(): void;
}

/** The pending deadlines of one app and the timer that checks them while there are any. */
export class Deadlines {
  readonly #pending = new Set<Entry>();
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(readonly tickMs = 100) {}

  /** An expiry at `deadline` (performance.now() time) rejecting with `error()`; call `done()` when the work ended. */
  expiry(deadline: number, error: () => Error): Expiry {
    let entry!: Entry;
    const expired = new Promise<never>((_, reject) => {
      entry = { deadline, expire: () => reject(error()) };
    });
    expired.catch(() => {}); // rejected only while someone races it; never an unhandled rejection
    if (performance.now() >= deadline) {
      entry.expire();
      return { expired, done: () => {} };
    }
    this.#pending.add(entry);
    this.#start();
    return { expired, done: () => this.#pending.delete(entry) };
  }

  #start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#sweep(), this.tickMs);
    this.#timer.unref?.();
  }

  #sweep(): void {
    const now = performance.now();
    for (const e of this.#pending) {
      if (e.deadline > now) continue;
      this.#pending.delete(e);
      e.expire();
    }
    if (this.#pending.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }
}
