/**
 * An async mutex. libSQL's embedded driver runs statements synchronously on the JS thread, so
 * two interactive write transactions open at once would make the second block the thread in
 * busy-wait while the first can never commit. Every write goes through one mutex instead.
 */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;

  /** True while someone waits for the mutex (a long holder, such as the writer thread's stream, lets go). */
  get contended(): boolean {
    return this.#waiting > 0;
  }

  /** Runs `fn` once every earlier holder has finished; resolves with its result. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.#tail;
    this.#tail = prev.then(() => next);
    this.#waiting++;
    try {
      await prev;
    } finally {
      this.#waiting--;
    }
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
