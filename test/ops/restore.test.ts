/**
 * "`talentd restore FILE` restores into a stopped data folder after
 * `integrity_check`, refusing to overwrite a running server's database."
 */
import { afterAll, describe, expect, test } from "bun:test";
import Native from "libsql";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closeNative } from "../../src/db/backup";
import { BUN, ROOT, runCli, tempDir } from "../helpers";
import { freePort, waitReady } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

// The native driver, closed for real with closeNative (a statement left alive keeps its connection
// open, and a restore is then rightly refused as "in use"; @libsql/client's close() keeps them too).
async function sql(db: string, statements: string[]): Promise<void> {
  const c = new Native(db);
  try {
    for (const s of statements) c.exec(s);
  } finally {
    closeNative(c);
  }
}

async function emails(db: string): Promise<string[]> {
  const c = new Native(db);
  try {
    return (c.prepare("SELECT email FROM users ORDER BY email").raw().all() as unknown[][]).map((r) => String(r[0]));
  } finally {
    closeNative(c);
  }
}

/** A data folder with a migrated database holding one user, and a backup of it taken by `talentd backup`. */
async function folderWithBackup(name: string): Promise<{ data: string; db: string; backup: string }> {
  const data = join(dir, name);
  expect((await runCli(["migrate"], { cwd: dir, env: { DATA_DIR: data } })).code).toBe(0);
  const db = join(data, "talentd.db");
  const now = Date.now();
  await sql(db, [
    `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES ('usr_kept', 'kept@example.com', '', 'user', ${now}, ${now})`,
  ]);
  const backup = join(dir, `${name}-backup.db`);
  expect((await runCli(["backup", backup], { cwd: dir, env: { DATA_DIR: data } })).code).toBe(0);
  return { data, db, backup };
}

const restore = (file: string, data: string) => runCli(["restore", file], { cwd: dir, env: { DATA_DIR: data } });

