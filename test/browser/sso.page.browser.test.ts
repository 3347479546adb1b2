/**
 * `/org/sso` in Chromium (docs/design.md "Pages are tested in a real browser"): an owner sets OIDC SSO with the form, tests it
 * (discovery against a real `oidc-provider`), follows the test sign-in link; the refusals
 * show on the page (#flash: 409 for a domain another organization proved, 400 with each
 * field's issue); a failed test lists its problem; a member gets the 404 page. axe-core finds
 * nothing serious; screenshots at 1280×800.
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import type { Browser } from "playwright-core";
import { axeViolations, newPage, screenshot, type WatchedPage, withChromiumAndApp } from "../browser-support";
import { startOidcIdp, type OidcIdp } from "../idp-support";
import { freePort, type LiveEnv } from "../mcp-support";
import { approveSsoDomains, orgWithProject, signedUp, type WebClient } from "../helpers";
import { startTestDns } from "../dns-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
let idp: OidcIdp;

const dns = await startTestDns();
// the IdP is on 127.0.0.1; domains are proven through the test DNS server
withChromiumAndApp((b, l) => ([browser, live] = [b, l]), { EGRESS_ALLOW_LOOPBACK: "true", DNS_SERVERS: dns.server });
beforeAll(async () => {
  idp = await startOidcIdp(
    [{ clientId: "page-client", clientSecret: "page-secret", redirectUris: [`${live.base}/api/auth/sso/oidc/callback`] }],
    freePort(),
  );
}, 60_000);
afterAll(async () => {
  await idp?.stop();
  await dns.stop();
});

async function as(client: WebClient): Promise<WatchedPage> {
  const w = await newPage(browser);
  await w.context.addCookies([{ name: "talentd_session", value: client.cookie!.split("=")[1]!, url: live.base }]);
  return w;
}

describe("/org/sso in Chromium", () => {
  test("the owner sets OIDC SSO with the form, tests it, and signs in through the test link; a taken domain and a bad field are shown on the page", async () => {
    const { owner, org } = await orgWithProject(live.env, "Page Sso");
    const other = await orgWithProject(live.env, "Other Sso");
    await other.owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: ["taken-page.example"],
      oidc: { issuer: idp.issuer, clientId: "x", clientSecret: "y" },
    });
    await approveSsoDomains(live.env, other.org.id, ["taken-page.example"]);

    const w = await as(owner);
    const p = w.page;
    await p.goto(`${live.base}/org/sso`);
    expect(await p.locator("h1").textContent()).toBe("Single sign-on");
    expect(await p.locator("dd code").first().textContent()).toBe(`${live.base}/api/auth/sso/oidc/callback`);
    expect(await axeViolations(p)).toEqual([]);
    await screenshot(p, "org-sso-empty");

    // a domain another organization holds → 409, said under the domains (the alert points there), nothing saved
    await p.fill("#sso-domains", "page-sso.example, taken-page.example");
    await p.fill("#oidc-issuer", idp.issuer);
    await p.fill("#oidc-client-id", "page-client");
    await p.fill("#oidc-client-secret", "page-secret");
    await p.click('#sso-form button[type="submit"]');
    await p.locator("#flash .flash.error").waitFor();
    await p.waitForSelector("#sso-domains-error:not([hidden])");
    expect(await p.textContent("#sso-domains-error")).toContain("taken-page.example is verified by another organization");
    expect(await p.locator("#flash").textContent()).toBe("That clashes with what is there. Not saved: fix the field marked below.");
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toBeNull();

    // a bad field → 400 with the field named
    await p.fill("#sso-domains", "not a domain");
    await p.click('#sso-form button[type="submit"]');
    await p.waitForFunction(() => document.querySelector("#sso-domains-error")?.textContent?.includes("is not an e-mail domain"));
    expect(await p.locator("#flash").textContent()).not.toContain("domains/0"); // no API path on the page
    // the one form layout: the refusal also under the field it concerns, named by the field
    await p.waitForSelector("#sso-domains-error:not([hidden])");
    expect(await p.textContent("#sso-domains-error")).toBe(
      '"not" is not an e-mail domain; "a" is not an e-mail domain; "domain" is not an e-mail domain',
    );
    expect(await p.getAttribute("#sso-domains", "aria-describedby")).toBe("sso-domains-help sso-domains-error");
    expect(await p.getAttribute("#sso-domains", "aria-invalid")).toBe("true");
    expect(await axeViolations(p)).toEqual([]);
    await p.evaluate(() => document.querySelector("#sso-domains")!.scrollIntoView({ block: "center" }));
    await screenshot(p, "org-sso-field-error");

    // saved: the page reloads with the configuration; the secret is not in it
    await p.fill("#sso-domains", "page-sso.example");
    await p.check('input[name="enforce"]');
    await p.click('#sso-form button[type="submit"]');
    await p.locator("#sso-test-button").waitFor();
    expect(await p.content()).not.toContain("page-secret");
    expect(await p.locator("#sso-form-h").textContent()).toBe("Configuration");
    expect(await p.textContent("#action-status")).toBe("Single sign-on saved."); // the status line says what was done
    expect(await p.isVisible("#sso-domains-error")).toBe(false);
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toMatchObject({ domains: ["page-sso.example"], enforce: true });

    // the domain is pending: the page shows the TXT record to publish; verify fails until it is there, then succeeds
    expect(await p.locator("#sso-claims").textContent()).toContain("Pending");
    const value = (await p.locator("#sso-claims code").nth(1).textContent())!;
    expect(value).toMatch(/^talentd-verification=[0-9a-f]{32}$/);
    await p.click('#sso-claims button:text("Verify page-sso.example")');
    await p.locator("#sso-verify-outcome").waitFor();
    expect(await p.locator("#sso-verify-outcome").textContent()).toContain("No TXT record _talentd-challenge.page-sso.example");
    dns.txt.set("_talentd-challenge.page-sso.example", [value]);
    await p.click('#sso-claims button:text("Verify page-sso.example")');
    await p.locator("#action-status .status").waitFor();
    expect(await p.locator("#sso-verify-outcome").count()).toBe(0);
    expect(await p.locator("#sso-claims").textContent()).toContain("Verified (DNS)");
    expect(await p.textContent("#action-status")).toContain("page-sso.example is verified"); // the status line says it
    expect(await axeViolations(p)).toEqual([]);
    await screenshot(p, "org-sso-domain-verified");

    // test: discovery against the real IdP; the results and the link on the page
    await p.click("#sso-test-button");
    await p.locator("#sso-test").waitFor();
    expect(await p.locator("#sso-test-h").textContent()).toBe("The configuration checks out");
    expect(await p.locator("#sso-test").textContent()).toContain(`Discovered ${idp.issuer}`);
    expect(await axeViolations(p)).toEqual([]);
    await screenshot(p, "org-sso-tested");

    // the test link signs in through the IdP (as a person of the domain) and comes back to /org/sso
    idp.account = { sub: "page-tester", email: "tester@page-sso.example", email_verified: true };
    await p.click("#sso-test-link");
    await p.waitForURL(`${live.base}/org/sso`);
    // the tester is now signed in as the IdP's person, a member: the page is not theirs (404)
    expect(await p.locator("h1").textContent()).toBe("Not found");
    // (signing in there ended the owner's session of this browser, as any new sign-in does)
    const members = await live.env.database.client.execute({
      sql: "SELECT u.email, m.role FROM members m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ?",
      args: [org.id],
    });
    expect(members.rows.map((r) => `${r.email}:${r.role}`)).toContain("tester@page-sso.example:member");
    // the refusals provoked above (409, 400, the unverified domain's 409) and the tester's 404 are the only console errors
    expect(w.problems.filter((x) => !/status of (400|404|409)|Status Error Code (400|409)/.test(x))).toEqual([]);
    await w.context.close();
  });

  test("a failed test lists its problem on the page; a member of the organization gets the 404 page", async () => {
    const { owner, org } = await orgWithProject(live.env, "Broken Sso");
    await owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: ["broken-page.example"],
      oidc: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" },
    });
    const w = await as(owner);
    await w.page.goto(`${live.base}/org/sso`);
    await w.page.click("#sso-test-button");
    await w.page.locator("#sso-test").waitFor();
    expect(await w.page.locator("#sso-test-h").textContent()).toBe("The configuration has problems");
    expect(await w.page.locator("#sso-test-problems").textContent()).toContain("discovery: Could not reach the issuer http://127.0.0.1:9");
    expect(await axeViolations(w.page)).toEqual([]);
    await w.context.close();

    const member = await signedUp(live.env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: member.email })).body;
    await member.post(`/web/invitations/${inv.id}/accept`);
    await member.post("/web/orgs/active", { organizationId: org.id });
    const m = await as(member);
    const r = await m.page.goto(`${live.base}/org/sso`);
    expect(r?.status()).toBe(404);
    expect(await m.page.content()).not.toContain("broken-page.example");
    await m.context.close();
  });
});
