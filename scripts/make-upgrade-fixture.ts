/**
 * Writes test/fixtures/upgrade/previous-release.sql: a database made by the previous release's
 * migrations (0000–0002: talentd 0.1.0 before migration 0003_trace_keyset) and filled with real
 * data by the service itself, as `sqlite3 .dump` prints it. test/ops/upgrade.test.ts loads it and
 * upgrades it with the current binary's migrations; every row must survive.
 *
 * The file is frozen: it stands for databases already out there. Run this again only to make a
 * fixture for a new "previous release" (then change PREVIOUS below), from a checkout whose app
 * still runs on that schema:  bun scripts/make-upgrade-fixture.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../migrations";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { createLogger } from "../src/lib/log";
import { shipped, tempDir, WebClient, type TestEnv } from "../test/helpers";

/** The migrations of the previous release. */
const PREVIOUS = migrations.slice(0, 3);
const OUT = join(import.meta.dir, "..", "test", "fixtures", "upgrade", "previous-release.sql");

const { dir, cleanup } = tempDir("talentd-fixture-");
const config = loadConfig({ DATA_DIR: dir, BASE_URL: "http://localhost:8787" }, {}, { checkDataDir: true });
const database = await openDatabase(config.databaseUrl);
await migrate(database.client, PREVIOUS);
const log = createLogger("error", () => {});
const state = { catalog: shipped(), draining: false };
const app = createApp({ config, database, log, state });
const env = {
  app,
  database,
  config,
  state,
  logs: [],
  dir,
  request: (p: string, init?: RequestInit) => app.handle(new Request(config.baseUrl + p, init)),
  close() {},
} as TestEnv;

const ok = async (r: Promise<{ status: number; body: any }>, what: string) => {
  const x = await r;
  if (x.status >= 300) throw new Error(`${what}: ${x.status} ${JSON.stringify(x.body)}`);
  return x.body;
};

// people: an administrator (first user, promoted), an owner, a member
const admin = new WebClient(env);
await ok(
  admin.post("/api/auth/sign-up", { email: "admin@example.com", password: "correct horse battery", name: "Ada Admin" }),
  "sign-up admin",
);
await database.client.execute("UPDATE users SET role = 'admin' WHERE email = 'admin@example.com'");
const owner = new WebClient(env);
await ok(
  owner.post("/api/auth/sign-up", { email: "owner@example.com", password: "correct horse battery", name: "Olive Owner" }),
  "sign-up owner",
);
const member = new WebClient(env);
await ok(
  member.post("/api/auth/sign-up", { email: "member@example.com", password: "correct horse battery", name: "Max Member" }),
  "sign-up member",
);
await owner.post("/api/auth/sign-in", { email: "owner@example.com", password: "wrong password here" }); // a security event

// an organization approved by the administrator, a member joined by invitation, a pending invitation
const org = (await ok(owner.post("/web/orgs", { name: "Acme Payments" }), "org")).organization;
await ok(admin.post(`/web/admin/organizations/${org.id}/approve`), "approve");
const inv = await ok(owner.post("/web/orgs/current/invitations", { email: "member@example.com", role: "member" }), "invite");
await ok(member.post(`/web/invitations/${inv.id}/accept`), "accept");
await ok(owner.post("/web/orgs/current/invitations", { email: "later@example.com" }), "pending invitation");

