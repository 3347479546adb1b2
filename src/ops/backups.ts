/**
 * Backups the server takes itself, into DATA_DIR/backups/, with the mechanism of `talentd
 * backup` (src/db/backup.ts: VACUUM INTO, integrity_check on the copy, rename):
 *
 * - scheduled: every BACKUP_INTERVAL while serving, on a thread of their own
 *   (src/db/backupThread.ts) so the copy never stalls requests; named
 *   `talentd-<UTC time>.db`; after each verified one, the oldest beyond BACKUP_KEEP are deleted
 *   (only files of that name: nothing else in the folder is ever removed). The schedule follows
 *   the newest such file, so restarts do not postpone it. A failure is logged, counted in
 *   /metrics and shown at GET /web/admin/backups, and never stops the server.
 * - before a migration: `pre-migrate-<UTC time>.db`, taken by `serve` (and `migrate`) before
 *   the first pending migration runs; never rotated away (nor are `talentd restore`'s
 *   `pre-restore-<UTC time>.db`).
 */
import { fileStamp } from "../lib/time";
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { snapshotDatabase, type BackupResult } from "../db/backup";
import type { BackupReply, BackupRequest } from "../db/backupThread";
import type { Logger } from "../lib/log";

export interface BackupRecord {
  /** The snapshot written (absent when the backup failed). */
  file: string | null;
  ok: boolean;
  /** ms since epoch: every write acknowledged before this is in the snapshot. */
  startedAt: number;
  finishedAt: number;
  bytes?: number;
  error?: string;
  /** True when the backup was not attempted: too little free space (see BACKUP_RESERVE_BYTES). */
  skipped?: boolean;
}

export interface BackupStatus {
  /** True when BACKUP_INTERVAL is set (and the database is a local file). */
  scheduled: boolean;
  intervalMs: number | null;
  keep: number | null;
  folder: string;
  running: boolean;
  /** When the next scheduled backup is due (ms since epoch), null when none is scheduled. */
  nextAt: number | null;
  last: BackupRecord | null;
  lastSuccess: BackupRecord | null;
  lastFailure: BackupRecord | null;
  /** Scheduled backups since start, by result. */
  succeeded: number;
  failed: number;
  /** Scheduled backups skipped since start for want of free space. */
  skipped: number;
}

export interface BackupFile {
  name: string;
  bytes: number;
  /** ms since epoch (the time in the name for files written here, else the file's mtime). */
  createdAt: number;
  kind: "scheduled" | "pre-migrate" | "pre-restore" | "other";
}

export interface BackupSchedule {
  intervalMs: number;
  keep: number;
}

const SCHEDULED = /^talentd-(\d{8}T\d{9}Z)\.db$/;
const PRE_MIGRATE = /^pre-migrate-(\d{8}T\d{9}Z)\.db$/;
/** A scheduled backup is skipped unless the folder keeps this much free beyond the copy: it never takes the database's last room. */
export const BACKUP_RESERVE_BYTES = 32 * 1024 * 1024;
/** What a backup that died midway leaves beside its target (SQLite's own files of the copy included). */
const PARTIAL = /^(.*\.db)\.partial(-journal|-wal|-shm)?$/;
/** setTimeout's longest delay; longer waits are taken in steps. */
const MAX_TIMER = 2 ** 31 - 1;

/** `20261123T003000123Z`: UTC, sortable, safe in a file name, unique to the millisecond. */
export function stamp(ms: number): string {
  return fileStamp(ms);
}

function parseStamp(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) : NaN;
}

/** The backup thread's module (see WRITER_THREAD in src/db/client.ts for the binary's form). */
const BACKUP_THREAD = import.meta.url.includes("/$bunfs/")
  ? "./db/backupThread.ts"
  : new URL("../db/backupThread.ts", import.meta.url).href;

