/** Test helpers: temp folders, a real libSQL file per test file, the app over app.handle. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import LibsqlDatabase from "libsql";
import { createApp, type AppState } from "../src/app";
import { buildCatalog, type Catalog } from "../src/catalog/catalog";
import { sourcesFromFlat } from "../src/catalog/load";
import { specializationSourcesFromFlat } from "../src/catalog/specializations";
import { loadConfig, type Config } from "../src/config";
import { openDatabase, type Database } from "../src/db/client";
import { migrateDatabase } from "../src/db/migratePg";
import { embeddedTalents } from "../src/embedded";
import { createLogger, type Logger } from "../src/lib/log";
import { pgDatabase } from "./pg-support";

export const ROOT = join(import.meta.dir, "..");
export const BUN = process.execPath;

/** A fresh temp folder, removed by the returned cleanup. */
export function tempDir(prefix = "talentd-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `files` (relative path → content) under `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

let shippedCatalog: Catalog | undefined;
/** The shipped catalog, built once per test process. */
export function shipped(): Catalog {
  shippedCatalog ??= buildCatalog(sourcesFromFlat(embeddedTalents()), [], {}, specializationSourcesFromFlat(embeddedTalents())).catalog;
  return shippedCatalog;
}

export interface TestEnv {
  app: ReturnType<typeof createApp>;
  database: Database;
  config: Config;
  state: AppState;
  logs: string[];
  dir: string;
  /** Calls the app with a path relative to the base URL. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): void;
}

/**
 * A real database file in a temp folder, migrated, with the app composed over it. With
 * TEST_DATABASE=postgres, a new database on the test cluster instead (test/pg-support.ts): how a
 * test file is run against PostgreSQL (docs/operations.md "PostgreSQL").
 */
export async function testEnv(env: Record<string, string> = {}, catalog: Catalog = shipped()): Promise<TestEnv> {
  const { dir, cleanup: removeDir } = tempDir();
  const pg = process.env.TEST_DATABASE === "postgres" && !env.DATABASE_URL ? await pgDatabase("env") : null;
  const cleanup = () => {
    removeDir();
    pg?.drop();
  };
  const config = loadConfig(
    { DATA_DIR: dir, BASE_URL: "http://localhost:8787", ...(pg ? { DATABASE_URL: pg.url } : {}), ...env },
    {},
    { checkDataDir: true },
  );
  const database = await openDatabase(config.databaseUrl);
  await migrateDatabase(database);
  const logs: string[] = [];
  const log: Logger = createLogger("debug", (line) => logs.push(line));
  const state: AppState = { catalog, draining: false };
  const app = createApp({ config, database, log, state });
  return {
    app,
    database,
    config,
    state,
    logs,
    dir,
    request: (path, init) => app.handle(new Request(config.baseUrl + path, init)),
    close: () => {
      database.close();
      cleanup();
    },
  };
}

/** A minimal valid TALENT.md, with front matter fields overridable. */
export function talentMd(id: string, over: Record<string, string> = {}, body = "Do the thing well."): string {
  const fields: Record<string, string> = {
    id,
    title: `Title of ${id}`,
    summary: `Covers ${id}. Designate when the task touches ${id}.`,
    version: "1.0.0",
    roles: "[backend]",
    languages: "[typescript]",
    triggers: '{ files: ["**/*.ts"], keywords: [' + id.split("-")[0] + "] }",
    requires: "[]",
    conflicts: "[]",
    budget: "800",
    rules: `
  - id: AB-001
    severity: blocking
    title: Do the first thing.
    check: Look for the first thing.
  - id: AB-002
    severity: advisory
    title: Do the second thing.
    check: Look for the second thing.
  - id: AB-003
    severity: advisory
    title: Do the third thing.
    check: Look for the third thing.`,
    tests: `
  - rule: AB-001
    pass: "good()"
    fail: "bad()"`,
    ...over,
  };
  const yaml = Object.entries(fields)
    .filter(([, v]) => v !== "__omit__")
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
  return `---\n${yaml}\n---\n${body}\n`;
}

/** Runs the CLI from source in `cwd` and returns exit code and output. */
export async function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}) {
  const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...opts.env },
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * Waits one event-loop turn: what separates a commit that was acknowledged from the next
 * request over a socket. The data version hot-path caches are keyed by is read at most once a
 * turn (db/client.ts); `app.handle` starts a request in the caller's turn, so a test that
 * commits from outside the app (another connection or process) and then calls the app must
 * wait as a real client would.
 */
