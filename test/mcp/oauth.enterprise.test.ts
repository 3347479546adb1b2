/**
 * Enterprise-managed authorization: an organization's OIDC IdP (oidc-provider on 127.0.0.1, its
 * keys served at its own jwks_uri) vouches for a member with an ID-JAG; the SDK client trades it
 * at /oauth/token (jwt-bearer grant) and calls a tool with the access token. The journey is the
 * extension's whole flow: sign-in at the IdP (ID token), the SDK's token exchange at the IdP
 * (test/idjag-support.ts: oidc-provider has no ID-JAG issuance of its own, so a registered grant
 * type signs it with the provider's own key), the SDK's jwt-bearer request here. The refusals
 * craft their ID-JAGs directly, signed with that same key (or a stranger's).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, exchangeJwtAuthGrant, requestJwtAuthorizationGrant, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AGENT, enterpriseWorld, type EnterpriseWorld, type Setup } from "../enterprise-support";
import { joinedMember, orgWithProject, signedUp } from "../helpers";
import { selfSignedCert, type OidcIdp } from "../idp-support";
import { idTokenAt } from "../idjag-support";
import { CLIENT_INFO, toolJson, type LiveEnv } from "../mcp-support";

let w: EnterpriseWorld;
let live: LiveEnv;
let idp: OidcIdp;
let strangerKey: CryptoKey;

beforeAll(async () => {
  w = await enterpriseWorld();
  ({ live, idp, strangerKey } = w);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const setup = (enable = true) => w.setup(enable);
const idJag = (s: Setup, over: Record<string, unknown> = {}, sign: { key?: CryptoKey; kid?: string; typ?: string } = {}) =>
  w.idJag(s, over, sign);
const token = (s: Setup, assertion: string, extra: Record<string, string> = {}) => w.token(s, assertion, extra);
const tokensOf = (projectId: string) => w.tokensOf(projectId);

describe("enterprise-managed authorization: the jwt-bearer grant with an ID-JAG", () => {
  test("metadata announces the grant and the ID-JAG profile", async () => {
    const m = (await (await fetch(`${live.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(m.grant_types_supported).toContain("urn:ietf:params:oauth:grant-type:jwt-bearer");
    expect(m.authorization_grant_profiles_supported).toEqual(["urn:ietf:params:oauth:grant-profile:id-jag"]);
  });

  test("a member's ID-JAG from the organization's IdP becomes an access token bound to the project (no refresh token, no consent); the SDK client calls a tool with it; the trace names the client", async () => {
    const s = await setup();
    // the person signs in to the MCP client through the organization's IdP; the client exchanges the ID token there
    idp.account = { sub: `idp-${s.member.userId}`, email: s.member.email, email_verified: true };
    w.agentHere = s.clientId;
    const grant = await requestJwtAuthorizationGrant({
      tokenEndpoint: `${idp.issuer}/oauth/token`,
      audience: live.base,
      resource: s.resource,
      idToken: await idTokenAt(idp, AGENT),
      clientId: AGENT.clientId,
      clientSecret: AGENT.clientSecret,
      scope: "doctor catalog",
    });
    const tokens = await exchangeJwtAuthGrant({
      tokenEndpoint: `${live.base}/oauth/token`,
      jwtAuthGrant: grant.jwtAuthGrant,
      clientId: s.clientId,
      authMethod: "none",
    });
    expect(tokens.access_token).toMatch(/^svc_at_/);
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.scope).toBe("doctor catalog"); // canonical order
    const client = new Client(CLIENT_INFO);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.resource), {
        requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    const doctor = await client.callTool({ name: "svc_doctor", arguments: {} });
    expect(doctor.isError).toBeFalsy();
    expect(toolJson(doctor)).toBeObject();
    await client.close();
    // bound to its resource: another project's URL refuses it
    const other = await orgWithProject(live.env);
    const elsewhere = await fetch(`${live.base}/mcp/${other.project.id}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(elsewhere.status).toBe(401);
    const events = (await s.owner.get(`/web/projects/${s.project.id}/traces`)).body.events as {
      kind: string;
      via: string;
      author: { type: string; name: string };
    }[];
    expect(events.find((e) => e.kind === "doctor")).toMatchObject({ via: "mcp", author: { type: "token", name: "Enterprise Agent" } });
  });

  test("the member found through the identity linked to the organization's SSO (sub), whatever the e-mail claim; scope narrowed by the request", async () => {
    const s = await setup();
    await live.env.database.client.execute({
      // what a sign-in through the organization's SSO leaves behind (identity/external.ts)
      sql: "INSERT INTO external_accounts (provider, provider_user_id, user_id, created_at) VALUES (?, ?, ?, ?)",
      args: [`sso:${s.org.id}`, "linked-sub", s.member.userId, Date.now()],
    });
    const r = await token(s, await idJag(s, { sub: "linked-sub", email: undefined, scope: "doctor discover install" }), {
      scope: "discover install",
    });
    expect(r.status).toBe(200);
    expect(r.body.scope).toBe("discover install");
    expect(r.body.token_type).toBe("Bearer");
    expect(r.body.expires_in).toBe(3600);
    expect(r.body.refresh_token).toBeUndefined(); // the IdP is asked again for a new ID-JAG instead
  });

  const refusals: [string, (s: Setup) => Promise<string> | string, string, RegExp][] = [
    ["aud: an assertion for another audience", (s) => idJag(s, { aud: "https://other-as.example" }), "invalid_grant", /another audience/],
    [
      "exp: an expired assertion",
      (s) => idJag(s, { iat: Math.floor(Date.now() / 1000) - 900, exp: Math.floor(Date.now() / 1000) - 600 }),
      "invalid_grant",
      /expired/,
    ],
    [
      "exp: an assertion living longer than the limit",
      (s) => idJag(s, { exp: Math.floor(Date.now() / 1000) + 7200 }),
      "invalid_grant",
      /longer than/,
    ],
    [
      "signature: signed by a key the IdP does not publish",
      (s) => idJag(s, {}, { key: strangerKey, kid: "stranger" }),
      "invalid_grant",
      /key the identity provider does not publish/,
    ],
    ["signature: the IdP's kid with another key", (s) => idJag(s, {}, { key: strangerKey }), "invalid_grant", /signature does not verify/],
    ["typ: an ID token, not an ID-JAG", (s) => idJag(s, {}, { typ: "JWT" }), "invalid_grant", /not an ID-JAG/],
    [
      "iss: an issuer the organization does not trust",
      (s) => idJag(s, { iss: "http://127.0.0.1:1/other-idp" }),
      "invalid_grant",
      /issuer is not/,
    ],
    ["client_id: issued for another client", (s) => idJag(s, { client_id: "ocl_someone_else" }), "invalid_grant", /another client/],
    ["jti: required", (s) => idJag(s, { jti: undefined }), "invalid_grant", /jti/],
    [
      "resource: not a project here",
      (s) => idJag(s, { resource: "https://elsewhere.example/mcp" }),
      "invalid_grant",
      /not a project's MCP URL/,
    ],
    ["scope: unknown scopes in the assertion", (s) => idJag(s, { scope: "admin" }), "invalid_grant", /unknown scopes/],
    ["a malformed assertion", () => "not-a-jwt", "invalid_grant", /not a JWT/],
  ];
  for (const [rule, make, code, sentence] of refusals) {
    test(`refused, nothing issued — ${rule}`, async () => {
      const s = await setup();
      const r = await token(s, await make(s));
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(code);
      expect(r.body.error_description).toMatch(sentence);
      expect(await tokensOf(s.project.id)).toBe(0);
    });
  }

  /** A confidential registration (`method`) used as the setup's client: its client_id and its secret, issued once. */
  async function confidential(s: Setup, method: "client_secret_basic" | "client_secret_post"): Promise<Setup & { secret: string }> {
    const reg = await fetch(`${live.base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Confidential Agent",
        redirect_uris: ["https://agent.example/callback"],
        grant_types: ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
        token_endpoint_auth_method: method,
      }),
    });
    expect(reg.status).toBe(201);
    const body = (await reg.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_endpoint_auth_method: method, client_secret_expires_at: 0 });
    expect(body.client_secret).toMatch(/^svc_cs_/);
    return { ...s, clientId: String(body.client_id), secret: String(body.client_secret) };
  }

  /** POST /oauth/token (jwt-bearer) with HTTP Basic client credentials and no client_id in the body. */
  async function basicToken(clientId: string, secret: string, assertion: string) {
    const r = await fetch(`${live.base}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`)}`,
      },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, string | number>, challenge: r.headers.get("www-authenticate") };
  }

  test("a confidential client (client_secret_basic) authenticates with its secret on the jwt-bearer grant: right secret → token; wrong, missing or in the body → 401 invalid_client, nothing issued", async () => {
    const s = await confidential(await setup(), "client_secret_basic");
    const wrong = await basicToken(s.clientId, `${s.secret}x`, await idJag(s));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    expect(wrong.challenge).toStartWith("Basic");
    const missing = await token(s, await idJag(s));
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe("invalid_client");
    const inBody = await token(s, await idJag(s), { client_secret: s.secret });
    expect(inBody.status).toBe(401);
    expect(inBody.body.error).toBe("invalid_client");
    expect(await tokensOf(s.project.id)).toBe(0);
    const ok = await basicToken(s.clientId, s.secret, await idJag(s));
    expect(ok.status).toBe(200);
    expect(ok.body.scope).toBe("doctor catalog");
    expect(await tokensOf(s.project.id)).toBe(1);
  });

  test("a confidential client (client_secret_post) authenticates with client_secret in the body on the jwt-bearer grant: right → token; wrong or missing → 401 invalid_client", async () => {
    const s = await confidential(await setup(), "client_secret_post");
    for (const extra of [{ client_secret: "svc_cs_not-the-secret" }, {}] as Record<string, string>[]) {
      const r = await token(s, await idJag(s), extra);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("invalid_client");
    }
    expect((await basicToken(s.clientId, s.secret, await idJag(s))).status).toBe(401);
    expect(await tokensOf(s.project.id)).toBe(0);
    const ok = await token(s, await idJag(s), { client_secret: s.secret });
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe("Bearer");
    expect(await tokensOf(s.project.id)).toBe(1);
  });

  test("refused — enterprise mode off (the default), then on: the same kind of assertion works", async () => {
    const s = await setup(false);
    const r = await token(s, await idJag(s));
    expect(r.body).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringMatching(/does not accept enterprise-managed/),
    });
    expect(await tokensOf(s.project.id)).toBe(0);
    expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: true })).status).toBe(200);
    expect((await token(s, await idJag(s))).status).toBe(200);
    // and off again
    expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: false })).body.sso.enterpriseGrant).toBe(false);
    expect((await token(s, await idJag(s))).body.error).toBe("invalid_grant");
  });

  test("refused — a user who is not a member of the organization (e-mail at its proven domain, no membership)", async () => {
    const s = await setup();
    const outsider = await signedUp(live.env, `outsider${w.seq}@${s.domain}`);
    const r = await token(s, await idJag(s, { sub: "outsider", email: outsider.email }));
    expect(r.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/not a member/) });
    // an e-mail outside the organization's proven domains does not map to its account either
    const elsewhere = await signedUp(live.env);
    await joinedMember(live.env, s.owner, elsewhere);
    expect((await token(s, await idJag(s, { sub: "x", email: elsewhere.email }))).body.error).toBe("invalid_grant");
    // a member whose address was never verified is not found by its e-mail (whoever typed it may not hold it)
    await live.env.database.client.execute({ sql: "UPDATE users SET email_verified_at = NULL WHERE id = ?", args: [s.member.userId] });
    expect((await token(s, await idJag(s))).body.error_description).toMatch(/not a member/);
    expect(await tokensOf(s.project.id)).toBe(0);
  });

  test("refused — a project of another organization, even one whose members the same IdP vouches for", async () => {
    const s = await setup();
    const other = await setup(); // the same IdP, enterprise mode on, its own member
    const r = await token(s, await idJag(s, { resource: other.resource }));
    expect(r.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/not a member/) });
    expect(await tokensOf(other.project.id)).toBe(0);
  });

  test("refused — a replayed jti (the extension requires replay detection)", async () => {
    const s = await setup();
    const assertion = await idJag(s);
    expect((await token(s, assertion)).status).toBe(200);
    const again = await token(s, assertion);
    expect(again.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/already used/) });
    expect(await tokensOf(s.project.id)).toBe(1);
  });

  test("the setting follows the trusted issuer: saving another issuer (or SAML) turns it off, saving the same one keeps it", async () => {
    const s = await setup();
    const save = (issuer: string) =>
      s.owner.post("/web/orgs/current/sso", {
        type: "oidc",
        domains: [s.domain],
        oidc: { issuer, clientId: "talentd-org", clientSecret: "" },
      });
    expect((await save(idp.issuer)).body.sso.enterpriseGrant).toBe(true);
    expect((await save("http://127.0.0.1:1/another-idp")).body.sso.enterpriseGrant).toBe(false);
    expect((await save(idp.issuer)).body.sso.enterpriseGrant).toBe(false); // trusted anew only by hand
    expect((await token(s, await idJag(s))).body.error).toBe("invalid_grant");
  });

  test("/org/sso: the control shows the setting and its plain form post turns it on (303 back to the page)", async () => {
    const s = await setup(false);
    const pageHtml = async () => {
      const r = await live.env.request("/org/sso", { headers: { cookie: s.owner.cookie! } });
      expect(r.status).toBe(200);
      return r.text();
    };
    const checkbox = (html: string) => /<form[^>]*id="sso-enterprise-form"[\s\S]*?<input\b[^>]*type="checkbox"[^>]*>/.exec(html)?.[0] ?? "";
    expect(checkbox(await pageHtml())).toContain('name="enabled"');
    expect(checkbox(await pageHtml())).not.toContain("checked");
    const posted = await live.env.request("/web/orgs/current/sso/enterprise", {
      method: "POST",
      headers: { cookie: s.owner.cookie!, origin: live.base, accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ return: "/org/sso", enabled: "true" }).toString(),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe("/org/sso");
    expect(checkbox(await pageHtml())).toContain("checked");
    expect((await token(s, await idJag(s))).status).toBe(200);
  });

  test("the setting: owners and admins only, OIDC only, needs SSO", async () => {
    const s = await setup(false);
    const signedOut = await live.env.request("/web/orgs/current/sso/enterprise", {
      method: "POST",
      headers: { origin: live.base, "content-type": "application/json" },
      body: JSON.stringify({ enabled: true }),
    });
    expect(signedOut.status).toBe(401);
    expect((await s.member.post("/web/orgs/current/sso/enterprise", { enabled: true })).status).toBe(403);
    const bare = await orgWithProject(live.env);
    expect((await bare.owner.post("/web/orgs/current/sso/enterprise", { enabled: true })).status).toBe(404);
    expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: "maybe?" })).body.sso.enterpriseGrant).toBe(false);
    expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: 3 })).status).toBe(400);
    const saml = await orgWithProject(live.env);
    await saml.owner.post("/web/orgs/current/sso", {
      type: "saml",
      domains: [`saml${w.seq}.example`],
      saml: { entryPoint: "http://127.0.0.1:1/sso", idpIssuer: "urn:idp", idpCert: selfSignedCert("enterprise-test").cert },
    });
    const refused = await saml.owner.post("/web/orgs/current/sso/enterprise", { enabled: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("invalid_transition");
  });
});
