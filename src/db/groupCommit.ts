/**
 * The request thread's side of the writer thread (src/db/writerThread.ts): jobs queued, posted
 * under the writer mutex, answered after the COMMIT that holds them. Used by openDatabase
 * (src/db/client.ts) for a local file.
 */
import type { Histogram } from "../lib/histogram";
import type { Mutex } from "../lib/mutex";
import {
  fromWireError,
  WIRE_TEXTS_MAX,
  type FromWriter,
  type Statement,
  type ToWriter,
  type WireJob,
  type WireStatement,
  type WriteJob,
} from "./writeJob";
import { declareKept } from "../lib/kept";

declareKept("SQL texts sent to the writer thread, by text", { clock: "none", limit: "512 per thread, then numbered again" });

/** What openDatabase holds of the writer thread: queue a job, wait for the queue to drain, stop. */
export interface WriterThread {
  enqueue<T>(job: WriteJob): Promise<T | undefined>;
  idle(): Promise<void>;
  close(): void;
}

/**
 * Group commit through the writer thread (local files only). Each job is posted to the thread
 * as soon as it is queued (while this thread holds the writer mutex); the thread runs it at once
 * in its open transaction and commits when it has run every job posted so far, so jobs that
 * arrive during a COMMIT's fsync share the next one, and the thread writes while this one serves
 * the requests behind (src/db/writerThread.ts). Every job is answered after the COMMIT that
 * holds it, so each acknowledgement is durable. The mutex is let go once every job out has been
 * answered, and no new job is posted while another writer waits for it. The thread is started
 * on first use and again after it dies; it does not keep the process alive while idle.
 */
/** At most this many jobs posted to the writer thread and not yet answered (see pump). */
const MAX_OUT = 512;