/** `snapshotDatabase` on a worker thread of its own: the request thread stays free meanwhile. */
export function snapshotInThread(source: string, target: string): Promise<BackupResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(BACKUP_THREAD);
    let done = false;
    const finish = (f: () => void) => {
      if (done) return;
      done = true;
      w.terminate();
      f();
    };
    w.addEventListener("message", (e: MessageEvent<BackupReply>) => {
      const r = e.data;
      finish(() => (r.ok ? resolve({ file: r.file, bytes: r.bytes, tables: r.tables }) : reject(new Error(r.error))));
    });
    w.addEventListener("error", (e) =>
      finish(() => reject(new Error(`the backup thread failed: ${(e as ErrorEvent).message ?? "error"}`))),
    );
    w.addEventListener("close", () => finish(() => reject(new Error("the backup thread stopped before answering"))));
    w.postMessage({ source, target } satisfies BackupRequest);
  });
}

export interface BackupsOptions {
  /** The database file (null: a libSQL server, nothing to back up here). */
  source: string | null;
  /** DATA_DIR/backups */
  folder: string;
  schedule: BackupSchedule | null;
  log: Logger;
  /** How a snapshot is taken (tests inject failures); default: on the backup thread. */
  snapshot?: (source: string, target: string) => Promise<BackupResult>;
  now?: () => number;
}

export class Backups {
  #running: Promise<BackupRecord> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #nextAt: number | null = null;
  #last: BackupRecord | null = null;
  #lastSuccess: BackupRecord | null = null;
  #lastFailure: BackupRecord | null = null;
  #succeeded = 0;
  #failed = 0;
  #skipped = 0;
  #stopped = false;
  readonly #now: () => number;
  readonly #snapshot: (source: string, target: string) => Promise<BackupResult>;

  constructor(readonly opts: BackupsOptions) {
    this.#now = opts.now ?? Date.now;
    this.#snapshot = opts.snapshot ?? snapshotInThread;
  }

  /**
   * Removes what backups that died midway left (with or without a schedule), then schedules the
   * backups (nothing without a schedule or a local file); the first is due an interval after the
   * newest one on disk.
   */
  start(): void {
    const { schedule, source } = this.opts;
    if (source) this.#removePartials();
    if (!schedule || !source) return;
    const newest = this.files().find((f) => f.kind === "scheduled");
    this.#schedule(newest ? newest.createdAt + schedule.intervalMs : this.#now());
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#nextAt = null;
  }

  #schedule(at: number): void {
    if (this.#stopped) return;
    this.#nextAt = at;
    const wait = Math.max(0, Math.min(at - this.#now(), MAX_TIMER));
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#now() < at) return this.#schedule(at); // a wait longer than one timer
      void this.runScheduled().then((r) => this.#schedule(r.startedAt + this.opts.schedule!.intervalMs));
    }, wait);
    this.#timer.unref();
  }

  /** Takes one scheduled backup now (one at a time: a second call while one runs gets the running one). Never throws. */
  runScheduled(): Promise<BackupRecord> {
    this.#running ??= this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #run(): Promise<BackupRecord> {
    const startedAt = this.#now();
    const t0 = performance.now();
    let record: BackupRecord;
    let target: string | null = null;
    try {
      if (!this.opts.source) throw new Error("backups need a local database file");
      mkdirSync(this.opts.folder, { recursive: true, mode: 0o750 });
      target = join(this.opts.folder, `talentd-${stamp(startedAt)}.db`);
      const short = this.#tooLittleRoom(this.opts.source);
      if (short) return this.#skip(startedAt, short, target);
      const r = await this.#snapshot(this.opts.source, target);
      record = { file: r.file, ok: true, startedAt, finishedAt: this.#now(), bytes: r.bytes };
      this.#succeeded++;
      this.#lastSuccess = record;
      this.opts.log.info("backup written", { file: r.file, bytes: r.bytes, ms: Math.round(performance.now() - t0) });
      this.#rotate();
    } catch (e) {
      const error = (e as Error)?.message ?? String(e);
      record = { file: null, ok: false, startedAt, finishedAt: this.#now(), error };
      this.#failed++;
      this.#lastFailure = record;
      this.opts.log.error("backup failed; the server goes on, the next one is scheduled", { error, file: target ?? undefined });
    }
    this.#last = record;
    return record;
  }

  /**
   * Null when the folder has room for a copy of the database (its file and WAL: what VACUUM INTO
   * may write) and BACKUP_RESERVE_BYTES more; else the sentence saying why not (free space by statfs).
   */
  #tooLittleRoom(source: string): string | null {
    const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    const need = size(source) + size(`${source}-wal`);
    const fs = statfsSync(this.opts.folder);
    const free = fs.bavail * fs.bsize;
    if (free >= need + BACKUP_RESERVE_BYTES) return null;
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    const kept = mib(BACKUP_RESERVE_BYTES);
    return `${mib(free)} free in ${this.opts.folder}; the copy needs up to ${mib(need)} and ${kept} are kept free for the database`;
  }

  /** A scheduled backup not attempted for want of room: a warning, counted, shown as the latest outcome. */
  #skip(startedAt: number, why: string, target: string): BackupRecord {
    const record: BackupRecord = { file: null, ok: false, skipped: true, startedAt, finishedAt: this.#now(), error: `skipped: ${why}` };
    this.#skipped++;
    this.#lastFailure = record;
    this.#last = record;
    this.opts.log.warn("backup skipped: not enough free disk space; the next one is scheduled", { reason: why, file: target });
    return record;
  }

  /** Deletes the oldest scheduled backups beyond `keep` (only `talentd-<time>.db` files). */
  #rotate(): void {
    const keep = this.opts.schedule?.keep;
    if (!keep) return;
    const old = this.files()
      .filter((f) => f.kind === "scheduled")
      .slice(keep);
    for (const f of old) {
      try {
        rmSync(join(this.opts.folder, f.name));
        this.opts.log.info("old backup removed", { file: f.name, keep });
      } catch (e) {
        this.opts.log.warn("could not remove an old backup", { file: f.name, error: String(e) });
      }
    }
  }

  /**
   * A backup that died midway (a crash, a full disk) leaves `<name>.partial` and SQLite's
   * `<name>.partial-journal` (or `-wal`, `-shm`): never a snapshot, removed at start (only
   * beside names this server writes).
   */
  #removePartials(): void {
    try {
      for (const name of readdirSync(this.opts.folder)) {
        const m = PARTIAL.exec(name);
        if (!m || !(SCHEDULED.test(m[1]!) || PRE_MIGRATE.test(m[1]!))) continue;
        rmSync(join(this.opts.folder, name), { force: true });
        this.opts.log.info("partial backup file removed", { file: name });
      }
    } catch {
      /* no folder yet */
    }
  }

