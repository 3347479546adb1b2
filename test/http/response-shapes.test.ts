/**
 * Every JSON answer is built from declared fields: the OpenAPI document (src/http/openapi.ts)
 * declares each route's success answer, and this suite calls every declared route with a real
 * state (an owner who is a platform administrator, an organization, a project, a key with every
 * scope, installed talents, a resolution and a report, a published expertise, a custom
 * specialization, SSO, code hosting, an invitation, a second member) and walks each JSON answer
 * against its declared schema: a key the schema does not list fails with the route and the key
 * path (a database driver's `_metadata`, a column spread from a row). A route the document
 * declares no answer for fails too, and so does a route this suite does not call without a
 * written reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/lib/crypto";
import { selfSignedCert } from "../cert-support";
import { expertiseMd, makePlatformAdmin, nextTurn, orgWithProject, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

type Schema = Record<string, any>;
let env: TestEnv;
let doc: {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
};

const ALL_SCOPES = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/**
 * Routes not called here, with why. Each is still declared in the document; what they answer is
 * a redirect or bytes, or producing a success needs an identity provider on the network.
 */
const NOT_CALLED: Record<string, string> = {
  "GET /api/auth/oauth/{provider}": "a 302 to an external identity provider, no JSON body",
  "GET /api/auth/oauth/{provider}/callback": "a 303 redirect, no JSON body",
  "GET /api/auth/sso/{domain}": "a 302 to the organization's IdP, no JSON body",
  "GET /api/auth/sso/oidc/callback": "a 303 redirect, no JSON body",
  "POST /api/auth/saml/{orgId}/acs": "a 303 redirect, no JSON body",
  "GET /api/auth/saml/{orgId}/metadata": "SAML metadata, XML",
  "GET /web/orgs/current/audit-log/export": "JSON lines or CSV, streamed (test/audit/audit-export.test.ts)",
};

interface Answer {
  route: string;
  status: number;
  body: unknown;
  type: string;
}
const answers: Answer[] = [];

/** Calls a route as `client` and keeps the answer for the walk below; returns the parsed body. */
async function call(client: WebClient, route: string, path: string, body?: unknown): Promise<any> {
  const method = route.split(" ")[0]!;
  const res = await client.call(method, path, body === undefined && method !== "GET" ? {} : body);
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const parsed = type.includes("json") && text ? JSON.parse(text) : text;
  answers.push({ route, status: res.status, body: parsed, type });
  return parsed;
}

/**
 * What in `value` its declared `schema` does not allow: a key not among the properties (unless
 * additionalProperties says so), an object or array whose schema declares neither properties nor
 * items, a value of another type. Each problem names the key path from `at`.
 */
function shapeProblems(value: unknown, schema: Schema, at: string, defs: Record<string, Schema>): string[] {
  if (schema.$ref) return shapeProblems(value, defs[String(schema.$ref).split("/").pop()!]!, at, defs);
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) {
    const tried = alternatives.map((s) => shapeProblems(value, s, at, defs)).sort((a, b) => a.length - b.length);
    return tried[0]!.length === 0 ? [] : tried[0]!;
  }
  const types = [schema.type].flat().filter(Boolean) as string[];
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (types.length > 0 && !types.includes(actual) && !(actual === "integer" && types.includes("number")))
    return [`${at}: a ${actual}, declared ${types.join(" or ")}`];
  if (Array.isArray(value)) {
    if (!schema.items) return [`${at}: an array without declared items`];
    return value.flatMap((v, i) => shapeProblems(v, schema.items, `${at}[${i}]`, defs));
  }
  if (actual !== "object") return [];
  const extra = schema.additionalProperties;
  if (!schema.properties && typeof extra !== "object" && extra !== true) return [`${at}: an object without declared properties`];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    const declared = schema.properties?.[k] ?? (typeof extra === "object" ? extra : undefined);
    if (declared) return shapeProblems(v, declared, `${at}.${k}`, defs);
    return extra === true ? [] : [`${at}.${k}: not declared`];
  });
}

