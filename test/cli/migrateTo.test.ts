/**
 * `talentd migrate-to postgres://…` (src/cli/migrateTo.ts), as real processes: an embedded
 * instance seeded through its API, copied into a fresh PostgreSQL database, then served from it
 * with no key file (the keys went into the database): the same people, projects and keys, a report's receipt
 * that still verifies, the counts the triggers keep unchanged and kept again after. And its
 * refusals: a target that holds data, a URL that is not PostgreSQL, no embedded database, an
 * unreachable server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import LibsqlDatabase from "libsql";
import { migrations as sqliteMigrations } from "../../migrations";
import { BUN, ROOT, tempDir } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { freePort, waitReady } from "../proc";

const MAIN = join(ROOT, "src", "main.ts");
const skip = pgUnavailable();
const PASSWORD = "correct horse battery";
const EMAIL = "mover@example.com";

function talentd(args: string[], env: Record<string, string>) {
  const r = Bun.spawnSync([BUN, MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** `talentd serve` from the sources with `env`; stopped (SIGTERM) by the returned function. */
async function serving(env: Record<string, string>): Promise<{ base: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([BUN, MAIN, "serve", "--port", String(port), "--host", "127.0.0.1", "--base-url", base], {
    env: { PATH: process.env.PATH ?? "", AUTO_APPROVE_ORGS: "true", LOG_LEVEL: "error", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitReady(base, 30_000);
  return {
    base,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** JSON calls with a session cookie or a key. */
function caller(base: string, auth: Record<string, string> = {}) {
  let cookie = "";
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = { origin: base, ...auth, ...(cookie ? { cookie } : {}) };
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    cookie = /talentd_session=[^;]+/.exec(r.headers.get("set-cookie") ?? "")?.[0] ?? cookie;
    const text = await r.text();
    return { status: r.status, body: text.startsWith("{") ? JSON.parse(text) : text };
  };
}

describe.skipIf(skip !== null)("talentd migrate-to: an embedded instance moved into PostgreSQL", () => {
  let pg: PgDatabase;
  const { dir, cleanup } = tempDir("talentd-migrate-to-");
  const source = join(dir, "embedded");
  const replica = join(dir, "replica");
  const seeded = { projectId: "", key: "", resolutionId: "", report: {} as Record<string, unknown> };

  beforeAll(async () => {
    pg = await pgDatabase("moved");
    const s = await serving({ DATA_DIR: source });
    try {
      const web = caller(s.base);
      expect((await web("POST", "/api/auth/sign-up", { email: EMAIL, password: PASSWORD })).status).toBe(201);
      expect((await web("POST", "/web/orgs", { name: "Movers" })).status).toBe(201);
      seeded.projectId = (await web("POST", "/web/projects", { name: "moved" })).body.project.id;
      expect((await web("POST", `/web/projects/${seeded.projectId}/talents`, { talents: ["typescript-strict"] })).status).toBe(201);
      const tools = ["prepare_task", "validate", "record_validation", "catalog"];
      seeded.key = (await web("POST", `/web/projects/${seeded.projectId}/keys`, { name: "agent", tools })).body.value;
      const agent = caller(s.base, { authorization: `Bearer ${seeded.key}` });
      const prep = await agent("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
      expect(prep.status).toBe(201);
      seeded.resolutionId = prep.body.resolutionId;
      const rep = await agent("POST", "/api/validation/reports", {
        submissionId: "moved-1",
        resolutionId: seeded.resolutionId,
        expertiseResults: [],
      });
      expect(rep.status).toBe(201);
      seeded.report = rep.body;
    } finally {
      await s.stop(); // migrate-to runs with the server stopped
    }
  }, 120_000);
  afterAll(() => {
    pg?.drop();
    cleanup();
  });

  test("copies every table in one transaction, prints the rows per table, verifies the counts, moves the signing keys into the database", () => {
    const r = talentd(["migrate-to", pg.url], { DATA_DIR: source });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^target postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/\S+: \d+ migration\(s\) applied, 0 already there\n/);
    expect(r.stdout).toMatch(/\n {2}users +1 row\(s\)\n/);
    expect(r.stdout).toMatch(/\n {2}projects +1 row\(s\)\n/);
    expect(r.stdout).toMatch(/\n {2}reports +1 row\(s\)\n/);
    expect(r.stdout).toMatch(/copied \d+ row\(s\) of \d+ tables from .*talentd\.db in one transaction; every count verified\n/);
    expect(r.stdout).toContain(`signing keys: 1 from ${source} copied into the database (every replica signs with them)`);
    const file = JSON.parse(readFileSync(join(source, "signing-keys.json"), "utf8")) as { keys: { kid: string }[] };
    expect(pg.cluster.psql("SELECT kid FROM signing_keys", pg.name).trim()).toBe(file.keys[0]!.kid);
    // the counts the triggers keep came as the source kept them (not counted again by the copy)
    const q = (sql: string) => pg.cluster.psql(sql, pg.name).trim();
    expect(q(`SELECT selection_rev FROM projects WHERE id = '${seeded.projectId}'`)).toBe("1");
    expect(q("SELECT sum(resolutions) || '/' || sum(reports) FROM resolution_hours")).toBe("1/1");
  });

  test("served from PostgreSQL with an empty DATA_DIR (no key file): the same account, project and key; the receipt verifies with the database's keys; triggers count again", async () => {
    mkdirSync(replica, { recursive: true });
    const s = await serving({ DATA_DIR: replica, DATABASE_URL: pg.url });
    try {
      const web = caller(s.base);
      expect((await web("POST", "/api/auth/sign-in", { email: EMAIL, password: PASSWORD })).status).toBe(200);
      const projects = await web("GET", "/web/projects");
      expect(projects.body.projects.map((p: { id: string }) => p.id)).toEqual([seeded.projectId]);
      const agent = caller(s.base, { authorization: `Bearer ${seeded.key}` });
      expect((await agent("GET", "/api/catalog?limit=1")).status).toBe(200);
      const book = await agent("GET", `/api/validation/playbook?resolutionId=${seeded.resolutionId}`);
      expect(book.status).toBe(200);
      writeFileSync(join(dir, "report.json"), JSON.stringify(seeded.report));
      writeFileSync(join(dir, "jwks.json"), await (await fetch(`${s.base}/.well-known/jwks.json`)).text());
      const v = talentd(["verify", join(dir, "report.json"), "--keys", join(dir, "jwks.json")], {});
      expect({ code: v.code, out: v.stdout + v.stderr }).toMatchObject({ code: 0 });
      expect((await agent("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] })).status).toBe(201);
      expect(pg.cluster.psql("SELECT sum(resolutions) FROM resolution_hours", pg.name).trim()).toBe("2");
    } finally {
      await s.stop();
    }
  }, 60_000);

  test("a target that already holds data is refused: exit 1, one line, nothing copied", () => {
    const before = pg.cluster.psql("SELECT count(*) FROM resolutions", pg.name).trim();
    const r = talentd(["migrate-to", pg.url], { DATA_DIR: source });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^talentd: the target postgres:\/\/\*\*\*@\S+ already holds data \(.*\): migrate-to copies into an empty database only\n$/,
    );
    expect(pg.cluster.psql("SELECT count(*) FROM resolutions", pg.name).trim()).toBe(before);
  });

  test("refusals before anything is touched: not a PostgreSQL URL, no embedded database, a server that does not answer", async () => {
    const notPg = talentd(["migrate-to", "libsql://someone:secret@db.example"], { DATA_DIR: source });
    expect(notPg.code).toBe(2);
    expect(notPg.stderr).toBe("talentd: migrate-to copies into PostgreSQL: give a postgres:// URL, not libsql://***@db.example\n");
    const empty = join(dir, "nothing-here");
    const none = talentd(["migrate-to", pg.url], { DATA_DIR: empty });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`talentd: there is no database at ${join(empty, "talentd.db")} (set DATA_DIR or DATABASE_URL)\n`);
    const port = await freePort();
    const down = talentd(["migrate-to", `postgres://someone:s3cret@127.0.0.1:${port}/talentd`], { DATA_DIR: source });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`could not connect to the PostgreSQL database at postgres://***@127.0.0.1:${port}/talentd`);
    expect(down.stderr).not.toContain("s3cret");
  });

  test("a source older or newer than the binary is refused before the target is touched: exit 1, one line", async () => {
    const fresh = await pgDatabase("untouched");
    try {
      const copy = (name: string, change: string) => {
        const d = join(dir, name);
        mkdirSync(d, { recursive: true });
        const db = new LibsqlDatabase(join(source, "talentd.db"));
        db.exec(`VACUUM INTO '${join(d, "talentd.db")}'`); // a whole copy, WAL included
        db.close();
        const c = new LibsqlDatabase(join(d, "talentd.db"));
        c.exec(change);
        c.close();
        return d;
      };
      const last = sqliteMigrations.at(-1)!.tag;
      const older = copy("older", `DELETE FROM __talentd_migrations WHERE tag = '${last}'`);
      const r1 = talentd(["migrate-to", fresh.url], { DATA_DIR: older });
      expect(r1.code).toBe(1);
      expect(r1.stderr).toBe(
        `talentd: the database at ${join(older, "talentd.db")} lacks migrations of this version (${last}…): run talentd migrate first\n`,
      );
      const newer = copy("newer", "INSERT INTO __talentd_migrations (tag, hash, applied_at) VALUES ('9999_newer', 'x', 0)");
      const r2 = talentd(["migrate-to", fresh.url], { DATA_DIR: newer });
      expect(r2.code).toBe(1);
      expect(r2.stderr).toContain(
        `talentd: the database at ${join(newer, "talentd.db")} was migrated by a newer talentd (it records 9999_newer`,
      );
      // nothing was created in the target
      expect(fresh.cluster.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", fresh.name).trim()).toBe(
        "0",
      );
    } finally {
      fresh.drop();
    }
  });
});
