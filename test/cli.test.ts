import { afterAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../migrations";
import { migrate } from "../src/db/migrate";
import { runCli, talentMd, tempDir, writeFiles } from "./helpers";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe("config errors exit non-zero with one readable line", () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: "eighty" }, 'talentd: config: PORT: "eighty" is not a port (0–65535)'],
    [{ DATABASE_URL: "mysql://db" }, 'talentd: config: DATABASE_URL: "mysql://db" is malformed'],
  ];
  for (const [env, line] of cases) {
    test(`${JSON.stringify(env)} → exit 2: ${line}`, async () => {
      const r = await runCli(["serve"], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr.trim().startsWith(line)).toBe(true);
    });
  }
  test("an unwritable DATA_DIR → exit 2, one line", async () => {
    await Bun.write(join(dir, "afile"), "x");
    const r = await runCli(["migrate", "--data-dir", join(dir, "afile", "data")], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("DATA_DIR:");
    expect(r.stderr).toContain("is not a writable folder");
  });
});

describe("commands", () => {
  test("version and --help", async () => {
    expect((await runCli(["version"])).stdout).toMatch(/^talentd \d+\.\d+\.\d+/);
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const cmd of ["serve", "admin create", "migrate", "talents lint DIR", "backup FILE", "version"]) expect(help.stdout).toContain(cmd);
  });
  test("an unknown command exits 2", async () => {
    const r = await runCli(["frobnicate"], { cwd: dir, env: { DATA_DIR: join(dir, "d0") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });
  test("migrate creates the database and is idempotent", async () => {
    const env = { DATA_DIR: join(dir, "d1") };
    const a = await runCli(["migrate"], { cwd: dir, env });
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/^migrations: [1-9]\d* applied, 0 already there/);
    const b = await runCli(["migrate"], { cwd: dir, env });
    expect(b.stdout).toMatch(/^migrations: 0 applied, [1-9]\d* already there/);
  });
  test("admin create makes a platform admin; a short password is refused", async () => {
    const env = { DATA_DIR: join(dir, "d2") };
    const bad = await runCli(["admin", "create", "--email", "root@example.com", "--password-stdin"], { cwd: dir, env, stdin: "short\n" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("password: must be at least 10 characters");
    const ok = await runCli(["admin", "create", "--email", "Root@Example.com", "--password-stdin"], { cwd: dir, env, stdin: "correct horse battery\n" });
    expect(ok.code).toBe(0);
    const db = createClient({ url: `file:${join(dir, "d2", "talentd.db")}` });
    const row = (await db.execute("SELECT email, role, password_hash FROM users")).rows[0]!;
    expect(row.email).toBe("root@example.com");
    expect(row.role).toBe("admin");
    expect(String(row.password_hash)).toStartWith("$argon2id$");
    expect(String(row.password_hash)).toContain("m=19456,t=2");
    db.close();
  });
  test("backup FILE writes a verified snapshot; an existing FILE is refused", async () => {
    const env = { DATA_DIR: join(dir, "d3") };
    const file = join(dir, "snap.db");
    const r = await runCli(["backup", file], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("integrity_check ok");
    const again = await runCli(["backup", file], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
  });
  test("backup FILE leaves the database as it is: a database behind this binary's migrations is backed up unmigrated (back up before an upgrade)", async () => {
    mkdirSync(join(dir, "d4"), { recursive: true });
    const live = createClient({ url: `file:${join(dir, "d4", "talentd.db")}` });
    await migrate(live, migrations.slice(0, 1));
    const tags = async (c: ReturnType<typeof createClient>) => (await c.execute("SELECT tag FROM __talentd_migrations ORDER BY tag")).rows.map((r) => r.tag);
    expect(await tags(live)).toEqual([migrations[0]!.tag]);
    const file = join(dir, "snap-old.db");
    const r = await runCli(["backup", file], { cwd: dir, env: { DATA_DIR: join(dir, "d4") } });
    expect(r.code).toBe(0);
    expect(await tags(live)).toEqual([migrations[0]!.tag]); // the live database was not migrated
    const snap = createClient({ url: `file:${file}` });
    expect(await tags(snap)).toEqual([migrations[0]!.tag]);
    snap.close();
    live.close();
  });
  test("talents lint DIR: exit 1 with file: field: problem lines; exit 0 when clean", async () => {
    const lintDir = join(dir, "lint");
    writeFiles(lintDir, {
      "ok-one/TALENT.md": talentMd("ok-one", { requires: "[sql-base]" }), // may require a shipped talent
      "bad-one/TALENT.md": talentMd("bad-one", { budget: "99999" }),
    });
    const r = await runCli(["talents", "lint", lintDir], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout.trim()).toBe(`${lintDir}/bad-one/TALENT.md: budget: must be an integer from 100 to 4000 (got 99999)`);
    const clean = join(dir, "clean");
    writeFiles(clean, { "ok-two/TALENT.md": talentMd("ok-two") });
    const c = await runCli(["talents", "lint", clean], { cwd: dir });
    expect(c.code).toBe(0);
    expect(c.stderr).toContain("1 of 1 talent(s) valid");
  });
});
