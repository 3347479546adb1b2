/**
 * The Database interface on PostgreSQL (DATABASE_URL=postgres://… or postgresql://; docs/operations.md
 * "PostgreSQL"), over Bun's built-in SQL client (docs/design.md "PostgreSQL: driver").
 * What it does today: drizzle over the derived schema (src/db/schema-pg), `write` as one
 * transaction, raw `get/all` with SQLite's `?` placeholders numbered for PostgreSQL, write jobs and
 * bulk writes as transactions, no data version, and the configuration epoch kept in memory and
 * shared by every replica on the database (pgEpoch.ts). Raw SQL written for SQLite alone
 * (json_extract, strftime, group_concat, …) fails here: that is the next step.
 */
import type { Client, InValue, ResultSet } from "@libsql/client";
import { SQL } from "bun";
import { sql as drizzleSql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import type { Database, DrizzleDb } from "./database";
import * as pgSchema from "./schema-pg";
import { type EpochClock, readEpoch, startEpochClock } from "./pgEpoch";
import { StorageHealth } from "./storage";
import { jobBatches, type PgTally, runJob, writeDoor } from "./pgWrites";
import type { WriteJob } from "./writeJob";

/** A Database on PostgreSQL: the shared interface, and what only PostgreSQL has. */
export interface PgDatabaseHandle extends Database {
  dialect: "postgres";
  /** Bun's SQL client (the pool). */
  sql: SQL;
  /** The configuration epoch as every replica sees it (pgEpoch.ts): `configEpoch()` answers from it. */
  epochClock: EpochClock;
  /** Reads the configuration epoch's row now (null before the migration); the clock takes it. */
  readConfigEpoch(): Promise<number | null>;
  /** What this process sent so far (pgWrites.ts PgTally): the tests count a request's statements with it. */
  tally: Readonly<PgTally>;
}

/** True for a DATABASE_URL this module opens. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Raw SQL written for SQLite, as PostgreSQL takes it: `?` placeholders as `$1…$n` in order and
 * `?NNN` as `$NNN` (SQLite's numbering), and a camelCase alias (`AS userId`) quoted, since
 * PostgreSQL folds unquoted names to lower case and SQLite keeps them. String literals, quoted
 * identifiers and comments are left alone.
 */
export function numberPlaceholders(sql: string): string {
  let out = "";
  let n = 0;
  let code = ""; // the run of plain SQL since the last literal or comment
  const flush = () => {
    out += code.replace(/\bAS\s+([a-z][a-z0-9_]*[A-Z][A-Za-z0-9_]*)\b/gi, (m, alias: string) => m.slice(0, -alias.length) + `"${alias}"`);
    code = "";
  };
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      flush();
      const end = closing(sql, i, c);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (c === "-" && sql[i + 1] === "-") {
      flush();
      const end = sql.indexOf("\n", i);
      const stop = end === -1 ? sql.length - 1 : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === "?") {
      // ?NNN keeps its number; a bare ? takes the next after the largest so far (SQLite's rule)
      const digits = /^\d+/.exec(sql.slice(i + 1))?.[0];
      if (digits) {
        n = Math.max(n, Number(digits));
        code += `$${digits}`;
        i += digits.length;
      } else code += `$${++n}`;
    } else code += c;
  }
  flush();
  return out;
}

/** The index of the quote closing the literal opened at `start` (a doubled quote is one character of it). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i;
    } else i++;
  }
  return sql.length - 1;
}

/** Arguments as SQLite would take them: booleans as 0/1 (the 0/1 columns of the derived schema). */
function argsOf(args: readonly unknown[] | undefined): unknown[] {
  return (args ?? []).map((a) => (typeof a === "boolean" ? (a ? 1 : 0) : a));
}

