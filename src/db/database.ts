/**
 * The database handle's interface, whatever the database: an embedded libSQL file or a libSQL
 * server (src/db/client.ts), or PostgreSQL (src/db/pgClient.ts). openDatabase (client.ts) picks
 * the implementation by DATABASE_URL.
 */
import type { Client, InValue } from "@libsql/client";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { Histogram } from "../lib/histogram";
import type * as schema from "./schema";
import type { StorageHealth } from "./storage";
import type { Statement, WriteJob } from "./writeJob";

export type DrizzleDb = LibSQLDatabase<typeof schema>;
/** The handle a transaction callback receives. */
export type Tx = Parameters<Parameters<DrizzleDb["transaction"]>[0]>[0];

export interface Database {
  /** Which database: SQLite (an embedded file or a libSQL server) or PostgreSQL (src/db/pgClient.ts). */
  dialect: "sqlite" | "postgres";
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
   * A counter that changes whenever any connection or process commits: `PRAGMA data_version`
   * on the read connection, which never writes itself. Null for a libSQL server. Lets hot paths
   * cache rows exactly: a cached row is used only while nothing was committed since. Only
   * SQLite opens SQLite's files: an own descriptor on `-shm` (it was once mapped here to read
   * the WAL-index header) drops the process's POSIX locks on it when closed, and a backup's
   * connection then rebuilt the WAL index under the server (SIGBUS).
   */
  dataVersion(): number | null;
  /**
   * The configuration epoch (src/db/epoch.ts): changes whenever any connection or process
   * commits a change to a configuration table (keys, sessions, projects, selections, …), not
   * with the activity log. Read at most once per event-loop turn and again after any write of
   * this process, like dataVersion. Null for a libSQL server, or before migration 0008.
   */
  configEpoch(): number | null;
  /** Synchronous reads on the local read connection; null for a libSQL server (no sync client). */
  allSync: (<T>(sql: string, args?: InValue[]) => T[]) | null;
  /**
   * A hot-path write, as data (src/db/writeJob.ts), all or nothing: on PostgreSQL group-committed
   * without the mutex (src/db/pgWrites.ts); elsewhere serialized with every other write (same
   * mutex). On a local file, posted to the writer thread at once and group committed there
   * with the jobs around it (src/db/writerThread.ts), so neither the rows nor the COMMIT's fsync
   * take the thread serving requests; on a libSQL server, one interactive
   * transaction each.
   * Resolves after the COMMIT with the row `unless` found (nothing written), or undefined.
   */
  writeJob<T = Record<string, unknown>>(job: WriteJob): Promise<T | undefined>;
  /**
   * A one-off bulk write on the request thread (start-up's blob offload): one IMMEDIATE
   * transaction under the writer mutex, on a native connection with cached statements (a libSQL
   * server: a write job). Sending the same ~25 MB through the writer thread, or the pooled
   * client, left 16–20 MiB more RSS for good (docs/performance.md).
   */
  bulkWrite(statements: Statement[]): Promise<void>;
  /** Resolves once every write queued so far has committed or failed (shutdown waits for it). */
  idle(): Promise<void>;
  /** True when the database is a local file (pragmas and backups apply). */
  isLocal: boolean;
  /** The file path of a local database (null for a libSQL server): sizes are read with `stat`, never by opening it. */
  path: string | null;
  /** For /metrics: writes not yet committed (queued, waiting for the mutex, or running), and how long commits take. */
  writeStats: WriteStats;
  /** Whether the disk took the last writes (src/db/storage.ts): every write below notes its outcome there. */
  storage: StorageHealth;
  close(): void;
}

export interface WriteStats {
  /** Writes of this process accepted and not yet settled (committed or failed). */
  pending(): number;
  /**
   * Seconds from holding the writer mutex to the end of COMMIT for `transaction` (`write()` and
   * `bulkWrite()`); for `batch`, one group commit of write jobs, from its BEGIN on the writer
   * thread to the end of its COMMIT (on a libSQL server, one job under the mutex).
   */
  commits: { transaction: Histogram; batch: Histogram };
}
