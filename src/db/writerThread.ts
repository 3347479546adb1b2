/**
 * The writer thread (a Bun Worker, one per local database): it owns the write connection and
 * runs write jobs as they arrive, each in its own SAVEPOINT (a failing job rolls back alone),
 * inside an IMMEDIATE transaction with synchronous=FULL that it commits as soon as it has run
 * every job posted so far (a counter the request thread raises before each post): jobs that
 * arrive while a COMMIT's fsync runs share the next transaction (group commit), and a job's
 * rows are written while the request thread is still serving the requests behind it, instead
 * of after the whole turn (docs/performance.md). Each job is answered after the
 * COMMIT that holds it, so every acknowledgement is durable. The request thread holds the
 * writer mutex while jobs are out, so no other write transaction of the process is open at the
 * same time. Built as a second entrypoint of dist/talentd.
 */
import LibsqlDatabase from "libsql";
import { keptUnbounded } from "../lib/kept";
import { statementCache } from "./statements";
import {
  toWireError,
  type FromWriter,
  type JobOutcome,
  type Statement,
  type ToWriter,
  type WireJob,
  type WireStatement,
  type WriteJob,
} from "./writeJob";

declare const self: Worker;

let conn: InstanceType<typeof LibsqlDatabase> | null = null;
let prepared: ReturnType<typeof statementCache> = () => {
  throw new Error("the writer connection is not open");
};
let openError: unknown = null;

/** Opens the write connection (exported for test fixtures that wrap this thread). */
export function openWriter(path: string): void {
  try {
    conn = new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
    conn.exec("PRAGMA busy_timeout = 5000");
    conn.exec("PRAGMA synchronous = FULL");
    conn.exec("PRAGMA foreign_keys = ON");
    // a designation's items are literals (src/resolution/prepare.ts): at most 128 statements, ~28 KB each (~3.5 MiB)
    prepared = statementCache(conn, 128);
  } catch (e) {
    conn = null;
    openError = e;
  }
}

let synchronous: "FULL" | "NORMAL" = "FULL";
/** FULL (an fsync per commit) unless the transaction holds only jobs that are not durable; set between transactions. */
function setSynchronous(level: "FULL" | "NORMAL"): void {
  if (level === synchronous) return;
  conn!.exec(`PRAGMA synchronous = ${level}`);
  synchronous = level;
}

function runJob(job: WriteJob): JobOutcome {
  const { unless, statements } = job;
  const existing = unless ? ((prepared(unless.sql).get(...(unless.args ?? [])) as Record<string, unknown> | undefined) ?? null) : null;
  if (existing === null) for (const s of statements as Statement[]) prepared(s.sql).run(...(s.args ?? []));
  return { ok: true, existing };
}

/** Jobs posted by the request thread so far (shared counter) and jobs received here. */
let posted: Int32Array | null = null;
let received = 0;
/** The open transaction: its jobs' outcomes, whether it commits with FULL, when it began. */
let open: { outcomes: [number, JobOutcome][]; durable: boolean; began: number } | null = null;
/** More jobs in one transaction than this and it commits anyway (a bound on a job's wait). */
const MAX_JOBS = 256;

/** Commits the open transaction and answers its jobs (all of them with the error if it fails). */
function commit(): FromWriter {
  const tx = open!;
  open = null;
  try {
    conn!.exec("COMMIT");
    return { type: "committed", seconds: (performance.now() - tx.began) / 1000, outcomes: tx.outcomes };
  } catch (e) {
    try {
      conn!.exec("ROLLBACK");
    } catch {
      /* the transaction is already gone */
    }
    return failed(tx, [], e);
  }
}

/** The reply of a transaction that is gone: every job in it (and `more`) rejected with its error, nothing of it written. */
function failed(tx: NonNullable<typeof open>, more: number[], e: unknown): FromWriter {
  return {
    type: "committed",
    seconds: (performance.now() - tx.began) / 1000,
    ids: [...tx.outcomes.map(([id]) => id), ...more],
    fatal: toWireError(e),
  };
}

