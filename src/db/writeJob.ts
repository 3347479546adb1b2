/**
 * Declarative write jobs: what the hot paths write (a resolution, trace events, a report, last
 * use of a key), as data, so the writer thread can run them (src/db/writerThread.ts). A job is
 * all or nothing; jobs queued together share one group-committed transaction.
 */
/** An argument of a job's statement: what JSON carries unchanged (jobs cross to the writer thread as JSON). */
export type JobArg = string | number | boolean | null;

/** One SQL statement with its positional arguments. */
export interface Statement {
  sql: string;
  args?: JobArg[];
}

export interface WriteJob {
  /**
   * A query run first, inside the job's transaction: when it finds a row, nothing is written
   * and the job's result is that row ("insert unless already there", decided atomically).
   */
  unless?: Statement;
  /** Run in order when `unless` found nothing (or is absent). */
  statements: Statement[];
  /**
   * false for writes that need not survive a power cut (trace events, last use of a key: docs/design.md
   * "Writes" asks synchronous FULL for business writes only). A batch of only such jobs commits with
   * synchronous NORMAL (no fsync; still atomic, and durable once a later FULL commit syncs the
   * WAL). Default true.
   */
  durable?: boolean;
}

/** A database error carried across the thread boundary (message and SQLite code). */
export interface WireError {
  message: string;
  code?: string;
}

/** One job's outcome: the row `unless` found (nothing written), null when the statements ran, or its error. */
export type JobOutcome = { ok: true; existing: Record<string, unknown> | null } | { ok: false; error: WireError };

/**
 * Messages to the writer thread. `open` carries the counter of jobs posted so far (an Int32 in a
 * SharedArrayBuffer, raised by the request thread before each post): the thread commits when it
 * has run every job posted, so a commit never waits for jobs that are not there, and jobs that
 * arrive while it commits share the next one. A job travels as a JSON string: about half the
 * cost of the structured clone on the request thread (measured: 16 against 29 µs for a
 * prepare-task job). Its statements travel as WireStatements.
 */
export type ToWriter = { type: "open"; path: string; posted: SharedArrayBuffer } | { type: "job"; id: number; job: WireJob };

/**
 * A statement on its way to the writer thread: its SQL text numbered the first time the thread
 * is sent it (`sql` and `ref`), then by its number alone. A designation's items statement is
 * ~3 KB of literals (src/resolution/prepare.ts), and encoding it as JSON on every prepare-task was
 * ~8 µs of the request thread (docs/performance.md). The request thread keeps at most WIRE_TEXTS_MAX texts:
 * when full it starts numbering again from 1, before a job, and sends each text again with its
 * new number on its first use, so the thread's table is overwritten, never read stale.
 */
export interface WireStatement {
  ref: number;
  sql?: string;
  args?: JobArg[];
}
export interface WireJob {
  unless?: WireStatement;
  statements: WireStatement[];
  durable?: boolean;
}
export const WIRE_TEXTS_MAX = 512;

/**
 * A commit's reply: each job's outcome by id, or `fatal` when the transaction itself failed
 * (nothing of it committed); `seconds` from BEGIN to the end of COMMIT.
 */
export type FromWriter =
  | { type: "committed"; seconds: number; outcomes: [id: number, outcome: JobOutcome][] }
  | { type: "committed"; seconds: number; ids: number[]; fatal: WireError };

export function toWireError(e: unknown): WireError {
  const err = e as { message?: unknown; code?: unknown };
  return { message: String(err?.message ?? e), ...(typeof err?.code === "string" ? { code: err.code } : {}) };
}

export function fromWireError(e: WireError): Error {
  return Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
}
