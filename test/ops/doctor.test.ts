/**
 * "`talentd doctor --local` (no server needed) checks the data folder:
 * permissions, free disk, `integrity_check`, WAL size, pending migrations, catalog lint; exit
 * codes documented." Exit codes: 0 all ok, 3 warnings only, 1 a check failed, 2 usage.
 */
import { afterAll, describe, expect, test } from "bun:test";
import Native from "libsql";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { closeNative } from "../../src/db/backup";
import { doctorExitCode, doctorLocal } from "../../src/ops/doctor";
import { stamp } from "../../src/ops/backups";
import { BUN, ROOT, runCli, talentMd, tempDir, writeFiles } from "../helpers";
import { freePort, waitReady } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** A data folder with a migrated database, private modes (0700 folder, 0600 database). */
async function healthy(name: string): Promise<{ data: string; db: string }> {
  const data = join(dir, name);
  expect((await runCli(["migrate"], { cwd: dir, env: { DATA_DIR: data } })).code).toBe(0);
  chmodSync(data, 0o700);
  chmodSync(join(data, "talentd.db"), 0o600);
  return { data, db: join(data, "talentd.db") };
}

const doctor = (env: Record<string, string>, args: string[] = []) => runCli(["doctor", "--local", ...args], { cwd: dir, env });

/** check name → level of each output line (`ok    data folder: …`). */
function levels(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .map((l) => /^(ok|warn|FAIL) +([^:]+): /.exec(l)!)
      .map((m) => [m[2]!, m[1]!]),
  );
}

