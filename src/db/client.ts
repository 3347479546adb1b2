/**
 * The database handle: drizzle over @libsql/client, with the pragmas of DESIGN §9 and one
 * writer mutex (see src/lib/mutex.ts for why every write transaction goes through it).
 */
import { createClient, type Client } from "@libsql/client";
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
  /** True when the database is a local file (pragmas and backups apply). */
  isLocal: boolean;
  close(): void;
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
  return {
    db,
    client,
    isLocal,
    write: (fn) => mutex.run(() => db.transaction(fn, { behavior: "immediate" })),
    close: () => client.close(),
  };
}
