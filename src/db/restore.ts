/**
 * `talentd restore FILE`: puts a backup in place of a stopped server's database.
 *
 * 1. FILE must pass `PRAGMA integrity_check`, be a talentd database (`__talentd_migrations`),
 *    and hold no migration this binary does not know.
 * 2. The current database, when there is one, must be in use by no other process: a
 *    connection in `locking_mode=EXCLUSIVE` must get the file's exclusive lock at once, which
 *    SQLite refuses while any connection (a running server's) has it open. Under that lock it
 *    is first copied to `DATA_DIR/backups/pre-restore-<time>.db` (nothing is ever lost to a
 *    restore), then checkpointed.
 * 3. FILE is copied with `VACUUM INTO` beside the database, the copy checked again, stale
 *    `-wal`/`-shm` files of the old database removed (they would be replayed onto the new one),
 *    and the copy renamed into place.
 * Every copy goes through SQLite; the server must stay stopped until the command returns.
 */
import { fileStamp } from "../lib/time";
import LibsqlDatabase from "libsql";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { migrations as embedded } from "../../migrations";
import { closeNative, integrityCheck, sqlString } from "./backup";
import { NewerSchemaError } from "./migrate";

type Native = InstanceType<typeof LibsqlDatabase>;

/** The restore was refused; nothing was changed. */
export class RestoreRefused extends Error {
  override name = "RestoreRefused";
}

export interface RestoreResult {
  target: string;
  /** Where the database that was replaced went (null: there was none). */
  previous: string | null;
  /** The migrations the restored database records. */
  migrations: string[];
  bytes: number;
}

const stampOf = fileStamp;

/**
 * A native connection; `timeout` 0 fails at once on a lock (the driver has no read-only mode: only reads are made where only reads are
 * meant).
 */
function open(path: string, opts: { timeout?: number } = {}): Native {
  return new LibsqlDatabase(path, { timeout: opts.timeout ?? 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
}

/** Checks FILE: intact, a talentd database, no migration unknown to this binary. Returns its migrations. */
export function checkBackupFile(file: string, known: string[] = embedded.map((m) => m.tag)): string[] {
  if (!existsSync(file) || !statSync(file).isFile()) throw new RestoreRefused(`${file} does not exist or is not a file`);
  let conn: Native;
  try {
    conn = open(file);
  } catch (e) {
    throw new RestoreRefused(`${file} cannot be opened as a database (${(e as Error).message}); nothing was changed`);
  }
  try {
    let verdict: string;
    try {
      verdict = integrityCheck(conn);
    } catch (e) {
      throw new RestoreRefused(`${file} is not a readable SQLite database (${(e as Error).message}); nothing was changed`);
    }
    if (verdict !== "ok") throw new RestoreRefused(`${file} fails integrity_check (${verdict}); nothing was changed`);
    const has = conn.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '__talentd_migrations'").get() as {
      n: number;
    };
    if (Number(has.n) === 0)
      throw new RestoreRefused(`${file} is not a talentd database (no __talentd_migrations table); nothing was changed`);
    const tags = (conn.prepare("SELECT tag FROM __talentd_migrations ORDER BY tag").raw().all() as unknown[][]).map((r) => String(r[0]));
    const unknown = tags.filter((t) => !known.includes(t));
    if (unknown.length > 0) throw new RestoreRefused(`${new NewerSchemaError(unknown, file).message}; nothing was changed`);
    return tags;
  } finally {
    closeNative(conn);
  }
}

/**
 * Fails with RestoreRefused while another connection has `path` open. Otherwise copies it to
 * `previous` (when given) and checkpoints it, all under an exclusive lock, and closes.
 */
function takeOver(path: string, previous: string | null, beforeCopy: () => void): void {
  const conn = open(path, { timeout: 0 });
  try {
    try {
      conn.exec("PRAGMA locking_mode = EXCLUSIVE");
      conn.exec("SELECT count(*) FROM sqlite_master"); // exec: no statement keeps the lock past close()
    } catch (e) {
      if (String((e as { code?: string }).code ?? (e as Error).message).includes("BUSY") || /locked/i.test((e as Error).message)) {
        throw new RestoreRefused(
          `the database ${path} is in use by another process (a running talentd?); stop the server first; nothing was changed`,
        );
      }
      throw e;
    }
    beforeCopy();
    if (previous) conn.exec(`VACUUM INTO ${sqlString(previous)}`);
    conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    closeNative(conn);
  }
}

/** Restores the backup `file` into the database file `target` (see the module's comment). */
export function restoreDatabase(file: string, target: string, backupsFolder: string, now = Date.now()): RestoreResult {
  const source = resolve(file);
  const dest = resolve(target);
  if (source === dest) throw new RestoreRefused(`${file} is the database itself; restore from a backup file`);
  const migrations = checkBackupFile(source);

  let previous: string | null = null;
  if (existsSync(dest)) {
    previous = join(backupsFolder, `pre-restore-${stampOf(now)}.db`);
    try {
      takeOver(dest, previous, () => mkdirSync(backupsFolder, { recursive: true, mode: 0o750 }));
    } catch (e) {
      if (e instanceof RestoreRefused) throw e;
      mkdirSync(backupsFolder, { recursive: true, mode: 0o750 });
      // a database SQLite cannot read or copy (the reason to restore): moved aside as it is
      rmSync(previous, { force: true });
      previous = join(backupsFolder, `pre-restore-${stampOf(now)}-unreadable.db`);
      renameSync(dest, previous);
      for (const ext of ["-wal", "-shm"]) if (existsSync(dest + ext)) renameSync(dest + ext, previous + ext);
    }
  }

  const incoming = `${dest}.restoring`;
  rmSync(incoming, { force: true });
  try {
    const src = open(source);
    try {
      src.exec(`VACUUM INTO ${sqlString(incoming)}`);
    } finally {
      closeNative(src);
    }
    const copy = open(incoming);
    try {
      const verdict = integrityCheck(copy);
      if (verdict !== "ok") throw new Error(`the copy of ${file} fails integrity_check (${verdict})`);
    } finally {
      closeNative(copy);
    }
    // the old database's log and index would be replayed onto the new file: its content is in `previous`
    rmSync(`${dest}-wal`, { force: true });
    rmSync(`${dest}-shm`, { force: true });
    renameSync(incoming, dest);
  } catch (e) {
    rmSync(incoming, { force: true });
    throw e;
  }
  return { target: dest, previous, migrations, bytes: statSync(dest).size };
}
