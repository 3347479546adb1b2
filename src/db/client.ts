/**
 * The database handle: drizzle over @libsql/client, with the pragmas of DESIGN §9 and one
 * writer mutex (see src/lib/mutex.ts for why every write transaction goes through it).
 */
import { createClient, type Client, type InValue } from "@libsql/client";
import LibsqlDatabase from "libsql";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { Mutex } from "../lib/mutex";
import * as schema from "./schema";

export type DrizzleDb = LibSQLDatabase<typeof schema>;
/** The handle a transaction callback receives. */
export type Tx = Parameters<Parameters<DrizzleDb["transaction"]>[0]>[0];

export interface Database {
  /** Drizzle for reads (and for writes inside `write`). */
  db: DrizzleDb;
  /** The raw client (pragmas, VACUUM INTO, health checks). */
  client: Client;
  /**
   * Runs `fn` in one IMMEDIATE write transaction, serialized with every other write of this
   * process: all of it commits or none of it does.
   */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Hot-path reads by raw SQL: one row (or undefined) / all rows as plain objects. On a local
   * file they run on a dedicated read connection with cached prepared statements (measured:
   * 17 µs against ~430 µs through drizzle for the key lookup; docs/performance.md).
   */
  get<T>(sql: string, args?: InValue[]): Promise<T | undefined>;
  all<T>(sql: string, args?: InValue[]): Promise<T[]>;
  /**
   * SQLite's `PRAGMA data_version` on the read connection, which never writes: it changes
   * whenever any other connection or process commits. Null for a libSQL server. Lets hot
   * paths cache rows exactly: a cached row is used only while nothing was committed since.
   */
  dataVersion(): number | null;
  /** Synchronous reads on the local read connection; null for a libSQL server (no sync client). */
  allSync: (<T>(sql: string, args?: InValue[]) => T[]) | null;
  /**
   * A hot-path write transaction in raw SQL: serialized with every other write (same mutex),
   * one IMMEDIATE transaction, all or nothing. On a local file it runs on a dedicated native
   * connection with cached prepared statements (measured: prepare-task's write 944 → ~340 µs);
   * on a libSQL server, in an interactive transaction.
   */
  writeRaw<T>(fn: (w: RawWriter) => Promise<T>): Promise<T>;
  /** True when the database is a local file (pragmas and backups apply). */
  isLocal: boolean;
  close(): void;
}

/** The statements a raw write transaction can run. */
export interface RawWriter {
  run(sql: string, args?: InValue[]): Promise<void>;
  get<T>(sql: string, args?: InValue[]): Promise<T | undefined>;
}

/** Opens the database at `url` and applies the connection pragmas. */
export async function openDatabase(url: string, authToken?: string): Promise<Database> {
  const isLocal = url.startsWith("file:");
  // `timeout` becomes busy_timeout on every pooled connection (checked in test/db.test.ts).
  const client = createClient({ url, authToken, timeout: 5000 } as Parameters<typeof createClient>[0]);
  if (isLocal) {
    await client.execute("PRAGMA busy_timeout = 5000");
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA synchronous = FULL");
    await client.execute("PRAGMA foreign_keys = ON");
  }
  const db = drizzle(client, { schema });
  const mutex = new Mutex();
  const reader = isLocal ? preparedReader(url) : null;
  const writer = isLocal ? nativeWriter(url, mutex) : null;
  return {
    db,
    client,
    isLocal,
    write: (fn) => mutex.run(() => db.transaction(fn, { behavior: "immediate" })),
    writeRaw: (fn) =>
      writer
        ? writer.enqueue(fn)
        : mutex.run(async () => {
        const txn = await client.transaction("write");
        try {
          const result = await fn({
            run: async (sql, args = []) => void (await txn.execute({ sql, args })),
            get: async <T>(sql: string, args: InValue[] = []) => (await txn.execute({ sql, args })).rows[0] as T | undefined,
          });
          await txn.commit();
          return result;
        } catch (e) {
          await txn.rollback().catch(() => {});
          throw e;
        } finally {
          txn.close();
        }
      }),
    get: async <T>(sql: string, args: InValue[] = []) => {
      if (reader) return reader.get(sql, args) as T | undefined;
      return (await client.execute({ sql, args })).rows[0] as T | undefined;
    },
    dataVersion: reader ? reader.dataVersion : () => null,
    allSync: reader ? <T>(sql: string, args: InValue[] = []) => reader.all(sql, args) as T[] : null,
    all: async <T>(sql: string, args: InValue[] = []) => {
      if (reader) return reader.all(sql, args) as T[];
      return (await client.execute({ sql, args })).rows as unknown as T[];
    },
    close: () => {
      reader?.close();
      writer?.close();
      client.close();
    },
  };
}

