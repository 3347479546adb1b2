/**
 * In Chromium against a real OpenID Connect provider (`oidc-provider`
 * from npm on 127.0.0.1): "a generic OIDC provider (openid-client: discovery, PKCE, nonce)",
 * GitLab at any base URL (arctic's client pointed at the same IdP's /oauth/* paths), and
 * organization SSO over OIDC routed by e-mail domain from /login. Refusals: a wrong `state`,
 * a wrong `nonce`, an expired code, the IdP's access_denied — each back on /login with a
 * sentence, never a stack.
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { axeViolations, newPage, screenshot, type WatchedPage, withChromiumAndApp } from "../browser-support";
import { startOidcIdp, type OidcIdp } from "../idp-support";
import { freePort, type LiveEnv } from "../mcp-support";
import { approveSsoDomains, orgWithProject, signedUp, WebClient } from "../helpers";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser;
let idp: OidcIdp;
let live: LiveEnv;
let seq = 0;

const idpPort = freePort();
const issuer = `http://127.0.0.1:${idpPort}`;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]), {
  OAUTH_OIDC_ISSUER: issuer,
  OAUTH_OIDC_CLIENT_ID: "talentd-generic",
  OAUTH_OIDC_CLIENT_SECRET: "generic-secret",
  OAUTH_OIDC_NAME: "Test IdP",
  OAUTH_GITLAB_URL: issuer,
  OAUTH_GITLAB_CLIENT_ID: "talentd-gitlab",
  OAUTH_GITLAB_CLIENT_SECRET: "gitlab-secret",
  EGRESS_ALLOW_LOOPBACK: "true", // the IdP is on 127.0.0.1
});
beforeAll(async () => {
  const base = live.base;
  idp = await startOidcIdp(
    [
      { clientId: "talentd-generic", clientSecret: "generic-secret", redirectUris: [`${base}/api/auth/oauth/oidc/callback`] },
      { clientId: "talentd-gitlab", clientSecret: "gitlab-secret", redirectUris: [`${base}/api/auth/oauth/gitlab/callback`] },
      { clientId: "talentd-org", clientSecret: "org-secret", redirectUris: [`${base}/api/auth/sso/oidc/callback`] },
    ],
    idpPort,
  );
}, 60_000);
afterAll(async () => {
  await idp?.stop();
});

async function fresh(): Promise<WatchedPage> {
  return newPage(browser);
}

/** The notice /login shows after a refused sign-in. */
async function loginNotice(page: Page): Promise<string> {
  await page.waitForURL(/\/login\?error=/);
  return (await page.locator("#sign-in-notice").textContent()) ?? "";
}

async function sessionOf(w: WatchedPage) {
  const cookies = await w.context.cookies();
  const c = cookies.find((x) => x.name === "talentd_session");
  if (!c) return null;
  const client = new WebClient(live.env);
  client.cookie = `talentd_session=${c.value}`;
  return (await client.get("/api/auth/session")).body;
}