/** True while jobs posted by the request thread have not been received here yet. */
const more = () => posted !== null && received < Atomics.load(posted, 0);

/**
 * Runs one job in the open transaction (opening one if needed) and returns the replies due: a
 * commit's when this job was the last one posted so far (or the transaction is full), nothing
 * while more jobs are on their way. A job that is not durable, finding no transaction open and
 * no other job on its way, commits with synchronous NORMAL; a durable job never joins such a
 * transaction (it is committed first).
 */
export function runJobStreamed(id: number, job: WriteJob): FromWriter[] {
  const replies: FromWriter[] = [];
  if (!conn)
    return [{ type: "committed", seconds: 0, ids: [id], fatal: toWireError(openError ?? new Error("the writer connection is not open")) }];
  const durable = job.durable !== false;
  if (open && durable && !open.durable) replies.push(commit());
  if (!open) {
    const full = durable || more();
    try {
      setSynchronous(full ? "FULL" : "NORMAL");
      conn.exec("BEGIN IMMEDIATE");
    } catch (e) {
      replies.push({ type: "committed", seconds: 0, ids: [id], fatal: toWireError(e) });
      return replies;
    }
    open = { outcomes: [], durable: full, began: performance.now() };
  }
  // A job of one statement needs no savepoint: a statement that fails is undone by SQLite alone,
  // the transaction kept (ON CONFLICT ABORT, the default); the savepoint's two statements were ~7
  // µs of this thread's ~45 per prepare-task job (docs/performance.md).
  const alone = job.unless === undefined && job.statements.length === 1;
  if (!alone) conn.exec("SAVEPOINT job");
  try {
    const outcome = runJob(job);
    if (!alone) conn.exec("RELEASE job");
    open.outcomes.push([id, outcome]);
  } catch (e) {
    if (!conn.inTransaction) {
      // the error ended the transaction (SQLITE_FULL, an I/O error…): none of its jobs is written
      replies.push(failed(open, [id], e));
      open = null;
      return replies;
    }
    if (!alone) {
      conn.exec("ROLLBACK TO job");
      conn.exec("RELEASE job");
    }
    open.outcomes.push([id, { ok: false, error: toWireError(e) }]);
  }
  if (!more() || open.outcomes.length >= MAX_JOBS) replies.push(commit());
  return replies;
}

/** The SQL texts the request thread has sent, by number (see WireStatement). */
const texts = keptUnbounded<number, string>("SQL texts received by the writer thread, by number", {
  clock: "none",
  bound: "the request thread numbers at most 512, then numbers again from 1",
});
function fromWire(s: WireStatement): Statement {
  if (s.sql !== undefined) texts.set(s.ref, s.sql);
  const sql = s.sql ?? texts.get(s.ref);
  if (sql === undefined) throw new Error(`the writer thread was never sent statement ${s.ref}`);
  return { sql, args: s.args };
}
function jobFromWire(w: WireJob): WriteJob {
  return { unless: w.unless && fromWire(w.unless), statements: w.statements.map(fromWire), durable: w.durable };
}

/** One message from the request thread (exported for test fixtures that wrap this thread). */
export function onWriterMessage(raw: ToWriter | string): void {
  const m = typeof raw === "string" ? (JSON.parse(raw) as ToWriter) : raw;
  if (m.type === "open") {
    openWriter(m.path);
    posted = new Int32Array(m.posted);
  } else if (m.type === "job") {
    received++;
    let job: WriteJob;
    try {
      job = jobFromWire(m.job);
    } catch (e) {
      // refused alone; the open transaction still commits when this was the last job posted
      postMessage({ type: "committed", seconds: 0, outcomes: [[m.id, { ok: false, error: toWireError(e) }]] } satisfies FromWriter);
      if (open && !more()) postMessage(commit());
      return;
    }
    for (const reply of runJobStreamed(m.id, job)) postMessage(reply);
  }
}

self.onmessage = (event: MessageEvent<ToWriter | string>) => onWriterMessage(event.data);
