/**
 * Two replicas of the built binary on one PostgreSQL database behind a round-robin load balancer
 * (docs/operations.md "Several replicas"): everything a person and an agent do goes through the
 * balancer, so consecutive requests land on different replicas; what one replica changes, the other
 * sees within 2 s (a revoked key, a published expertise); and once one replica is killed, the
 * other answers every request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrations as pgMigrations } from "../../migrations-pg";
import { expertiseMd, tempDir } from "../helpers";
import { pgDatabase, pgUnavailable, type PgDatabase } from "../pg-support";
import { freePort } from "../proc";
import { type Balancer, builtBinary, type Replica, replicaReady, roundRobin, startReplica } from "../replica-support";

const skip = pgUnavailable();

/** A person's browser or an agent against one base URL: JSON in and out, the session cookie kept. */
class Client {
  cookie = "";
  constructor(
    public base: string,
    readonly origin: string,
    readonly headers: Record<string, string> = {},
  ) {}
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; res: Response }> {
    const h: Record<string, string> = { origin: this.origin, accept: "application/json", ...this.headers };
    if (this.cookie) h.cookie = this.cookie;
    if (body !== undefined) h["content-type"] = "application/json";
    const res = await fetch(this.base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const set = /talentd_session=[^;]*/.exec(res.headers.get("set-cookie") ?? "")?.[0];
    if (set) this.cookie = set;
    const text = await res.text();
    return { status: res.status, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text, res };
  }
  get = (p: string) => this.call("GET", p);
  post = (p: string, b: unknown = {}) => this.call("POST", p, b);
  put = (p: string, b: unknown = {}) => this.call("PUT", p, b);
  patch = (p: string, b: unknown = {}) => this.call("PATCH", p, b);
  del = (p: string) => this.call("DELETE", p);
  /** The same person (cookie and all) talking to another base URL: one replica directly. */
  at(base: string): Client {
    const c = new Client(base, this.origin, this.headers);
    c.cookie = this.cookie;
    return c;
  }
}