export const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A browser-like client over app.handle: keeps the session cookie, sends a same-origin Origin. */
export class WebClient {
  cookie: string | null = null;
  constructor(
    readonly env: TestEnv,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { origin: new URL(this.env.config.baseUrl).origin, ...this.extraHeaders, ...headers };
    if (this.cookie) h.cookie = this.cookie;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      h["content-type"] = "application/json";
    }
    const r = await this.env.request(path, { method, headers: h, body: payload });
    const set = r.headers.get("set-cookie");
    if (set) {
      // the name as set: talentd_session, or __Host-talentd_session under an https BASE_URL
      const m = /((?:__Host-)?talentd_session)=([^;]*)/.exec(set);
      if (m) this.cookie = m[2] ? `${m[1]}=${m[2]}` : null;
    }
    return r;
  }

  /** Calls and parses JSON, returning status and body. */
  async json(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; res: Response }> {
    const res = await this.call(method, path, body, headers);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, res };
  }

  get = (path: string) => this.json("GET", path);
  post = (path: string, body?: unknown) => this.json("POST", path, body ?? {});
  patch = (path: string, body?: unknown) => this.json("PATCH", path, body ?? {});
  put = (path: string, body?: unknown) => this.json("PUT", path, body ?? {});
  del = (path: string) => this.json("DELETE", path);
}

let userSeq = 0;
/** Signs up a new user; returns the client and the user's e-mail. */
export async function signedUp(
  env: TestEnv,
  email = `user${++userSeq}-${Date.now()}@example.com`,
): Promise<WebClient & { email: string; userId: string }> {
  const c = new WebClient(env) as WebClient & { email: string; userId: string };
  const r = await c.post("/api/auth/sign-up", { email, password: "correct horse battery" });
  if (r.status !== 201)
    throw new Error(
      `sign-up failed: ${JSON.stringify(r.body)}${r.status >= 500 ? ` — the server logged: ${env.logs.filter((l) => l.includes('"level":"error"')).slice(-1)[0] ?? "nothing"}` : ""}`,
    );
  c.email = email;
  c.userId = r.body.user.id;
  return c;
}

/**
 * Verifies a signed-up account's address the way its holder does: the sign-up's mailed link,
 * confirmed by its button (an accepted invitation proves nothing: docs/design.md "An invitation
 * link never vouches for an address"). Returns the client.
 */
