/**
 * The database handle: drizzle over @libsql/client, with the pragmas of docs/design.md and one
 * writer mutex (see src/lib/mutex.ts for why every write transaction goes through it).
 */
import { createClient, type Client, type InValue } from "@libsql/client";
import LibsqlDatabase from "libsql";
import { drizzle } from "drizzle-orm/libsql";
import { dirname } from "node:path";
import { Histogram } from "../lib/histogram";
import { Mutex } from "../lib/mutex";
import { statementCache } from "./statements";
import { StorageHealth } from "./storage";
import { writerThread } from "./groupCommit";
import type { Statement, WriteJob } from "./writeJob";
import * as schema from "./schema";

import type { Database } from "./database";
import { isPostgresUrl, openPgDatabase } from "./pgClient";

export type { Database, DrizzleDb, Tx, WriteStats } from "./database";

/**
 * Opens the database at `url` and applies the connection pragmas; a postgres:// or postgresql://
 * URL opens PostgreSQL instead (src/db/pgClient.ts).
 */
export async function openDatabase(
  url: string,
  authToken?: string,
  /** The writer thread's module (tests point it at one that fails); default src/db/writerThread.ts. */
  opts: { writerModule?: string } = {},
): Promise<Database> {
  if (isPostgresUrl(url)) return openPgDatabase(url);
  const isLocal = url.startsWith("file:");
  // `timeout` becomes busy_timeout on every pooled connection (checked in test/ops/db.test.ts).
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
  const commits = { transaction: new Histogram(), batch: new Histogram() };
  const writer = isLocal ? writerThread(localPath(url), mutex, opts.writerModule ?? WRITER_THREAD, commits.batch) : null;
  let bulk: ReturnType<typeof nativeConnection> | null = null;
  let pending = 0;
  const storage = new StorageHealth({ dir: isLocal ? dirname(localPath(url)) : null });
  const settled = () => {
    pending--;
    reader?.forgetVersion();
  };
  /**
   * This process's writes end the memo of the data version before their caller goes on (see
   * preparedReader), are counted while pending (/metrics), and tell the storage state whether
   * the disk took them (a full disk is noted, a commit ends that state).
   */
  const committing = <T>(p: Promise<T>): Promise<T> => {
    pending++;
    p.then(
      () => {
        settled();
        storage.succeeded();
      },
      (e: unknown) => {
        settled();
        storage.failed(e);
      },
    );
    return p;
  };
  /** Runs `fn` under the mutex, timing it into `h` (the commit latency of /metrics). */
  const timed = <T>(h: Histogram, fn: () => Promise<T>): Promise<T> =>
    mutex.run(async () => {
      const t0 = performance.now();
      try {
        return await fn();
      } finally {
        h.observe((performance.now() - t0) / 1000);
      }
    });
  return {
    dialect: "sqlite",
    db,
    client,
    isLocal,
    path: isLocal ? localPath(url) : null,
    writeStats: { pending: () => pending, commits },
    storage,
    write: (fn) => committing(timed(commits.transaction, () => db.transaction(fn, { behavior: "immediate" }))),
    writeJob: <T>(job: WriteJob) =>
      committing((writer ? writer.enqueue(job) : timed(commits.batch, () => jobInTransaction(client, job))) as Promise<T | undefined>),
    idle: async () => {
      await writer?.idle(); // every job queued so far answered
      await mutex.run(async () => {}); // the mutex is FIFO: every transaction asked for before this is done
    },
    bulkWrite: (statements) => {
      if (!isLocal)
        return timed(
          commits.transaction,
          async () =>
            void (await client.batch(
              statements.map((st) => ({ sql: st.sql, args: st.args ?? [] })),
              "write",
            )),
        );
      return committing(
        timed(commits.transaction, async () => {
          bulk ??= nativeConnection(localPath(url));
          bulk.transaction(statements);
        }),
      );
    },
    get: async <T>(sql: string, args: InValue[] = []) => {
      if (reader) return reader.get(sql, args) as T | undefined;
      return (await client.execute({ sql, args })).rows[0] as T | undefined;
    },
    dataVersion: reader ? reader.dataVersion : () => null,
    configEpoch: reader ? reader.configEpoch : () => null,
    allSync: reader ? <T>(sql: string, args: InValue[] = []) => reader.all(sql, args) as T[] : null,
    all: async <T>(sql: string, args: InValue[] = []) => {
      if (reader) return reader.all(sql, args) as T[];
      return (await client.execute({ sql, args })).rows as unknown as T[];
    },
    close: () => {
      reader?.close();
      writer?.close();
      bulk?.close();
      client.close();
    },
  };
}