/** Polls `check` every 20 ms until it holds; the milliseconds it took, or null after `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return performance.now() - t0;
    if (performance.now() - t0 > ms) return null;
    await Bun.sleep(20);
  }
}

const PASSWORD = "correct horse battery";

describe.skipIf(skip !== null)("two replicas of the built binary on one PostgreSQL database, behind a load balancer", () => {
  let pg: PgDatabase;
  const { dir, cleanup } = tempDir("talentd-replicas-");
  let a: Replica;
  let b: Replica;
  let lb: Balancer;
  let owner: Client;
  let admin: Client;
  let projectId = "";
  let orgSlug = "";
  let agentKey = "";

  beforeAll(async () => {
    const binary = builtBinary(); // once, before any replica (about 7 s when the sources changed)
    pg = await pgDatabase("replicas");
    const lbPort = await freePort();
    const base = `http://127.0.0.1:${lbPort}`;
    // each its own DATA_DIR with no key file: the signing key is made once in the database and shared
    for (const d of ["a", "b"]) mkdirSync(join(dir, d));
    const env = (d: string) => ({ DATABASE_URL: pg.url, DATA_DIR: join(dir, d), BASE_URL: base, TRUSTED_PROXIES: "127.0.0.1" });
    // both start together on the empty database: the migrations' advisory lock applies each once
    [a, b] = await Promise.all([startReplica("A", env("a"), binary), startReplica("B", env("b"), binary)]);
    await Promise.all([replicaReady(a), replicaReady(b)]);
    lb = await roundRobin([a.base, b.base], lbPort);
    owner = new Client(base, base);
  }, 120_000); // a build, a cluster and two binaries starting on a loaded machine
  afterAll(async () => {
    lb?.stop();
    await Promise.all([a?.kill("SIGTERM"), b?.kill("SIGTERM")]);
    pg?.drop();
    cleanup();
  });

  test("both replicas migrated the one database together: each migration recorded once", () => {
    const tags = pg.cluster.psql("SELECT tag FROM __talentd_migrations ORDER BY tag", pg.name).trim().split("\n");
    expect(tags).toEqual(pgMigrations.map((m) => m.tag));
    for (const r of [a, b]) expect(r.log()).toContain('"database":"postgres://***@127.0.0.1:');
  });

  test("through the balancer: the first administrator's setup, sign-up, an approved organization, a project, a key", async () => {
    const token = /setup\?token=([0-9A-Za-z]+)/.exec(a.log() + b.log())?.[1];
    expect(token).toBeDefined();
    admin = new Client(owner.base, owner.origin);
    const setup = await admin.post("/setup", { token, email: "admin@example.com", password: PASSWORD, name: "Admin" });
    expect(setup.status).toBe(201);
    expect(setup.body.role).toBe("admin");
    expect((await admin.get("/api/auth/session")).status).toBe(200); // the session, read by the other replica
    expect((await owner.post("/api/auth/sign-up", { email: "owner@example.com", password: PASSWORD })).status).toBe(201);
    const out = new Client(owner.base, owner.origin);
    expect((await out.post("/api/auth/sign-in", { email: "owner@example.com", password: PASSWORD })).status).toBe(200);
    const org = await owner.post("/web/orgs", { name: "Replicated" });
    expect(org.status).toBe(201);
    expect(org.body.organization.status).toBe("pending");
    orgSlug = org.body.organization.slug;
    const approved = await admin.post(`/web/admin/organizations/${org.body.organization.id}/approve`);
    expect(approved.status).toBe(200);
    const project = await owner.post("/web/projects", { name: "replicated" });
    expect(project.status).toBe(201);
    projectId = project.body.project.id;
    expect((await owner.post(`/web/projects/${projectId}/talents`, { talents: ["typescript-strict", "javascript-base"] })).status).toBe(
      201,
    );
    const key = await owner.post(`/web/projects/${projectId}/keys`, {
      name: "agent",
      tools: ["prepare_task", "validate", "record_validation", "catalog", "doctor"],
    });
    expect(key.status).toBe(201);
    agentKey = key.body.value;
    // the balancer alternated: both replicas served these requests
    expect(new Set(lb.answered)).toEqual(new Set([0, 1]));
  }, 60_000);

  test("the agent loop through the balancer: prepare-task, the playbook, a report, MCP; its receipt verifies with either replica's keys", async () => {
    const agent = new Client(owner.base, owner.origin, { authorization: `Bearer ${agentKey}` });
    const prep = await agent.post("/api/prepare-task", { talentIds: ["typescript-strict"] });
    expect(prep.status).toBe(201);
    const resolutionId = prep.body.resolutionId as string;
    for (let i = 0; i < 2; i++) {
      // both replicas find the resolution the other wrote
      const book = await agent.get(`/api/validation/playbook?resolutionId=${resolutionId}&talent=typescript-strict`);
      expect(book.status).toBe(200);
      expect(book.body.detail.rules.length).toBeGreaterThan(0);
    }
    const report = { submissionId: "replicas-1", resolutionId, expertiseResults: [] };
    const first = await agent.post("/api/validation/reports", report);
    expect(first.status).toBe(201);
    expect(typeof first.body.attestation).toBe("string");
    const replay = await agent.post("/api/validation/reports", report);
    expect(replay.status).toBe(200); // the other replica replays the first answer
    expect(replay.body.replayed).toBe(true);
    expect(replay.body.reportId).toBe(first.body.reportId);
    // MCP through the balancer: no session lives in a replica, so consecutive calls may land anywhere
    for (let i = 0; i < 2; i++) {
      const call = { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "svc_doctor", arguments: {} } };
      const mcp = await fetch(`${owner.base}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(call),
      });
      expect(mcp.status).toBe(200);
      expect(await mcp.text()).toContain("healthy");
    }
    const binary = builtBinary();
    for (const r of [a, b]) {
      const keys = join(dir, `jwks-${r.name}.json`);
      writeFileSync(keys, await (await fetch(`${r.base}/.well-known/jwks.json`)).text());
      writeFileSync(join(dir, "report.json"), JSON.stringify(first.body));
      const v = Bun.spawnSync([binary, "verify", join(dir, "report.json"), "--keys", keys], { env: { PATH: process.env.PATH ?? "" } });
      expect({ code: v.exitCode, out: v.stdout.toString() + v.stderr.toString() }).toMatchObject({ code: 0 });
    }
  }, 60_000);

  test("tenancy through the balancer: an invited member sees the project, another organization's person does not", async () => {
    const member = new Client(owner.base, owner.origin);
    expect((await member.post("/api/auth/sign-up", { email: "member@example.com", password: PASSWORD })).status).toBe(201);
    const inv = await owner.post("/web/orgs/current/invitations", { email: "member@example.com" });
    expect(inv.status).toBe(201);
    expect((await member.post(`/web/invitations/${inv.body.id}/accept`)).status).toBeLessThan(300);
    for (let i = 0; i < 2; i++) expect((await member.get(`/web/projects/${projectId}/keys`)).status).toBe(200);
    const stranger = new Client(owner.base, owner.origin);
    expect((await stranger.post("/api/auth/sign-up", { email: "stranger@example.com", password: PASSWORD })).status).toBe(201);
    const elsewhere = await stranger.post("/web/orgs", { name: "Elsewhere" });
    expect(elsewhere.status).toBe(201);
    expect((await stranger.get(`/web/projects/${projectId}/keys`)).body.error).toBe("organization_not_approved");
    expect((await admin.post(`/web/admin/organizations/${elsewhere.body.organization.id}/approve`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await stranger.get(`/web/projects/${projectId}/keys`)).status).toBe(404);
  }, 60_000);

  test("a key revoked through replica A is refused through replica B within 2 s", async () => {
    const made = await owner.post(`/web/projects/${projectId}/keys`, { name: "to revoke", tools: ["catalog"] });
    expect(made.status).toBe(201);
    const onB = new Client(b.base, owner.origin, { authorization: `Bearer ${made.body.value}` });
    expect((await onB.get("/api/catalog?limit=1")).status).toBe(200); // B has read (and may keep) the key
    const revoked = await owner.at(a.base).del(`/web/projects/${projectId}/keys/${made.body.key.id}`);
    expect(revoked.status).toBe(200);
    const ms = await within(2000, async () => (await onB.get("/api/catalog?limit=1")).status === 401);
    expect(ms).not.toBeNull();
    const refused = await onB.get("/api/catalog?limit=1");
    expect(refused.body.error).toBe("invalid_token");
  }, 30_000);

  test("an expertise published and installed through replica A is designable through replica B within 2 s", async () => {
    const onB = new Client(b.base, owner.origin, { authorization: `Bearer ${agentKey}` });
    const slug = "ledger";
    const ref = `@${orgSlug}/${slug}`;
    const listed = async () => ((await onB.get("/api/prepare-task/designable")).body.talents as { id: string }[]).some((t) => t.id === ref);
    expect(await listed()).toBe(false);
    const onA = owner.at(a.base);
    const created = await onA.post("/web/orgs/current/expertises", { slug, content: expertiseMd(slug, "Use the ledger.") });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      (await onA.put(`/web/orgs/current/expertises/${id}/triggers`, { files: ["src/payments/**"], keywords: ["payment"] })).status,
    ).toBe(200);
    for (const op of ["publish", "activate"]) expect((await onA.post(`/web/orgs/current/expertises/${id}/${op}`)).status).toBe(200);
    expect((await onA.post(`/web/projects/${projectId}/talents`, { talent: ref })).status).toBe(201);
    expect(await within(2000, listed)).not.toBeNull();
  }, 30_000);

  test("replica B killed (SIGKILL): the next 50 requests through the balancer are all answered, by A", async () => {
    expect(await b.kill("SIGKILL")).not.toBe(0);
    const agent = new Client(owner.base, owner.origin, { authorization: `Bearer ${agentKey}` });
    const from = lb.answered.length;
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const r =
        i % 5 === 0 ? await agent.post("/api/prepare-task", { talentIds: ["typescript-strict"] }) : await agent.get("/api/catalog?limit=1");
      statuses.push(r.status);
    }
    expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect(new Set(lb.answered.slice(from))).toEqual(new Set([0]));
    expect((await fetch(`${a.base}/readyz`)).status).toBe(200);
  }, 60_000);
});