  /** The backup files in the folder, newest first. */
  files(): BackupFile[] {
    let names: string[];
    try {
      names = readdirSync(this.opts.folder);
    } catch {
      return [];
    }
    const out: BackupFile[] = [];
    for (const name of names) {
      if (!name.endsWith(".db")) continue;
      try {
        const st = statSync(join(this.opts.folder, name));
        if (!st.isFile()) continue;
        const s = SCHEDULED.exec(name) ?? PRE_MIGRATE.exec(name);
        const at = s ? parseStamp(s[1]!) : NaN;
        out.push({
          name,
          bytes: st.size,
          createdAt: Number.isNaN(at) ? st.mtimeMs : at,
          kind: SCHEDULED.test(name)
            ? "scheduled"
            : PRE_MIGRATE.test(name)
              ? "pre-migrate"
              : name.startsWith("pre-restore-")
                ? "pre-restore"
                : "other",
        });
      } catch {
        /* removed meanwhile */
      }
    }
    return out.sort((a, b) => b.createdAt - a.createdAt || b.name.localeCompare(a.name));
  }

  status(): BackupStatus {
    const scheduled = this.opts.schedule !== null && this.opts.source !== null;
    return {
      scheduled,
      intervalMs: this.opts.schedule?.intervalMs ?? null,
      keep: this.opts.schedule?.keep ?? null,
      folder: this.opts.folder,
      running: this.#running !== null,
      nextAt: this.#nextAt,
      last: this.#last,
      lastSuccess: this.#lastSuccess,
      lastFailure: this.#lastFailure,
      succeeded: this.#succeeded,
      failed: this.#failed,
      skipped: this.#skipped,
    };
  }
}

/**
 * The verified backup taken before migrations run (synchronous: nothing is served yet); the
 * caller skips it for a database with no table yet. Throws when the backup fails: a migration
 * is not applied without one.
 */
export function backupBeforeMigration(source: string, folder: string, now = Date.now()): BackupResult {
  mkdirSync(folder, { recursive: true, mode: 0o750 });
  return snapshotDatabase(source, join(folder, `pre-migrate-${stamp(now)}.db`));
}
