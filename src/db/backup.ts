/**
 * Verified snapshots of the database: `VACUUM INTO` a temporary name beside the target, then
 * `PRAGMA integrity_check` on the copy, then a rename, so a file with the target's name is
 * always a complete, verified snapshot. Everything goes through SQLite (the libsql native
 * driver): nothing opens SQLite's files any other way (a descriptor of our own on `-shm` once
 * dropped the server's locks and a backup crashed it).
 *
 * One mechanism for every backup: `talentd backup FILE`, the scheduled backups (run on a
 * thread of their own, src/db/backupThread.ts, so the copy does not stall requests) and the
 * backup `serve` takes before applying a migration.
 */
import LibsqlDatabase from "libsql";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";

export interface BackupResult {
  file: string;
  bytes: number;
  tables: number;
}

type Native = InstanceType<typeof LibsqlDatabase>;

/** A native connection (the driver has no read-only mode: callers only read where they only mean to). */
function open(path: string): Native {
  return new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
}

/** A string as an SQL literal (for `VACUUM INTO`, run with exec: see closeNative). */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/**
 * Closes native connections for real. The driver's close() leaves a connection open while a
 * statement it prepared is still alive (until the garbage collector takes it), holding its
 * locks and descriptors: a restore was refused as "in use" by such a leftover, and a backup
 * thread would keep rotated-away files open. So: statements are not kept, writes without
 * results go through exec(), and a collection after close() ends what prepare() left.
 */
export function closeNative(...conns: Native[]): void {
  for (const c of conns) c.close();
  Bun.gc(true);
}

/** `PRAGMA integrity_check` through SQLite: "ok", or the first problems it lists. */
export function integrityCheck(conn: Native): string {
  const rows = conn.prepare("PRAGMA integrity_check").raw().all() as unknown[][];
  const lines = rows.map((r) => String(r[0]));
  return lines.length === 1 && lines[0] === "ok" ? "ok" : lines.slice(0, 5).join("; ") || "no answer";
}

/**
 * Writes a verified snapshot of the local database file `source` to `target` (which must not
 * exist). Synchronous: call it from the CLI or a worker thread, not from the thread serving
 * requests. Throws with one sentence on failure, leaving no file at `target`.
 */
export function snapshotDatabase(source: string, target: string): BackupResult {
  const file = resolve(target);
  if (!existsSync(source)) throw new Error(`there is no database at ${source}`);
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
  const partial = `${file}.partial`;
  removePartial(partial); // left by a backup that died midway: never a snapshot
  try {
    const live = open(source);
    try {
      live.exec("PRAGMA busy_timeout = 5000");
      live.exec(`VACUUM INTO ${sqlString(partial)}`); // exec: no statement outlives close()
    } finally {
      closeNative(live);
    }
    const copy = open(partial);
    let tables: number;
    try {
      const verdict = integrityCheck(copy);
      if (verdict !== "ok") throw new Error(`integrity_check of the backup says: ${verdict}`);
      tables = Number((copy.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n);
    } finally {
      closeNative(copy);
    }
    if (existsSync(file)) throw new Error(`${file} appeared during the backup; choose a new file name`);
    renameSync(partial, file);
    return { file, bytes: statSync(file).size, tables };
  } catch (e) {
    removePartial(partial);
    throw e;
  }
}

/** Removes a partial copy with SQLite's files beside it (a full disk left `.partial-journal` behind). */
function removePartial(partial: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(partial + suffix, { force: true });
}

/** The file path of a `file:` database URL, or null for a libSQL server. */
export function databasePath(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith("file:")) return null;
  return decodeURIComponent(databaseUrl.slice("file:".length).split("?")[0]!);
}