describe("generic OIDC provider (openid-client) in Chromium", () => {
  test("/login offers the enabled providers only; signing in through the OIDC button creates the account from a verified e-mail and lands on the home page", async () => {
    const w = await fresh();
    const email = `oidc-new${++seq}@example.com`;
    idp.account = { sub: `oidc-sub-${seq}`, email, email_verified: true, name: "Oidc Person" };
    await w.page.goto(`${live.base}/login`);
    const buttons = await w.page.locator("[data-provider]").evaluateAll((els) => els.map((e) => e.getAttribute("data-provider")));
    expect(buttons).toEqual(["gitlab", "oidc"]);
    expect(await w.page.locator('[data-provider="oidc"]').textContent()).toContain("Test IdP");
    expect(await axeViolations(w.page)).toEqual([]);
    await screenshot(w.page, "login-providers");
    await w.page.click('[data-provider="oidc"]');
    await w.page.waitForURL(`${live.base}/`);
    const s = await sessionOf(w);
    expect(s.user.email).toBe(email);
    const events = await live.env.database.client.execute({
      sql: "SELECT kind, detail FROM security_events WHERE email = ? ORDER BY created_at",
      args: [email],
    });
    expect(events.rows.map((r) => r.kind)).toContain("sign_in.success");
    expect(JSON.parse(String(events.rows.at(-1)!.detail))).toMatchObject({ method: "oauth", provider: "oidc", created: true });
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  test("an existing user is linked only through a verified e-mail: verified links (and signs in as that user), unverified is refused with a sentence", async () => {
    const existing = await signedUp(live.env, `linked${++seq}@example.com`);
    const w = await fresh();
    idp.account = { sub: `unverified-${seq}`, email: existing.email, email_verified: false };
    await w.page.goto(`${live.base}/login`);
    await w.page.click('[data-provider="oidc"]');
    expect(await loginNotice(w.page)).toContain("not verified");
    expect(await sessionOf(w)).toBeNull();
    idp.account = { sub: `verified-${seq}`, email: existing.email, email_verified: true };
    await w.page.click('[data-provider="oidc"]');
    await w.page.waitForURL(`${live.base}/`);
    expect((await sessionOf(w)).user.id).toBe(existing.userId);
    await w.context.close();
  });

  test("a wrong state is refused: the callback's state is changed on its way back → /login says the sign-in did not start in this browser", async () => {
    const w = await fresh();
    idp.account = { sub: `state-${++seq}`, email: `state${seq}@example.com`, email_verified: true };
    idp.rewriteCallback = (location) => {
      const u = new URL(location);
      u.searchParams.set("state", "forged-state");
      return u.toString();
    };
    await w.page.goto(`${live.base}/api/auth/oauth/oidc`);
    idp.rewriteCallback = undefined;
    expect(await loginNotice(w.page)).toContain("did not start in this browser");
    expect(await sessionOf(w)).toBeNull();
    const ev = await live.env.database.client.execute(
      "SELECT detail FROM security_events WHERE kind = 'sign_in.failure' ORDER BY created_at DESC LIMIT 1",
    );
    expect(String(ev.rows[0]!.detail)).toContain("state does not match");
    await w.context.close();
  });

  test("a wrong nonce is refused: the nonce sent to the IdP is changed, so the ID token carries another one → /login says the answer did not check out", async () => {
    const w = await fresh();
    idp.account = { sub: `nonce-${++seq}`, email: `nonce${seq}@example.com`, email_verified: true };
    idp.rewriteAuthorize = (u) => u.searchParams.set("nonce", "a-nonce-this-browser-never-sent");
    await w.page.goto(`${live.base}/api/auth/oauth/oidc`);
    idp.rewriteAuthorize = undefined;
    expect(await loginNotice(w.page)).toContain("did not check out");
    expect(await sessionOf(w)).toBeNull();
    await w.context.close();
  });

  test("an expired code is refused: the callback is held until the code's lifetime passed → /login says the code was refused", async () => {
    const w = await fresh();
    idp.account = { sub: `expired-${++seq}`, email: `expired${seq}@example.com`, email_verified: true };
    idp.codeTtl = 1;
    let held: string | null = null;
    idp.rewriteCallback = (location) => {
      held = location;
      return `${idp.issuer}/held`;
    };
    await w.page.goto(`${live.base}/api/auth/oauth/oidc`);
    idp.rewriteCallback = undefined;
    expect(held).not.toBeNull();
    await Bun.sleep(2500);
    await w.page.goto(held!);
    expect(await loginNotice(w.page)).toContain("code it gave was refused");
    expect(await sessionOf(w)).toBeNull();
    idp.codeTtl = 60;
    await w.context.close();
  });

  test("the provider's access_denied comes back to /login as a sentence, not a stack", async () => {
    const w = await fresh();
    // the person cancels at the IdP: oidc-provider answers the callback with error=access_denied
    idp.deny = true;
    await w.page.goto(`${live.base}/api/auth/oauth/oidc`);
    idp.deny = false;
    const notice = await loginNotice(w.page);
    expect(notice).toContain("cancelled or refused");
    expect(await w.page.content()).not.toMatch(/Error:|\sat \S+:\d+:\d+/);
    expect(await axeViolations(w.page)).toEqual([]);
    await w.context.close();
  });
});

describe("GitLab (arctic) at a self-managed base URL, against the same real IdP", () => {
  test("the GitLab button signs in with state, PKCE S256 (the IdP checks the verifier), and the ID token's nonce, issuer and audience checked", async () => {
    const w = await fresh();
    const email = `gitlab${++seq}@example.com`;
    idp.account = { sub: `gitlab-${seq}`, email, email_verified: true };
    let authorize: URL | null = null;
    w.page.on("request", (r) => {
      if (r.url().startsWith(`${idp.issuer}/oauth/authorize?`)) authorize = new URL(r.url());
    });
    await w.page.goto(`${live.base}/login`);
    await w.page.click('[data-provider="gitlab"]');
    await w.page.waitForURL(`${live.base}/`);
    expect((await sessionOf(w)).user.email).toBe(email);
    const a = authorize as URL | null;
    expect(a?.searchParams.get("state")).toBeTruthy();
    expect(a?.searchParams.get("nonce")).toBeTruthy();
    expect(a?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(a?.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a?.searchParams.get("redirect_uri")).toBe(`${live.base}/api/auth/oauth/gitlab/callback`);
    await w.context.close();
  });
});

describe("organization SSO over OIDC, routed from /login by e-mail domain", () => {
  test("owner configures OIDC SSO for a domain; a new person types only the e-mail on /login, signs in at the IdP, and joins the organization as member", async () => {
    const { owner, org } = await orgWithProject(live.env, `Oidc Org ${++seq}`);
    const domain = `oidc-org${seq}.example`;
    const saved = await owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: [domain],
      enforce: true,
      oidc: { issuer: idp.issuer, clientId: "talentd-org", clientSecret: "org-secret" },
    });
    expect(saved.status).toBe(200);
    expect(JSON.stringify(saved.body)).not.toContain("org-secret");
    await approveSsoDomains(live.env, org.id, [domain]);
    const tested = await owner.post("/web/orgs/current/sso/test");
    expect(tested.body.ok).toBe(true);
    expect(tested.body.link).toBe(`${live.base}/api/auth/sso/${domain}?next=%2Forg%2Fsso`);

    const w = await fresh();
    const email = `new.person@${domain}`;
    idp.account = { sub: `org-${seq}`, email, email_verified: true };
    await w.page.goto(`${live.base}/login`);
    await w.page.fill("#email", email);
    await w.page.click('form[action="/login"] button[type="submit"]');
    await w.page.waitForURL(`${live.base}/`);
    const s = await sessionOf(w);
    expect(s.user.email).toBe(email);
    expect(s.activeOrganizationId).toBe(org.id);
    expect(s.organizations.find((o: { id: string }) => o.id === org.id)?.role).toBe("member");

    // enforce: the password form is refused for the organization's members, with the way forward
    const w2 = await fresh();
    await w2.page.goto(`${live.base}/login`);
    await w2.page.fill("#email", email);
    await w2.page.fill("#password", "some password here");
    await w2.page.click('form[action="/login"] button[type="submit"]');
    expect(await w2.page.locator("p.error").first().textContent()).toContain("single sign-on");
    // …and so is an external identity provider for an address of the domain
    idp.account = { sub: `via-generic-${seq}`, email, email_verified: true };
    await w2.page.goto(`${live.base}/api/auth/oauth/oidc`);
    expect(await loginNotice(w2.page)).toContain(`Accounts at ${domain} sign in through their organization's single sign-on`);
    expect(w.problems).toEqual([]);
    await w.context.close();
    await w2.context.close();
  });

  test("an SSO sign-in with a wrong state or whose IdP vouches for an address outside the organization's domains is refused", async () => {
    const { owner, org } = await orgWithProject(live.env, `Oidc Org ${++seq}`);
    const domain = `oidc-strict${seq}.example`;
    expect(
      (
        await owner.post("/web/orgs/current/sso", {
          type: "oidc",
          domains: [domain],
          oidc: { issuer: idp.issuer, clientId: "talentd-org", clientSecret: "org-secret" },
        })
      ).status,
    ).toBe(200);
    await approveSsoDomains(live.env, org.id, [domain]);
    const w = await fresh();
    idp.account = { sub: `outside-${seq}`, email: `someone@elsewhere${seq}.example`, email_verified: true };
    await w.page.goto(`${live.base}/api/auth/sso/${domain}`);
    expect(await loginNotice(w.page)).toContain("outside the organization's domains");
    idp.rewriteCallback = (location) => {
      const u = new URL(location);
      u.searchParams.set("state", "forged");
      return u.toString();
    };
    idp.account = { sub: `inside-${seq}`, email: `someone@${domain}`, email_verified: true };
    await w.page.goto(`${live.base}/api/auth/sso/${domain}`);
    idp.rewriteCallback = undefined;
    expect(await loginNotice(w.page)).toContain("did not start in this browser");
    expect(await sessionOf(w)).toBeNull();
    await w.context.close();
  });
});
