import { afterAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../migrations";
import { migrate } from "../../src/db/migrate";
import { COMMANDS } from "../../src/cli/commandTable";
import { ROOT, runCli, talentMd, tempDir, writeFiles } from "../helpers";
import { freePort, refuses } from "../proc";

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
    for (const cmd of ["serve", "admin create", "migrate", "talents lint DIR", "backup FILE", "version"])
      expect(help.stdout).toContain(cmd);
  });
  test("an unknown command exits 2", async () => {
    const r = await runCli(["frobnicate"], { cwd: dir, env: { DATA_DIR: join(dir, "d0") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('talentd: unknown command "frobnicate" (see talentd --help)\n');
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
    const ok = await runCli(["admin", "create", "--email", "Root@Example.com", "--password-stdin"], {
      cwd: dir,
      env,
      stdin: "correct horse battery\n",
    });
    expect(ok.code).toBe(0);
    const db = createClient({ url: `file:${join(dir, "d2", "talentd.db")}` });
    const row = (await db.execute("SELECT email, role, password_hash FROM users")).rows[0]!;
    expect(row.email).toBe("root@example.com");
    expect(row.role).toBe("admin");
    expect(String(row.password_hash)).toStartWith("$argon2id$");
    expect(String(row.password_hash)).toContain("m=19456,t=2");
    db.close();
  });
  test("backup FILE writes a verified snapshot; an existing FILE is refused; no database is refused", async () => {
    const env = { DATA_DIR: join(dir, "d3") };
    const file = join(dir, "snap.db");
    // no database yet: nothing to back up (a mistyped DATA_DIR must not give an empty backup)
    const none = await runCli(["backup", file], { cwd: dir, env });
    expect({ code: none.code, stderr: none.stderr }).toEqual({
      code: 1,
      stderr: `talentd: there is no database at ${join(dir, "d3", "talentd.db")}\n`,
    });
    expect(existsSync(file)).toBe(false);
    expect((await runCli(["migrate"], { cwd: dir, env })).code).toBe(0);
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
    const tags = async (c: ReturnType<typeof createClient>) =>
      (await c.execute("SELECT tag FROM __talentd_migrations ORDER BY tag")).rows.map((r) => r.tag);
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

/** A fresh empty folder to run a command in: whatever the command wrongly creates shows up in it. */
function emptyDir(name: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

describe("the command line: --help runs nothing, unknown flags and commands are errors", () => {
  for (const c of COMMANDS) {
    for (const h of ["--help", "-h"]) {
      test(`\`talentd ${c.name} ${h}\` prints that command's usage and does nothing else (exit 0, usage on stdout, no file, no database, no server)`, async () => {
        const cwd = emptyDir(`help-${c.name.replace(" ", "-")}${h}`);
        const port = await freePort();
        // every argument the command takes, so that without the --help it would act
        const extra =
          c.name === "backup"
            ? ["snapshot.db"]
            : c.name === "talents lint"
              ? ["."]
              : c.name === "admin create"
                ? ["--email", "a@example.com", "--password-stdin"]
                : [];
        const portFlag = c.flags.includes("port") ? ["--port", String(port), "--host", "127.0.0.1"] : [];
        const r = await runCli([...c.name.split(" "), ...extra, ...portFlag, h], { cwd, stdin: "correct horse battery\n" });
        expect(r.code).toBe(0);
        expect(r.stdout).toStartWith(`Usage: talentd ${c.name}`);
        expect(r.stderr).toBe("");
        expect(readdirSync(cwd)).toEqual([]); // no ./data, no snapshot.db
        expect(await refuses(port)).toBe(true);
      });
    }
  }

  test("`talentd backup --help` writes no backup to a file named --help; `backup -- --help` is how to name one so", async () => {
    const cwd = emptyDir("backup-help");
    const r = await runCli(["backup", "--help"], { cwd });
    expect(r.code).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
    expect((await runCli(["migrate"], { cwd })).code).toBe(0); // a database to back up
    const named = await runCli(["backup", "--", "--help"], { cwd });
    expect(named.code).toBe(0);
    expect(readdirSync(cwd).sort()).toEqual(["--help", "data"]);
  });

  test("`talentd help <command>` prints the same usage as `talentd <command> --help`; `talentd --help` lists every command", async () => {
    expect((await runCli(["help", "admin", "create"])).stdout).toBe((await runCli(["admin", "create", "--help"])).stdout);
    expect((await runCli(["help", "backup"])).stdout).toBe((await runCli(["backup", "-h"])).stdout);
    const all = (await runCli(["--help"])).stdout;
    expect((await runCli(["help"])).stdout).toBe(all);
    for (const c of COMMANDS) expect(all).toContain(`  ${c.name}`);
    expect(all).toContain("LOG_FORMAT");
  });

  for (const c of COMMANDS) {
    test(`an unknown flag is an error for \`talentd ${c.name}\`: exit 2, one line naming it, nothing done`, async () => {
      const cwd = emptyDir(`unknown-${c.name.replace(" ", "-")}`);
      const extra =
        c.name === "backup"
          ? ["snapshot.db"]
          : c.name === "talents lint"
            ? ["."]
            : c.name === "admin create"
              ? ["--email", "a@example.com", "--password-stdin"]
              : [];
      const r = await runCli([...c.name.split(" "), ...extra, "--prot", "9000"], { cwd, stdin: "correct horse battery\n" });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`talentd ${c.name}: unknown flag --prot (see talentd ${c.name} --help)\n`);
      expect(r.stdout).toBe("");
      expect(readdirSync(cwd)).toEqual([]);
    });
  }

  test("a config flag is accepted only by a command that uses it: `talentd migrate --port 9000` exits 2", async () => {
    const cwd = emptyDir("migrate-port");
    const r = await runCli(["migrate", "--port", "9000"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("talentd migrate: unknown flag --port (see talentd migrate --help)\n");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test('`talentd --prot 9000` (serve by default) names the unknown flag, not a command "9000"', async () => {
    const r = await runCli(["--prot", "9000"], { cwd: emptyDir("bare-prot") });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("talentd: unknown flag --prot (see talentd --help)\n");
  });

  test("a missing argument: `talentd backup` and `talentd talents lint` exit 2 naming it", async () => {
    const cwd = emptyDir("missing");
    const b = await runCli(["backup"], { cwd });
    expect(b.code).toBe(2);
    expect(b.stderr).toBe("talentd backup: missing FILE (see talentd backup --help)\n");
    const l = await runCli(["talents", "lint"], { cwd });
    expect(l.code).toBe(2);
    expect(l.stderr).toBe("talentd talents lint: missing DIR (see talentd talents lint --help)\n");
    const a = await runCli(["admin", "create", "--password-stdin"], { cwd });
    expect(a.code).toBe(2);
    expect(a.stderr).toBe("talentd admin create: missing --email E (see talentd admin create --help)\n");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("`npm run -s talentd -- version` runs the CLI from the checkout without a build", async () => {
    const proc = Bun.spawn(["npm", "run", "-s", "talentd", "--", "version"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^talentd \d+\.\d+\.\d+\n$/);
  });
});
