/**
 * Scheduled backups: "`BACKUP_INTERVAL` and `BACKUP_KEEP` write verified snapshots
 * to `DATA_DIR/backups/` with the same mechanism as `talentd backup`, while serving; a failed
 * backup is logged and shown to platform admins, never fatal. Tested under write load: every
 * backup opens, passes `integrity_check`, and holds every write acknowledged before it started."
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import parse from "parse-prometheus-text-format";
import { createApp } from "../../src/app";
import { Backups, stamp } from "../../src/ops/backups";
import { createLogger } from "../../src/lib/log";
import { BUN, makePlatformAdmin, nextTurn, ROOT, runCli, signedUp, tempDir, testEnv, type TestEnv } from "../helpers";
import { agentSetup, postReport, freePort, waitReady } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** `talentd-20261123T003000123Z.db` → its start time (ms). */
function startedAt(name: string): number {
  const m = /^talentd-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z\.db$/.exec(name)!;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
}

function serve(cwd: string, port: number, env: Record<string, string>) {
  return Bun.spawn(
    [BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1", "--base-url", `http://127.0.0.1:${port}`],
    {
      cwd,
      env: { PATH: process.env.PATH ?? "", ACCESS_LOG: "false", LOG_FORMAT: "json", AUTO_APPROVE_ORGS: "true", ...env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
}

describe("scheduled backups while serving", () => {
  test("under write load (8 connections posting reports), BACKUP_INTERVAL=1s: every backup opens, passes integrity_check, and holds every report acknowledged before it started", async () => {
    const cwd = join(dir, "load");
    mkdirSync(cwd, { recursive: true });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = serve(cwd, port, { BACKUP_INTERVAL: "1s", BACKUP_KEEP: "100" });
    const acked: { id: string; at: number }[] = [];
    try {
      await waitReady(base);
      const { key, resolutionId } = await agentSetup(base);
      let stop = false;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const submissionId = `w${w}-${i}`;
          const r = await postReport(base, key, resolutionId, submissionId);
          if (r.status !== 201) throw new Error(`report ${submissionId}: ${r.status} ${await r.text()}`);
          acked.push({ id: submissionId, at: Date.now() }); // after the server answered: committed
        }
      };
      const writers = Array.from({ length: 8 }, (_, w) => writer(w));
      const folder = join(cwd, "data", "backups");
      const until = Date.now() + 30_000;
      // at least four backups taken while the writers run
      while (
        (existsSync(folder)
          ? readdirSync(folder).filter((f) => /^talentd-.*\.db$/.test(f) && startedAt(f) > (acked[0]?.at ?? Infinity)).length
          : 0) < 4 &&
        Date.now() < until
      )
        await Bun.sleep(100);
      stop = true;
      await Promise.all(writers);
      expect(proc.exitCode).toBeNull();
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const log = (await new Response(proc.stdout).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const stderr = await new Response(proc.stderr).text();
    expect(stderr).not.toContain("backup failed");

    const folder = join(cwd, "data", "backups");
    const files = readdirSync(folder)
      .filter((f) => f.endsWith(".db"))
      .sort();
    expect(readdirSync(folder).filter((f) => f.endsWith(".partial"))).toEqual([]);
    const during = files.filter((f) => startedAt(f) > acked[0]!.at && startedAt(f) < acked.at(-1)!.at);
    expect(during.length).toBeGreaterThanOrEqual(3); // taken while reports were being written
    expect(acked.length).toBeGreaterThan(100);
    for (const f of files) {
      expect(f).toMatch(/^talentd-\d{8}T\d{9}Z\.db$/);
      const written = log.find((l) => l.msg === "backup written" && l.file === join(folder, f));
      expect(written).toBeDefined();
      const c = createClient({ url: `file:${join(folder, f)}` });
      try {
        expect((await c.execute("PRAGMA integrity_check")).rows[0]![0]).toBe("ok");
        const stored = new Set((await c.execute("SELECT submission_id FROM reports")).rows.map((r) => String(r[0])));
        const before = acked.filter((a) => a.at < startedAt(f));
        const lost = before.filter((a) => !stored.has(a.id)).map((a) => a.id);
        expect({ backup: f, lost }).toEqual({ backup: f, lost: [] });
      } finally {
        c.close();
      }
    }
    // the last backups held reports acknowledged before them: the check above was not vacuous
    expect(acked.filter((a) => a.at < startedAt(during.at(-1)!)).length).toBeGreaterThan(50);
  }, 90_000);

  test("a failing backup (DATA_DIR/backups is a file) is logged each time and is never fatal: the server keeps serving and stops cleanly", async () => {
    const cwd = join(dir, "failing");
    mkdirSync(join(cwd, "data"), { recursive: true });
    writeFileSync(join(cwd, "data", "backups"), "in the way");
    const port = await freePort();
    const proc = serve(cwd, port, { BACKUP_INTERVAL: "1s" });
    try {
      await waitReady(`http://127.0.0.1:${port}`);
      await Bun.sleep(2_500);
      expect(proc.exitCode).toBeNull();
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const failures = (await new Response(proc.stderr).text())
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg?.toString().startsWith("backup failed"));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(failures[0]).toMatchObject({ level: "error", msg: "backup failed; the server goes on, the next one is scheduled" });
    expect(String(failures[0]!.error)).toContain("backups");
  }, 30_000);

  test("BACKUP_INTERVAL and BACKUP_KEEP: a bad value stops the start with one line (exit 2); scheduled backups need a local database file", async () => {
    const cases: [Record<string, string>, string][] = [
      [
        { BACKUP_INTERVAL: "6 hours" },
        'BACKUP_INTERVAL: "6 hours" is not an interval (a number and s, m, h or d, e.g. 6h; between 1s and 366d; 0 or off for none)',
      ],
      [
        { BACKUP_INTERVAL: "0s" },
        'BACKUP_INTERVAL: "0s" is not an interval (a number and s, m, h or d, e.g. 6h; between 1s and 366d; 0 or off for none)',
      ],
      [
        { BACKUP_INTERVAL: "400d" },
        'BACKUP_INTERVAL: "400d" is not an interval (a number and s, m, h or d, e.g. 6h; between 1s and 366d; 0 or off for none)',
      ],
      [{ BACKUP_KEEP: "0" }, 'BACKUP_KEEP: "0" is not a number of backups to keep (1–10000)'],
      [{ BACKUP_KEEP: "many" }, 'BACKUP_KEEP: "many" is not a number of backups to keep (1–10000)'],
      [
        { BACKUP_INTERVAL: "6h", DATABASE_URL: "libsql://db.example.internal" },
        "BACKUP_INTERVAL: scheduled backups need a local database file (DATABASE_URL file:…); back up a libSQL server with its own tools",
      ],
    ];
    for (const [env, line] of cases) {
      const r = await runCli(["serve", "--port", "0"], { cwd: dir, env: { DATA_DIR: join(dir, "cfg"), ...env } });
      expect({ env, code: r.code, stderr: r.stderr }).toEqual({ env, code: 2, stderr: `talentd: config: ${line}\n` });
    }
  }, 30_000);
});

// backups copy the SQLite file (PostgreSQL is backed up with its own tools: docs/operations.md)
describe.skipIf(process.env.TEST_DATABASE === "postgres")("backups in-process: rotation, schedule, and what platform admins see", () => {
  let env: TestEnv;
  afterAll(() => env?.close());

  test("BACKUP_KEEP: after each verified backup only the newest KEEP `talentd-<time>.db` remain; other files in the folder (a pre-migrate backup, an operator's copy) are never removed", async () => {
    env = await testEnv();
    const folder = join(env.dir, "backups");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "mine.db"), "an operator's file");
    writeFileSync(join(folder, `pre-migrate-${stamp(Date.UTC(2020, 0, 1))}.db`), "kept");
    let t = Date.UTC(2026, 0, 1);
    const logs: string[] = [];
    const backups = new Backups({
      source: env.database.path,
      folder,
      schedule: { intervalMs: 3_600_000, keep: 2 },
      log: createLogger("debug", (l) => logs.push(l)),
      now: () => (t += 1000),
    });
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await backups.runScheduled();
      expect(r.ok).toBe(true);
      made.push(r.file!.split("/").at(-1)!);
    }
    expect(readdirSync(folder).sort()).toEqual([...made.slice(2), "mine.db", `pre-migrate-${stamp(Date.UTC(2020, 0, 1))}.db`].sort());
    expect(backups.status()).toMatchObject({ succeeded: 4, failed: 0, last: { ok: true }, scheduled: true, keep: 2 });
    expect(logs.filter((l) => l.includes('"old backup removed"'))).toHaveLength(2);
  });

  test("the schedule follows the newest backup on disk: a restart does not postpone it (next = newest + interval)", async () => {
    const folder = join(env.dir, "backups");
    const newest = readdirSync(folder)
      .filter((f) => f.startsWith("talentd-"))
      .sort()
      .at(-1)!;
    const backups = new Backups({
      source: env.database.path,
      folder,
      schedule: { intervalMs: 3_600_000, keep: 2 },
      log: createLogger("error", () => {}),
    });
    backups.start();
    try {
      expect(backups.status().nextAt).toBe(startedAt(newest) + 3_600_000);
    } finally {
      backups.stop();
    }
    expect(backups.status().nextAt).toBeNull();
  });

  test("GET /web/admin/backups: the schedule, the latest failure with its reason, and the files, for platform administrators only (401 without a session, 403 for others); /metrics counts the failure", async () => {
    const folder = join(env.dir, "failing-backups");
    writeFileSync(folder, "a file where the folder should be");
    const logs: string[] = [];
    const log = createLogger("debug", (l) => logs.push(l));
    const backups = new Backups({ source: env.database.path, folder, schedule: { intervalMs: 6 * 3_600_000, keep: 3 }, log });
    const token = "metrics-token-0123456789abcdef";
    const app = createApp({ config: { ...env.config, metricsToken: token }, database: env.database, log, state: env.state, backups });
    const local = {
      ...env,
      app,
      request: (p: string, init?: RequestInit) => app.handle(new Request(env.config.baseUrl + p, init)),
    } as TestEnv;

    const failed = await backups.runScheduled();
    expect(failed).toMatchObject({ ok: false, file: null });
    expect(logs.some((l) => l.includes('"level":"error"') && l.includes("backup failed"))).toBe(true);

    const anonymous = await local.request("/web/admin/backups");
    expect(anonymous.status).toBe(401);
    const user = await signedUp(local);
    expect((await user.get("/web/admin/backups")).status).toBe(403);
    const admin = await signedUp(local);
    await makePlatformAdmin(local, admin.userId);
    const r = await admin.get("/web/admin/backups");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      scheduled: true,
      intervalSeconds: 21600,
      keep: 3,
      folder,
      running: false,
      succeeded: 0,
      failed: 1,
      lastSuccess: null,
      last: { ok: false, file: null },
      lastFailure: { ok: false, file: null },
      files: [],
    });
    expect(r.body.lastFailure.error).toContain(folder);
    expect(r.body.lastFailure.startedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    await nextTurn();
    const text = await (await local.request("/metrics", { headers: { authorization: `Bearer ${token}` } })).text();
    const fam = parse(text);
    expect(fam.find((f) => f.name === "talentd_backup_last_failed")!.metrics[0]!.value).toBe("1");
    expect(fam.find((f) => f.name === "talentd_backups_total")!.metrics.find((m) => m.labels?.result === "failed")!.value).toBe("1");
  });

  test("without BACKUP_INTERVAL the route says so and still lists the folder's files (pre-migrate backups)", async () => {
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const r = await admin.get("/web/admin/backups");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scheduled: false, intervalSeconds: null, keep: null, nextAt: null, last: null });
    const kinds = (r.body.files as { name: string; kind: string }[]).map((f) => [f.name.split("-")[0], f.kind]);
    expect(kinds).toContainEqual(["pre", "pre-migrate"]);
    expect(kinds).toContainEqual(["talentd", "scheduled"]);
    expect(kinds).toContainEqual(["mine.db", "other"]);
  });
});
