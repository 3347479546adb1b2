/**
 * The writer thread (a Bun Worker, one per local database): it owns the write connection and
 * runs each batch of write jobs as ONE IMMEDIATE transaction with synchronous=FULL, each job in
 * its own SAVEPOINT (a failing job rolls back alone), and answers after the COMMIT. The COMMIT's
 * fsync therefore blocks this thread, not the one serving requests (measured: about 2 ms per
 * commit, 29% of the request thread's time under prepare-task load before; docs/performance.md).
 * The request thread holds the writer mutex while a batch runs, so no other write transaction
 * of the process is open at the same time. Built as a second entrypoint of dist/talentd.
 */
import LibsqlDatabase from "libsql";
import { statementCache } from "./statements";
import { toWireError, type FromWriter, type JobOutcome, type Statement, type ToWriter, type WriteJob } from "./writeJob";

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
    prepared = statementCache(conn);
  } catch (e) {
    conn = null;
    openError = e;
  }
}

let synchronous: "FULL" | "NORMAL" = "FULL";
/** FULL (an fsync per commit) unless every job of the batch is not durable; set between transactions. */
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

/** Runs a batch in one transaction; every job gets an outcome, or the batch a fatal error. */
export function runBatch(id: number, jobs: WriteJob[]): FromWriter {
  if (!conn) return { type: "batch", id, fatal: toWireError(openError ?? new Error("the writer connection is not open")) };
  try {
    setSynchronous(jobs.some((j) => j.durable !== false) ? "FULL" : "NORMAL");
    conn.exec("BEGIN IMMEDIATE");
  } catch (e) {
    return { type: "batch", id, fatal: toWireError(e) };
  }
  const outcomes: JobOutcome[] = [];
  for (const job of jobs) {
    conn.exec("SAVEPOINT job");
    try {
      const outcome = runJob(job);
      conn.exec("RELEASE job");
      outcomes.push(outcome);
    } catch (e) {
      conn.exec("ROLLBACK TO job");
      conn.exec("RELEASE job");
      outcomes.push({ ok: false, error: toWireError(e) });
    }
  }
  try {
    conn.exec("COMMIT");
  } catch (e) {
    try {
      conn.exec("ROLLBACK");
    } catch {
      /* the transaction is already gone */
    }
    return { type: "batch", id, fatal: toWireError(e) };
  }
  return { type: "batch", id, outcomes };
}

self.onmessage = (event: MessageEvent<ToWriter | string>) => {
  const raw = event.data;
  const m = typeof raw === "string" ? (JSON.parse(raw) as ToWriter) : raw;
  if (m.type === "open") openWriter(m.path);
  else if (m.type === "batch") {
    postMessage(runBatch(m.id, m.jobs));
  }
};