describe("talentd doctor --local", () => {
  test("a healthy data folder: every check ok, exit 0 — also beside a running server, which it leaves alone", async () => {
    const { data, db } = await healthy("healthy");
    const r = await doctor({ DATA_DIR: data });
    expect(levels(r.stdout)).toEqual({
      "data folder": "ok",
      database: "ok",
      "free disk": "ok",
      integrity: "ok",
      migrations: "ok",
      WAL: "ok",
      catalog: "ok",
      backups: "ok",
    });
    expect(r.stdout).toContain(`ok    data folder: ${data} (mode 0700, owner uid `);
    expect(r.stdout).toContain("ok    integrity: PRAGMA integrity_check: ok");
    expect(r.stdout).toMatch(/ok {4}catalog: \d+ talents \(embedded\), no problem/);
    expect(r.stderr).toBe("doctor: 8 ok, 0 warning(s), 0 failure(s) (exit 0)\n");
    expect(r.code).toBe(0);

    const port = await freePort();
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: data },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      await waitReady(`http://127.0.0.1:${port}`);
      const beside = await doctor({ DATA_DIR: data });
      expect(beside.code).toBe(0);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    expect(existsSync(db)).toBe(true);
  }, 30_000);

  test("a data folder talentd creates is private (0750): doctor is content without any chmod (the database's own 0644 is out of others' reach)", async () => {
    const data = join(dir, "made-by-talentd");
    expect((await runCli(["migrate"], { cwd: dir, env: { DATA_DIR: data } })).code).toBe(0);
    expect(statSync(data).mode & 0o777).toBe(0o750);
    const r = await doctor({ DATA_DIR: data });
    expect(r.stdout).toContain(`ok    data folder: ${data} (mode 0750, owner uid `);
    expect(r.code).toBe(0);
  }, 30_000);

  test("permissions: a folder or database open to other users is a warning (exit 3); a folder every user may write is a failure (exit 1)", async () => {
    const { data, db } = await healthy("perms");
    chmodSync(data, 0o755);
    chmodSync(db, 0o644);
    const open = await doctor({ DATA_DIR: data });
    expect(open.stdout).toContain(
      `warn  data folder: ${data} is open to other users (mode 0755); chmod 750 (or 700) keeps the database private`,
    );
    expect(open.stdout).toContain(
      `warn  database: ${db} is readable by every user (mode 0644); chmod 640 it (it holds password and key hashes)`,
    );
    expect(open.code).toBe(3);
    chmodSync(data, 0o777);
    const writable = await doctor({ DATA_DIR: data });
    expect(writable.stdout).toContain(`FAIL  data folder: ${data} is writable by every user (mode 0777); chmod 750 it`);
    expect(writable.code).toBe(1);
  }, 30_000);

  test("no data folder: a failure (exit 1), and doctor creates nothing; a folder without a database yet: a warning (exit 3)", async () => {
    const missing = join(dir, "no-such-folder");
    const r = await doctor({ DATA_DIR: missing });
    expect(r.stdout).toContain(`FAIL  data folder: ${missing} does not exist (serve creates it; check DATA_DIR)`);
    expect(r.code).toBe(1);
    expect(existsSync(missing)).toBe(false);
    const empty = join(dir, "empty");
    mkdirSync(empty, { mode: 0o700 });
    chmodSync(empty, 0o700);
    const e = await doctor({ DATA_DIR: empty });
    expect(e.stdout).toContain(`warn  database: no database at ${join(empty, "talentd.db")} yet (serve creates it)`);
    expect(e.code).toBe(3);
  }, 30_000);

  test("a damaged database fails integrity (exit 1) and the line says how to restore", async () => {
    const { data, db } = await healthy("damaged");
    const c = new Native(db);
    c.exec("PRAGMA wal_checkpoint(TRUNCATE)"); // every page in the file itself, no WAL left to replay
    closeNative(c);
    const bytes = Buffer.from(readFileSync(db));
    for (let i = 4096 * 3; i < Math.min(bytes.length, 4096 * 8); i++) bytes[i] = 0x5a;
    writeFileSync(db, bytes); // a stopped server's file, damaged on purpose
    const r = await doctor({ DATA_DIR: data });
    expect(r.stdout).toMatch(
      /FAIL {2}integrity: (PRAGMA integrity_check: .+ \(restore a backup: talentd restore FILE\)|could not check: .+)/,
    );
    expect(r.code).toBe(1);
  }, 30_000);

  test("migrations: pending ones are a warning naming them (serve applies them after a backup); one unknown to this binary is a failure", async () => {
    const data = join(dir, "pending");
    mkdirSync(data, { recursive: true, mode: 0o700 });
    chmodSync(data, 0o700);
    const db = join(data, "talentd.db");
    const c = new Native(db);
    c.exec(readFileSync(join(ROOT, "test", "fixtures", "upgrade", "previous-release.sql"), "utf8"));
    closeNative(c);
    chmodSync(db, 0o600);
    const r = await doctor({ DATA_DIR: data });
    expect(r.stdout).toMatch(
      /warn {2}migrations: \d+ pending \(0003_trace_keyset[^)]*\): serve applies them at start, after a verified backup/,
    );
    expect(r.code).toBe(3);

    const newer = join(dir, "newer");
    mkdirSync(newer, { mode: 0o700 });
    chmodSync(newer, 0o700);
    copyFileSync(db, join(newer, "talentd.db"));
    chmodSync(join(newer, "talentd.db"), 0o600);
    const n = new Native(join(newer, "talentd.db"));
    n.exec(`INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES ('9999_from_the_future', '${"f".repeat(64)}', 0)`);
    closeNative(n);
    const f = await doctor({ DATA_DIR: newer });
    expect(f.stdout).toContain(
      "FAIL  migrations: migrated by a newer talentd (9999_from_the_future unknown to this binary): this version will not start on it",
    );
    expect(f.code).toBe(1);
  }, 30_000);

  test("catalog lint: a broken folder in TALENTS_DIR is a warning with its file: field: problem (serve skips it)", async () => {
    const { data } = await healthy("catalog");
    const talents = join(dir, "talents-extra");
    writeFiles(talents, { "ok-one/TALENT.md": talentMd("ok-one"), "bad-one/TALENT.md": talentMd("bad-one", { budget: "99999" }) });
    const r = await doctor({ DATA_DIR: data }, ["--talents-dir", talents]);
    expect(r.stdout).toMatch(
      new RegExp(
        `warn {2}catalog: \\d+ talents \\(embedded \\+ TALENTS_DIR ${talents}\\); 1 problem\\(s\\), those folders are skipped: .*bad-one/TALENT.md: budget: must be an integer from 100 to 4000 \\(got 99999\\)`,
      ),
    );
    expect(r.code).toBe(3);
  }, 30_000);

  test("backups: with BACKUP_INTERVAL, none yet or the newest overdue is a warning; a recent one is ok", async () => {
    const { data } = await healthy("backups");
    const none = await doctor({ DATA_DIR: data, BACKUP_INTERVAL: "6h" });
    expect(none.stdout).toContain("warn  backups: BACKUP_INTERVAL is set but there is no scheduled backup yet");
    expect(none.code).toBe(3);
    mkdirSync(join(data, "backups"));
    writeFileSync(join(data, "backups", `talentd-${stamp(Date.now() - 24 * 3600_000)}.db`), "x");
    const old = await doctor({ DATA_DIR: data, BACKUP_INTERVAL: "6h" });
    expect(old.stdout).toMatch(
      /warn {2}backups: the newest scheduled backup, talentd-\d{8}T\d{9}Z\.db, is 14\d\d min old \(interval 360 min\)/,
    );
    writeFileSync(join(data, "backups", `talentd-${stamp(Date.now() - 3600_000)}.db`), "x");
    const fresh = await doctor({ DATA_DIR: data, BACKUP_INTERVAL: "6h" });
    expect(fresh.stdout).toMatch(/ok {4}backups: newest talentd-\d{8}T\d{9}Z\.db/);
    expect(fresh.code).toBe(0);
  }, 30_000);

  test("usage: without --local, exit 2 with one line; a bad setting, exit 2", async () => {
    const r = await runCli(["doctor"], { cwd: dir });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr: "talentd doctor: missing --local (see talentd doctor --help)\n",
    });
    const b = await doctor({ DATA_DIR: dir, BACKUP_INTERVAL: "often" });
    expect(b.code).toBe(2);
    expect(b.stderr).toStartWith('talentd: config: BACKUP_INTERVAL: "often" is not an interval');
  }, 30_000);
});

