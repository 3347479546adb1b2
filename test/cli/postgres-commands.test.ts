/**
 * The server's commands on PostgreSQL (docs/design.md "Several replicas: what is shared"):
 * `talentd keys rotate` rotates the key table every replica reads, and a running replica
 * publishes the new key within its 5 s re-read; `talentd backup` and `restore` copy nothing and
 * name the database's own tools, without the URL's password, exit 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, tempDir, testEnv, type TestEnv } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";

const skip = pgUnavailable();

test("backup and restore on PostgreSQL: exit 2, nothing copied, the pg_dump / pg_restore command named without the password", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const env = { DATA_DIR: dir, DATABASE_URL: "postgres://talentd:s3cret@127.0.0.1:1/talentd" };
    const backup = await runCli(["backup", `${dir}/out.db`], { env, cwd: dir });
    expect(backup.code).toBe(2);
    expect(backup.stderr).toContain("pg_dump --format=custom");
    expect(backup.stderr).toContain("postgres://talentd:***@127.0.0.1:1/talentd");
    expect(backup.stderr).not.toContain("s3cret");
    expect(await Bun.file(`${dir}/out.db`).exists()).toBe(false);
    const restore = await runCli(["restore", `${dir}/out.db`], { env, cwd: dir });
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain("pg_restore");
    expect(restore.stderr).not.toContain("s3cret");
  } finally {
    cleanup();
  }
});

describe.skipIf(skip !== null)("keys rotate on PostgreSQL", () => {
  let pg: PgDatabase;
  let env: TestEnv;
  beforeAll(async () => {
    pg = await pgDatabase("keys");
    env = await testEnv({ DATABASE_URL: pg.url });
  }, 60_000);
  afterAll(() => {
    env?.close();
    pg?.drop();
  });

  test("rotates the key table: the old key retired (still published), the new one signs; a running replica publishes both within its re-read", async () => {
    const before = (await (await env.request("/.well-known/jwks.json")).json()) as { keys: { kid: string }[] };
    expect(before.keys).toHaveLength(1);
    const { dir, cleanup } = tempDir();
    try {
      const r = await runCli(["keys", "rotate"], { env: { DATA_DIR: dir, DATABASE_URL: pg.url, LOG_LEVEL: "warn" }, cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${before.keys[0]!.kid} is rotated out`);
      expect(await Bun.file(`${dir}/signing-keys.json`).exists()).toBe(false); // the table, not a file
    } finally {
      cleanup();
    }
    const rows = await env.database.all<{ kid: string; retired_at: number | null }>(
      "SELECT kid, retired_at FROM signing_keys ORDER BY created_at, retired_at IS NULL, kid",
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ kid: before.keys[0]!.kid });
    expect(rows[0]!.retired_at).not.toBeNull();
    expect(rows[1]!.retired_at).toBeNull();
    const t0 = Date.now();
    for (;;) {
      const set = (await (await env.request("/.well-known/jwks.json")).json()) as { keys: { kid: string; exp?: number }[] };
      if (set.keys.length === 2) {
        expect(set.keys.map((k) => k.kid)).toEqual(rows.map((k) => k.kid));
        expect(set.keys[0]!.exp).toBe(rows[0]!.retired_at!);
        break;
      }
      expect(Date.now() - t0).toBeLessThan(8_000); // KEY_FILE_CHECK_MS, and a read
      await Bun.sleep(100);
    }
  }, 30_000);
});