export function writerThread(path: string, mutex: Mutex, module: string, commitTimes: Histogram): WriterThread {
  interface Queued {
    job: WriteJob;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  }
  /** Bun's Worker: a web Worker that can stop keeping the process alive. */
  type BunWorker = Worker & { ref(): void; unref(): void };
  let worker: BunWorker | null = null;
  /** The counter of jobs posted to the current thread, shared with it. */
  let posted: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** Jobs posted and not yet answered, by id, with the thread they went to: only its reply or death settles them. */
  const out = new Map<number, Queued & { worker: BunWorker }>();
  let nextId = 0;
  /** Jobs waiting to be posted (for the mutex, or for room among the jobs out), from `head` on. */
  let queue: Queued[] = [];
  let head = 0;
  const queued = () => queue.length - head;
  /** Lets go of the writer mutex while it is held for posting jobs. */
  let release: (() => void) | null = null;
  let acquiring = false;
  /** Jobs queued when the mutex was taken and not yet posted: they go even if another writer waits. */
  let owed = 0;
  /** Callers of idle() waiting for no job to be queued or out. */
  const drained: (() => void)[] = [];
  let closed = false;

  const settle = (id: number, fn: (q: Queued) => void) => {
    const q = out.get(id);
    if (!q) return;
    out.delete(id);
    fn(q);
  };
  /**
   * Posts queued jobs while this thread holds the mutex and fewer than MAX_OUT are out (a waiting
   * write waits for at most that many): the jobs queued when the mutex was taken in any case, later
   * ones only while nobody else waits for it. Once every job out has been answered and none can be
   * posted, lets the mutex go, and asks for it again for jobs still queued.
   */
  const pump = () => {
    const batch: Queued[] = [];
    while (release && queued() > 0 && out.size + batch.length < MAX_OUT && (owed > 0 || !mutex.contended)) {
      const q = queue[head++]!;
      if (owed > 0) owed--;
      // queued before close() but not yet sent: refused, never run on a new thread
      if (closed) q.reject(new Error("the database is closed"));
      else batch.push(q);
    }
    if (batch.length > 0) post(batch);
    if (head > 0 && head === queue.length) [queue, head] = [[], 0];
    else if (head > 1024) [queue, head] = [queue.slice(head), 0];
    if (out.size > 0) return;
    worker?.unref();
    if (release) {
      const r = release;
      release = null;
      r();
    }
    if (queued() > 0) acquire();
    else for (const r of drained.splice(0)) r();
  };

  /** The SQL texts sent to the current thread, numbered (see WireStatement); a new thread starts with none (declared above). */
  let texts = new Map<string, number>();
  const toWire = (st: Statement): WireStatement => {
    const ref = texts.get(st.sql);
    if (ref !== undefined) return { ref, args: st.args };
    const fresh = texts.size + 1;
    texts.set(st.sql, fresh);
    return { ref: fresh, sql: st.sql, args: st.args };
  };
  const jobToWire = (job: WriteJob): WireJob => {
    // numbered again from 1 when full, before a job: a job's numbers are all of one numbering
    if (texts.size + job.statements.length + 1 > WIRE_TEXTS_MAX) texts = new Map();
    return { unless: job.unless && toWire(job.unless), statements: job.statements.map(toWire), durable: job.durable };
  };

  const start = (): BunWorker => {
    texts = new Map();
    const w = new Worker(module) as BunWorker;
    const shared = new SharedArrayBuffer(4);
    posted = new Int32Array(shared);
    const gone = (why: string) => {
      if (worker === w) worker = null;
      w.terminate(); // an uncaught error may leave it running: it is replaced on the next job
      // a dead thread's late "close" must not settle jobs already sent to its successor
      const error = new Error(`the writer thread stopped (${why}); the write's outcome is unknown`);
      for (const [id, q] of out) if (q.worker === w) settle(id, (j) => j.reject(error));
      pump();
    };
    w.addEventListener("message", (e: MessageEvent<FromWriter>) => {
      const reply = e.data;
      commitTimes.observe(reply.seconds);
      if ("fatal" in reply) {
        const error = fromWireError(reply.fatal);
        for (const id of reply.ids) settle(id, (q) => q.reject(error));
      } else {
        for (const [id, o] of reply.outcomes)
          settle(id, (q) => (o.ok ? q.resolve(o.existing ?? undefined) : q.reject(fromWireError(o.error))));
      }
      pump();
    });
    w.addEventListener("error", (e) => gone((e as ErrorEvent).message ?? "error"));
    w.addEventListener("close", () => gone("closed"));
    w.postMessage({ type: "open", path, posted: shared } satisfies ToWriter);
    w.unref();
    return w;
  };

  /** Posts jobs to the thread, the shared counter raised for all of them first: jobs posted together share a transaction. */
  const post = (jobs: Queued[]) => {
    const w = (worker ??= start());
    if (out.size === 0) w.ref(); // jobs out keep the process alive until they are answered
    Atomics.add(posted, 0, jobs.length); // before the posts: the thread must not commit without these jobs' turn
    for (const q of jobs) {
      const id = ++nextId;
      out.set(id, { ...q, worker: w });
      const job = jobToWire(q.job);
      w.postMessage(JSON.stringify({ type: "job", id, job } satisfies ToWriter));
    }
  };

  /** Takes the mutex for the queued jobs and posts them; holds it while jobs are out. */
  const acquire = () => {
    if (acquiring || release) return;
    acquiring = true;
    void mutex.run(
      () =>
        new Promise<void>((r) => {
          acquiring = false;
          release = r;
          owed = queued();
          pump();
        }),
    );
  };

  return {
    /** Posts a job to the writer thread (or queues it for the mutex); resolves after its COMMIT. */
    enqueue<T>(job: WriteJob): Promise<T | undefined> {
      if (closed) return Promise.reject(new Error("the database is closed"));
      return new Promise<T | undefined>((resolve, reject) => {
        queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
        if (release) pump();
        else acquire();
      });
    },
    /** Resolves once no job is queued or out (every job queued so far has been answered). */
    idle(): Promise<void> {
      if (queued() === 0 && out.size === 0) return Promise.resolve();
      return new Promise((r) => drained.push(r));
    },
    close(): void {
      closed = true;
      const w = worker;
      worker = null;
      w?.terminate();
    },
  };
}
