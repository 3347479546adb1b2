/**
 * The write doors on PostgreSQL (docs/design.md "Writes on PostgreSQL"): write jobs run at once,
 * each its own transaction on a pooled connection, its statements pipelined, retried on a
 * deadlock or serialization failure, and an `unless` job that loses a race on a unique key run
 * again so it answers the winner's row; `write(fn)` and bulk writes under this process's mutex.
 * Also the tally of statements sent (the tests count a request's round trips with it).
 */
import type { SQL } from "bun";
import { Histogram } from "../lib/histogram";
import { Mutex } from "../lib/mutex";
import type { EpochClock } from "./pgEpoch";
import { databaseUnreachable } from "./unavailable";
import type { Statement, WriteJob } from "./writeJob";

type Queryable = Pick<SQL, "unsafe">;

/** What this process sent to PostgreSQL: statements (BEGIN and COMMIT of write jobs included), jobs retried. */
export interface PgTally {
  statements: number;
  retries: number;
  /** Seconds `write(fn)` and bulk writes waited for this process's mutex. */
  mutexWait: number;
}

/** A query of the client (pgClient.ts `query`), counted in the tally. */
export type PgQuery = (on: Queryable, sql: string, args?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/** SQLSTATEs after which a job's transaction is run again whole: deadlock, serialization failure. */
const RETRIED = new Set(["40P01", "40001"]);
/** How many times a job is run again after a deadlock or serialization failure before its error is the answer. */
const MAX_RETRIES = 3;

/** The SQLSTATE of a server's error (Bun carries it in errno), or undefined. */
export function sqlState(e: unknown): string | undefined {
  const errno = (e as { errno?: unknown } | undefined)?.errno;
  return typeof errno === "string" ? errno : undefined;
}

/**
 * True when `error` says the transaction was rolled back for sure: the server refused a statement
 * (a SQLSTATE, here or in a cause: drizzle wraps the driver's error) and the connection was not
 * lost. After a lost connection a COMMIT's outcome is unknown.
 */
export function rolledBack(error: unknown): boolean {
  if (databaseUnreachable(error)) return false;
  let e = error as { errno?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 5; e = e.cause as typeof e, depth++) if (sqlState(e)) return true;
  return false;
}

/**
 * Runs `statements` on `tx` without waiting for each answer before sending the next (one round
 * trip for all of them on the transaction's connection), in order; rejects with the first error.
 */
async function pipelined(query: PgQuery, tx: Queryable, statements: Statement[]): Promise<void> {
  const settled = await Promise.allSettled(statements.map((st) => query(tx, st.sql, st.args)));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** A write transaction's outcome: the row `unless` found (nothing written), and the epoch it read last. */
type Outcome = { value: Record<string, unknown> | undefined; seen: number | null };

/**
 * One transaction: `unless` first (when given; its row, if found, is the answer and nothing is
 * written), then `statements` and the epoch read pipelined (the epoch read last: it sees this
 * transaction's own bump, if any). Run again whole after a deadlock or serialization failure, and
 * once after a unique violation when `unless` is given (see runJob).
 */
async function transaction(
  sql: SQL,
  query: PgQuery,
  statements: Statement[],
  unless: Statement | undefined,
  seenIn: (tx: Queryable) => Promise<number | null>,
  tally: PgTally,
): Promise<Outcome> {
  const once = () =>
    sql.begin(async (tx) => {
      tally.statements += 2; // BEGIN and COMMIT
      const found = unless ? (await query(tx, unless.sql, unless.args))[0] : undefined;
      if (found) return { value: { ...found }, seen: await seenIn(tx) };
      const [wrote, seen] = await Promise.allSettled([pipelined(query, tx, statements), seenIn(tx)]);
      if (wrote.status === "rejected") throw wrote.reason; // a statement's error comes first
      if (seen.status === "rejected") throw seen.reason;
      return { value: undefined, seen: seen.value };
    });
  let uniqueRetried = false;
  for (let retries = 0; ; retries++) {
    try {
      return await once();
    } catch (e) {
      const state = sqlState(e);
      const again = (state !== undefined && RETRIED.has(state) && retries < MAX_RETRIES) || (state === "23505" && unless && !uniqueRetried);
      if (!again) throw e;
      if (state === "23505") uniqueRetried = true;
      tally.retries++;
    }
  }
}

/**
 * One write job as one transaction. Jobs of two requests (or two replicas) may run at once:
 * their statements are idempotent inserts, a deadlock or serialization failure runs the job
 * again, and a unique violation of an `unless` job (both missed each other's row: the insert
 * waited for the other's commit) runs it again once, so the loser answers the winner's row.
 */
export function runJob(
  sql: SQL,
  query: PgQuery,
  job: WriteJob,
  seenIn: (tx: Queryable) => Promise<number | null>,
  tally: PgTally,
): Promise<Outcome> {
  return transaction(sql, query, job.statements, job.unless, seenIn, tally);
}

/** At most this many jobs share one transaction. */
const MAX_BATCH = 64;

const NOT_DURABLE: Statement = { sql: "SET LOCAL synchronous_commit TO OFF" };

interface Queued {
  job: WriteJob;
  resolve: (o: Outcome) => void;
  reject: (e: unknown) => void;
}

/**
 * Jobs without `unless`, group-committed: a job queued while no batch commits starts one at
 * once; jobs queued meanwhile share the next transaction (at most MAX_BATCH), their statements
 * pipelined. Measured: concurrent prepare-tasks of one project wait for each other's row lock
 * on `talent_days` (the resolution's insert trigger counts the day's use), held until COMMIT,
 * so they commit one at a time whatever the pool; one transaction for a batch takes that lock
 * once for all. A batch of jobs marked `durable: false` only commits with synchronous_commit off
 * (atomic, not waiting for its flush), as SQLite's batches of them commit without an fsync.
 * When the batch is refused (rolled back for sure), each of its jobs runs alone, so only the
 * failing one fails; after a lost connection every job of it is answered the error
 * (its outcome unknown, nothing run twice). pgClient.ts keeps two: business writes, and
 * bookkeeping (`durable: false`), so a failing bookkeeping job never breaks up a batch of
 * resolutions.
 */
export function jobBatches(
  sql: SQL,
  query: PgQuery,
  seenIn: (tx: Queryable) => Promise<number | null>,
  tally: PgTally,
): (job: WriteJob) => Promise<Outcome> {
  let queue: Queued[] = [];
  let busy = false;
  const run = async (batch: Queued[]) => {
    try {
      const jobs = batch.length === 1 ? batch[0]!.job.statements : batch.flatMap((q) => q.job.statements);
      // bookkeeping alone (trace events, a key's last use: docs/design.md "Writes") commits without waiting for its WAL flush
      const statements = batch.every((q) => q.job.durable === false) ? [NOT_DURABLE, ...jobs] : jobs;
      const outcome = await transaction(sql, query, statements, undefined, seenIn, tally);
      for (const q of batch) q.resolve(outcome);
    } catch (e) {
      if (batch.length === 1 || !rolledBack(e)) for (const q of batch) q.reject(e);
      else await Promise.all(batch.map((q) => runJob(sql, query, q.job, seenIn, tally).then(q.resolve, q.reject)));
    }
  };
  const pump = () => {
    if (busy || queue.length === 0) return;
    busy = true;
    const batch = queue.length <= MAX_BATCH ? queue : queue.slice(0, MAX_BATCH);
    queue = queue.length <= MAX_BATCH ? [] : queue.slice(MAX_BATCH);
    void run(batch).finally(() => {
      busy = false;
      pump();
    });
  };
  return (job) =>
    new Promise<Outcome>((resolve, reject) => {
      queue.push({ job, resolve, reject });
      pump();
    });
}

/**
 * This process's writes: `locked` ones under one mutex (write(fn), bulk writes), jobs not;
 * each timed into /metrics' commit latency and counted while pending; each resolves to its
 * transaction's value once committed, and hands the clock the epoch the transaction read last.
 * A failed write leaves the clock alone when it was rolled back for sure (`rolledBack`, or
 * `refused()`: the caller's function threw before COMMIT); else (a connection lost, the COMMIT's
 * outcome unknown) the clock keeps nothing until its next read. A failing write that emptied the
 * clock each time (the trace journal's batch, while its SQL failed on PostgreSQL) made every
 * request read its configuration rows again.
 */
export function writeDoor(clock: EpochClock, tally: PgTally) {
  const mutex = new Mutex();
  const commits = { transaction: new Histogram(), batch: new Histogram() };
  const running = new Set<Promise<unknown>>();
  const committing = <T>(p: Promise<{ value: T; seen: number | null }>, refused = () => false): Promise<T> => {
    const settled = p.then(
      ({ value, seen }) => {
        clock.committed(seen);
        return value;
      },
      (e: unknown) => {
        if (!refused() && !rolledBack(e)) clock.committed(null);
        throw e;
      },
    );
    const tracked = settled.catch(() => {}).finally(() => running.delete(tracked));
    running.add(tracked);
    return settled;
  };
  const timed = async <T>(h: Histogram, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      h.observe((performance.now() - t0) / 1000);
    }
  };
  const locked = <T>(h: Histogram, fn: () => Promise<T>): Promise<T> => {
    const asked = performance.now();
    return mutex.run(() => {
      tally.mutexWait += (performance.now() - asked) / 1000;
      return timed(h, fn);
    });
  };
  const idle = async () => {
    while (running.size > 0) await Promise.all([...running]);
  };
  return { committing, timed, locked, commits, pending: () => running.size, idle };
}
