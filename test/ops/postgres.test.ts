/**
 * talentd on PostgreSQL (docs/operations.md "PostgreSQL"), as real processes against a
 * real server: `migrate --dry-run` and `migrate`, `serve` answering /healthz and /readyz, and a
 * database unreachable at start.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, tempDir } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { freePort, refuses, waitReady } from "../proc";
import { migrations as pgMigrations } from "../../migrations-pg";

const MAIN = join(ROOT, "src", "main.ts");
const skip = pgUnavailable();

function talentd(args: string[], env: Record<string, string>) {
  const r = Bun.spawnSync([BUN, MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe.skipIf(skip !== null)("talentd with DATABASE_URL=postgres://…", () => {
  let pg: PgDatabase;
  const { dir, cleanup } = tempDir();
  let env: Record<string, string>;

  beforeAll(async () => {
    pg = await pgDatabase("serve");
    env = { DATABASE_URL: pg.url, DATA_DIR: dir };
  }, 60_000); // a cluster's start on a loaded machine
  afterAll(() => {
    pg?.drop();
    cleanup();
  });

  test("migrate --dry-run lists PostgreSQL's migrations and changes nothing; migrate applies them, then has nothing to do", () => {
    const dry = talentd(["migrate", "--dry-run"], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("would apply 0000_init");
    expect(dry.stdout).toContain("would apply 0001_triggers");
    const n = pgMigrations.length;
    expect(dry.stdout).toContain(`migrations: ${n} would be applied, 0 already there (dry run: nothing changed)`);
    expect(pg.cluster.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", pg.name).trim()).toBe("0");
    const run = talentd(["migrate"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`migrations: ${n} applied, 0 already there`);
    expect(talentd(["migrate"], env).stdout).toContain(`migrations: 0 applied, ${n} already there`);
  }, 60_000); // three processes on a loaded machine

  test("serve starts on PostgreSQL: /healthz answers, /readyz reports the database; SIGTERM stops it", async () => {
    const port = await freePort();
    const proc = Bun.spawn([BUN, MAIN, "serve", "--port", String(port), "--host", "127.0.0.1"], {
      env: { PATH: process.env.PATH ?? "", ...env, LOG_FORMAT: "json" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    const reader = proc.stdout.getReader();
    /** Reads the server's log until it holds `text` (its signal handlers are set after the background start's last line). */
    const logged = async (text: string) => {
      while (!out.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the server ended before logging ${text}: ${out}`);
        out += new TextDecoder().decode(value);
      }
    };
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitReady(base, 30_000);
      await logged("no SMTP_URL");
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ready", database: "postgres" });
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(out).toContain('"msg":"talentd listening"');
    expect(out).toContain('"msg":"stopped"');
    expect(out).toContain('"database":"postgres://***@127.0.0.1:');
    expect(proc.exitCode).toBe(0);
  }, 60_000);

  test("a PostgreSQL database unreachable at start is one clear line without the password, and exit 1", async () => {
    const port = await freePort();
    expect(await refuses(port)).toBe(true);
    for (const cmd of [["serve", "--port", String(await freePort())], ["migrate"]]) {
      const r = talentd(cmd, { DATABASE_URL: `postgres://someone:s3cret@127.0.0.1:${port}/talentd`, DATA_DIR: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`could not connect to the PostgreSQL database at postgres://***@127.0.0.1:${port}/talentd`);
      expect(r.stderr + r.stdout).not.toContain("s3cret");
    }
  }, 60_000);
});