/** A read-only native connection with a prepared-statement cache (local files only). */
function preparedReader(url: string) {
  const path = localPath(url);
  const conn = new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
  const stmt = statementCache(conn);
  const pragmaVersion = () => (stmt("PRAGMA data_version").get() as { data_version: number }).data_version;
  // The pragma opens a read transaction: 7 µs idle, ~30 µs under load, and a key route read it
  // twice (key cache, selection cache): a fifth of its throughput. It is read at most once per
  // event-loop turn and again after any write of this process. Exact for every caller that
  // matters: a request sent after a commit was acknowledged (by this process or another) is
  // received in a later turn, so it reads a fresh version; within one turn, requests received
  // together are concurrent with any other process's commit, and this process's own commits
  // clear the memo before their callers continue (openDatabase's `committing`).
  let memo: number | null = null;
  let epoch: number | null | undefined;
  const forgetVersion = () => {
    memo = null;
    epoch = undefined;
  };
  // both counters in one statement (one read transaction instead of two: a page asks for both in its turn)
  const BOTH = "SELECT (SELECT data_version FROM pragma_data_version) AS version, (SELECT epoch FROM config_epoch WHERE id = 1) AS epoch";
  const readBoth = (): void => {
    if (memo === null) setImmediate(forgetVersion);
    try {
      const row = stmt(BOTH).get() as { version: number; epoch: number | null };
      memo = row.version;
      epoch = row.epoch ?? null;
    } catch {
      memo = pragmaVersion();
      epoch = null; // not migrated yet: nothing is kept
    }
  };
  return {
    get: (sql: string, args: InValue[]) => stmt(sql).get(...args),
    all: (sql: string, args: InValue[]) => stmt(sql).all(...args),
    dataVersion: (): number => {
      if (memo === null) readBoth();
      return memo!;
    },
    /** The configuration epoch (src/db/epoch.ts), read like the data version: once per turn and after this process's writes. */
    configEpoch: (): number | null => {
      if (epoch === undefined) readBoth();
      return epoch!;
    },
    forgetVersion,
    close: () => conn.close(),
  };
}

/**
 * The writer thread's module: beside this file in the source tree; inside the compiled binary,
 * where every module's URL is the binary's own, at the entrypoint build.ts embeds (db/writerThread).
 */
const WRITER_THREAD = import.meta.url.includes("/$bunfs/") ? "./db/writerThread.ts" : new URL("./writerThread.ts", import.meta.url).href;

/**
 * A write job as one interactive transaction of `client` (the path for a libSQL server, where
 * there is no writer thread): `unless` first, then the statements; all or nothing. Exported
 * for its test, which runs it on a local file (same client API).
 */
export async function jobInTransaction(client: Client, job: WriteJob): Promise<Record<string, unknown> | undefined> {
  const txn = await client.transaction("write");
  try {
    const found = job.unless ? (await txn.execute({ sql: job.unless.sql, args: job.unless.args ?? [] })).rows[0] : undefined;
    if (!found) for (const st of job.statements) await txn.execute({ sql: st.sql, args: st.args ?? [] });
    await txn.commit();
    return found ? { ...found } : undefined;
  } catch (e) {
    await txn.rollback().catch(() => {});
    throw e;
  } finally {
    txn.close();
  }
}

/** A native write connection on the request thread with cached statements (bulkWrite). */
function nativeConnection(path: string) {
  const conn = new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
  conn.exec("PRAGMA synchronous = FULL");
  conn.exec("PRAGMA foreign_keys = ON");
  // only start-up's blob writes use it, and it stays open: a page cache of 256 KiB, not
  // SQLite's 2 MB, which those writes filled and kept (RSS with 5,000 talents −1.4 MiB)
  conn.exec("PRAGMA cache_size = -256");
  const stmt = statementCache(conn);
  return {
    /** Runs the statements in one IMMEDIATE transaction: all or nothing. */
    transaction(statements: Statement[]): void {
      conn.exec("BEGIN IMMEDIATE");
      try {
        for (const st of statements) stmt(st.sql).run(...(st.args ?? []));
        conn.exec("COMMIT");
      } catch (e) {
        try {
          conn.exec("ROLLBACK");
        } catch {
          /* the transaction is already gone */
        }
        throw e;
      }
    },
    close: () => conn.close(),
  };
}

/** The file path of a `file:` URL. */
function localPath(url: string): string {
  return decodeURIComponent(url.slice("file:".length).split("?")[0]!);
}