// two projects, talents installed (one disabled), keys (one revoked)
const project = (await ok(owner.post("/web/projects", { name: "payments", description: "the payment service" }), "project")).project;
const other = (await ok(owner.post("/web/projects", { name: "website" }), "project 2")).project;
await ok(owner.post(`/web/projects/${project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] }), "install");
await ok(owner.post(`/web/projects/${other.id}/talents`, { talents: ["javascript-base"] }), "install 2");
await ok(owner.patch(`/web/projects/${other.id}/talents/javascript-base`, { enabled: false }), "disable");
const tools = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
const key = (await ok(owner.post(`/web/projects/${project.id}/keys`, { name: "ci", tools }), "key")).value as string;
const revoked = (await ok(owner.post(`/web/projects/${project.id}/keys`, { name: "old laptop", tools: ["doctor"] }), "key 2")).key;
await ok(owner.del(`/web/projects/${project.id}/keys/${revoked.id}`), "revoke");

// a private expertise, published and active, installed
const expertise = await ok(
  owner.post("/web/orgs/current/expertises", {
    slug: "ledger",
    content: [
      "---",
      "id: ledger",
      "title: Ledger rules",
      "summary: How money moves through the ledger. Designate for any change to payment code.",
      "version: 1.0.0",
      "roles: [backend]",
      "languages: [typescript]",
      'triggers: { files: ["src/payments/**"], keywords: [payment] }',
      "requires: [typescript-strict]",
      "conflicts: []",
      "budget: 800",
      "rules:",
      "  - { id: LED-001, severity: blocking, title: Amounts are integers in minor units., check: Look for floats holding money. }",
      "  - { id: LED-002, severity: advisory, title: Log the ledger id., check: Look for log lines without ledgerId. }",
      "  - { id: LED-003, severity: advisory, title: Name entries by their account., check: Look for anonymous entries. }",
      "tests:",
      '  - { rule: LED-001, pass: "amountCents: 1299", fail: "amount: 12.99" }',
      "---",
      "Use the ledger. See [the runbook](runbook.md).",
      "",
    ].join("\n"),
    files: { "runbook.md": "# Runbook\nReconcile nightly.\n" },
  }),
  "expertise",
);
await ok(
  owner.put(`/web/orgs/current/expertises/${expertise.id}/triggers`, { files: ["src/payments/**"], keywords: ["payment"] }),
  "triggers",
);
await ok(owner.post(`/web/orgs/current/expertises/${expertise.id}/publish`), "publish");
await ok(owner.post(`/web/orgs/current/expertises/${expertise.id}/activate`), "activate");

// the agent loop: install the expertise, prepare, playbook, reports (traces and last use follow)
const api = async (method: string, path: string, body?: unknown) => {
  const r = await app.handle(
    new Request(config.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const ref = `@${org.slug}/ledger`;
await api("PATCH", "/api/projects/current/talents", { talent: ref });
for (let i = 0; i < 3; i++) {
  const prep = await api("POST", "/api/prepare-task", { talentIds: [ref, "typescript-strict"] });
  await api("GET", `/api/validation/playbook?resolutionId=${prep.resolutionId}`);
  await api("POST", "/api/validation/reports", {
    submissionId: `fixture-${i}`,
    resolutionId: prep.resolutionId,
    expertiseResults: [
      {
        id: ref,
        verdict: i === 1 ? "fail" : "pass",
        ...(i === 1 ? { evidence: ["src/payments/charge.ts:12"], note: "amount: 12.99" } : {}),
      },
    ],
  });
}
await api("GET", "/api/doctor");
await api("GET", "/api/catalog?limit=5");

await new Promise((r) => setTimeout(r, 400)); // the trace journal flushes within 250 ms
await database.idle();
database.close();

const dump = Bun.spawnSync(["sqlite3", config.databaseUrl.slice("file:".length), ".dump"], { stdout: "pipe", stderr: "pipe" });
if (dump.exitCode !== 0) throw new Error(`sqlite3 .dump failed: ${dump.stderr.toString()}`);
mkdirSync(join(OUT, ".."), { recursive: true });
writeFileSync(
  OUT,
  `-- A database made by the migrations ${PREVIOUS.map((m) => m.tag).join(", ")} (the previous release) and filled by the\n` +
    `-- service itself; written by scripts/make-upgrade-fixture.ts with sqlite3 .dump. Frozen: do not edit.\n` +
    dump.stdout.toString(),
);
cleanup();
console.log(`wrote ${OUT}`);