/** A read-only native connection with a prepared-statement cache (local files only). */
function preparedReader(url: string) {
  const path = decodeURIComponent(url.slice("file:".length).split("?")[0]!);
  const conn = new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
  interface Stmt {
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  }
  const cache = new Map<string, Stmt>();
  const stmt = (sql: string): Stmt => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = conn.prepare(sql) as unknown as Stmt));
    return s;
  };
  const pragmaVersion = () => (stmt("PRAGMA data_version").get() as { data_version: number }).data_version;
  pragmaVersion(); // a first read transaction: the WAL index (`-shm`) exists from here on
  return {
    get: (sql: string, args: InValue[]) => stmt(sql).get(...args),
    all: (sql: string, args: InValue[]) => stmt(sql).all(...args),
    dataVersion: walChangeCounter(`${path}-shm`) ?? pragmaVersion,
    close: () => conn.close(),
  };
}

/**
 * A change counter read from the WAL-index header in the `-shm` file (sqlite.org/walformat.html,
 * "The WAL-Index Header"), which every commit of every connection and process rewrites (its
 * `iChange` counter and checksum) before the commit returns. Reading it costs about 0.01 µs
 * against 5–30 µs for `PRAGMA data_version`, which has to open a read transaction (measured
 * under load, docs/performance.md). The first copy of the header (bytes 0–47) is the one SQLite
 * writes last, so a new value there means the commit is published; a torn read can only look
 * like a change, which drops a cache for nothing. Null when the file cannot be mapped (then
 * the pragma is used). The mapping stays valid: SQLite truncates `-shm` only when it opens a
 * database that no connection holds, and this process holds its connections until exit.
 */
function walChangeCounter(shmPath: string): (() => number) | null {
  let view: DataView;
  try {
    const map = Bun.mmap(shmPath, { shared: true });
    if (map.byteLength < 48) return null;
    view = new DataView(map.buffer, map.byteOffset, 48);
  } catch {
    return null;
  }
  let change = -1;
  let frames = -1;
  let sum1 = -1;
  let sum2 = -1;
  let version = 0;
  return () => {
    const c = view.getUint32(8, true);
    const f = view.getUint32(16, true);
    const s1 = view.getUint32(40, true);
    const s2 = view.getUint32(44, true);
    if (c !== change || f !== frames || s1 !== sum1 || s2 !== sum2) {
      change = c;
      frames = f;
      sum1 = s1;
      sum2 = s2;
      version++;
    }
    return version;
  };
}

/**
 * A native write connection with cached prepared statements and group commit (local files
 * only). Jobs queued during one event-loop turn run in ONE IMMEDIATE transaction under the
 * writer mutex, each inside its own SAVEPOINT (a failing job rolls back alone and is rejected),
 * and every job is answered only after the shared COMMIT: one fsync for the batch, each
 * acknowledgement still durable. Measured: the COMMIT's fsync was half of prepare-task's CPU
 * time under load (docs/performance.md).
 */
function nativeWriter(url: string, mutex: Mutex) {
  const path = decodeURIComponent(url.slice("file:".length).split("?")[0]!);
  const conn = new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
  conn.exec("PRAGMA synchronous = FULL");
  conn.exec("PRAGMA foreign_keys = ON");
  interface Stmt {
    run(...params: unknown[]): unknown;
    get(...params: unknown[]): unknown;
  }
  const cache = new Map<string, Stmt>();
  const stmt = (sql: string): Stmt => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = conn.prepare(sql) as unknown as Stmt));
    return s;
  };
  const w: RawWriter = {
    run: async (sql, args = []) => void stmt(sql).run(...args),
    get: async <T>(sql: string, args: InValue[] = []) => stmt(sql).get(...args) as T | undefined,
  };
  interface Job {
    fn: (w: RawWriter) => Promise<unknown>;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  }
  let queue: Job[] = [];
  let scheduled = false;
  const drain = () =>
    mutex.run(async () => {
      scheduled = false;
      const jobs = queue;
      queue = [];
      if (jobs.length === 0) return;
      const done: { job: Job; value: unknown }[] = [];
      try {
        conn.exec("BEGIN IMMEDIATE");
      } catch (e) {
        for (const job of jobs) job.reject(e);
        return;
      }
      for (const job of jobs) {
        conn.exec("SAVEPOINT job");
        try {
          const value = await job.fn(w);
          conn.exec("RELEASE job");
          done.push({ job, value });
        } catch (e) {
          conn.exec("ROLLBACK TO job");
          conn.exec("RELEASE job");
          job.reject(e);
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
        for (const d of done) d.job.reject(e);
        return;
      }
      for (const d of done) d.job.resolve(d.value);
    });
  return {
    /** Queues a job for the next group commit; resolves after its COMMIT. */
    enqueue<T>(fn: (w: RawWriter) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void drain());
        }
      });
    },
    close: () => conn.close(),
  };
}
