/**
 * talentd on PostgreSQL when the database fails it (docs/operations.md "Several replicas"), as
 * real processes against a real server: the database lost while serving (503
 * database_unavailable with Retry-After, /readyz 503, /healthz 200, recovery without a restart,
 * nothing acknowledged lost), and a database migrated by a newer binary refused at start.
 * (The database unreachable at start: test/ops/postgres.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, tempDir } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { agentSetup, eventually, freePort, postReport, waitReady } from "../proc";

const MAIN = join(ROOT, "src", "main.ts");
const skip = pgUnavailable();

function talentd(args: string[], env: Record<string, string>) {
  const r = Bun.spawnSync([BUN, MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe.skipIf(skip !== null)("the PostgreSQL database lost while serving", () => {
  let pg: PgDatabase;
  const { dir, cleanup } = tempDir();
  let proc: ReturnType<typeof Bun.spawn>;
  let base = "";
  let stderr = "";

  beforeAll(async () => {
    pg = await pgDatabase("lost");
    // the throwaway cluster runs with synchronous_commit off (fast tests); an acknowledged commit
    // survives a crash only with it on, as on a real server
    pg.cluster.psql(`ALTER DATABASE ${pg.name} SET synchronous_commit = on`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = Bun.spawn([BUN, MAIN, "serve", "--port", String(port), "--host", "127.0.0.1"], {
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: pg.url, DATA_DIR: dir, AUTO_APPROVE_ORGS: "true", LOG_FORMAT: "json" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    void (async () => {
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += new TextDecoder().decode(chunk);
    })();
    await waitReady(base, 30_000);
  }, 60_000);
  afterAll(async () => {
    proc?.kill("SIGKILL");
    await proc?.exited;
    pg?.drop();
    cleanup();
  });

  test("requests answer 503 database_unavailable with Retry-After, /readyz 503, /healthz 200; back without a restart, nothing acknowledged lost", async () => {
    const { key, resolutionId } = await agentSetup(base);
    const signIn = await fetch(`${base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: "writer@example.com", password: "correct horse battery" }),
    });
    expect(signIn.status).toBe(200);
    const cookie = /talentd_session=[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")![0];
    const acknowledged = await postReport(base, key, resolutionId, "before-the-stop");
    expect(acknowledged.status).toBe(201);
    const reportId = ((await acknowledged.json()) as { reportId: string }).reportId;

    pg.cluster.halt(); // a crash: every connection cut, nothing flushed beyond what was committed
    const api = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const prepare = () => fetch(`${base}/api/prepare-task`, { method: "POST", headers: api, body: '{"talentIds":["typescript-strict"]}' });
    for (const r of [await prepare(), await postReport(base, key, resolutionId, "during-the-stop")]) {
      expect(r.status).toBe(503);
      expect(r.headers.get("retry-after")).toBe("5");
      expect(await r.json()).toEqual({
        error: "database_unavailable",
        message: "The database cannot be reached right now; retry later.",
        retryAfter: 5,
      });
    }
    // a person's browser: the error page, 503 with Retry-After (the page's header needs no database)
    const page = await fetch(`${base}/`, { headers: { accept: "text/html", "sec-fetch-mode": "navigate", cookie } });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("5");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("The database cannot be reached right now; retry later.");
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("5");
    expect(await ready.json()).toMatchObject({ error: "not_ready", message: "The database is not reachable." });
    expect((await fetch(`${base}/healthz`)).status).toBe(200); // alive: a supervisor must not restart it
    expect(stderr).toContain('"msg":"the database cannot be reached: answered 503"');
    expect(stderr).not.toContain('"msg":"unhandled error"');

    pg.cluster.resume();
    expect(await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, 15_000)).toBe(true);
    expect(proc.exitCode).toBeNull(); // the same process: no restart
    expect((await prepare()).status).toBe(201);
    const after = await postReport(base, key, resolutionId, "after-the-stop");
    expect(after.status).toBe(201);
    const kept = pg.cluster.psql(`SELECT id FROM reports WHERE submission_id = 'before-the-stop'`, pg.name).trim();
    expect(kept).toBe(reportId);
    expect(pg.cluster.psql(`SELECT count(*) FROM reports WHERE submission_id = 'during-the-stop'`, pg.name).trim()).toBe("0");
  }, 60_000);
});

describe.skipIf(skip !== null)("a PostgreSQL database migrated by a newer talentd", () => {
  let pg: PgDatabase;
  const { dir, cleanup } = tempDir();

  beforeAll(async () => {
    pg = await pgDatabase("newer");
  }, 60_000);
  afterAll(() => {
    pg?.drop();
    cleanup();
  });

  test("is refused at start and by migrate: one line naming the unknown migration, exit 1, nothing applied", async () => {
    const env = { DATABASE_URL: pg.url, DATA_DIR: dir };
    expect(talentd(["migrate"], env).code).toBe(0);
    // what a newer binary's additive migration leaves behind: its record (and a column this binary ignores)
    pg.cluster.psql("ALTER TABLE projects ADD COLUMN newer_setting text", pg.name);
    pg.cluster.psql("INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES ('9999_from_a_newer_talentd', 'x', 0)", pg.name);
    const recorded = () => pg.cluster.psql("SELECT count(*) FROM __talentd_migrations", pg.name).trim();
    const before = recorded();
    for (const cmd of [["serve", "--port", String(await freePort())], ["migrate"], ["migrate", "--dry-run"]]) {
      const r = talentd(cmd, env);
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        "talentd: the database at postgres://***@" +
          `${new URL(pg.url).host}/${pg.name} was migrated by a newer talentd (it records 9999_from_a_newer_talentd, which this ` +
          "version does not know); run that version or a newer one, or restore a backup made for this version",
      );
    }
    expect(recorded()).toBe(before);
  }, 60_000);
});