/** The declared JSON schema of a route's answer with `status`, or why there is none. */
function declared(route: string, status: number): Schema | string {
  const [method, path] = route.split(" ") as [string, string];
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) return "not in the OpenAPI document";
  const schema = op.responses[String(status)]?.content?.["application/json"]?.schema;
  return schema ?? `no JSON answer declared for ${status}`;
}

beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false", SMTP_URL: "smtp://127.0.0.1:9" }); // a closed port: mails wait in the outbox
  doc = await (await env.request("/openapi.json")).json();
});
afterAll(() => env.close());

/** Builds the state and calls every route once, in an order where each finds what it needs (deletions last). */
async function callEveryRoute(): Promise<void> {
  // ---- authentication
  const anon = new WebClient(env);
  const c1 = new WebClient(env);
  const email = "shapes-auth@example.com";
  const signUp = await call(c1, "POST /api/auth/sign-up", "/api/auth/sign-up", { email, password: "correct horse battery" });
  const c2 = new WebClient(env);
  await call(c2, "POST /api/auth/sign-in", "/api/auth/sign-in", { email, password: "correct horse battery" });
  await call(c2, "POST /api/auth/sign-out", "/api/auth/sign-out");
  await call(c1, "POST /api/auth/verify-email/resend", "/api/auth/verify-email/resend");
  const verifyToken = "shapesVerifyToken0123456789";
  await env.database.client.execute({
    sql: "INSERT INTO email_verifications (token_hash, user_id, email, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
    args: [sha256Hex(verifyToken), signUp.user.id, email, Date.now() + 600_000, Date.now()],
  });
  await nextTurn();
  await call(anon, "POST /api/auth/verify-email", "/api/auth/verify-email", { token: verifyToken });
  await call(c1, "POST /api/auth/change-password", "/api/auth/change-password", {
    currentPassword: "correct horse battery",
    newPassword: "another horse battery",
  });
  await call(anon, "POST /api/auth/password-reset", "/api/auth/password-reset", { email });
  const token = "shapesResetToken0123456789";
  await env.database.client.execute({
    sql: "INSERT INTO password_resets (token_hash, user_id, expires_at, created_at) VALUES (?, ?, ?, ?)",
    args: [sha256Hex(token), signUp.user.id, Date.now() + 600_000, Date.now()],
  });
  await nextTurn();
  await call(anon, "POST /api/auth/password-reset/confirm", "/api/auth/password-reset/confirm", {
    token,
    password: "a third horse battery",
  });

  // ---- the person's own account
  const me = await signedUp(env);
  const elsewhere = new WebClient(env);
  await elsewhere.post("/api/auth/sign-in", { email: me.email, password: "correct horse battery" });
  await call(me, "PATCH /web/account", "/web/account", { name: "Shapes" });
  await call(me, "POST /web/account/verification", "/web/account/verification");
  const mine = await call(elsewhere, "GET /web/account", "/web/account");
  await call(
    me,
    "DELETE /web/account/sessions/{sessionId}",
    `/web/account/sessions/${mine.sessions.find((s: { current: boolean }) => s.current).id}`,
  );
  await call(me, "POST /web/account/sessions/sign-out-others", "/web/account/sessions/sign-out-others");
  const change = {
    currentPassword: "correct horse battery",
    newPassword: "another horse battery",
    repeatPassword: "another horse battery",
  };
  await call(me, "POST /web/account/password", "/web/account/password", change);

  // ---- organizations
  const { owner, org, project } = await orgWithProject(env, "Shapes");
  await call(owner, "GET /api/auth/session", "/api/auth/session");
  const second = await call(owner, "POST /web/orgs", "/web/orgs", { name: "Shapes two" });
  await makePlatformAdmin(env, owner.userId);
  await call(owner, "POST /web/orgs/active", "/web/orgs/active", { organizationId: org.id });
  await call(owner, "GET /web/orgs", "/web/orgs");
  await call(owner, "GET /web/orgs/current/status", "/web/orgs/current/status");
  const member = await signedUp(env);
  const inv = await call(owner, "POST /web/orgs/current/invitations", "/web/orgs/current/invitations", { email: member.email });
  await call(member, "POST /web/invitations/{id}/accept", `/web/invitations/${inv.id}/accept`);
  const pending = await call(owner, "POST /web/orgs/current/invitations", "/web/orgs/current/invitations", {
    email: "pending@example.com",
    role: "admin",
  });
  await call(owner, "GET /web/orgs/current/invitations", "/web/orgs/current/invitations");
  await call(owner, "POST /web/orgs/current/invitations/{id}/resend", `/web/orgs/current/invitations/${pending.id}/resend`);
  const mail = await call(owner, "GET /web/orgs/current/mail", "/web/orgs/current/mail");
  await call(owner, "POST /web/orgs/current/mail/{id}/retry", `/web/orgs/current/mail/${mail.mails?.[0]?.id}/retry`);
  await call(owner, "GET /web/orgs/current/members", "/web/orgs/current/members");
  await call(owner, "PATCH /web/orgs/current/members/{userId}", `/web/orgs/current/members/${member.userId}`, { role: "admin" });
  const saml = { entryPoint: "http://127.0.0.1:9/sso", idpIssuer: "urn:shapes-idp", idpCert: selfSignedCert("shapes-idp").cert };
  await call(owner, "POST /web/orgs/current/sso", "/web/orgs/current/sso", { type: "saml", domains: ["shapes.example"], saml });
  await call(owner, "GET /web/orgs/current/sso", "/web/orgs/current/sso");
  await call(owner, "GET /web/admin/sso-domains", "/web/admin/sso-domains");
  await call(owner, "POST /web/admin/sso-domains/{orgId}/{domain}/approve", `/web/admin/sso-domains/${org.id}/shapes.example/approve`);
  await call(owner, "POST /web/orgs/current/sso/domains/{domain}/verify", "/web/orgs/current/sso/domains/shapes.example/verify");
  await call(owner, "POST /web/orgs/current/sso/enterprise", "/web/orgs/current/sso/enterprise", { enabled: false });
  await call(owner, "POST /web/orgs/current/sso/test", "/web/orgs/current/sso/test");
  await call(owner, "PUT /web/orgs/current/code-hosting", "/web/orgs/current/code-hosting", {
    provider: "github",
    url: "https://github.com/acme/shapes",
  });
  await call(owner, "GET /web/orgs/current/code-hosting", "/web/orgs/current/code-hosting");
  await call(owner, "PUT /web/orgs/current/policy", "/web/orgs/current/policy", { requiredTalents: [], allowedTalents: null });
  await call(owner, "GET /web/orgs/current/policy", "/web/orgs/current/policy");
  await call(owner, "POST /web/orgs/current/policy/hook-rules", "/web/orgs/current/policy/hook-rules", { rule: "TS-005", choice: "block" });
  await call(owner, "DELETE /web/orgs/current/policy/hook-rules/{rule}", "/web/orgs/current/policy/hook-rules/TS-005");
  await call(owner, "GET /web/admin/organizations", "/web/admin/organizations");
  await call(owner, "POST /web/admin/organizations/{id}/{operation}", `/web/admin/organizations/${second.organization.id}/approve`);
  await call(owner, "GET /web/admin/users", "/web/admin/users");
  const spare = await signedUp(env);
  await call(owner, "PATCH /web/admin/users/{id}", `/web/admin/users/${spare.userId}`, { disabled: true, role: "admin" });
  await call(owner, "DELETE /web/admin/users/{id}", `/web/admin/users/${spare.userId}`);
  await call(owner, "GET /web/admin/backups", "/web/admin/backups");
  await call(owner, "GET /web/admin/security-events", "/web/admin/security-events");
  await call(owner, "GET /web/orgs/current/audit-log", "/web/orgs/current/audit-log?limit=2");

  // ---- expertises
  const base = "/web/orgs/current/expertises";
  const exp = await call(owner, `POST ${base}`, base, {
    slug: "shapes-pay",
    content: expertiseMd("shapes-pay", "Use the ledger."),
    files: { "runbook.md": "# Runbook\n" },
  });
  const one = await call(owner, `GET ${base}/{id}`, `${base}/${exp.id}`);
  await call(owner, `PATCH ${base}/{id}`, `${base}/${exp.id}`, {
    expectedRevision: one.expertise?.revision ?? one.revision ?? 1,
    content: expertiseMd("shapes-pay", "Use the ledger, always."),
  });
  await call(owner, `POST ${base}/{id}/trigger-proposal`, `${base}/${exp.id}/trigger-proposal`);
  await call(owner, `PUT ${base}/{id}/triggers`, `${base}/${exp.id}/triggers`, { files: ["src/payments/**"], keywords: ["payment"] });
  for (const op of ["publish", "activate", "deactivate", "reactivate"])
    await call(owner, `POST ${base}/{id}/${op}`, `${base}/${exp.id}/${op}`);
  await call(owner, `GET ${base}/{id}/versions/{version}`, `${base}/${exp.id}/versions/1`);
  await call(owner, `GET ${base}`, base);
  await call(owner, `POST ${base}/import`, `${base}/import`, {
    files: [{ path: ".cursor/rules/api.mdc", content: "---\nglobs: src/api/**\n---\n# API\n- Use the ledger.\n" }],
  });

  // ---- catalog and specializations
  await call(owner, "GET /web/catalog", "/web/catalog?limit=5");
  await call(owner, "GET /web/catalog/facets", "/web/catalog/facets");
  await call(owner, "GET /web/catalog/{talentId}", "/web/catalog/typescript-strict");
  await call(owner, "GET /web/specializations", "/web/specializations");
  const spec = await call(owner, "POST /web/specializations", "/web/specializations", {
    name: "Shapes stack",
    talents: ["typescript-strict"],
  });
  const specId = spec.specialization?.id ?? spec.id;
  await call(owner, "GET /web/specializations/{id}", `/web/specializations/${specId}`);
  await call(owner, "PATCH /web/specializations/{id}", `/web/specializations/${specId}`, { description: "For the shapes test." });
  const dup = await call(owner, "POST /web/specializations/{id}/duplicate", `/web/specializations/${specId}/duplicate`, {
    name: "Shapes copy",
  });
  await call(owner, "GET /web/search", "/web/search?q=shapes");

  // ---- projects
  const p = `/web/projects/${project.id}`;
  await call(owner, "GET /web/projects", "/web/projects");
  const extra = await call(owner, "POST /web/projects", "/web/projects", { name: "Shapes extra", description: "deleted at the end" });
  await call(owner, "GET /web/projects/{id}", p);
  await call(owner, "PATCH /web/projects/{id}", p, { description: "The shapes project." });
  await call(owner, "POST /web/projects/{id}/talents", `${p}/talents`, {
    talents: ["typescript-strict", "javascript-base", `@${org.slug}/shapes-pay`],
  });
  const created = await call(owner, "POST /web/projects/{id}/keys", `${p}/keys`, { name: "shapes", tools: ALL_SCOPES });
  await call(owner, "GET /web/projects/{id}/keys", `${p}/keys`);
  await call(owner, "GET /web/projects/{id}/installed", `${p}/installed`);
  await call(owner, "POST /web/projects/{id}/apply-specialization", `${p}/apply-specialization`, { specializationId: specId });

  // ---- the key API
  const key = new WebClient(env, { authorization: `Bearer ${created.value}` });
  await call(key, "GET /api/catalog", "/api/catalog?limit=3");
  await call(key, "GET /api/prepare-task/designable", "/api/prepare-task/designable");
  const prep = await call(key, "POST /api/prepare-task", "/api/prepare-task", {
    talentIds: ["typescript-strict", `@${org.slug}/shapes-pay`],
  });
  const rid = prep.resolutionId;
  await call(key, "GET /api/validation/playbook", `/api/validation/playbook?resolutionId=${rid}`);
  await call(key, "POST /api/validation/reports", "/api/validation/reports", {
    submissionId: "shapes-1",
    resolutionId: rid,
    expertiseResults: [{ id: `@${org.slug}/shapes-pay`, verdict: "pass", evidence: ["src/pay.ts:1"] }],
  });
  await call(key, "POST /api/findings", "/api/findings", { resolutionId: rid, counts: { "typescript-strict": { "TS-002": 1 } } });
  await call(key, "GET /api/hook-rules", "/api/hook-rules");
  await call(key, "PUT /api/hook-rules", "/api/hook-rules", { rules: { "TS-005": "advise" } });
  await call(key, "GET /api/resolutions", "/api/resolutions?limit=5");
  const arm = { runs: 1, findingsPerRun: 1, findingsSpread: { min: 1, max: 1 }, checkPassRate: null };
  await call(key, "POST /api/evals", "/api/evals", {
    runsPerArm: 1,
    tasks: [{ id: "t", talents: ["typescript-strict"] }],
    runs: [{ task: "t", arm: "without", run: 1, findings: { "TS-005": 1 }, check: null, durationMs: 5, invoked: false, timedOut: false }],
    effects: [{ talent: "typescript-strict", with: arm, without: arm, neverInvoked: 0 }],
  });
  await call(key, "GET /api/search", "/api/search?query=strict");
  await call(key, "POST /api/talents/get", "/api/talents/get", { uri: "talent://typescript-strict" });
  await call(key, "GET /api/doctor", "/api/doctor?include=selection");
  await call(key, "GET /api/discovery/playbook", "/api/discovery/playbook");
  await call(key, "PATCH /api/projects/{id}/talents", `/api/projects/${project.id}/talents`, { talent: "sql-base" });
  await call(key, "GET /api/skills", "/api/skills?limit=3");
  const skill = encodeURIComponent("skill://typescript-strict/SKILL.md");
  await call(key, "GET /api/skills/entry", `/api/skills/entry?uri=${skill}`);
  await call(key, "GET /api/skills/directory", `/api/skills/directory?uri=${encodeURIComponent("skill://typescript-strict")}`);
  await call(key, "GET /api/skills/file", `/api/skills/file?uri=${skill}`);

  // ---- activity and project settings
  await call(owner, "GET /web/projects/{id}/traces/summary", `${p}/traces/summary`);
  await call(owner, "GET /web/projects/{id}/talents/{talentId}/usage", `${p}/talents/typescript-strict/usage`);
  await call(owner, "GET /web/activity/summary", "/web/activity/summary");
  await call(owner, "GET /web/orgs/current/insights", "/web/orgs/current/insights");
  await call(owner, "GET /web/orgs/current/talent-adoption", "/web/orgs/current/talent-adoption");
  await call(owner, "GET /web/projects/{id}/rules", `${p}/rules`);
  await call(owner, "GET /web/orgs/current/rules", "/web/orgs/current/rules");
  await call(owner, "GET /web/projects/{id}/traces", `${p}/traces?limit=5`);
  await call(owner, "GET /web/projects/{id}/resolutions/{resolutionId}/reports", `${p}/resolutions/${rid}/reports`);
  await call(owner, "GET /web/projects/{id}/relevance", `${p}/relevance`);
  await call(owner, "PUT /web/projects/{id}/relevance", `${p}/relevance`, {
    languages: ["typescript"],
    roles: ["backend"],
    paths: ["src/**"],
    exclude: [],
  });
  await call(owner, "GET /web/projects/{id}/hook-rules", `${p}/hook-rules`);
  await call(owner, "PUT /web/projects/{id}/hook-rules", `${p}/hook-rules`, { rules: { "TS-005": "off" } });
  await call(owner, "GET /web/projects/{id}/evals", `${p}/evals`);
  await call(owner, "GET /web/projects/{id}/setup", `${p}/setup`);
  await call(owner, "POST /web/projects/{id}/token", `${p}/token`);
  await call(owner, "GET /web/projects/{id}/validator-config", `${p}/validator-config?target=github`);
  await call(owner, "POST /web/projects/{id}/file", `${p}/file`, { uri: "talent://typescript-strict" });
  await call(owner, "PATCH /web/projects/{id}/talents/{talentId}", `${p}/talents/javascript-base`, { enabled: false });

  // ---- deletions
  await call(owner, "DELETE /web/projects/{id}/relevance", `${p}/relevance`);
  await call(owner, "DELETE /web/projects/{id}/talents/{talentId}", `${p}/talents/javascript-base`);
  await call(owner, "DELETE /web/projects/{id}/keys/{keyId}", `${p}/keys/${created.key.id}`);
  await call(owner, "DELETE /web/projects/{id}", `/web/projects/${extra.project.id}`);
  await call(owner, "DELETE /web/specializations/{id}", `/web/specializations/${dup.specialization?.id ?? dup.id}`);
  await call(owner, `DELETE ${base}/{id}`, `${base}/${exp.id}`);
  await call(owner, "DELETE /web/orgs/current/code-hosting", "/web/orgs/current/code-hosting");
  await call(owner, "DELETE /web/orgs/current/sso", "/web/orgs/current/sso");
  await call(owner, "DELETE /web/orgs/current/invitations/{id}", `/web/orgs/current/invitations/${pending.id}`);
  await call(owner, "DELETE /web/orgs/current/members/{userId}", `/web/orgs/current/members/${member.userId}`);
}

