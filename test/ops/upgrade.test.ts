/**
 * Upgrades: "the binary refuses to start on a database whose schema is newer than
 * it knows (one clear line), `talentd migrate --dry-run` lists what would run, and `serve`
 * takes a verified backup before applying a migration." The database is the previous release's
 * (test/fixtures/upgrade/previous-release.sql: made by migrations 0000–0002 and filled by the
 * service itself, scripts/make-upgrade-fixture.ts), upgraded by a real `talentd serve`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createClient, type Client } from "@libsql/client";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../migrations";
import { BUN, ROOT, runCli, tempDir } from "../helpers";
import { freePort, waitReady } from "../proc";

const FIXTURE = readFileSync(join(ROOT, "test", "fixtures", "upgrade", "previous-release.sql"), "utf8");
const PREVIOUS_TAGS = ["0000_init", "0001_key_tombstones", "0002_selection_rev"];
const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** A data folder holding the previous release's database. */
async function previousRelease(name: string): Promise<{ data: string; db: string }> {
  const data = join(dir, name);
  mkdirSync(data, { recursive: true });
  const db = join(data, "talentd.db");
  const c = createClient({ url: `file:${db}` });
  await c.executeMultiple(FIXTURE);
  c.close();
  return { data, db };
}

type Rows = Record<string, { columns: string[]; rows: unknown[][] }>;

/** Every row of every table, ordered by all its columns. */
async function everyRow(c: Client): Promise<Rows> {
  const out: Rows = {};
  const tables = (
    await c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
  ).rows.map((r) => String(r.name));
  for (const t of tables) {
    const columns = (await c.execute(`PRAGMA table_info("${t}")`)).rows.map((r) => String(r.name));
    const rows = (
      await c.execute(`SELECT ${columns.map((x) => `"${x}"`).join(", ")} FROM "${t}" ORDER BY ${columns.map((_, i) => i + 1).join(", ")}`)
    ).rows.map((r) => columns.map((_, i) => r[i]));
    out[t] = { columns, rows };
  }
  return out;
}

/**
 * Columns a migration moved elsewhere, with where their values went (checked below):
 * 0006 moved `sso_connections.domain` to the `sso_domains` table (one row per domain).
 */
const MOVED: Record<string, string[]> = { sso_connections: ["domain"] };

/** The rows of `before`'s tables, read from `c` with `before`'s columns only (a migration may add columns; MOVED ones are left out). */
async function sameColumnsIn(c: Client, before: Rows): Promise<Rows> {
  const out: Rows = {};
  for (const [t, b] of Object.entries(before)) {
    const columns = b.columns.filter((x) => !MOVED[t]?.includes(x));
    const rows = (
      await c.execute(`SELECT ${columns.map((x) => `"${x}"`).join(", ")} FROM "${t}" ORDER BY ${columns.map((_, i) => i + 1).join(", ")}`)
    ).rows.map((r) => columns.map((_, i) => r[i]));
    out[t] = { columns, rows };
  }
  return out;
}

async function tags(db: string): Promise<string[]> {
  const c = createClient({ url: `file:${db}` });
  try {
    return (await c.execute("SELECT tag FROM __talentd_migrations ORDER BY tag")).rows.map((r) => String(r.tag));
  } finally {
    c.close();
  }
}