describe("talentd restore FILE", () => {
  test("restores a backup into a stopped data folder: the data of the backup, the replaced database kept as backups/pre-restore-<time>.db, no stale -wal/-shm; the server then starts on it", async () => {
    const { data, db, backup } = await folderWithBackup("happy");
    const now = Date.now();
    await sql(db, [
      "DELETE FROM users",
      `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES ('usr_new', 'after-backup@example.com', '', 'user', ${now}, ${now})`,
    ]);
    expect(await emails(db)).toEqual(["after-backup@example.com"]);

    const r = await restore(backup, data);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(new RegExp(`^restored ${backup} to ${db} \\(\\d+ bytes, integrity_check ok, migrations \\d{4}_[a-z_]+\\)$`));
    const previous = /^the database it replaced is kept as (.+)$/.exec(lines[1]!)![1]!;
    expect(previous).toMatch(new RegExp(`^${join(data, "backups")}/pre-restore-\\d{8}T\\d{9}Z\\.db$`));
    expect(lines[2]).toBe("start the server now: it applies any newer migration after a backup");

    expect(await emails(db)).toEqual(["kept@example.com"]);
    expect(await emails(previous)).toEqual(["after-backup@example.com"]); // nothing is lost to a restore
    expect(
      readdirSync(data)
        .filter((f) => f.startsWith("talentd.db"))
        .sort(),
    ).toEqual(["talentd.db"]);

    const port = await freePort();
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: data },
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      await waitReady(`http://127.0.0.1:${port}`);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    expect(await emails(db)).toEqual(["kept@example.com"]);
  }, 30_000);

  test("refuses while a server runs on the database (SQLite's exclusive lock cannot be had): exit 1, one line, nothing changed, the server keeps serving", async () => {
    const { data, db, backup } = await folderWithBackup("running");
    const now = Date.now();
    await sql(db, [
      `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES ('usr_live', 'live@example.com', '', 'user', ${now}, ${now})`,
    ]);
    const port = await freePort();
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: data },
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      await waitReady(`http://127.0.0.1:${port}`);
      const r = await restore(backup, data);
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
        code: 1,
        stderr: `talentd: the database ${db} is in use by another process (a running talentd?); stop the server first; nothing was changed\n`,
        stdout: "",
      });
      expect(proc.exitCode).toBeNull();
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect(await emails(db)).toEqual(["kept@example.com", "live@example.com"]);
      expect(existsSync(join(data, "backups"))).toBe(false);
      expect(existsSync(`${db}.restoring`)).toBe(false);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
  }, 30_000);

  test("refuses a FILE that fails integrity_check or is not a database at all: exit 1, one line, nothing changed", async () => {
    const { data, db, backup } = await folderWithBackup("corrupt");
    // damage the middle of a copy of the backup (a file, not a live database)
    const bytes = readFileSync(backup);
    const damaged = Buffer.from(bytes);
    for (let i = 4096 * 2; i < Math.min(damaged.length, 4096 * 6); i++) damaged[i] = 0x5a;
    const bad = join(dir, "damaged.db");
    writeFileSync(bad, damaged);
    const r = await restore(bad, data);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^talentd: ${bad} (fails integrity_check \\(.+\\)|is not a readable SQLite database \\(.+\\)); nothing was changed\\n$`),
    );

    const text = join(dir, "notes.db");
    writeFileSync(text, "these are notes, not a database ".repeat(200));
    const t = await restore(text, data);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(
      new RegExp(`^talentd: ${text} (is not a readable SQLite database|cannot be opened as a database) \\(.+\\); nothing was changed\\n$`),
    );
    expect(await emails(db)).toEqual(["kept@example.com"]);
    expect(existsSync(join(data, "backups"))).toBe(false);
  }, 30_000);

  test("refuses a database that is not talentd's, one made by a newer talentd, a missing FILE, and the database itself", async () => {
    const { data, db } = await folderWithBackup("refusals");
    const other = join(dir, "other-app.db");
    await sql(other, ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('hello')"]);
    const r1 = await restore(other, data);
    expect({ code: r1.code, stderr: r1.stderr }).toEqual({
      code: 1,
      stderr: `talentd: ${other} is not a talentd database (no __talentd_migrations table); nothing was changed\n`,
    });

    const newer = join(dir, "newer.db");
    expect((await runCli(["backup", newer], { cwd: dir, env: { DATA_DIR: data } })).code).toBe(0);
    await sql(newer, [`INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES ('9999_from_the_future', '${"f".repeat(64)}', 0)`]);
    const r2 = await restore(newer, data);
    expect({ code: r2.code, stderr: r2.stderr }).toEqual({
      code: 1,
      stderr: `talentd: the database at ${newer} was migrated by a newer talentd (it records 9999_from_the_future, which this version does not know); run that version or a newer one, or restore a backup made for this version; nothing was changed\n`,
    });

    const missing = join(dir, "no-such-backup.db");
    const r3 = await restore(missing, data);
    expect({ code: r3.code, stderr: r3.stderr }).toEqual({ code: 1, stderr: `talentd: ${missing} does not exist or is not a file\n` });
    const r4 = await restore(db, data);
    expect({ code: r4.code, stderr: r4.stderr }).toEqual({
      code: 1,
      stderr: `talentd: ${db} is the database itself; restore from a backup file\n`,
    });
    const r5 = await runCli(["restore"], { cwd: dir, env: { DATA_DIR: data } });
    expect({ code: r5.code, stderr: r5.stderr }).toEqual({
      code: 2,
      stderr: "talentd restore: missing FILE (see talentd restore --help)\n",
    });
    expect(await emails(db)).toEqual(["kept@example.com"]);
    expect(existsSync(join(data, "backups"))).toBe(false);
  }, 30_000);

  test("into an empty data folder (a new machine): the backup becomes the database, nothing to keep aside", async () => {
    const { backup } = await folderWithBackup("source");
    const fresh = join(dir, "fresh-machine");
    const r = await restore(backup, fresh);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("kept as");
    expect(await emails(join(fresh, "talentd.db"))).toEqual(["kept@example.com"]);
  }, 30_000);

  test("over a database SQLite cannot read (the reason to restore): it is moved aside as backups/pre-restore-<time>-unreadable.db and the backup put in place", async () => {
    const { backup } = await folderWithBackup("source2");
    const data = join(dir, "broken-live");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "talentd.db"), "garbage where the database was ".repeat(300));
    const r = await restore(backup, data);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/kept as .*\/backups\/pre-restore-\d{8}T\d{9}Z-unreadable\.db\n/);
    expect(await emails(join(data, "talentd.db"))).toEqual(["kept@example.com"]);
  }, 30_000);
});