/** A row with PostgreSQL's int8 values (bigint) as numbers, as SQLite's driver gives them. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const k in row) if (typeof row[k] === "bigint") row[k] = Number(row[k]);
  return row;
}

type Queryable = Pick<SQL, "unsafe">;

const toNumber = (v: unknown) => (typeof v === "bigint" ? Number(v) : v);

/**
 * The client drizzle is given: Bun's, with every int8 value made a number on the way out, in
 * objects and in the arrays of `.values()` (a column of a bigint table gets a number from drizzle
 * either way; `count(*)`, `max(created_at)` and other expressions would arrive as BigInt).
 */
function numbersOut(c: any, tally: PgTally): any {
  return {
    unsafe(text: string, params?: unknown[]) {
      tally.statements++;
      const q = c.unsafe(text, params);
      return {
        then: (ok: (rows: unknown) => unknown, fail?: (e: unknown) => unknown) =>
          q
            .then((rows: Record<string, unknown>[]) => {
              for (const r of rows) plainRow(r);
              return rows;
            })
            .then(ok, fail),
        values: () => q.values().then((rows: unknown[][]) => rows.map((r) => r.map(toNumber))),
      };
    },
    begin: (fn: (tx: unknown) => unknown) => {
      tally.statements += 2; // BEGIN and COMMIT
      return c.begin((tx: unknown) => fn(numbersOut(tx, tally)));
    },
    savepoint: (fn: (sp: unknown) => unknown) => {
      tally.statements += 2;
      return c.savepoint((sp: unknown) => fn(numbersOut(sp, tally)));
    },
  };
}

async function query(on: Queryable, sql: string, args?: readonly unknown[]): Promise<Record<string, unknown>[] & { count?: number }> {
  const rows = (await on.unsafe(numberPlaceholders(sql), argsOf(args))) as Record<string, unknown>[] & { count?: number };
  for (const r of rows) plainRow(r);
  return rows;
}

/** A result in the libSQL client's shape, for the callers that use `database.client` (migrate's plan, /readyz). */
function resultSet(rows: Record<string, unknown>[] & { count?: number }): ResultSet {
  return {
    rows: rows as unknown as ResultSet["rows"],
    columns: rows[0] ? Object.keys(rows[0]) : [],
    columnTypes: [],
    rowsAffected: rows.count ?? rows.length,
    lastInsertRowid: undefined,
    toJSON: () => ({ rows }),
  };
}

/** The configuration epoch as a drizzle transaction reads it (the bump of this transaction included). */
async function epochOfDrizzle(tx: { execute(q: unknown): Promise<unknown> }): Promise<number | null> {
  const rows = (await tx.execute(drizzleSql`SELECT epoch FROM config_epoch WHERE id = 1`)) as { epoch: number | bigint }[];
  return rows[0] ? Number(rows[0].epoch) : null;
}

/** The database could not be reached or refused the connection (start-up: one line, exit 1). */
export class PgUnreachableError extends Error {
  override name = "PgUnreachableError";
  constructor(url: string, cause: unknown) {
    const e = cause as { message?: string; code?: string };
    const code = e.code ? ` (${e.code})` : "";
    // the URL without its credentials
    super(`could not connect to the PostgreSQL database at ${url.replace(/\/\/[^@/]*@/, "//***@")}: ${e.message ?? String(cause)}${code}`);
  }
}

/**
 * The pool in the libSQL client's shape, for the callers that use `database.client` (migrate's
 * plan, /readyz, tests): a raw statement other than a read may change configuration, so the
 * clock keeps nothing until it reads the epoch again.
 */
function libsqlShaped(sql: SQL, clock: EpochClock): Client {
  return {
    protocol: "postgres",
    closed: false,
    // a raw statement other than a read may change configuration: nothing is kept until the clock reads the epoch again
    execute: async (stmt: string | { sql: string; args?: InValue[] }) => {
      const text = typeof stmt === "string" ? stmt : stmt.sql;
      try {
        return resultSet(await query(sql, text, typeof stmt === "string" ? [] : stmt.args));
      } finally {
        if (!/^\s*SELECT\b/i.test(text)) clock.committed(null);
      }
    },
    batch: async (stmts: (string | { sql: string; args?: InValue[] })[]) =>
      sql
        .begin(async (tx) => {
          const out: ResultSet[] = [];
          for (const st of stmts) out.push(resultSet(typeof st === "string" ? await query(tx, st) : await query(tx, st.sql, st.args)));
          return out;
        })
        .finally(() => clock.committed(null)),
    close: () => void sql.close(),
  } as unknown as Client;
}