function serve(data: string, port: number) {
  return Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: data, LOG_FORMAT: "json", ACCESS_LOG: "false" },
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe("upgrades", () => {
  test("the fixture is the previous release: migrations 0000–0002, real rows in every table the service fills", async () => {
    const { db } = await previousRelease("fixture");
    expect(await tags(db)).toEqual(PREVIOUS_TAGS);
    expect(migrations.length).toBeGreaterThan(PREVIOUS_TAGS.length); // there is something to upgrade
    const c = createClient({ url: `file:${db}` });
    const rows = await everyRow(c);
    c.close();
    for (const t of [
      "users",
      "sessions",
      "organizations",
      "members",
      "invitations",
      "projects",
      "installed_talents",
      "api_keys",
      "expertises",
      "expertise_versions",
      "resolutions",
      "resolution_items",
      "reports",
      "report_results",
      "trace_events",
      "security_events",
      "content_blobs",
    ]) {
      expect({ t, n: rows[t]?.rows.length ?? 0 }).toEqual({ t, n: expect.any(Number) });
      expect(rows[t]!.rows.length).toBeGreaterThan(0);
    }
  }, 30_000);

  test("`talentd migrate --dry-run` lists what would run (tags and statements) and changes nothing: no migration, no backup", async () => {
    const { data, db } = await previousRelease("dry");
    const r = await runCli(["migrate", "--dry-run"], { cwd: dir, env: { DATA_DIR: data } });
    expect(r.code).toBe(0);
    const pending = migrations.slice(PREVIOUS_TAGS.length).map((m) => m.tag);
    for (const tag of pending) expect(r.stdout).toContain(`would apply ${tag} (`);
    expect(r.stdout).toContain("DROP INDEX `trace_events_project_idx`"); // 0003's first statement
    expect(r.stdout).toContain(
      `migrations: ${pending.length} would be applied, after a backup to ${join(data, "backups")}/pre-migrate-<time>.db, ${PREVIOUS_TAGS.length} already there (dry run: nothing changed)`,
    );
    expect(await tags(db)).toEqual(PREVIOUS_TAGS);
    expect(existsSync(join(data, "backups"))).toBe(false);
    // and on an up-to-date database: nothing to do
    await runCli(["migrate"], { cwd: dir, env: { DATA_DIR: data } });
    const again = await runCli(["migrate", "--dry-run"], { cwd: dir, env: { DATA_DIR: data } });
    expect(again.stdout.trim()).toBe(`migrations: 0 would be applied, ${migrations.length} already there (dry run: nothing changed)`);
  }, 30_000);

  test("serve upgrades the previous release's database: a verified backup first (pre-migrate-<time>.db, the old state exactly), then every migration, and every row survives", async () => {
    const { data, db } = await previousRelease("upgrade");
    const c0 = createClient({ url: `file:${db}` });
    const before = await everyRow(c0);
    c0.close();

    const port = await freePort();
    const proc = serve(data, port);
    try {
      await waitReady(`http://127.0.0.1:${port}`);
      // the data is usable: the owner signs in and sees both projects
      const signIn = await fetch(`http://127.0.0.1:${port}/api/auth/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${port}` },
        body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery" }),
      });
      expect(signIn.status).toBe(200);
      const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
      const projects = (await (await fetch(`http://127.0.0.1:${port}/web/projects`, { headers: { cookie } })).json()) as {
        projects: { name: string }[];
      };
      expect(projects.projects.map((p) => p.name).sort()).toEqual(["payments", "website"]);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const out = await new Response(proc.stdout).text();
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const backupLine = lines.find((l) => l.msg === "backup taken before migrating")!;
    expect(backupLine).toBeDefined();
    expect(backupLine.pending).toEqual(migrations.slice(PREVIOUS_TAGS.length).map((m) => m.tag));
    const applied = lines.find((l) => l.msg === "migrations applied")!;
    expect(applied.applied).toEqual(backupLine.pending);
    // the backup came before the migrations
    expect(lines.indexOf(backupLine)).toBeLessThan(lines.indexOf(applied));

    const files = readdirSync(join(data, "backups"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^pre-migrate-\d{8}T\d{9}Z\.db$/);
    expect(backupLine.file).toBe(join(data, "backups", files[0]!));
    const snap = createClient({ url: `file:${join(data, "backups", files[0]!)}` });
    expect((await snap.execute("PRAGMA integrity_check")).rows[0]![0]).toBe("ok");
    expect(await everyRow(snap)).toEqual(before); // the old state, exactly
    snap.close();

    expect(await tags(db)).toEqual(migrations.map((m) => m.tag));
    const c1 = createClient({ url: `file:${db}` });
    const after = await sameColumnsIn(c1, before);
    // MOVED: each old SSO connection's domain is a row of sso_domains
    const domains = (await c1.execute("SELECT domain, organization_id FROM sso_domains")).rows.map(
      (r) => `${r.domain} ${r.organization_id}`,
    );
    const ssoCols = before.sso_connections?.columns ?? [];
    for (const row of before.sso_connections?.rows ?? []) {
      expect(domains).toContain(`${String(row[ssoCols.indexOf("domain")]).toLowerCase()} ${row[ssoCols.indexOf("organization_id")]}`);
    }
    // 0016: the events recorded before it get their route's scope (each key-route kind has one); web events none
    const scopes = (await c1.execute("SELECT DISTINCT via, kind, scope FROM trace_events ORDER BY via, kind")).rows.map(
      (r) => `${r.via} ${r.kind} ${r.scope}`,
    );
    expect(scopes.length).toBeGreaterThan(4);
    const KIND_SCOPES: Record<string, string> = { designable: "prepare_task", read: "deepen", search: "deepen" };
    for (const line of scopes) {
      const [via, kind, scope] = line.split(" ");
      expect(line).toBe(`${via} ${kind} ${via === "web" ? "null" : (KIND_SCOPES[kind!] ?? kind)}`);
      expect(scope).not.toBe("undefined");
    }
    c1.close();
    // every row of every old table survives with every old column's value; only housekeeping-free tables are compared
    for (const t of Object.keys(before)) {
      if (t === "__talentd_migrations") continue;
      const keep = before[t]!.columns.map((x, i) => (MOVED[t]?.includes(x) ? -1 : i)).filter((i) => i >= 0);
      const missing = before[t]!.rows.map((row) => keep.map((i) => row[i])).filter(
        (row) => !after[t]!.rows.some((r) => JSON.stringify(r) === JSON.stringify(row)),
      );
      expect({ table: t, missing }).toEqual({ table: t, missing: [] });
    }
  }, 60_000);

  test("a database migrated by a newer talentd: serve, migrate and admin create refuse with one line (exit 1) and change nothing", async () => {
    const { data, db } = await previousRelease("newer");
    await runCli(["migrate"], { cwd: dir, env: { DATA_DIR: data } });
    const c = createClient({ url: `file:${db}` });
    await c.execute({
      sql: "INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES (?, ?, ?)",
      args: ["9999_from_the_future", "f".repeat(64), Date.now()],
    });
    c.close();
    const before = await tags(db);
    const backupsBefore = readdirSync(join(data, "backups")); // the upgrade's own pre-migrate backup
    const line = `talentd: the database at ${db} was migrated by a newer talentd (it records 9999_from_the_future, which this version does not know); run that version or a newer one, or restore a backup made for this version\n`;

    const port = await freePort();
    const s = await runCli(["serve", "--port", String(port), "--host", "127.0.0.1"], { cwd: dir, env: { DATA_DIR: data } });
    expect({ code: s.code, stderr: s.stderr }).toEqual({ code: 1, stderr: line });
    expect(s.stdout).not.toContain("talentd listening");
    const m = await runCli(["migrate"], { cwd: dir, env: { DATA_DIR: data } });
    expect({ code: m.code, stderr: m.stderr }).toEqual({ code: 1, stderr: line });
    const d = await runCli(["migrate", "--dry-run"], { cwd: dir, env: { DATA_DIR: data } });
    expect({ code: d.code, stderr: d.stderr }).toEqual({ code: 1, stderr: line });
    const a = await runCli(["admin", "create", "--email", "x@example.com", "--password-stdin"], {
      cwd: dir,
      env: { DATA_DIR: data },
      stdin: "a long password here\n",
    });
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 1, stderr: line });
    expect(await tags(db)).toEqual(before);
    expect(readdirSync(join(data, "backups"))).toEqual(backupsBefore);
  }, 30_000);

  test("no migration without its backup: when the backup cannot be written (DATA_DIR/backups is a file), serve stops with one line (exit 1) and the database keeps the previous release's schema", async () => {
    const { data, db } = await previousRelease("nobackup");
    writeFileSync(join(data, "backups"), "not a folder");
    const port = await freePort();
    const r = await runCli(["serve", "--port", String(port), "--host", "127.0.0.1"], { cwd: dir, env: { DATA_DIR: data } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^talentd: could not back up the database before migrating \(.+\); no migration was applied\n$/);
    expect(await tags(db)).toEqual(PREVIOUS_TAGS);
    rmSync(join(data, "backups"));
  }, 30_000);
});
