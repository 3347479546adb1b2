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

/** At most this many jobs posted to the writer thread and not yet answered (see pump). */
const MAX_OUT = 512;

interface Queued {
  job: WriteJob;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}
/** Bun's Worker: a web Worker that can stop keeping the process alive. */
type BunWorker = Worker & { ref(): void; unref(): void };

/** The SQL texts sent to the current thread, numbered (see WireStatement); a new thread starts with none. */
class WireTexts {
  private texts = new Map<string, number>();

  /** Forgets every number: for a new thread. */
  reset(): void {
    this.texts = new Map();
  }

  private toWire(st: Statement): WireStatement {
    const ref = this.texts.get(st.sql);
    if (ref !== undefined) return { ref, args: st.args };
    const fresh = this.texts.size + 1;
    this.texts.set(st.sql, fresh);
    return { ref: fresh, sql: st.sql, args: st.args };
  }

  /** A job as posted: each SQL text sent once, then by its number. */
  job(job: WriteJob): WireJob {
    // numbered again from 1 when full, before a job: a job's numbers are all of one numbering
    if (this.texts.size + job.statements.length + 1 > WIRE_TEXTS_MAX) this.texts = new Map();
    return { unless: job.unless && this.toWire(job.unless), statements: job.statements.map((st) => this.toWire(st)), durable: job.durable };
  }
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
class GroupCommit implements WriterThread {
  private worker: BunWorker | null = null;
  /** The counter of jobs posted to the current thread, shared with it. */
  private posted: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** Jobs posted and not yet answered, by id, with the thread they went to: only its reply or death settles them. */
  private readonly out = new Map<number, Queued & { worker: BunWorker }>();
  private nextId = 0;
  /** Jobs waiting to be posted (for the mutex, or for room among the jobs out), from `head` on. */
  private queue: Queued[] = [];
  private head = 0;
  /** Lets go of the writer mutex while it is held for posting jobs. */
  private release: (() => void) | null = null;
  private acquiring = false;
  /** Jobs queued when the mutex was taken and not yet posted: they go even if another writer waits. */
  private owed = 0;
  /** Callers of idle() waiting for no job to be queued or out. */
  private readonly drained: (() => void)[] = [];
  private closed = false;
  private readonly texts = new WireTexts();

  constructor(
    private readonly path: string,
    private readonly mutex: Mutex,
    private readonly module: string,
    private readonly commitTimes: Histogram,
  ) {}

  private queued(): number {
    return this.queue.length - this.head;
  }

  private settle(id: number, fn: (q: Queued) => void): void {
    const q = this.out.get(id);
    if (!q) return;
    this.out.delete(id);
    fn(q);
  }

  /**
   * Posts queued jobs while this thread holds the mutex and fewer than MAX_OUT are out (a waiting
   * write waits for at most that many): the jobs queued when the mutex was taken in any case, later
   * ones only while nobody else waits for it. Once every job out has been answered and none can be
   * posted, lets the mutex go, and asks for it again for jobs still queued.
   */
  private pump(): void {
    const batch: Queued[] = [];
    while (this.release && this.queued() > 0 && this.out.size + batch.length < MAX_OUT && (this.owed > 0 || !this.mutex.contended)) {
      const q = this.queue[this.head++]!;
      if (this.owed > 0) this.owed--;
      // queued before close() but not yet sent: refused, never run on a new thread
      if (this.closed) q.reject(new Error("the database is closed"));
      else batch.push(q);
    }
    if (batch.length > 0) this.post(batch);
    if (this.head > 0 && this.head === this.queue.length) [this.queue, this.head] = [[], 0];
    else if (this.head > 1024) [this.queue, this.head] = [this.queue.slice(this.head), 0];
    if (this.out.size > 0) return;
    this.worker?.unref();
    if (this.release) {
      const r = this.release;
      this.release = null;
      r();
    }
    if (this.queued() > 0) this.acquire();
    else for (const r of this.drained.splice(0)) r();
  }

  /** The thread's reply: the outcomes of the jobs of one COMMIT, or the error that ended it. */
  private onReply(reply: FromWriter): void {
    this.commitTimes.observe(reply.seconds);
    if ("fatal" in reply) {
      const error = fromWireError(reply.fatal);
      for (const id of reply.ids) this.settle(id, (q) => q.reject(error));
    } else {
      for (const [id, o] of reply.outcomes)
        this.settle(id, (q) => (o.ok ? q.resolve(o.existing ?? undefined) : q.reject(fromWireError(o.error))));
    }
    this.pump();
  }

  private start(): BunWorker {
    this.texts.reset();
    const w = new Worker(this.module) as BunWorker;
    const shared = new SharedArrayBuffer(4);
    this.posted = new Int32Array(shared);
    const gone = (why: string) => {
      if (this.worker === w) this.worker = null;
      w.terminate(); // an uncaught error may leave it running: it is replaced on the next job
      // a dead thread's late "close" must not settle jobs already sent to its successor
      const error = new Error(`the writer thread stopped (${why}); the write's outcome is unknown`);
      for (const [id, q] of this.out) if (q.worker === w) this.settle(id, (j) => j.reject(error));
      this.pump();
    };
    w.addEventListener("message", (e: MessageEvent<FromWriter>) => this.onReply(e.data));
    w.addEventListener("error", (e) => gone((e as ErrorEvent).message ?? "error"));
    w.addEventListener("close", () => gone("closed"));
    w.postMessage({ type: "open", path: this.path, posted: shared } satisfies ToWriter);
    w.unref();
    return w;
  }

  /** Posts jobs to the thread, the shared counter raised for all of them first: jobs posted together share a transaction. */
  private post(jobs: Queued[]): void {
    const w = (this.worker ??= this.start());
    if (this.out.size === 0) w.ref(); // jobs out keep the process alive until they are answered
    Atomics.add(this.posted, 0, jobs.length); // before the posts: the thread must not commit without these jobs' turn
    for (const q of jobs) {
      const id = ++this.nextId;
      this.out.set(id, { ...q, worker: w });
      const job = this.texts.job(q.job);
      w.postMessage(JSON.stringify({ type: "job", id, job } satisfies ToWriter));
    }
  }

  /** Takes the mutex for the queued jobs and posts them; holds it while jobs are out. */
  private acquire(): void {
    if (this.acquiring || this.release) return;
    this.acquiring = true;
    void this.mutex.run(
      () =>
        new Promise<void>((r) => {
          this.acquiring = false;
          this.release = r;
          this.owed = this.queued();
          this.pump();
        }),
    );
  }

  /** Posts a job to the writer thread (or queues it for the mutex); resolves after its COMMIT. */
  enqueue<T>(job: WriteJob): Promise<T | undefined> {
    if (this.closed) return Promise.reject(new Error("the database is closed"));
    return new Promise<T | undefined>((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
      if (this.release) this.pump();
      else this.acquire();
    });
  }

  /** Resolves once no job is queued or out (every job queued so far has been answered). */
  idle(): Promise<void> {
    if (this.queued() === 0 && this.out.size === 0) return Promise.resolve();
    return new Promise((r) => this.drained.push(r));
  }

  close(): void {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    w?.terminate();
  }
}

/** Group commit through the writer thread for the local database file at `path` (see GroupCommit). */
export function writerThread(path: string, mutex: Mutex, module: string, commitTimes: Histogram): WriterThread {
  return new GroupCommit(path, mutex, module, commitTimes);
}
