/**
 * A full disk is a clear, survivable state: the app over a real libSQL file on a small tmpfs,
 * filled with a filler file. Needs `mount -t tmpfs` (root); skipped with a printed reason where
 * mounting is impossible.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FLUSH_MS } from "../../src/journal/journal";
import { snapshotDatabase } from "../../src/db/backup";
import { openDatabase } from "../../src/db/client";
import { STORAGE_PROBE_BYTES, STORAGE_PROBE_FILE, STORAGE_RETRY_AFTER_S, StorageHealth, storageFailureOf } from "../../src/db/storage";
import { storageFull } from "../../src/http/edge";
import { createLogger } from "../../src/lib/log";
import { Backups, stamp } from "../../src/ops/backups";
import { createKey, orgWithProject, tempDir, testEnv, withKey, type TestEnv } from "../helpers";

/** Mounts a tmpfs of `mib` MiB on a fresh temp folder; null (with the reason printed) where that is impossible. */
export function mountTmpfs(mib: number, prefix: string): { dir: string; unmount: () => void } | null {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const r = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${mib}m,mode=0750`, "tmpfs", dir], { stderr: "pipe" });
  if (r.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const why = r.stderr.toString().trim() || `exit ${r.exitCode}`;
    console.warn(`SKIPPED (disk-full tests): cannot mount a tmpfs here (${why}); they need root or CAP_SYS_ADMIN`);
    return null;
  }
  return {
    dir,
    unmount: () => {
      Bun.spawnSync(["umount", "-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the filesystem of `dir` with `file` until a write fails with ENOSPC; returns its size. */
export function fillDisk(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let size = 0;
  try {
    for (;;) {
      const n = writeSync(fd, chunk);
      size += n;
      if (n < chunk.length) break;
    }
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOSPC") throw e;
  } finally {
    closeSync(fd);
  }
  // the last few bytes a chunk could not use
  try {
    const fd2 = openSync(file, "a");
    try {
      for (;;) if (writeSync(fd2, Buffer.alloc(512, 1)) < 512) break;
    } catch {
      /* full */
    } finally {
      closeSync(fd2);
    }
  } catch {
    /* full */
  }
  return size;
}

const mount = mountTmpfs(24, "talentd-diskfull-");
let env: TestEnv;
let key: string;
let owner: Awaited<ReturnType<typeof orgWithProject>>["owner"];
const filler = () => join(mount!.dir, "filler");

const prepare = (): Promise<Response> =>
  withKey(env, key, "/api/prepare-task", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ talentIds: ["typescript-strict"] }),
  });

beforeAll(async () => {
  if (!mount) return;
  env = await testEnv({ DATA_DIR: mount.dir });
  const made = await orgWithProject(env);
  owner = made.owner;
  key = (await createKey(owner, made.project.id, ["prepare_task", "doctor", "catalog", "install"])).value;
  const installed = await withKey(env, key, "/api/projects/current/talents", {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ talents: ["typescript-strict", "javascript-base"] }),
  });
  expect(installed.status).toBe(200);
  expect((await prepare()).status).toBe(201);
  await env.database.idle();
});

afterAll(() => {
  if (!mount) return;
  env?.database.close();
  mount.unmount();
});

describe.skipIf(!mount)("disk full (a real tmpfs filled to the last byte)", () => {
  // fills the file system under the SQLite file (PostgreSQL's server writes elsewhere)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "storage_full: writes answer 507 with Retry-After, reads work, /readyz 503 degraded, /api/doctor says why, one log line; all recover when space returns",
    async () => {
      fillDisk(filler());
      const logsBefore = env.logs.length;

      // a write job (the writer thread) and a write transaction (the request thread), several times each
      for (let i = 0; i < 5; i++) {
        const job = await prepare();
        expect(job.status).toBe(507);
        expect(job.headers.get("retry-after")).toBe("30");
        const body = (await job.json()) as Record<string, unknown>;
        expect(body).toMatchObject({ error: "storage_full", storage: "full", retryAfter: 30 });
        expect(String(body.message)).toContain("disk is full");
        const tx = await owner.post("/web/orgs", { name: `Full ${i}` });
        expect(tx.status).toBe(507);
        expect(tx.body.error).toBe("storage_full");
        expect(tx.res.headers.get("retry-after")).toBe("30");
      }

      // reads keep working
      expect((await withKey(env, key, "/api/catalog?limit=1")).status).toBe(200);
      expect((await owner.get("/web/orgs/current/members")).status).toBe(200);

      const ready = await env.request("/readyz");
      expect(ready.status).toBe(503);
      expect(ready.headers.get("retry-after")).toBe("30");
      expect(await ready.json()).toMatchObject({ error: "storage_full", status: "degraded", storage: "full" });

      const doctor = (await (await withKey(env, key, "/api/doctor")).json()) as { service: Record<string, unknown> };
      expect(doctor.service).toMatchObject({ status: "degraded", reason: "storage_full", kind: "full" });
      expect(Number(doctor.service.refused)).toBeGreaterThanOrEqual(10);

      // one line for the state (the log interval is a minute): no stack per request, nor per failed
      // background write (the trace journal's flush, a key's last use), once their writes have run
      await Bun.sleep(FLUSH_MS * 2);
      await env.database.idle();
      const lines = env.logs.slice(logsBefore);
      const loud = lines.filter((l) => l.includes('"level":"error"') || l.includes('"level":"warn"'));
      expect(loud).toHaveLength(1);
      expect(loud[0]).toContain("disk is full");
      expect(JSON.parse(loud[0]!)).toMatchObject({ level: "error", storage: "full" });

      // space returns: writes succeed, readiness and doctor recover (the probe runs at most every 2 s)
      rmSync(filler());
      const after = await prepare();
      expect(after.status).toBe(201);
      expect((await owner.post("/web/orgs", { name: "After the disk emptied" })).status).toBe(201);
      let readyAgain: Response | null = null;
      for (let i = 0; i < 40; i++) {
        readyAgain = await env.request("/readyz");
        if (readyAgain.status === 200) break;
        await Bun.sleep(100);
      }
      expect(readyAgain!.status).toBe(200);
      const doctorAgain = (await (await withKey(env, key, "/api/doctor")).json()) as { service: Record<string, unknown> };
      expect(doctorAgain.service).toEqual({ status: "ok" });
      expect(env.logs.slice(logsBefore).some((l) => l.includes("storage writable again"))).toBe(true);
    },
    30_000,
  );
});

const small = mountTmpfs(8, "talentd-backupfull-");
afterAll(() => small?.unmount());

/** A database of about `mib` MiB on the small tmpfs (rows of random text: VACUUM INTO cannot shrink them). */
async function databaseOf(path: string, mib: number): Promise<void> {
  const c = createClient({ url: `file:${path}` });
  await c.execute("CREATE TABLE t (x TEXT)"); // a rollback journal: no WAL the size of the database beside it
  for (let i = 0; i < mib * 4; i++)
    await c.execute({ sql: "INSERT INTO t VALUES (?)", args: [randomBytes(192 * 1024).toString("base64")] });
  c.close();
}

describe.skipIf(!small)("backups on a disk without room (a real 8 MiB tmpfs)", () => {
  test("a scheduled backup checks free space first (statfs): with less than the copy and BACKUP_RESERVE_BYTES free it is skipped with a warning, nothing written", async () => {
    const source = join(small!.dir, "skip.db");
    await databaseOf(source, 1);
    const folder = join(small!.dir, "backups");
    const logs: string[] = [];
    const log = createLogger("debug", (l) => logs.push(l));
    const backups = new Backups({ source, folder, schedule: { intervalMs: 3_600_000, keep: 3 }, log });
    const record = await backups.runScheduled();
    expect(record).toMatchObject({ ok: false, skipped: true, file: null });
    expect(record.error).toContain("free in");
    const status = backups.status();
    const counted = { skipped: status.skipped, failed: status.failed, lastFailure: status.lastFailure?.skipped };
    expect(counted).toEqual({ skipped: 1, failed: 0, lastFailure: true });
    const warned = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === "warn" || l.level === "error");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: "warn", msg: "backup skipped: not enough free disk space; the next one is scheduled" });
    expect(readdirSync(folder)).toEqual([]);
    rmSync(source, { force: true });
  });

  test("a snapshot the disk cannot hold fails with no partial file left (not even SQLite's .partial-journal)", async () => {
    const source = join(small!.dir, "big.db");
    await databaseOf(source, 5); // ~5 MiB of 8: the copy cannot fit
    const folder = join(small!.dir, "snapshots");
    mkdirSync(folder);
    expect(() => snapshotDatabase(source, join(folder, `talentd-${stamp(Date.now())}.db`))).toThrow(/full/);
    expect(readdirSync(folder)).toEqual([]);
    rmSync(source, { force: true });
  });
});

describe("partial backup files at start", () => {
  test("Backups.start() removes what backups that died midway left (.partial, .partial-journal, -wal, -shm), with or without a schedule; other files stay", () => {
    const { dir, cleanup } = tempDir();
    try {
      const folder = join(dir, "backups");
      mkdirSync(folder);
      const t = stamp(Date.now());
      const left = [
        `talentd-${t}.db.partial`,
        `talentd-${t}.db.partial-journal`,
        `pre-migrate-${t}.db.partial-journal`,
        `talentd-${t}.db.partial-wal`,
      ];
      const kept = [`talentd-${t}.db`, "notes.db.partial-journal", "mine.txt"];
      for (const f of [...left, ...kept]) writeFileSync(join(folder, f), "x");
      new Backups({ source: join(dir, "talentd.db"), folder, schedule: null, log: createLogger("error", () => {}) }).start();
      expect(readdirSync(folder).sort()).toEqual(kept.sort());
    } finally {
      cleanup();
    }
  });

  test("opening the database removes a storage probe a crash left in its folder", async () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, STORAGE_PROBE_FILE), Buffer.alloc(STORAGE_PROBE_BYTES));
      const database = await openDatabase(`file:${join(dir, "talentd.db")}`);
      database.close();
      expect(readdirSync(dir)).not.toContain(STORAGE_PROBE_FILE);
    } finally {
      cleanup();
    }
  });
});

describe("the storage state over time (src/db/storage.ts)", () => {
  test("storage_full is logged once per interval, however often writes fail or the state ends and begins again, with the count refused meanwhile", () => {
    let now = 1_000_000;
    const logs: Record<string, unknown>[] = [];
    const health = new StorageHealth({ dir: null, now: () => now, logEveryMs: 60_000 });
    health.useLog(createLogger("debug", (l) => logs.push(JSON.parse(l))));
    const full = () => Object.assign(new Error("SQLITE_FULL: database or disk is full"), { code: "SQLITE_FULL" });
    const loud = () => logs.filter((l) => l.level === "error");
    for (let i = 0; i < 590; i++, now += 100) expect(health.failed(full())).toBe("full"); // 59 s of failures, 10 a second
    expect(loud()).toHaveLength(1);
    health.succeeded(); // a libSQL server: the first commit ends the state
    expect(health.status()).toEqual({ status: "ok" });
    health.failed(full()); // and it begins again within the interval: still no second line
    expect(loud()).toHaveLength(1);
    now += 1_000; // the interval has passed since the first line
    const e = full();
    health.failed(e);
    health.failed(e); // the database and the edge note the same error: once
    expect(loud()).toHaveLength(2);
    expect(loud()[1]).toMatchObject({ storage: "full", refusedSinceLastLine: 591 }); // 589 + 1 + this one: every failure since the first line
    expect(health.status()).toMatchObject({ status: "degraded", reason: "storage_full", refused: 2, retryAfter: STORAGE_RETRY_AFTER_S });
  });

  test("SQLITE_FULL, SQLITE_IOERR_* (through a wrapping error's cause), ENOSPC and EIO are storage failures; a constraint is not", () => {
    const wrapped = (code: string) => Object.assign(new Error("Failed query"), { cause: Object.assign(new Error(code), { code }) });
    expect(storageFailureOf(wrapped("SQLITE_FULL"))).toBe("full");
    expect(storageFailureOf(wrapped("SQLITE_IOERR_WRITE"))).toBe("io_error");
    expect(storageFailureOf(wrapped("SQLITE_IOERR"))).toBe("io_error");
    expect(storageFailureOf(Object.assign(new Error("no space"), { code: "ENOSPC" }))).toBe("full");
    expect(storageFailureOf(Object.assign(new Error("i/o"), { code: "EIO" }))).toBe("io_error");
    expect(storageFailureOf(wrapped("SQLITE_CONSTRAINT_UNIQUE"))).toBeNull();
    expect(storageFailureOf(new Error("SQLITE_FULL in a message only"))).toBeNull();
    expect(storageFull("io_error").body()).toMatchObject({ error: "storage_full", storage: "io_error" });
    expect(storageFull("io_error").status).toBe(507);
  });
});