export async function verifiedByMail<C extends WebClient & { email: string }>(env: TestEnv, c: C): Promise<C> {
  const mail = await env.database.client.execute({
    sql: "SELECT body FROM mail_outbox WHERE to_address = ? AND kind = 'email_verification' ORDER BY created_at DESC LIMIT 1",
    args: [c.email],
  });
  const token = /\/verify-email\?token=([0-9A-Za-z]+)/.exec(String(mail.rows[0]?.body ?? ""))?.[1];
  if (!token) throw new Error(`no verification mail for ${c.email}`);
  const r = await c.post("/api/auth/verify-email", { token });
  if (r.status !== 200) throw new Error(`verifying ${c.email} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return c;
}

/** Makes a user a platform admin directly in the database. */
export async function makePlatformAdmin(env: TestEnv, userId: string): Promise<void> {
  await env.database.client.execute({ sql: "UPDATE users SET role = 'admin' WHERE id = ?", args: [userId] });
  await nextTurn(); // a commit from outside the app: the next request comes in a later turn, as a real one would
}

/** A user with an approved organization (approved by a platform admin) and a project. */
export async function orgWithProject(env: TestEnv, name = `Org ${++userSeq}`) {
  const owner = await signedUp(env);
  const org = (await owner.post("/web/orgs", { name })).body.organization;
  await env.database.client.execute({ sql: "UPDATE organizations SET status = 'approved' WHERE id = ?", args: [org.id] });
  await nextTurn();
  const project = (await owner.post("/web/projects", { name: `${name} project` })).body.project;
  return { owner, org, project };
}

/**
 * Proves an organization's SSO domains the way a platform administrator does (the approval
 * route), for tests whose subject is what a proven domain does; test/identity/sso.domains.test.ts proves
 * them through DNS.
 */
export async function approveSsoDomains(env: TestEnv, organizationId: string, domains: string[]): Promise<void> {
  const admin = await signedUp(env);
  await makePlatformAdmin(env, admin.userId);
  for (const domain of domains) {
    const r = await admin.post(`/web/admin/sso-domains/${organizationId}/${domain}/approve`);
    if (r.status !== 200) throw new Error(`approving ${domain} failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** Invites a user (a new one unless given) into the owner's active organization and accepts; returns the member's client. */
export async function joinedMember(env: TestEnv, owner: WebClient, member?: WebClient & { email: string; userId: string }) {
  const m = member ?? (await signedUp(env));
  const inv = (await owner.post("/web/orgs/current/invitations", { email: m.email })).body;
  const accepted = await m.post(`/web/invitations/${inv.id}/accept`);
  if (accepted.status >= 300) throw new Error(`accepting the invitation failed: ${JSON.stringify(accepted.body)}`);
  return m;
}

/** Creates a key on a project through the web route; returns value and record. */
export async function createKey(client: WebClient, projectId: string, tools: string[], extra: Record<string, unknown> = {}) {
  const r = await client.post(`/web/projects/${projectId}/keys`, { name: `key ${tools.join("+")}`, tools, ...extra });
  if (r.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(r.body)}`);
  return r.body as { key: { id: string }; value: string };
}

/**
 * Posts a form as a browser without JavaScript does (form-encoded, HTML accepted, same origin unless `headers` say otherwise);
 * `c` null: signed out; fields as pairs when a name repeats (checkboxes).
 */
export async function formPost(
  env: TestEnv,
  c: WebClient | null,
  path: string,
  fields: Record<string, string> | [string, string][],
  headers: Record<string, string> = {},
) {
  const r = await env.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
      origin: new URL(env.config.baseUrl).origin,
      ...(c ? { cookie: c.cookie! } : {}),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
  return {
    status: r.status,
    location: r.headers.get("location"),
    setCookie: r.headers.get("set-cookie"),
    html: await r.text(),
    headers: r.headers,
  };
}

/**
 * Sends a form as htmx does (form-encoded, `HX-Request: true`, same origin, signed in as `c`) with `method`:
 * the JSON route's answer to a dashboard form, a fragment or a refusal retargeted to #flash.
 */
export async function htmxForm(env: TestEnv, c: WebClient, method: string, path: string, fields: Record<string, string>) {
  const r = await env.request(path, {
    method,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(env.config.baseUrl).origin,
      cookie: c.cookie!,
      "hx-request": "true",
    },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: r.status, headers: r.headers, html: await r.text() };
}

/** Calls the key API with a bearer. */
export function withKey(env: TestEnv, key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return env.request(path, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });
}

/** A valid expertise TALENT.md (three rules on payments, requires typescript-strict), as tests author one. */
export function expertiseMd(slug: string, body: string, prefix = "PAY"): string {
  return talentMd(
    slug,
    {
      title: `Payments ${slug}`,
      summary: `How we move money in ${slug}. Designate for any change to payment code.`,
      requires: "[typescript-strict]",
      rules: `
  - { id: ${prefix}-001, severity: blocking, title: Amounts are integers in minor units., check: Look for floats holding money. }
  - { id: ${prefix}-002, severity: blocking, title: Every charge carries an idempotency key., check: Look for charge calls without idempotencyKey. }
  - { id: ${prefix}-003, severity: advisory, title: Log the payment id at each step., check: Look for log lines without paymentId. }`,
      tests: `
  - { rule: ${prefix}-001, pass: "amountCents: 1299", fail: "amount: 12.99" }
  - { rule: ${prefix}-002, pass: "charge({ idempotencyKey })", fail: "charge({})" }`,
    },
    body,
  );
}

/** Creates an expertise in the owner's active organization, confirms triggers, publishes v1 and activates it. */
export async function publishedExpertise(owner: WebClient, orgSlug: string, slug: string): Promise<{ id: string; ref: string }> {
  const created = await owner.post("/web/orgs/current/expertises", {
    slug,
    content: expertiseMd(slug, `Use the ledger. See [the runbook](talent://@${orgSlug}/${slug}/runbook.md).`),
    files: { "runbook.md": "# Runbook\nv1 runbook\n" },
  });
  if (created.status !== 201) throw new Error(`expertise creation failed: ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  for (const [path, body] of [
    [`/web/orgs/current/expertises/${id}/triggers`, { files: ["src/payments/**"], keywords: ["payment"] }],
  ] as const) {
    const r = await owner.put(path, body);
    if (r.status !== 200) throw new Error(`triggers: ${JSON.stringify(r.body)}`);
  }
  for (const op of ["publish", "activate"]) {
    const r = await owner.post(`/web/orgs/current/expertises/${id}/${op}`);
    if (r.status !== 200) throw new Error(`${op}: ${JSON.stringify(r.body)}`);
  }
  return { id, ref: `@${orgSlug}/${slug}` };
}

/**
 * Creates, confirms triggers of, publishes and activates an expertise of the owner's active
 * organization; `content` is a TALENT.md or a SKILL.md text. Returns its id and `@org/slug`.
 */
export async function publishedExpertiseOf(
  owner: WebClient,
  slug: string,
  content: string,
  files: Record<string, string> = {},
): Promise<{ id: string; ref: string }> {
  const base = "/web/orgs/current/expertises";
  const created = await owner.post(base, { slug, content, files });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const id = created.body.id as string;
  for (const [method, path, body] of [
    ["PUT", `${base}/${id}/triggers`, { files: ["src/payments/**"], keywords: ["refund"] }],
    ["POST", `${base}/${id}/publish`, {}],
    ["POST", `${base}/${id}/activate`, {}],
  ] as const) {
    const r = await owner.json(method, path, body);
    if (r.status !== 200) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  }
  return { id, ref: created.body.ref as string };
}

/**
 * The query plan of `sql` (EXPLAIN QUERY PLAN's detail lines), read on a connection of its own,
 * closed after. Never through `database.client`: @libsql/client leaves an EXPLAIN's read
 * snapshot open on the pooled connection, and the next write transaction handed that connection
 * fails with SQLITE_BUSY_SNAPSHOT at once once anything else has committed (the intermittent
 * 500s on every sign-up of activity.test.ts).
 */
export function queryPlan(database: Database, sql: string, args: unknown[] = []): string[] {
  const conn = new LibsqlDatabase(database.path!);
  try {
    return (conn.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => String(r.detail));
  } finally {
    conn.close();
  }
}

/** The text of the element with `id` in an HTML page (its tags dropped, entities of quotes read), or null when it is not there or hidden. */
export function textOfId(html: string, id: string): string | null {
  const m = new RegExp(`<([a-z]+)[^>]* id="${id}"([^>]*)>([\\s\\S]*?)</\\1>`).exec(html);
  if (!m || /\bhidden\b/.test(m[2]!)) return null;
  return m[3]!
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .trim();
}
