/**
 * The built-in authorization server (docs/api-oauth-mcp.md) over app.handle: discovery documents,
 * registration, the authorization request and consent, the token endpoint (PKCE S256 only,
 * resource binding, rotation and reuse detection), revocation, and how tokens are evaluated
 * on every call (audience, expiry, membership, approval, scope), each refusal with its code.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { s256 } from "../../src/oauth/grants";
import { createKey, orgWithProject, signedUp, testEnv, withKey, type TestEnv, type WebClient } from "../helpers";
import { formFields } from "../mcp-support";

let env: TestEnv;
let base: string;
beforeAll(async () => {
  env = await testEnv();
  base = env.config.baseUrl;
});
afterAll(() => env.close());

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const REDIRECT = "http://127.0.0.1:8976/callback";
const ALL_SCOPES = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
const sql = (q: string, args: (string | number)[] = []) => env.database.client.execute({ sql: q, args });

async function json(res: Response): Promise<{ status: number; body: any; res: Response }> {
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, res };
}

async function register(body: Record<string, unknown> = { client_name: "Agent", redirect_uris: [REDIRECT] }) {
  return json(
    await env.request("/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
}

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: s256(verifier) };
}

/** An authorization request's query, with defaults overridable (undefined drops a parameter). */
function authorizeQuery(p: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ response_type: "code", redirect_uri: REDIRECT, code_challenge_method: "S256", state: "xyz", ...p }))
    if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q}`;
}

const get = (path: string, who?: WebClient) => env.request(path, { headers: who?.cookie ? { cookie: who.cookie } : {} });
const postForm = (
  path: string,
  fields: Record<string, string>,
  who: WebClient | null,
  headers: Record<string, string> = { origin: new URL(base).origin },
) =>
  env.request(path, {
    method: "POST",
    headers: { ...FORM, ...(who?.cookie ? { cookie: who.cookie } : {}), ...headers },
    body: new URLSearchParams(fields).toString(),
  });

interface Grant {
  clientId: string;
  code: string;
  verifier: string;
  resource: string;
}

/** Registers a client, shows the consent page to `who`, posts it (minus `untick`), returns the code. */
async function grant(
  who: WebClient,
  projectId: string,
  opts: { untick?: string[]; scope?: string; clientId?: string } = {},
): Promise<Grant> {
  const clientId = opts.clientId ?? (await register()).body.client_id;
  const { verifier, challenge } = pkce();
  const resource = `${base}/mcp/${projectId}`;
  const page = await get(authorizeQuery({ client_id: clientId, code_challenge: challenge, resource, scope: opts.scope }), who);
  expect(page.status).toBe(200);
  const { fields } = formFields(await page.text());
  for (const s of opts.untick ?? []) delete fields[`scope_${s}`];
  const r = await postForm("/oauth/authorize", { ...fields, decision: "allow" }, who);
  expect(r.status).toBe(302);
  const code = new URL(r.headers.get("location")!).searchParams.get("code")!;
  return { clientId, code, verifier, resource };
}

const tokenRequest = (fields: Record<string, string | undefined>) => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.set(k, v);
  return env.request("/oauth/token", { method: "POST", headers: FORM, body: body.toString() }).then(json);
};
const exchange = (g: Grant, over: Record<string, string | undefined> = {}) =>
  tokenRequest({
    grant_type: "authorization_code",
    client_id: g.clientId,
    code: g.code,
    code_verifier: g.verifier,
    redirect_uri: REDIRECT,
    resource: g.resource,
    ...over,
  });
const refresh = (clientId: string, refreshToken: string, over: Record<string, string | undefined> = {}) =>
  tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken, ...over });

/** A tools/list on an MCP URL with a bearer, over app.handle. */
const mcp = (path: string, bearer: string, body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }) =>
  env.request(path, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });

/** An approved org with a project, and tokens granted by its owner. */
async function tokens(opts: { untick?: string[] } = {}) {
  const o = await orgWithProject(env);
  const g = await grant(o.owner, o.project.id, opts);
  const t = await exchange(g);
  expect(t.status).toBe(200);
  return { ...o, grant: g, access: t.body.access_token as string, refresh: t.body.refresh_token as string };
}

describe("discovery documents (RFC 9728, RFC 8414)", () => {
  test("protected-resource metadata: per project, bare /mcp and root; CORS; cacheable; a malformed project id is 404", async () => {
    const o = await orgWithProject(env);
    const p = await json(await env.request(`/.well-known/oauth-protected-resource/mcp/${o.project.id}`));
    expect(p.status).toBe(200);
    expect(p.body).toEqual({
      resource: `${base}/mcp/${o.project.id}`,
      authorization_servers: [base],
      scopes_supported: ALL_SCOPES,
      bearer_methods_supported: ["header"],
      resource_name: `talentd project ${o.project.id}`,
    });
    expect(p.res.headers.get("access-control-allow-origin")).toBe("*");
    expect(p.res.headers.get("cache-control")).toContain("max-age");
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      expect((await json(await env.request(path))).body.resource).toBe(`${base}/mcp`);
    }
    expect((await env.request("/.well-known/oauth-protected-resource/mcp/nope")).status).toBe(404);
  });

  test("authorization-server metadata: S256 only, code + refresh + jwt-bearer (ID-JAG) grants, public clients, registration and revocation endpoints", async () => {
    const r = await json(await env.request("/.well-known/oauth-authorization-server"));
    expect(r.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      scopes_supported: ALL_SCOPES,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ["S256"],
    });
  });

  test("CORS preflights of the public endpoints → 204 with WWW-Authenticate exposed", async () => {
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-protected-resource",
      "/oauth/register",
      "/oauth/token",
      "/oauth/revoke",
    ]) {
      const r = await env.request(path, {
        method: "OPTIONS",
        headers: { origin: "https://inspector.example", "access-control-request-method": "POST" },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(r.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    }
  });
});

describe("POST /oauth/register (RFC 7591)", () => {
  test("a public client: 201 with client_id, no secret, token_endpoint_auth_method none", async () => {
    const r = await register({
      client_name: "Claude Code",
      redirect_uris: ["http://localhost:33418/callback", "https://vscode.dev/redirect"],
      scope: "doctor validate",
    });
    expect(r.status).toBe(201);
    expect(r.body.client_id).toMatch(/^ocl_/);
    expect(r.body.client_secret).toBeUndefined();
    expect(r.body).toMatchObject({
      client_name: "Claude Code",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "doctor validate",
    });
    expect(r.res.headers.get("access-control-allow-origin")).toBe("*");
  });

  const refused: [string, Record<string, unknown>, string][] = [
    ["no redirect_uris", { client_name: "x" }, "invalid_redirect_uri"],
    ["plain http on a public host", { redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
    ["a private-use scheme only", { redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback"] }, "invalid_redirect_uri"],
    ["a fragment", { redirect_uris: ["https://app.example/cb#x"] }, "invalid_redirect_uri"],
    ["a grant type other than code/refresh", { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
    ["an unknown scope", { redirect_uris: [REDIRECT], scope: "admin" }, "invalid_client_metadata"],
    [
      "a token_endpoint_auth_method other than none, client_secret_basic, client_secret_post",
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" },
      "invalid_client_metadata",
    ],
    ["not an object", [] as unknown as Record<string, unknown>, "invalid_client_metadata"],
  ];
  for (const [name, body, code] of refused) {
    test(`${name} → 400 ${code}`, async () => {
      const r = await register(body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(code);
      expect(r.body.error_description).toBeString();
    });
  }

  test("a mixed list keeps only https and loopback URIs (Cursor sends cursor:// beside them)", async () => {
    const r = await register({
      redirect_uris: [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "https://www.cursor.com/agents/mcp/oauth/callback",
        "http://localhost:8787/callback",
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.redirect_uris).toEqual(["https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"]);
  });
});

describe("GET /oauth/authorize and the consent", () => {
  test("not signed in → /login?next= back to the request; the login page signs in and returns there", async () => {
    const o = await orgWithProject(env);
    const clientId = (await register()).body.client_id;
    const path = authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}` });
    const r = await get(path);
    expect(r.status).toBe(302);
    const login = new URL(r.headers.get("location")!, base);
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("next")).toBe(path);
    const page = await get(login.pathname + login.search);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const signed = await postForm("/login", { next: path, email: o.owner.email, password: "correct horse battery" }, null);
    expect(signed.status).toBe(303);
    expect(signed.headers.get("location")).toBe(path);
    expect(signed.headers.get("set-cookie")).toContain("talentd_session=");
  });

  test("the OAuth sign-in step names the client asking: its registered client_name and its redirect host; a /login without it names none", async () => {
    const o = await orgWithProject(env);
    const clientId = (await register({ client_name: "Registered Namer", redirect_uris: [REDIRECT] })).body.client_id;
    const path = authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}` });
    const login = new URL((await get(path)).headers.get("location")!, base);
    const html = await (await get(login.pathname + login.search)).text();
    expect(html).toContain('id="sign-in-client"');
    expect(html).toContain("<strong><bdi>Registered Namer</bdi></strong>");
    expect(html).toContain("returns to 127.0.0.1:8976");
    // an unknown client, or a plain /login: no one is named
    const unknown = authorizeQuery({ client_id: "nope", code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}` });
    expect(await (await get(`/login?next=${encodeURIComponent(unknown)}`)).text()).not.toContain("sign-in-client");
    expect(await (await get("/login")).text()).not.toContain("sign-in-client");
  });

  test("/login: a wrong password → 401 page; a foreign Origin → 403; next never leaves the site", async () => {
    const u = await signedUp(env);
    const wrong = await postForm("/login", { next: "/x", email: u.email, password: "wrong password!" }, null);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("E-mail or password is wrong.");
    expect(
      (
        await postForm("/login", { next: "/x", email: u.email, password: "correct horse battery" }, null, {
          origin: "https://evil.example",
        })
      ).status,
    ).toBe(403);
    for (const next of ["//evil.example/x", "https://evil.example", "/\\evil.example"]) {
      const r = await postForm("/login", { next, email: u.email, password: "correct horse battery" }, null);
      expect(r.headers.get("location")).toBe("/");
    }
  });

  test("the consent page shows the client, the project and its organization, and one ticked box per requested scope", async () => {
    const o = await orgWithProject(env);
    const clientId = (await register({ client_name: "Inspector <3", redirect_uris: [REDIRECT] })).body.client_id;
    const r = await get(
      authorizeQuery({
        client_id: clientId,
        code_challenge: pkce().challenge,
        resource: `${base}/mcp/${o.project.id}`,
        scope: "doctor validate",
      }),
      o.owner,
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await r.text();
    expect(html).toContain("Inspector &lt;3");
    expect(html).toContain(o.project.name);
    expect(html).toContain(o.org.name);
    expect(html).toContain("127.0.0.1:8976");
    expect(formFields(html).checkboxes).toEqual(["scope_validate", "scope_doctor"]);
  });

  test("a client name with bidi controls is shown without them and isolated (<bdi>) wherever the authorize flow names it: sign-in step, consent, refusal page, unregistered-redirect page", async () => {
    const o = await orgWithProject(env);
    // U+202E (right-to-left override) would show "Safe app.exe" reversed: "Safe exe.ppa"-style spoofing
    const spoof = "Safe \u202Eexe.ppa\u202C \u2067Tool\u2069 \u200Fname";
    const clientId = (await register({ client_name: spoof, redirect_uris: [REDIRECT] })).body.client_id;
    const shown = "<bdi>Safe exe.ppa Tool name</bdi>";
    const noBidi = (html: string) => expect(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/.test(html)).toBe(false);
    const path = authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}` });
    const login = new URL((await get(path)).headers.get("location")!, base);
    const signIn = await (await get(login.pathname + login.search)).text();
    expect(signIn).toContain(`<strong>${shown}</strong>`);
    noBidi(signIn);
    const consent = await (await get(path, o.owner)).text();
    expect(consent).toContain(`<h1>Authorize ${shown}</h1>`);
    expect(consent).toContain(`<strong>${shown}</strong>`);
    noBidi(consent);
    const loner = await signedUp(env); // no project anywhere: the refusal page and its way back to the client
    const bare = authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp` });
    const refusal = await get(bare, loner);
    expect(refusal.status).toBe(403);
    const refusalHtml = await refusal.text();
    expect(refusalHtml).toContain(`Return to ${shown}`);
    noBidi(refusalHtml);
    const wrongUri = authorizeQuery({ client_id: clientId, redirect_uri: "https://attacker.example/cb", code_challenge: pkce().challenge });
    const unregistered = await (await get(wrongUri, o.owner)).text();
    expect(unregistered).toContain("is not registered for Safe exe.ppa Tool name");
    noBidi(unregistered);
  });

  test("an unknown client or an unregistered redirect URI → 400 page, never a redirect", async () => {
    const o = await orgWithProject(env);
    const clientId = (await register()).body.client_id;
    const resource = `${base}/mcp/${o.project.id}`;
    const unknown = await get(
      authorizeQuery({ client_id: "ocl_01AAAAAAAAAAAAAAAAAAAAAAAA", code_challenge: pkce().challenge, resource }),
      o.owner,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
    const unregistered = await get(
      authorizeQuery({ client_id: clientId, redirect_uri: "https://attacker.example/cb", code_challenge: pkce().challenge, resource }),
      o.owner,
    );
    expect(unregistered.status).toBe(400);
    expect(unregistered.headers.get("location")).toBeNull();
    expect(await unregistered.text()).toContain("is not registered");
    // a registered loopback URI matches on any port (RFC 8252 §7.3)
    const otherPort = await get(
      authorizeQuery({ client_id: clientId, redirect_uri: "http://127.0.0.1:5555/callback", code_challenge: pkce().challenge, resource }),
      o.owner,
    );
    expect(otherPort.status).toBe(200);
  });

  const redirected: [string, Record<string, string | undefined>, string][] = [
    ["code_challenge_method=plain", { code_challenge_method: "plain" }, "invalid_request"],
    ["no code_challenge_method", { code_challenge_method: undefined }, "invalid_request"],
    ["no code_challenge", { code_challenge: undefined }, "invalid_request"],
    ["no resource", { resource: undefined }, "invalid_target"],
    ["a resource that is not this service's MCP URL", { resource: "https://other.example/mcp" }, "invalid_target"],
    ["an unknown scope", { scope: "doctor admin" }, "invalid_scope"],
    ["response_type=token", { response_type: "token" }, "unsupported_response_type"],
  ];
  for (const [name, over, code] of redirected) {
    test(`${name} → redirect to the client with error=${code} and the state`, async () => {
      const o = await orgWithProject(env);
      const clientId = (await register()).body.client_id;
      const r = await get(
        authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}`, ...over }),
        o.owner,
      );
      expect(r.status).toBe(302);
      const to = new URL(r.headers.get("location")!);
      expect(to.origin + to.pathname).toBe(REDIRECT);
      expect(to.searchParams.get("error")).toBe(code);
      expect(to.searchParams.get("state")).toBe("xyz");
      expect(to.searchParams.get("code")).toBeNull();
    });
  }

  test("a user who is not a member of the project's organization → 403 page with a way back; an organization not approved → 403", async () => {
    const o = await orgWithProject(env);
    const stranger = await signedUp(env);
    const clientId = (await register()).body.client_id;
    const q = authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}` });
    const r = await get(q, stranger);
    expect(r.status).toBe(403);
    const html = await r.text();
    expect(html).toContain("not a member");
    expect(html).toContain("error=access_denied");
    await sql("UPDATE organizations SET status = 'suspended' WHERE id = ?", [o.org.id]);
    expect((await get(q, o.owner)).status).toBe(403);
  });

  test("the consent post: without Origin or from another origin → 403; deny → access_denied; nothing ticked → access_denied", async () => {
    const o = await orgWithProject(env);
    const clientId = (await register()).body.client_id;
    const page = await get(
      authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}` }),
      o.owner,
    );
    const { fields, checkboxes } = formFields(await page.text());
    expect((await postForm("/oauth/authorize", { ...fields, decision: "allow" }, o.owner, {})).status).toBe(403);
    expect((await postForm("/oauth/authorize", { ...fields, decision: "allow" }, o.owner, { origin: "https://evil.example" })).status).toBe(
      403,
    );
    const denied = await postForm("/oauth/authorize", { ...fields, decision: "deny" }, o.owner);
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
    const none = { ...fields };
    for (const c of checkboxes) delete none[c];
    const empty = await postForm("/oauth/authorize", { ...none, decision: "allow" }, o.owner);
    expect(new URL(empty.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
    // a scope added to the form that was not requested is ignored
    const narrow = await get(
      authorizeQuery({ client_id: clientId, code_challenge: pkce().challenge, resource: `${base}/mcp/${o.project.id}`, scope: "doctor" }),
      o.owner,
    );
    const f = formFields(await narrow.text()).fields;
    const sneaky = await postForm("/oauth/authorize", { ...f, scope_install: "on", decision: "allow" }, o.owner);
    const code = new URL(sneaky.headers.get("location")!).searchParams.get("code")!;
    const row = await sql(
      "SELECT scopes FROM oauth_codes WHERE code_hash = (SELECT code_hash FROM oauth_codes ORDER BY created_at DESC LIMIT 1)",
    );
    expect(JSON.parse(String(row.rows[0]!.scopes))).toEqual(["doctor"]);
    expect(code).toMatch(/^svc_ac_/);
  });
});

describe("POST /oauth/token", () => {
  test("authorization_code + PKCE S256 → access (svc_at_, 1 h) and refresh (svc_rt_) tokens, no-store, stored as hashes only", async () => {
    const t = await tokens({ untick: ["install"] });
    const rows = (await sql("SELECT kind, token_hash, resource, scopes FROM oauth_tokens WHERE user_id = ?", [t.owner.userId])).rows;
    expect(rows.map((r) => r.kind).sort()).toEqual(["access", "refresh"]);
    for (const r of rows) {
      expect(String(r.token_hash)).toMatch(/^[0-9a-f]{64}$/);
      expect(r.resource).toBe(`${base}/mcp/${t.project.id}`);
      expect(JSON.parse(String(r.scopes))).not.toContain("install");
    }
    const dump =
      JSON.stringify((await sql("SELECT * FROM oauth_tokens")).rows) + JSON.stringify((await sql("SELECT * FROM oauth_codes")).rows);
    expect(dump).not.toContain(t.access);
    expect(dump).not.toContain(t.refresh);
    expect(dump).not.toContain(t.grant.code);
  });

  test("the response shape and headers", async () => {
    const o = await orgWithProject(env);
    const g = await grant(o.owner, o.project.id, { scope: "doctor validate" });
    const r = await exchange(g);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "scope", "token_type"]);
    expect(r.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "validate doctor" });
    expect(r.body.access_token).toMatch(/^svc_at_/);
    expect(r.body.refresh_token).toMatch(/^svc_rt_/);
    expect(r.res.headers.get("cache-control")).toBe("no-store");
    expect(r.res.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("PKCE mismatch → 400 invalid_grant (and the code stays usable by the right verifier)", async () => {
    const o = await orgWithProject(env);
    const g = await grant(o.owner, o.project.id);
    const bad = await exchange(g, { code_verifier: pkce().verifier });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_grant");
    expect(bad.body.error_description).toContain("PKCE");
    expect((await exchange(g)).status).toBe(200);
  });

  test("a reused authorization code → 400 invalid_grant, and the tokens issued from it are revoked", async () => {
    const t = await tokens();
    expect((await withKey(env, t.access, "/api/doctor")).status).toBe(200);
    const again = await exchange(t.grant);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect((await withKey(env, t.access, "/api/doctor")).status).toBe(401);
    expect((await refresh(t.grant.clientId, t.refresh)).body.error).toBe("invalid_grant");
  });

  test("resource: missing → invalid_target; another one than the code's → invalid_target", async () => {
    const o = await orgWithProject(env);
    const g = await grant(o.owner, o.project.id);
    const missing = await exchange(g, { resource: undefined });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("invalid_target");
    const other = await exchange(g, { resource: `${base}/mcp` });
    expect(other.body.error).toBe("invalid_target");
    expect((await exchange(g)).status).toBe(200);
  });

  const refusals: [string, (g: Grant) => Record<string, string | undefined>, number, string][] = [
    ["another redirect_uri", () => ({ redirect_uri: "http://127.0.0.1:8976/other" }), 400, "invalid_grant"],
    ["an unknown code", () => ({ code: "svc_ac_nope" }), 400, "invalid_grant"],
    ["another (registered) client", () => ({ client_id: "__other__" }), 400, "invalid_grant"],
    ["an unknown client", () => ({ client_id: "ocl_01AAAAAAAAAAAAAAAAAAAAAAAA" }), 401, "invalid_client"],
    ["no client_id", () => ({ client_id: undefined }), 400, "invalid_request"],
    ["no code_verifier", () => ({ code_verifier: undefined }), 400, "invalid_request"],
    ["grant_type password", () => ({ grant_type: "password" }), 400, "unsupported_grant_type"],
  ];
  for (const [name, over, status, code] of refusals) {
    test(`${name} → ${status} ${code}`, async () => {
      const o = await orgWithProject(env);
      const g = await grant(o.owner, o.project.id);
      const o2 = over(g);
      if (o2.client_id === "__other__") o2.client_id = (await register()).body.client_id;
      const r = await exchange(g, o2);
      expect(r.status).toBe(status);
      expect(r.body.error).toBe(code);
    });
  }

  test("an expired code → invalid_grant", async () => {
    const o = await orgWithProject(env);
    const g = await grant(o.owner, o.project.id);
    await sql("UPDATE oauth_codes SET expires_at = ? WHERE client_id = ?", [Date.now() - 1, g.clientId]);
    expect((await exchange(g)).body.error).toBe("invalid_grant");
  });

  test("refresh rotates: a new pair; the spent refresh token presented again → invalid_grant and the whole family is revoked", async () => {
    const t = await tokens();
    const r1 = await refresh(t.grant.clientId, t.refresh, { resource: t.grant.resource });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(t.refresh);
    expect((await withKey(env, r1.body.access_token, "/api/doctor")).status).toBe(200);
    const reused = await refresh(t.grant.clientId, t.refresh);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    expect(reused.body.error_description).toContain("already used");
    expect((await withKey(env, r1.body.access_token, "/api/doctor")).status).toBe(401);
    expect((await withKey(env, t.access, "/api/doctor")).status).toBe(401);
    expect((await refresh(t.grant.clientId, r1.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  test("refresh may narrow the scopes, never widen them; another resource → invalid_target; another client → invalid_grant", async () => {
    const t = await tokens({ untick: ["install"] });
    expect((await refresh(t.grant.clientId, t.refresh, { scope: "doctor install" })).body.error).toBe("invalid_scope");
    expect((await refresh(t.grant.clientId, t.refresh, { resource: `${base}/mcp` })).body.error).toBe("invalid_target");
    const other = (await register()).body.client_id;
    expect((await refresh(other, t.refresh)).body.error).toBe("invalid_grant");
    const narrowed = await refresh(t.grant.clientId, t.refresh, { scope: "doctor" });
    expect(narrowed.body.scope).toBe("doctor");
    expect((await withKey(env, narrowed.body.access_token, "/api/discovery/playbook")).status).toBe(403);
  });
});

describe("access tokens on every call", () => {
  test("a token on the key API: the same answer as a key; the principal is the token (kind token)", async () => {
    const t = await tokens();
    const key = await createKey(t.owner, t.project.id, ["doctor"]);
    const viaToken = await json(await withKey(env, t.access, "/api/doctor"));
    const viaKey = await json(await withKey(env, key.value, "/api/doctor"));
    expect(viaToken.status).toBe(200);
    expect(viaToken.body).toEqual(viaKey.body);
  });

  test("the Activity tab names who made a token's call by the authorizing user's e-mail, and the OAuth client (its name isolated)", async () => {
    const t = await tokens();
    expect((await withKey(env, t.access, "/api/doctor")).status).toBe(200);
    const html = await (await t.owner.call("GET", `/projects/${t.project.id}?tab=activity`)).text();
    const row = html.split("<tr").find((r) => r.includes("checked the project")) ?? "";
    expect(row).toContain(t.owner.email);
    expect(row).toContain("(OAuth: <bdi>Agent</bdi>)"); // the client's own name, isolated as on the consent page
  });

  test("wrong audience: a token for project A on /mcp/<B> → 401 with B's metadata; on bare /mcp → 401", async () => {
    const a = await tokens();
    const b = await orgWithProject(env);
    expect((await mcp(`/mcp/${a.project.id}`, a.access)).status).toBe(200);
    const r = await mcp(`/mcp/${b.project.id}`, a.access);
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer realm="talentd", error="invalid_token", scope="${ALL_SCOPES.join(" ")}", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/${b.project.id}"`,
    );
    expect((await json(r)).body.error).toBe("invalid_token");
    expect((await mcp("/mcp", a.access)).status).toBe(401);
  });

  test("an expired access token → 401 invalid_token, on /mcp and on the key API", async () => {
    const t = await tokens();
    await sql("UPDATE oauth_tokens SET expires_at = ? WHERE user_id = ? AND kind = 'access'", [Date.now() - 1, t.owner.userId]);
    const r = await mcp(`/mcp/${t.project.id}`, t.access);
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toContain("resource_metadata=");
    const api = await json(await withKey(env, t.access, "/api/doctor"));
    expect(api.status).toBe(401);
    expect(api.body.error).toBe("invalid_token");
  });

  test("the 401 of an unknown, revoked or expired token is byte-identical to a key's", async () => {
    const t = await tokens();
    const k = await createKey(t.owner, t.project.id, ["doctor"]);
    await env.request("/oauth/revoke", { method: "POST", headers: FORM, body: new URLSearchParams({ token: t.access }).toString() });
    const bodies = new Set<string>();
    const tampered = k.value.slice(0, -1) + (k.value.endsWith("x") ? "y" : "x"); // never the key itself (it may end in x)
    for (const bearer of [t.access, "svc_at_nope", tampered]) {
      const r = await withKey(env, bearer, "/api/doctor");
      expect(r.status).toBe(401);
      bodies.add(`${r.headers.get("www-authenticate")}|${await r.text()}`);
    }
    expect(bodies.size).toBe(1);
  });

  test("re-evaluated per call: the user leaves the organization → 403 not_a_member; the organization suspended → 403 organization_not_approved", async () => {
    const t = await tokens();
    await sql("UPDATE organizations SET status = 'suspended' WHERE id = ?", [t.org.id]);
    expect((await json(await withKey(env, t.access, "/api/doctor"))).body.error).toBe("organization_not_approved");
    expect((await json(await mcp(`/mcp/${t.project.id}`, t.access))).body.error).toBe("organization_not_approved");
    await sql("UPDATE organizations SET status = 'approved' WHERE id = ?", [t.org.id]);
    await sql("DELETE FROM members WHERE user_id = ?", [t.owner.userId]);
    expect((await json(await withKey(env, t.access, "/api/doctor"))).body.error).toBe("not_a_member");
  });

  test("a token without the route's scope → 403 insufficient_scope with requiredScope", async () => {
    const t = await tokens({ untick: ["doctor"] });
    const r = await json(await withKey(env, t.access, "/api/doctor"));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: "insufficient_scope", requiredScope: "doctor" });
  });
});

