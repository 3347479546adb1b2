/**
 * `talentd doctor --local`: checks a data folder without a server (a running one may be there:
 * every check reads, through SQLite or `stat`). One finding per check, each ok, warn or fail:
 *
 *   data folder   exists, is writable, is not open to other users
 *   database      file mode (not readable by other users, unless its folder keeps them out)
 *   free disk     room for the database to grow and for a backup (VACUUM INTO writes a copy)
 *   integrity     PRAGMA integrity_check
 *   WAL           size of the write-ahead log
 *   migrations    none unknown to this binary (fail), none pending (warn: serve applies them)
 *   catalog       the embedded catalog with TALENTS_DIR over it, linted as serve loads it
 *   backups       with BACKUP_INTERVAL: the newest scheduled backup is not overdue
 *
 * Exit codes (main): 0 every check ok, 3 warnings and no failure, 1 a failure, 2 usage.
 */
import LibsqlDatabase from "libsql";
import { accessSync, constants, existsSync, statfsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { migrations as embedded } from "../../migrations";
import { buildCatalog, formatFindings } from "../catalog/catalog";
import { readTalentDir, sourcesFromFlat } from "../catalog/load";
import type { Config } from "../config";
import { closeNative, databasePath, integrityCheck } from "../db/backup";
import { embeddedTalents } from "../embedded";
import { sha256Hex } from "../lib/crypto";
import { Backups } from "./backups";

export type Level = "ok" | "warn" | "fail";
export interface Finding {
  check: string;
  level: Level;
  message: string;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Below this much free space the database cannot be backed up safely or grow for long. */
export const DISK_FAIL_BYTES = 256 * MiB;
export const DISK_WARN_BYTES = 2 * GiB;
/** A WAL past this did not get checkpointed back (a long reader, or a burst it kept the size of). */
export const WAL_WARN_BYTES = 256 * MiB;

const mib = (n: number): string => `${(n / MiB).toFixed(n < 10 * MiB ? 1 : 0)} MiB`;
const mode = (m: number): string => "0" + (m & 0o777).toString(8);

/** What the checks read from the machine beyond files (tests give a full disk or a low WAL limit). */
export interface DoctorProbes {
  statfs: (path: string) => { bavail: number; bsize: number };
  walWarnBytes: number;
}

/** Records a finding. */
type Add = (check: string, level: Level, message: string) => void;

/** Runs a check, a throw in it recorded as its failure. */
function guarded(add: Add, check: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    add(check, "fail", `could not check: ${(e as Error)?.message ?? e}`);
  }
}

/** The data folder exists, is a folder, is writable by this user and closed to others; true when writable. */
function checkDataFolder(dir: string, add: Add): boolean {
  let dirOk = false;
  guarded(add, "data folder", () => {
    if (!existsSync(dir)) return add("data folder", "fail", `${dir} does not exist (serve creates it; check DATA_DIR)`);
    const st = statSync(dir);
    if (!st.isDirectory()) return add("data folder", "fail", `${dir} is not a folder`);
    try {
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch {
      return add(
        "data folder",
        "fail",
        `${dir} is not writable by this user (uid ${process.getuid?.() ?? "?"}; owner uid ${st.uid}, mode ${mode(st.mode)})`,
      );
    }
    dirOk = true;
    if (st.mode & 0o002) return add("data folder", "fail", `${dir} is writable by every user (mode ${mode(st.mode)}); chmod 750 it`);
    if (st.mode & 0o005)
      return add(
        "data folder",
        "warn",
        `${dir} is open to other users (mode ${mode(st.mode)}); chmod 750 (or 700) keeps the database private`,
      );
    add("data folder", "ok", `${dir} (mode ${mode(st.mode)}, owner uid ${st.uid}, writable)`);
  });
  return dirOk;
}

/** The database file's mode and size, and its WAL's size. */
function checkDatabaseFile(path: string, add: Add): { dbBytes: number; walBytes: number } {
  let dbBytes = 0;
  let walBytes = 0;
  guarded(add, "database", () => {
    const st = statSync(path);
    dbBytes = st.size;
    walBytes = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
    const folderOpen = (statSync(dirname(path)).mode & 0o001) !== 0; // others can reach the file only through an open folder
    if (st.mode & 0o004 && folderOpen)
      add("database", "warn", `${path} is readable by every user (mode ${mode(st.mode)}); chmod 640 it (it holds password and key hashes)`);
    else add("database", "ok", `${path} (${mib(dbBytes)}, mode ${mode(st.mode)})`);
  });
  return { dbBytes, walBytes };
}

/** Room for a backup (a full copy) and for growth where the data folder is. */
function checkFreeDisk(dir: string, used: number, statfs: DoctorProbes["statfs"], add: Add): void {
  guarded(add, "free disk", () => {
    const fs = statfs(dir);
    const free = fs.bavail * fs.bsize;
    const need = Math.max(DISK_FAIL_BYTES, used);
    const msg = `${mib(free)} free where ${dir} is (database and WAL: ${mib(used)})`;
    if (free < need)
      add("free disk", "fail", `${msg}: not enough for a backup (VACUUM INTO writes a full copy) or for the database to grow`);
    else if (free < Math.max(DISK_WARN_BYTES, 2 * used))
      add("free disk", "warn", `${msg}: less than ${mib(Math.max(DISK_WARN_BYTES, 2 * used))}`);
    else add("free disk", "ok", msg);
  });
}

/** PRAGMA integrity_check, the migrations applied, and a WAL that did not shrink back. */
function checkIntegrity(path: string, walBytes: number, walWarnBytes: number, add: Add): void {
  guarded(add, "integrity", () => {
    const conn = new LibsqlDatabase(path, { timeout: 5000 } as ConstructorParameters<typeof LibsqlDatabase>[1]);
    try {
      const verdict = integrityCheck(conn);
      if (verdict === "ok") add("integrity", "ok", "PRAGMA integrity_check: ok");
      else add("integrity", "fail", `PRAGMA integrity_check: ${verdict} (restore a backup: talentd restore FILE)`);
      checkMigrations(conn, add);
    } finally {
      closeNative(conn);
    }
  });
  if (walBytes > walWarnBytes)
    add(
      "WAL",
      "warn",
      `${path}-wal is ${mib(walBytes)}: checkpoints are held back (a long-running reader?) or it kept the size of a burst; ` +
        "a restart of the server checkpoints it",
    );
  else add("WAL", "ok", `${mib(walBytes)}`);
}

/** The catalog (embedded, plus TALENTS_DIR) builds; its problems named. */
function checkCatalog(config: Config, add: Add): void {
  guarded(add, "catalog", () => {
    const extra = config.talentsDir ? readTalentDir(config.talentsDir) : { sources: [], findings: [] };
    const folders = new Set(extra.sources.map((s) => s.folder));
    const shipped = sourcesFromFlat(embeddedTalents()).filter((s) => !folders.has(s.folder));
    const { catalog, findings } = buildCatalog([...shipped, ...extra.sources], extra.findings);
    const lines = formatFindings(findings);
    const where = config.talentsDir ? `embedded + TALENTS_DIR ${config.talentsDir}` : "embedded";
    if (lines.length === 0) add("catalog", "ok", `${catalog.list.length} talents (${where}), no problem`);
    else {
      const shown = `${lines.slice(0, 5).join(" | ")}${lines.length > 5 ? " | …" : ""}`;
      add("catalog", "warn", `${catalog.list.length} talents (${where}); ${lines.length} problem(s), those folders are skipped: ${shown}`);
    }
  });
}

/** The backup schedule keeps up: the newest scheduled backup is at most two intervals old. */
function checkBackups(config: Config, path: string | null, dir: string, now: number, add: Add): void {
  guarded(add, "backups", () => {
    const backups = new Backups({ source: path, folder: join(dir, "backups"), schedule: null, log: silent });
    const files = backups.files();
    const newest = files.find((f) => f.kind === "scheduled");
    const count = `${files.length} file(s) in ${join(dir, "backups")}`;
    if (config.backupIntervalMs === null) return add("backups", "ok", `no schedule (BACKUP_INTERVAL unset); ${count}`);
    if (!newest) return add("backups", "warn", `BACKUP_INTERVAL is set but there is no scheduled backup yet; ${count}`);
    const age = now - newest.createdAt;
    if (age > 2 * config.backupIntervalMs)
      add(
        "backups",
        "warn",
        `the newest scheduled backup, ${newest.name}, is ${Math.round(age / 60000)} min old ` +
          `(interval ${Math.round(config.backupIntervalMs / 60000)} min): see GET /web/admin/backups and the log`,
      );
    else add("backups", "ok", `newest ${newest.name} (${mib(newest.bytes)}); ${count}`);
  });
}

/** Runs every check on the configured data folder and database; never throws. */
export function doctorLocal(config: Config, now = Date.now(), probes: Partial<DoctorProbes> = {}): Finding[] {
  const { statfs, walWarnBytes } = { statfs: statfsSync, walWarnBytes: WAL_WARN_BYTES, ...probes };
  const out: Finding[] = [];
  const add: Add = (check, level, message) => out.push({ check, level, message });
  const dir = config.dataDir;
  const dirOk = checkDataFolder(dir, add);
  const path = databasePath(config.databaseUrl);
  if (path === null) add("database", "ok", "a libSQL server (DATABASE_URL): the file checks are that server's own");
  const exists = path !== null && existsSync(path);
  if (path !== null && !exists) add("database", "warn", `no database at ${path} yet (serve creates it)`);
  const { dbBytes, walBytes } = exists ? checkDatabaseFile(path, add) : { dbBytes: 0, walBytes: 0 };
  if (dirOk) checkFreeDisk(dir, dbBytes + walBytes, statfs, add);
  if (exists) checkIntegrity(path, walBytes, walWarnBytes, add);
  checkCatalog(config, add);
  checkBackups(config, path, dir, now, add);
  return out;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function checkMigrations(conn: InstanceType<typeof LibsqlDatabase>, add: Add): void {
  const has = conn.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '__talentd_migrations'").get() as {
    n: number;
  };
  const done = new Map<string, string>();
  if (Number(has.n) > 0)
    for (const r of conn.prepare("SELECT tag, hash FROM __talentd_migrations").raw().all() as unknown[][])
      done.set(String(r[0]), String(r[1]));
  const known = new Set(embedded.map((m) => m.tag));
  const unknown = [...done.keys()].filter((t) => !known.has(t));
  const changed = embedded.filter((m) => done.has(m.tag) && done.get(m.tag) !== sha256Hex(m.sql)).map((m) => m.tag);
  const pending = embedded.filter((m) => !done.has(m.tag)).map((m) => m.tag);
  if (unknown.length > 0)
    add(
      "migrations",
      "fail",
      `migrated by a newer talentd (${unknown.join(", ")} unknown to this binary): this version will not start on it`,
    );
  else if (changed.length > 0)
    add("migrations", "fail", `${changed.join(", ")} differ from what was applied (hash): this binary will not start on it`);
  else if (pending.length > 0)
    add("migrations", "warn", `${pending.length} pending (${pending.join(", ")}): serve applies them at start, after a verified backup`);
  else add("migrations", "ok", `${done.size} applied, none pending`);
}

/** The exit code of a doctor run: 1 on a failure, 3 on warnings only, 0 when all is ok. */
export function doctorExitCode(findings: Finding[]): number {
  if (findings.some((f) => f.level === "fail")) return 1;
  if (findings.some((f) => f.level === "warn")) return 3;
  return 0;
}

/** `ok    data folder: …` lines for the terminal. */
export function formatDoctor(findings: Finding[]): string[] {
  return findings.map((f) => `${(f.level === "fail" ? "FAIL" : f.level).padEnd(5)} ${f.check}: ${f.message}`);
}