describe("doctor's disk and WAL thresholds (in-process, with the machine's readings replaced)", () => {
  const MiB = 1024 * 1024;
  test("free disk: below 256 MiB or the database's size is a failure; below 2 GiB a warning; a WAL past its limit is a warning", async () => {
    const { data } = await healthy("thresholds");
    const config = loadConfig({ DATA_DIR: data });
    const at = (free: number, walWarnBytes?: number) =>
      Object.fromEntries(
        doctorLocal(config, Date.now(), {
          statfs: () => ({ bavail: free / 4096, bsize: 4096 }),
          ...(walWarnBytes === undefined ? {} : { walWarnBytes }),
        }).map((f) => [f.check, f]),
      );
    const full = at(100 * MiB);
    expect(full["free disk"]!.level).toBe("fail");
    expect(full["free disk"]!.message).toContain("100 MiB free where");
    expect(full["free disk"]!.message).toContain("not enough for a backup (VACUUM INTO writes a full copy) or for the database to grow");
    expect(doctorExitCode(Object.values(full))).toBe(1);
    const low = at(1024 * MiB);
    expect(low["free disk"]!.level).toBe("warn");
    expect(doctorExitCode(Object.values(low))).toBe(3);
    expect(at(8192 * MiB)["free disk"]!.level).toBe("ok");
    const wal = at(8192 * MiB, 1); // any WAL of more than one byte
    expect(wal.WAL!.level).toBe("warn");
    expect(wal.WAL!.message).toMatch(/-wal is [\d.]+ MiB: checkpoints are held back/);
  }, 30_000);
});