describe("POST /oauth/revoke (RFC 7009)", () => {
  const revoke = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    env
      .request("/oauth/revoke", { method: "POST", headers: { ...FORM, ...headers }, body: new URLSearchParams(fields).toString() })
      .then(json);
  const basic = (id: string, secret: string) => ({
    authorization: `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`,
  });

  /** Tokens granted to a confidential client registered with `method`, and its secret. */
  async function confidentialTokens(method: "client_secret_basic" | "client_secret_post") {
    const o = await orgWithProject(env);
    const reg = await register({ client_name: "Server agent", redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
    expect(reg.status).toBe(201);
    const clientId = reg.body.client_id as string;
    const secret = reg.body.client_secret as string;
    const g = await grant(o.owner, o.project.id, { clientId });
    const body = new URLSearchParams({ grant_type: "authorization_code", code: g.code, code_verifier: g.verifier, redirect_uri: REDIRECT });
    body.set("resource", g.resource);
    if (method === "client_secret_post") body.set("client_id", clientId), body.set("client_secret", secret);
    const headers = method === "client_secret_basic" ? { ...FORM, ...basic(clientId, secret) } : FORM;
    const t = await json(await env.request("/oauth/token", { method: "POST", headers, body: body.toString() }));
    expect(t.status).toBe(200);
    return { clientId, secret, access: t.body.access_token as string, refresh: t.body.refresh_token as string };
  }
  const alive = async (access: string) => (await withKey(env, access, "/api/doctor")).status === 200;

  test("an access token: only it ends; the refresh token still works; an unknown token → 200; no token → invalid_request", async () => {
    const t = await tokens();
    expect((await revoke({ token: t.access, client_id: t.grant.clientId })).status).toBe(200);
    expect((await withKey(env, t.access, "/api/doctor")).status).toBe(401);
    expect((await refresh(t.grant.clientId, t.refresh)).status).toBe(200);
    expect((await revoke({ token: "svc_at_unknown" })).status).toBe(200);
    expect((await revoke({})).body.error).toBe("invalid_request");
  });

  test("a client revokes only its own tokens: another client's token → 200 and it stays valid", async () => {
    const t = await tokens();
    const other = (await register()).body.client_id;
    expect((await revoke({ token: t.access, client_id: other })).status).toBe(200);
    expect(await alive(t.access)).toBe(true);
    const conf = await confidentialTokens("client_secret_basic");
    expect((await revoke({ token: t.refresh }, basic(conf.clientId, conf.secret))).status).toBe(200);
    expect((await refresh(t.grant.clientId, t.refresh)).status).toBe(200);
  });

  test("a confidential client (client_secret_basic) revokes with its secret in HTTP Basic; wrong, missing or in the body → 401 invalid_client, nothing revoked", async () => {
    const c = await confidentialTokens("client_secret_basic");
    const wrong = await revoke({ token: c.access }, basic(c.clientId, "svc_cs_not-the-secret"));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    expect(wrong.res.headers.get("www-authenticate")).toMatch(/^Basic /);
    const missing = await revoke({ token: c.access, client_id: c.clientId });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe("invalid_client");
    expect(missing.res.headers.get("www-authenticate")).toMatch(/^Basic /);
    const inBody = await revoke({ token: c.access, client_id: c.clientId, client_secret: c.secret });
    expect(inBody.status).toBe(401);
    // a caller that names no client does not revoke a confidential client's token either
    expect((await revoke({ token: c.access })).status).toBe(200);
    expect(await alive(c.access)).toBe(true);
    expect((await revoke({ token: c.access }, basic(c.clientId, c.secret))).status).toBe(200);
    expect(await alive(c.access)).toBe(false);
  });

  test("a confidential client (client_secret_post) revokes with client_secret in the body; wrong or missing → 401 invalid_client, nothing revoked", async () => {
    const c = await confidentialTokens("client_secret_post");
    for (const extra of [{ client_secret: "svc_cs_not-the-secret" }, {}] as Record<string, string>[]) {
      const r = await revoke({ token: c.refresh, client_id: c.clientId, ...extra });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("invalid_client");
    }
    expect((await revoke({ token: c.refresh }, basic(c.clientId, c.secret))).status).toBe(401);
    expect(await alive(c.access)).toBe(true);
    // the refresh token takes its whole grant with it
    expect((await revoke({ token: c.refresh, client_id: c.clientId, client_secret: c.secret })).status).toBe(200);
    expect(await alive(c.access)).toBe(false);
  });
});