/** Opens the pool and checks the server answers; throws PgUnreachableError with the server's or the network's reason. */
export async function openPgDatabase(url: string): Promise<PgDatabaseHandle> {
  // bigint: int8 values arrive as bigint (not text) and are made numbers by plainRow; drizzle's
  // bigint columns in number mode take either
  const sql = new SQL({ url, bigint: true, max: 10, connectionTimeout: 5, idleTimeout: 60 });
  try {
    await sql.unsafe("SELECT 1");
  } catch (e) {
    await sql.close().catch(() => {});
    throw new PgUnreachableError(url, e);
  }
  const tally: PgTally = { statements: 0, retries: 0, mutexWait: 0 };
  const db = drizzle({ client: numbersOut(sql, tally), schema: pgSchema });
  const storage = new StorageHealth({ dir: null });
  const clock = await startEpochClock(url, sql);
  const { committing, timed, locked, commits, pending, idle } = writeDoor(clock, tally);
  const counted = (on: Queryable, text: string, args?: readonly unknown[]) => {
    tally.statements++;
    return query(on, text, args);
  };
  // the epoch each transaction read last (its own bump included), handed to the clock once
  // committed: this process's next request sees its change whatever the notification's timing
  const seenIn = async (tx: Queryable): Promise<number | null> => {
    if (!clock.ready) return null;
    tally.statements++;
    return readEpoch(tx);
  };
  // business writes and bookkeeping in batches of their own: a failing trace batch never sends a resolution alone
  const [business, bookkeeping] = [jobBatches(sql, counted, seenIn, tally), jobBatches(sql, counted, seenIn, tally)];
  // an `unless` job decides on what it reads: its own transaction, at once; the others group-committed
  const job = (j: WriteJob) => (j.unless ? runJob(sql, counted, j, seenIn, tally) : j.durable === false ? bookkeeping(j) : business(j));
  const client = libsqlShaped(sql, clock);
  const handle: PgDatabaseHandle = {
    dialect: "postgres",
    sql,
    // the query builder's API is the same in both dialects; what differs (onConflictDoNothing's
    // target, returning, …) is the next step's, and shows up as run-time errors, not silent ones
    db: db as unknown as DrizzleDb,
    client,
    isLocal: false,
    path: null,
    writeStats: { pending, commits },
    storage,
    write: (fn) => {
      let refused = false; // fn threw: rolled back before any COMMIT
      return committing(
        locked(commits.transaction, () =>
          db.transaction(async (tx) => {
            const value = await fn(tx as never).catch((e: unknown) => {
              refused = true;
              throw e;
            });
            return { value, seen: clock.ready ? await epochOfDrizzle(tx) : null };
          }),
        ),
        () => refused,
      );
    },
    // not under the mutex: group-committed, or at once for an `unless` job (pgWrites.ts)
    writeJob: <T>(j: WriteJob) => committing(timed(commits.batch, () => job(j))) as Promise<T | undefined>,
    bulkWrite: (statements) =>
      committing(locked(commits.transaction, () => runJob(sql, counted, { statements }, seenIn, tally))).then(() => {}),
    idle,
    get: async <T>(text: string, args: InValue[] = []) => (await counted(sql, text, args))[0] as T | undefined,
    all: async <T>(text: string, args: InValue[] = []) => (await counted(sql, text, args)) as unknown as T[],
    allSync: null,
    dataVersion: () => null,
    epochClock: clock,
    tally,
    configEpoch: () => clock.current(),
    readConfigEpoch: async () => {
      const v = await readEpoch(sql).catch(() => null); // not migrated yet: null
      if (v !== null) clock.committed(v);
      return v;
    },
    close: () => {
      clock.close();
      void sql.close();
    },
  };
  return handle;
}