describe("every JSON answer is built from declared fields (OpenAPI is the declaration)", () => {
  test("every declared route is called (or skipped with a reason), succeeds, and answers only keys its declared schema lists", async () => {
    await callEveryRoute();
    const problems: string[] = [];
    for (const a of answers) {
      if (a.status >= 300) {
        problems.push(`${a.route}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)} (the suite's request should succeed)`);
        continue;
      }
      const schema = declared(a.route, a.status);
      if (typeof schema === "string") problems.push(`${a.route}: ${schema}`);
      else if (a.type.includes("json")) problems.push(...shapeProblems(a.body, schema, a.route, doc.components.schemas));
      else problems.push(`${a.route}: declared JSON, answered ${a.type}`);
    }
    const called = new Set(answers.map((a) => a.route));
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const route = `${method.toUpperCase()} ${path}`;
        if (!called.has(route) && !NOT_CALLED[route]) problems.push(`${route}: not called here, and no reason written in NOT_CALLED`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

describe("the declaration is complete", () => {
  test("every route of the document declares its success answer: a JSON schema with its fields, another media type, or a redirect", () => {
    const undeclared: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const [status, ok] = Object.entries(op.responses).find(([s]) => Number(s) < 400)!;
        if (Number(status) >= 300) continue; // a redirect: no body
        const content = ok.content ?? {};
        const schema = content["application/json"]?.schema;
        const declaresFields =
          schema && (schema.properties || schema.items || schema.$ref || schema.oneOf || typeof schema.additionalProperties === "object");
        if (Object.keys(content).length === 0 || ("application/json" in content && !declaresFields))
          undeclared.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});

describe("the walk itself", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "string" },
      list: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
      m: { type: "object", additionalProperties: { type: "integer" } },
    },
  };
  test("names an undeclared key with its path, at any depth, and a wrong type; accepts declared keys and map entries", () => {
    expect(shapeProblems({ a: "x", list: [{ id: "1" }], m: { any: 1 } }, schema, "GET /x", {})).toEqual([]);
    expect(shapeProblems({ a: "x", _metadata: { duration: 1 } }, schema, "GET /x", {})).toEqual(["GET /x._metadata: not declared"]);
    expect(shapeProblems({ list: [{ id: "1" }, { id: "2", secret: "s" }] }, schema, "GET /x", {})).toEqual([
      "GET /x.list[1].secret: not declared",
    ]);
    expect(shapeProblems({ a: 1, m: { k: "v" } }, schema, "GET /x", {})).toEqual([
      "GET /x.a: a integer, declared string",
      "GET /x.m.k: a string, declared integer",
    ]);
    expect(shapeProblems({ a: {} }, { type: "object", properties: { a: { type: "object" } } }, "GET /x", {})).toEqual([
      "GET /x.a: an object without declared properties",
    ]);
  });
});
