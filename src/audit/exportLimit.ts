/**
 * What an export of the audit log may cost the server: at most EXPORTS_PER_ORGANIZATION of an
 * organization's exports run at once (the next one is answered 429 rate_limited with
 * Retry-After, before anything is read), and each runs as one heavy read under the dashboard's
 * per-user cap for as long as its body streams (`HeavyReads`: activity/readCap.ts, handed in by
 * app.ts, since the audit log sits below activity), its pages paced to the cap's share of the
 * thread while other requests want it. docs/design.md "Exports share the thread".
 */
import { AppError } from "../http/errors";

/** An organization's exports running at once. */
export const EXPORTS_PER_ORGANIZATION = 1;
/** The seconds a refused export is told to wait. */
export const EXPORT_RETRY_AFTER_S = 5;

/** The longest an export waits between two pages (a page of a slow disk must not stall it for seconds). */
const MAX_PAUSE_MS = 250;

/** The heavy-read cap's shape (activity/readCap.ts `ReadCap`): runs `read` when the user's turn comes, or throws 429. */
export interface HeavyReads {
  run<T>(userId: string, request: Request | undefined, read: () => Promise<T>): Promise<T>;
  /** The ms since a request other than a heavy read, a probe or an asset was answered. */
  quietFor(): number;
  /**
   * The thread counts as contended for `quietMs` after such a request; past `burstMs` of reading, a
   * heavy read gets its `share` of the thread's time while contended.
   */
  readonly limits: { quietMs: number; share: number; burstMs: number };
}

/**
 * One export's pause before its next page: none during its first `burstMs` of page reads (a small
 * export is never slowed), nor while no one else wants the thread; past them, while the thread is
 * contended, as long as the last page took divided so the export uses the cap's share of the thread
 * (a tenth: a 10 ms page, then 90 ms for the others), at most MAX_PAUSE_MS.
 */
export function exportPause(cap: HeavyReads): (pageMs: number) => Promise<void> {
  let read = 0;
  return (pageMs) => {
    read += pageMs;
    if (read <= cap.limits.burstMs || cap.quietFor() >= cap.limits.quietMs) return Promise.resolve();
    return Bun.sleep(Math.min(MAX_PAUSE_MS, pageMs * (1 / cap.limits.share - 1)));
  };
}

/** The exports running, per organization (one per app). */
export class ExportSlots {
  private readonly running = new Map<string, number>();

  /** Takes a slot of `organizationId`, or throws 429 rate_limited; returns its release (a second call does nothing). */
  take(organizationId: string): () => void {
    const n = this.running.get(organizationId) ?? 0;
    if (n >= EXPORTS_PER_ORGANIZATION)
      throw new AppError(
        "rate_limited",
        `An export of this organization's audit log is already running; retry in ${EXPORT_RETRY_AFTER_S} s.`,
        { retryAfter: EXPORT_RETRY_AFTER_S },
        { "retry-after": String(EXPORT_RETRY_AFTER_S) },
      );
    this.running.set(organizationId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(organizationId) ?? 1) - 1;
      if (left > 0) this.running.set(organizationId, left);
      else this.running.delete(organizationId);
    };
  }

  /** The exports of `organizationId` running now (tests, diagnostics). */
  count(organizationId: string): number {
    return this.running.get(organizationId) ?? 0;
  }
}

/**
 * Waits for `userId`'s turn under `cap` and holds it until the returned function is called (the
 * export's end), so the export counts as one of the user's heavy reads all along its stream;
 * throws the cap's 429 when it is refused.
 */
export async function holdTurn(cap: HeavyReads, userId: string, request: Request): Promise<() => void> {
  let end!: () => void;
  const held = new Promise<void>((resolve) => {
    end = resolve;
  });
  let begun!: () => void;
  const began = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const run = cap.run(userId, request, () => {
    begun();
    return held;
  });
  await Promise.race([began, run]);
  return end;
}
