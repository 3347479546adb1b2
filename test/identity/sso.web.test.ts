/**
 * Over app.handle: the OAUTH_* settings (validated, one line per
 * mistake), the /login buttons (enabled providers only), the redirects arctic builds for
 * GitHub, Google and Microsoft Entra ID (state, PKCE S256, nonce, callback URL from
 * BASE_URL — these providers cannot be reached from here, see docs/operations.md), organization
 * SSO's web routes and their failure paths (400, 401, 403 member, 403 not approved, 404, 409,
 * CSRF), `enforce` on password sign-in and sign-up, and the security events of each.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { ConfigError } from "../../src/configParsers";
import { approveSsoDomains, joinedMember, makePlatformAdmin, orgWithProject, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";
import { selfSignedCert } from "../cert-support";

let env: TestEnv;
const CERT = selfSignedCert("web-test-idp").cert;
beforeAll(async () => {
  env = await testEnv({
    OAUTH_GITHUB_CLIENT_ID: "gh-id",
    OAUTH_GITHUB_CLIENT_SECRET: "gh-secret",
    OAUTH_GOOGLE_CLIENT_ID: "google-id",
    OAUTH_GOOGLE_CLIENT_SECRET: "google-secret",
    OAUTH_MICROSOFT_CLIENT_ID: "ms-id",
    OAUTH_MICROSOFT_CLIENT_SECRET: "ms-secret",
    OAUTH_MICROSOFT_TENANT: "contoso.onmicrosoft.com",
  });
});
afterAll(() => env.close());

const oidcBody = (domains: string[], extra: Record<string, unknown> = {}) => ({
  type: "oidc",
  domains,
  oidc: { issuer: "https://idp.example.com", clientId: "cid", clientSecret: "the-secret" },
  ...extra,
});

describe("OAUTH_<PROVIDER>_* settings", () => {
  test("none set: no provider; each pair enables its provider with its defaults (GitLab https://gitlab.com, Entra tenant organizations, OIDC name)", () => {
    expect(loadConfig({}).oauth).toEqual({});
    const c = loadConfig({
      OAUTH_GITLAB_CLIENT_ID: "a",
      OAUTH_GITLAB_CLIENT_SECRET: "b",
      OAUTH_MICROSOFT_CLIENT_ID: "c",
      OAUTH_MICROSOFT_CLIENT_SECRET: "d",
      OAUTH_OIDC_ISSUER: "https://login.example.com/realms/x",
      OAUTH_OIDC_CLIENT_ID: "e",
      OAUTH_OIDC_CLIENT_SECRET: "f",
    });
    expect(c.oauth).toEqual({
      gitlab: { clientId: "a", clientSecret: "b", baseUrl: "https://gitlab.com" },
      microsoft: { clientId: "c", clientSecret: "d", tenant: "organizations" },
      oidc: { clientId: "e", clientSecret: "f", issuer: "https://login.example.com/realms/x", name: "OpenID Connect" },
    });
    expect(
      loadConfig({ OAUTH_GITLAB_URL: "https://git.example.com/", OAUTH_GITLAB_CLIENT_ID: "a", OAUTH_GITLAB_CLIENT_SECRET: "b" }).oauth
        .gitlab?.baseUrl,
    ).toBe("https://git.example.com");
  });

  test("a half-set provider, a bad URL or tenant, an issuer without a client: refused with one line naming the setting", () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ OAUTH_GITHUB_CLIENT_ID: "x" }, /OAUTH_GITHUB_CLIENT_ID and OAUTH_GITHUB_CLIENT_SECRET go together/],
      [{ OAUTH_GOOGLE_CLIENT_SECRET: "x" }, /OAUTH_GOOGLE_CLIENT_ID and OAUTH_GOOGLE_CLIENT_SECRET/],
      [
        { OAUTH_GITLAB_URL: "ftp://git", OAUTH_GITLAB_CLIENT_ID: "a", OAUTH_GITLAB_CLIENT_SECRET: "b" },
        /OAUTH_GITLAB_URL: "ftp:\/\/git" is not an http\(s\) URL/,
      ],
      [{ OAUTH_GITLAB_URL: "https://git.example.com" }, /OAUTH_GITLAB_URL is set but/],
      [{ OAUTH_MICROSOFT_CLIENT_ID: "a", OAUTH_MICROSOFT_CLIENT_SECRET: "b", OAUTH_MICROSOFT_TENANT: "a/b" }, /OAUTH_MICROSOFT_TENANT/],
      [{ OAUTH_OIDC_CLIENT_ID: "a", OAUTH_OIDC_CLIENT_SECRET: "b" }, /OAUTH_OIDC_ISSUER is required/],
      [{ OAUTH_OIDC_ISSUER: "https://idp.example.com" }, /OAUTH_OIDC_ISSUER is set but/],
      [
        { OAUTH_OIDC_ISSUER: "not a url", OAUTH_OIDC_CLIENT_ID: "a", OAUTH_OIDC_CLIENT_SECRET: "b" },
        /OAUTH_OIDC_ISSUER: "not a url" is not an http\(s\) URL/,
      ],
    ];
    for (const [e, message] of bad) {
      expect(() => loadConfig(e)).toThrow(ConfigError);
      expect(() => loadConfig(e)).toThrow(message);
    }
  });
});

describe("/login and the providers' redirects (arctic)", () => {
  test("/login shows the enabled providers only, each a link to /api/auth/oauth/<provider> carrying next", async () => {
    const html = await (await env.request("/login?next=/projects/new")).text();
    const shown = [...html.matchAll(/data-provider="([a-z]+)"/g)].map((m) => m[1]);
    expect(shown).toEqual(["github", "google", "microsoft"]);
    expect(html).toContain(`href="/api/auth/oauth/github?next=%2Fprojects%2Fnew"`);
    const plain = await testEnv();
    expect(await (await plain.request("/login")).text()).not.toContain("data-provider");
    plain.close();
  });

  test("GitHub: state (GitHub's OAuth apps take no PKCE), the user:email scope, the callback URL from BASE_URL; state bound to a 10-minute httpOnly cookie", async () => {
    const r = await env.request("/api/auth/oauth/github?next=/x");
    expect(r.status).toBe(302);
    const to = new URL(r.headers.get("location")!);
    expect(to.origin + to.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(to.searchParams.get("client_id")).toBe("gh-id");
    expect(to.searchParams.get("redirect_uri")).toBe("http://localhost:8787/api/auth/oauth/github/callback");
    expect(to.searchParams.get("scope")).toContain("user:email");
    const state = to.searchParams.get("state")!;
    expect(state.length).toBeGreaterThanOrEqual(20);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^talentd_flow=[^;]+; Path=\/api\/auth; HttpOnly; SameSite=Lax; Max-Age=600/);
    const flow = JSON.parse(Buffer.from(/talentd_flow=([^;]+)/.exec(cookie)![1]!, "base64url").toString());
    expect(flow).toMatchObject({ provider: "github", state, next: "/x" });
    // another start gets another state
    expect(new URL((await env.request("/api/auth/oauth/github")).headers.get("location")!).searchParams.get("state")).not.toBe(state);
  });

  test("Google and Microsoft Entra ID: state, PKCE S256 (the challenge is the verifier's hash), nonce, openid email scopes; Entra at its tenant", async () => {
    for (const [id, host] of [
      ["google", "https://accounts.google.com/o/oauth2/v2/auth"],
      ["microsoft", "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize"],
    ] as const) {
      const r = await env.request(`/api/auth/oauth/${id}`);
      const to = new URL(r.headers.get("location")!);
      expect(to.origin + to.pathname).toBe(host);
      expect(to.searchParams.get("redirect_uri")).toBe(`http://localhost:8787/api/auth/oauth/${id}/callback`);
      expect(to.searchParams.get("code_challenge_method")).toBe("S256");
      expect(to.searchParams.get("scope")).toBe("openid email profile");
      const flow = JSON.parse(Buffer.from(/talentd_flow=([^;]+)/.exec(r.headers.get("set-cookie")!)![1]!, "base64url").toString());
      expect(to.searchParams.get("state")).toBe(flow.state);
      expect(to.searchParams.get("nonce")).toBe(flow.nonce);
      const challenge = new Bun.CryptoHasher("sha256").update(flow.verifier).digest("base64url");
      expect(to.searchParams.get("code_challenge")).toBe(challenge);
    }
  });

  test("callbacks refuse without the flow cookie, with a wrong state, or on the provider's error, back on /login with a sentence; an unknown or disabled provider too", async () => {
    const start = await env.request("/api/auth/oauth/github");
    const cookie = /talentd_flow=[^;]+/.exec(start.headers.get("set-cookie")!)![0];
    const state = new URL(start.headers.get("location")!).searchParams.get("state");
    const cases: [string, Record<string, string>, string][] = [
      [`/api/auth/oauth/github/callback?code=x&state=${state}`, {}, "error=state"],
      [`/api/auth/oauth/github/callback?code=x&state=wrong`, { cookie }, "error=state"],
      [`/api/auth/oauth/github/callback?error=access_denied&state=${state}`, { cookie }, "error=denied"],
      [`/api/auth/oauth/github/callback?error=server_error&state=${state}`, { cookie }, "error=provider_error"],
      [`/api/auth/oauth/gitlab`, {}, "error=provider_unknown"],
      [`/api/auth/oauth/nope/callback`, {}, "error=provider_unknown"],
    ];
    for (const [path, headers, expected] of cases) {
      const r = await env.request(path, { headers });
      expect(`${path} → ${r.status}`).toBe(`${path} → 303`);
      expect(r.headers.get("location")).toContain(expected);
      const page = await env.request(r.headers.get("location")!);
      const html = await page.text();
      expect(html).toContain('id="sign-in-notice"');
      expect(html).not.toMatch(/Error:|\sat \S+:\d+:\d+/);
    }
    // the sentence for an unknown code is not invented, and a forged sentence cannot be injected
    expect(await (await env.request("/login?error=Call%20this%20number")).text()).not.toContain("Call this number");
    const events = await env.database.client.execute(
      "SELECT count(*) AS n FROM security_events WHERE kind = 'sign_in.failure' AND detail LIKE '%\"method\":\"oauth\"%'",
    );
    expect(Number(events.rows[0]!.n)).toBeGreaterThanOrEqual(4);
  });
});

describe("organization SSO: /web/orgs/current/sso and its failure paths", () => {
  test("owner sets OIDC SSO with several domains (JSON or form); the secret never comes back, an empty secret keeps the stored one; the change is a security event", async () => {
    const { owner, org } = await orgWithProject(env, "Sso Web");
    const r = await owner.post(
      "/web/orgs/current/sso",
      oidcBody(["Web-Sso.example", "@web-sso.example", "web-sso.org"], { enforce: true }),
    );
    expect(r.status).toBe(200);
    expect(r.body.sso).toMatchObject({
      type: "oidc",
      domains: ["web-sso.example", "web-sso.org"],
      enforce: true,
      oidc: { issuer: "https://idp.example.com", clientId: "cid", clientSecretSet: true },
      saml: null,
      testedAt: null,
    });
    expect(r.body.serviceProvider).toEqual({
      oidcRedirectUri: "http://localhost:8787/api/auth/sso/oidc/callback",
      samlEntityId: `http://localhost:8787/api/auth/saml/${org.id}/metadata`,
      samlAcsUrl: `http://localhost:8787/api/auth/saml/${org.id}/acs`,
      samlMetadataUrl: `http://localhost:8787/api/auth/saml/${org.id}/metadata`,
    });
    expect(JSON.stringify(r.body)).not.toContain("the-secret");
    expect(JSON.stringify((await owner.get("/web/orgs/current/sso")).body)).not.toContain("the-secret");
    // a form post (flat fields) without the secret keeps it
    const form = await env.request("/web/orgs/current/sso", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: owner.cookie!, origin: "http://localhost:8787" },
      body: new URLSearchParams({
        type: "oidc",
        domains: "web-sso.example, web-sso.org",
        oidc_issuer: "https://idp.example.com",
        oidc_client_id: "cid2",
        oidc_client_secret: "",
      }).toString(),
    });
    expect(form.status).toBe(200);
    const stored = await env.database.client.execute({
      sql: "SELECT config, enforce FROM sso_connections WHERE organization_id = ?",
      args: [org.id],
    });
    expect(JSON.parse(String(stored.rows[0]!.config)).oidc).toEqual({
      issuer: "https://idp.example.com",
      clientId: "cid2",
      clientSecret: "the-secret",
    });
    expect(Number(stored.rows[0]!.enforce)).toBe(0); // the unchecked box of a form is "not enforced"
    // SAML replaces OIDC; the certificate is summarized
    const saml = await owner.post("/web/orgs/current/sso", {
      type: "saml",
      domains: ["web-sso.example"],
      saml: { entryPoint: "https://idp.example.com/saml", idpIssuer: "urn:idp", idpCert: CERT },
    });
    expect(saml.body.sso).toMatchObject({
      type: "saml",
      domains: ["web-sso.example"],
      oidc: null,
      saml: { entryPoint: "https://idp.example.com/saml", idpIssuer: "urn:idp" },
    });
    expect(saml.body.sso.saml.certificate.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // the admin log shows each change
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const events = (await admin.get("/web/admin/security-events?limit=50")).body.events.filter((e: { kind: string }) =>
      e.kind.startsWith("sso."),
    );
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(["sso.configured", "sso.configured", "sso.configured"]);
    expect(events[0].detail).toMatchObject({ organizationId: org.id, type: "saml", domains: ["web-sso.example"] });
    expect(JSON.stringify(events)).not.toContain("the-secret");
    // delete, then 404 for test and delete
    expect((await owner.del("/web/orgs/current/sso")).body).toEqual({ sso: null });
    expect((await owner.del("/web/orgs/current/sso")).status).toBe(404);
    expect((await owner.post("/web/orgs/current/sso/test")).status).toBe(404);
    expect((await admin.get("/web/admin/security-events?limit=5")).body.events[0].kind).toBe("sso.deleted");
  });

  test("bad bodies → 400 validation_failed naming each field", async () => {
    const { owner } = await orgWithProject(env, "Sso Bad");
    const cases: [unknown, string[]][] = [
      [{}, ["type", "domains"]],
      [{ type: "ldap", domains: ["a.example"] }, ["type"]],
      [oidcBody([]), ["domains"]],
      [oidcBody(["not a domain", "x"]), ["domains/0", "domains/1"]],
      [oidcBody(Array.from({ length: 21 }, (_, i) => `d${i}.example`)), ["domains"]],
      [
        { type: "oidc", domains: ["a.example"], oidc: { issuer: "http://idp.example.com", clientId: "", clientSecret: "" } },
        ["oidc/issuer", "oidc/clientId", "oidc/clientSecret"],
      ],
      [
        {
          type: "saml",
          domains: ["a.example"],
          saml: { entryPoint: "nope", idpIssuer: "", idpCert: "-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----" },
        },
        ["saml/entryPoint", "saml/idpIssuer", "saml/idpCert"],
      ],
    ];
    for (const [body, paths] of cases) {
      const r = await owner.post("/web/orgs/current/sso", body);
      expect(`${r.status} ${r.body.error}`).toBe("400 validation_failed");
      expect(r.body.issues.map((i: { path: string }) => i.path)).toEqual(paths);
    }
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toBeNull(); // nothing stored
  });

  test("401 signed out; 403 for a member; 403 organization_not_approved for a pending organization; 403 csrf_rejected from another site", async () => {
    const { owner, org } = await orgWithProject(env, "Sso Roles");
    const anon = new WebClient(env);
    for (const [m, p] of [
      ["GET", "/web/orgs/current/sso"],
      ["POST", "/web/orgs/current/sso"],
      ["DELETE", "/web/orgs/current/sso"],
      ["POST", "/web/orgs/current/sso/test"],
    ] as const) {
      expect((await anon.json(m, p, m === "GET" || m === "DELETE" ? undefined : {})).status).toBe(401);
    }
    const member = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: member.email })).body;
    await member.post(`/web/invitations/${inv.id}/accept`);
    await member.post("/web/orgs/active", { organizationId: org.id });
    for (const [m, p] of [
      ["GET", "/web/orgs/current/sso"],
      ["POST", "/web/orgs/current/sso"],
      ["DELETE", "/web/orgs/current/sso"],
      ["POST", "/web/orgs/current/sso/test"],
    ] as const) {
      const r = await member.json(m, p, m === "POST" ? oidcBody(["member.example"]) : undefined);
      expect(`${m} ${p} → ${r.status} ${r.body.error}`).toBe(`${m} ${p} → 403 forbidden`);
    }
    const pending = await signedUp(env);
    await pending.post("/web/orgs", { name: "Pending Sso" });
    const r = await pending.post("/web/orgs/current/sso", oidcBody(["pending.example"]));
    expect(`${r.status} ${r.body.error}`).toBe("403 organization_not_approved");
    const csrf = await owner.json("POST", "/web/orgs/current/sso", oidcBody(["csrf.example"]), { origin: "https://evil.example" });
    expect(`${csrf.status} ${csrf.body.error}`).toBe("403 csrf_rejected");
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
  });

  test("POST …/sso/test: an issuer whose discovery fails, or a SAML entry point that cannot be reached → ok false with the problem; the test link is the domain's sign-in door", async () => {
    const { owner } = await orgWithProject(env, "Sso Test");
    await owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: ["sso-test.example"],
      oidc: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" },
    });
    const t = await owner.post("/web/orgs/current/sso/test");
    expect(t.status).toBe(200);
    expect(t.body.ok).toBe(false);
    expect(t.body.checks[0]).toMatchObject({ name: "discovery", ok: false });
    expect(t.body.checks[0].message).toBe("Could not reach the issuer http://127.0.0.1:9, or it answered no OpenID configuration.");
    expect(t.body.link).toBe("http://localhost:8787/api/auth/sso/sso-test.example?next=%2Forg%2Fsso");
    await owner.post("/web/orgs/current/sso", {
      type: "saml",
      domains: ["sso-test.example"],
      saml: { entryPoint: "http://127.0.0.1:9/sso", idpIssuer: "urn:x", idpCert: CERT },
    });
    const s = await owner.post("/web/orgs/current/sso/test");
    expect(s.body.ok).toBe(false);
    expect(s.body.checks.map((c: { name: string; ok: boolean }) => `${c.name}:${c.ok}`)).toEqual(["certificate:true", "entryPoint:false"]);
  });

  test("enforce applies to the organization's own members only: a member's password sign-in → 403 with the SSO door; a non-member at the domain and a new sign-up still use passwords; once the organization is suspended, passwords work", async () => {
    const { owner, org } = await orgWithProject(env, "Sso Enforce");
    const user = await joinedMember(env, owner, await signedUp(env, "alice@enforced.example"));
    const outsider = await signedUp(env, "olga@enforced.example"); // not a member: another tenant's person, say
    await owner.post("/web/orgs/current/sso", oidcBody(["enforced.example"], { enforce: true }));
    const c = new WebClient(env);
    // an unproven domain enforces nothing
    expect((await c.post("/api/auth/sign-in", { email: user.email, password: "correct horse battery" })).status).toBe(200);
    await approveSsoDomains(env, org.id, ["enforced.example"]);
    const r = await c.post("/api/auth/sign-in", { email: "Alice@Enforced.example", password: "correct horse battery" });
    expect(`${r.status} ${r.body.error}`).toBe("403 forbidden");
    expect(r.body.message).toContain("enforced.example sign in through their organization's single sign-on");
    expect(r.body.ssoUrl).toBe("/api/auth/sso/enforced.example");
    expect((await new WebClient(env).post("/api/auth/sign-in", { email: outsider.email, password: "correct horse battery" })).status).toBe(
      200,
    );
    expect(
      (await new WebClient(env).post("/api/auth/sign-up", { email: "bob@enforced.example", password: "correct horse battery" })).status,
    ).toBe(201);
    // the /login page says it on the page
    const page = await env.request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:8787" },
      body: "email=alice%40enforced.example&password=correct+horse+battery",
    });
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("single sign-on");
    // only an approved organization's SSO is used
    await env.database.client.execute({ sql: "UPDATE organizations SET status = 'suspended' WHERE id = ?", args: [org.id] });
    expect((await c.post("/api/auth/sign-in", { email: user.email, password: "correct horse battery" })).status).toBe(200);
    const noSso = await env.request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:8787" },
      body: "email=alice%40enforced.example&password=",
    });
    expect(noSso.status).toBe(400);
    expect(await noSso.text()).toContain("No single sign-on is set up for enforced.example");
  });

  test("/login with an e-mail of a domain with SSO and no password → to /api/auth/sso/<domain>; an unknown domain there → /login with a sentence", async () => {
    const { owner, org } = await orgWithProject(env, "Sso Route");
    await owner.post("/web/orgs/current/sso", oidcBody(["routed.example"]));
    await approveSsoDomains(env, org.id, ["routed.example"]);
    const r = await env.request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:8787" },
      body: "email=carol%40routed.example&password=&next=%2Fcatalog",
    });
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/api/auth/sso/routed.example?next=%2Fcatalog");
    const unknown = await env.request("/api/auth/sso/nobody.example");
    expect(unknown.headers.get("location")).toBe("/login?error=sso_unknown&domain=nobody.example");
    expect(await (await env.request(unknown.headers.get("location")!)).text()).toContain(
      "No organization has set up single sign-on for nobody.example",
    );
    // the OIDC IdP of that organization cannot be reached here: the sign-in says so instead of failing
    const down = await env.request("/api/auth/sso/routed.example");
    expect(down.headers.get("location")).toBe("/login?error=unavailable");
  });
});
