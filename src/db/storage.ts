/**
 * Storage health: a full disk (SQLITE_FULL, ENOSPC) or a failing one (SQLITE_IOERR, EIO) is a
 * state of the service, not an unexpected error. A write that fails so is answered 507
 * `storage_full` with Retry-After (src/http/edge.ts); `/readyz` answers 503 naming it while it
 * lasts and `/api/doctor` says so; the log says it once per interval (not once per request, which
 * was tens of thousands of stack traces a minute); the state ends when a probe of the data folder
 * (after a commit, or from /readyz) finds room again (docs/operations.md, "Disk full").
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../lib/log";

/** Seconds a client is told to wait before it writes again (Retry-After). */
export const STORAGE_RETRY_AFTER_S = 30;
/** While storage stays full, one log line per this many ms (with the count of writes refused meanwhile). */
export const STORAGE_LOG_EVERY_MS = 60_000;
/** At most one probe of the data folder per this many ms (readiness checks may come every second). */
export const STORAGE_PROBE_EVERY_MS = 2_000;
/** The probe writes and syncs this much: room for a few transactions of WAL frames. */
export const STORAGE_PROBE_BYTES = 256 * 1024;
/** The probe's file in the data folder (removed after each probe, and at start if a crash left it). */
export const STORAGE_PROBE_FILE = ".talentd-storage-probe";

export type StorageKind = "full" | "io_error";

const FULL_CODES = ["SQLITE_FULL", "ENOSPC", "EDQUOT"];
const IO_CODES = ["SQLITE_IOERR", "EIO"];

/**
 * Whether an error means the storage is full or failing, looking through its cause chain (drizzle
 * wraps the driver's error; a write job carries the driver's code across the thread boundary).
 * Null for every other error.
 */
export function storageFailureOf(error: unknown): StorageKind | null {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const code = String(e.code ?? "");
    if (FULL_CODES.some((c) => code === c || code.startsWith(`${c}_`))) return "full";
    if (IO_CODES.some((c) => code === c || code.startsWith(`${c}_`))) return "io_error";
  }
  return null;
}

/** The sentence a client and an operator are told for a storage failure. */
export function storageMessage(kind: StorageKind): string {
  return kind === "full"
    ? "The server's disk is full: nothing was written. Reads still work; retry the write later."
    : "The server's storage reports I/O errors: nothing was written. Reads still work; retry the write later.";
}

export type StorageStatus =
  | { status: "ok" }
  | { status: "degraded"; reason: "storage_full"; kind: StorageKind; message: string; since: string; refused: number; retryAfter: number };

interface Degraded {
  kind: StorageKind;
  since: number;
  lastFailure: number;
  /** Writes refused since the state began. */
  refused: number;
}

export interface StorageHealthOptions {
  /**
   * The folder of the database file (probed for room); null for a libSQL server: the state then
   * ends a Retry-After after the last failure.
   */
  dir: string | null;
  now?: () => number;
  logEveryMs?: number;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The storage state of one database: failures noted by every write path; ended by a probe of the
 * data folder that finds room (a commit only asks for one: a transaction that wrote nothing
 * commits on a full disk too). At most one error line per log interval, however often the state
 * begins and ends.
 */
export class StorageHealth {
  #state: Degraded | null = null;
  #log: Logger = silent;
  #lastProbe = Number.NEGATIVE_INFINITY;
  #lastLog = Number.NEGATIVE_INFINITY;
  /** Failures not told in a log line yet. */
  #unlogged = 0;
  #seen = new WeakSet<object>();
  readonly #now: () => number;
  readonly #logEvery: number;

  constructor(readonly opts: StorageHealthOptions) {
    this.#now = opts.now ?? Date.now;
    this.#logEvery = opts.logEveryMs ?? STORAGE_LOG_EVERY_MS;
    if (opts.dir) rmSync(join(opts.dir, STORAGE_PROBE_FILE), { force: true }); // a probe a crash interrupted
  }

  /** Where the state is told (the app's logger; the database is opened before there is one). */
  useLog(log: Logger): void {
    this.#log = log;
  }

  /**
   * Notes a failed write; returns its kind when it was a storage failure (null otherwise, nothing
   * noted). The same error noted twice (by the database and again by the edge) counts once.
   */
  failed(error: unknown): StorageKind | null {
    const kind = storageFailureOf(error);
    if (!kind) return null;
    if (typeof error === "object" && error !== null) {
      if (this.#seen.has(error)) return kind;
      this.#seen.add(error);
    }
    const now = this.#now();
    const s = (this.#state ??= { kind, since: now, lastFailure: now, refused: 0 });
    s.kind = kind;
    s.lastFailure = now;
    s.refused++;
    this.#unlogged++;
    if (now - this.#lastLog >= this.#logEvery) {
      this.#log.error(storageMessage(kind), {
        storage: kind,
        error: String((error as Error)?.message ?? error),
        refusedSinceLastLine: this.#unlogged,
        since: new Date(s.since).toISOString(),
        dir: this.opts.dir ?? undefined,
        nextLineInMs: this.#logEvery,
      });
      this.#lastLog = now;
      this.#unlogged = 0;
    }
    return kind;
  }

  /** Notes a write that committed: while degraded, a probe (when due) decides whether storage works again. */
  succeeded(): void {
    if (!this.#state) return;
    if (this.opts.dir === null) this.#recovered();
    else this.check();
  }

  #recovered(): void {
    const s = this.#state;
    if (!s) return;
    this.#state = null;
    this.#log.info("storage writable again: writes are accepted", { storage: s.kind, refused: s.refused, ms: this.#now() - s.since });
  }

  /** The state as it is now, without probing. */
  status(): StorageStatus {
    const s = this.#state;
    if (!s) return { status: "ok" };
    return {
      status: "degraded",
      reason: "storage_full",
      kind: s.kind,
      message: storageMessage(s.kind),
      since: new Date(s.since).toISOString(),
      refused: s.refused,
      retryAfter: STORAGE_RETRY_AFTER_S,
    };
  }

  /**
   * The state after a probe when one is due: while degraded, at most every STORAGE_PROBE_EVERY_MS,
   * writes and syncs STORAGE_PROBE_BYTES in the data folder; room found ends the state (so a
   * server a load balancer took out of rotation comes back without a write). Without a folder
   * (a libSQL server) the state ends a Retry-After after the last failure.
   */
  check(): StorageStatus {
    const s = this.#state;
    if (!s) return { status: "ok" };
    const now = this.#now();
    if (this.opts.dir === null) {
      if (now - s.lastFailure >= STORAGE_RETRY_AFTER_S * 1000) this.#recovered();
      return this.status();
    }
    if (now - this.#lastProbe < STORAGE_PROBE_EVERY_MS) return this.status();
    this.#lastProbe = now;
    if (probeRoom(this.opts.dir)) this.#recovered();
    return this.status();
  }
}

/** True when STORAGE_PROBE_BYTES can be written and synced in `dir` (the file is removed either way). */
export function probeRoom(dir: string): boolean {
  const file = join(dir, STORAGE_PROBE_FILE);
  let fd: number | null = null;
  try {
    fd = openSync(file, "w", 0o600);
    // a write into too little room may write part of the buffer without an error
    if (writeSync(fd, Buffer.alloc(STORAGE_PROBE_BYTES)) !== STORAGE_PROBE_BYTES) return false;
    fsyncSync(fd);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
    rmSync(file, { force: true });
  }
}
