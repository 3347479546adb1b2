/**
 * The organization and platform administration pages in
 * Chromium. An owner invites a member (no SMTP: the accept link is taken from the page) who
 * accepts in a second browser context; a role change, the last owner's protection shown on the
 * page (and the role control back to the truth), removal and revocation confirmed; a new
 * organization waits with a banner on every page until an administrator approves it from
 * /admin; suspension asks for the slug typed; a non-administrator opening /admin gets the 404
 * page. Every page is checked with axe-core and must log no console error (CSP included).
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { makePlatformAdmin, orgWithProject, signedUp } from "../helpers";
import {
  axeViolations,
  LAN_HOST,
  newPage,
  screenshot,
  servePage,
  type WatchedPage,
  expectClean,
  signedInPage,
  expectOnlyStatus,
  withChromiumAndApp,
} from "../browser-support";
import { liveEnv, PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
// new organizations wait for a platform administrator (no AUTO_APPROVE_ORGS)
withChromiumAndApp((b, l) => ([browser, live] = [b, l]), {});

const clean = expectClean;
const signIn = (email: string): Promise<WatchedPage> => signedInPage(browser, live.base, email, PASSWORD);
const expectedOnly = (w: WatchedPage, status: number): void => expectOnlyStatus(w, status);
const main = (p: Page) => p.textContent("main").then((t) => t ?? "");

describe("the organization and administration pages in Chromium", () => {
  test("invite a member (the accept link taken from the page, no SMTP) who accepts in a second browser context; change their role; the last owner's demotion refused on the page; resend and revoke an invitation; remove the member — each confirmed once", async () => {
    const o = await orgWithProject(live.env, "Harbor");
    const w = await signIn(o.owner.email);
    const page = w.page;
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await page.goto(`${live.base}/org`);
    expect(await page.textContent("#members")).toContain(o.owner.email);
    expect(await page.textContent("#invitations")).toContain("No mail server is configured");

    // invite: the invitations section is swapped in place with the link
    const invitee = `newcomer-${Date.now()}@example.com`;
    await page.fill("#invite-email", invitee);
    await page.selectOption("#invite-role", "member");
    await page.click("#invitations button:text('Send the invitation')");
    await page.waitForSelector(`#invitations .notice:has-text('${invitee} is invited as member')`);
    const link = (await page.textContent(`tr[data-invitation='${invitee}'] code`))!.trim();
    expect(link).toMatch(new RegExp(`^${live.base}/accept-invitation/inv_`));
    await page.click(`tr[data-invitation='${invitee}'] button[data-copy]`);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await clean(w, "org");

    // the invitee, in another browser context, opens the link and creates their account
    const other = await newPage(browser);
    await other.page.goto(link);
    expect(await other.page.textContent("h1")).toContain("Join Harbor");
    await other.page.fill("#password", PASSWORD);
    await Promise.all([other.page.waitForLoadState("load"), other.page.click("button:text('Create account and join')")]);
    expect(await other.page.textContent("h1")).toContain("Welcome to Harbor");
    await other.page.goto(`${live.base}/org`);
    expect(await other.page.textContent("#members")).toContain(invitee);
    expect(await other.page.locator("#invitations").count()).toBe(0); // a member sees no invitations
    await clean(other, "org-member");

    // the owner sees them as a member (the invitation is gone from the pending list)
    await page.goto(`${live.base}/org`);
    const row = page.locator(`tr[data-member='${invitee}']`);
    expect(await row.count()).toBe(1);
    expect(await page.locator(`tr[data-invitation='${invitee}']`).count()).toBe(0);

    // change their role: one click, no question, the section says what changed
    await row.locator("select").selectOption("admin");
    await row.locator("button:has-text('Change')").click();
    await page.waitForSelector(`#members .notice:has-text('${invitee} is now admin.')`);
    expect(await page.inputValue(`tr[data-member='${invitee}'] select`)).toBe("admin");
    expect(dialogs).toEqual([]);

    // the last owner cannot demote themselves: the server's refusal in the alert area, the control back to "owner"
    const mine = page.locator(`tr[data-member='${o.owner.email}']`);
    await mine.locator("select").selectOption("member");
    const refused = page.waitForResponse((r) => r.url().includes("/web/orgs/current/members/") && r.request().method() === "PATCH");
    await mine.locator("button:has-text('Change')").click();
    expect((await refused).status()).toBe(409);
    await page.waitForSelector("#flash [role=alert]");
    expect(await page.textContent("#flash")).toContain("The last owner cannot be demoted");
    expect(await page.inputValue(`tr[data-member='${o.owner.email}'] select`)).toBe("owner");
    expect(
      (await o.owner.get("/web/orgs/current/members")).body.members.find((m: { email: string }) => m.email === o.owner.email).role,
    ).toBe("owner");
    expectedOnly(w, 409);
    await clean(w, "org-last-owner");

    // a second invitation: resend (no question), then revoke (confirmed once)
    const second = `second-${Date.now()}@example.com`;
    await page.fill("#invite-email", second);
    await page.click("#invitations button:text('Send the invitation')");
    await page.waitForSelector(`tr[data-invitation='${second}']`);
    await page.click(`tr[data-invitation='${second}'] button:has-text('Resend')`);
    await page.waitForSelector(`#invitations .notice:has-text('was sent again')`);
    expect(dialogs).toEqual([]);
    await page.click(`tr[data-invitation='${second}'] button:has-text('Revoke')`);
    await page.waitForSelector(`#invitations .notice:has-text('was revoked')`);
    expect(await page.locator(`tr[data-invitation='${second}']`).count()).toBe(0);
    expect(dialogs).toEqual([`Revoke the invitation of ${second}? Its link stops working.`]);

    // remove the member: confirmed once; their next page shows they are out
    await page.click(`tr[data-member='${invitee}'] button:has-text('Remove')`);
    await page.waitForSelector("#members .notice:has-text('removed')");
    expect(await page.locator(`tr[data-member='${invitee}']`).count()).toBe(0);
    expect(dialogs).toHaveLength(2);
    expect(dialogs[1]).toContain(`Remove ${invitee} from Harbor?`);
    await other.page.goto(`${live.base}/org`);
    expect(await main(other.page)).toContain("No organization yet");
    await other.context.close();
    await clean(w);
    await w.context.close();
  });

  test("a new organization waits with a banner on every page; an administrator approves it from /admin and the banner is gone for its owner; suspension asks for the slug typed; reactivation", async () => {
    const owner = await signedUp(live.env);
    const admin = await signedUp(live.env);
    await makePlatformAdmin(live.env, admin.userId);
    const w = await signIn(owner.email);
    const page = w.page;
    expect(await main(page)).toContain("No organization yet");
    await Promise.all([page.waitForURL((u) => u.pathname === "/org/new"), page.click("main a:has-text('Create an organization')")]);
    await clean(w, "org-new");
    const slug = `lighthouse-${Date.now()}`;
    await page.fill("#org-name", "Lighthouse");
    await page.fill("#org-slug", slug);
    await Promise.all([page.waitForURL((u) => u.pathname === "/org"), page.click("button:text('Create the organization')")]);
    expect(await page.textContent("#approval-banner")).toContain("Lighthouse is pending approval");
    expect(await page.textContent("#status")).toContain("pending");
    await clean(w, "org-pending");
    await page.goto(`${live.base}/`);
    expect(await page.textContent("#approval-banner")).toContain("pending approval");
    expect(await page.locator("nav[aria-label=Main] a").allTextContents()).toEqual(["Projects", "Organization"]);

    // the administrator approves it
    const a = await signIn(admin.email);
    await a.page.goto(`${live.base}/admin?status=pending`);
    const row = a.page.locator(`tr[data-org='${slug}']`);
    expect(await row.textContent()).toContain("pending");
    await clean(a, "admin-organizations");
    await row.locator("button:has-text('Approve')").click();
    await a.page.waitForSelector("#admin-orgs .notice:has-text('Lighthouse is now approved.')");
    expect(await a.page.locator(`tr[data-org='${slug}']`).count()).toBe(0); // no longer pending: out of this filter

    // the owner's next page has no banner, and the organization's pages
    await page.goto(`${live.base}/org`);
    expect(await page.locator("#approval-banner").count()).toBe(0);
    expect(await page.textContent("#members")).toContain(owner.email);
    expect(await page.locator("nav[aria-label=Main] a").allTextContents()).toEqual([
      "Projects",
      "Catalog",
      "Organization",
      "Expertises",
      "Insights",
      "Adoption",
    ]);

    // suspension asks for the slug typed; the owner then sees the banner again
    await a.page.goto(`${live.base}/admin?status=approved`);
    const approved = a.page.locator(`tr[data-org='${slug}']`);
    await approved.locator("summary:has-text('Suspend')").click();
    const confirm = approved.locator("input[name=confirm]");
    const suspend = approved.locator("button:has-text('Suspend Lighthouse')");
    await confirm.fill("lighthouse");
    expect(await suspend.isDisabled()).toBe(true);
    await confirm.fill(slug);
    expect(await suspend.isDisabled()).toBe(false);
    await clean(a);
    await suspend.click();
    await a.page.waitForSelector("#admin-orgs .notice:has-text('Lighthouse is now suspended.')");
    await page.reload();
    expect(await page.textContent("#approval-banner")).toContain("Lighthouse is suspended");

    // reactivation: one click
    await a.page.goto(`${live.base}/admin?status=suspended`);
    await a.page.locator(`tr[data-org='${slug}'] button:has-text('Reactivate')`).click();
    await a.page.waitForSelector("#admin-orgs .notice:has-text('Lighthouse is now approved.')");
    await page.reload();
    expect(await page.locator("#approval-banner").count()).toBe(0);

    // the other administration pages
    await a.page.click("nav[aria-label=Administration] a:has-text('Users')");
    await a.page.waitForURL((u) => u.pathname === "/admin/users");
    expect(await main(a.page)).toContain(owner.email);
    await clean(a, "admin-users");
    await a.page.click("nav[aria-label=Administration] a:has-text('Security events')");
    await a.page.waitForURL((u) => u.pathname === "/admin/security-events");
    expect(await main(a.page)).toContain("sign_in.success");
    await clean(a, "admin-security-events");
    await a.context.close();
    await clean(w);
    await w.context.close();
  });

  test("without JavaScript: create an organization from /org/new, an administrator approves it and suspends it (a wrong slug is refused by the browser itself), an invitation is sent and resent", async () => {
    const owner = await signedUp(live.env);
    const admin = await signedUp(live.env);
    await makePlatformAdmin(live.env, admin.userId);
    const noJs = async (email: string) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${live.base}/login`);
      await page.fill("#email", email);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL((u) => u.pathname === "/"), page.click("form[action='/login'] button[type=submit]")]);
      return { context, page };
    };
    const o = await noJs(owner.email);
    await o.page.goto(`${live.base}/org/new`);
    const slug = `plain-${Date.now()}`;
    await o.page.fill("#org-name", "Plain Forms");
    await o.page.fill("#org-slug", slug);
    await Promise.all([o.page.waitForURL((u) => u.pathname === "/org"), o.page.click("button:text('Create the organization')")]);
    expect(await o.page.textContent("#approval-banner")).toContain("Plain Forms is pending approval");

    const a = await noJs(admin.email);
    await a.page.goto(`${live.base}/admin?status=pending`);
    await Promise.all([
      a.page.waitForURL((u) => u.pathname === "/admin"),
      a.page.locator(`tr[data-org='${slug}'] button:has-text('Approve')`).click(),
    ]);
    await o.page.goto(`${live.base}/org`);
    expect(await o.page.locator("#approval-banner").count()).toBe(0);

    // suspend: the slug typed, checked by the browser's own validation
    await a.page.goto(`${live.base}/admin?status=approved`);
    const row = a.page.locator(`tr[data-org='${slug}']`);
    await row.locator("summary:has-text('Suspend')").click();
    await row.locator("input[name=confirm]").fill("plain");
    await row.locator("button:has-text('Suspend Plain Forms')").click();
    expect(await row.locator("input[name=confirm]").evaluate((i) => (i as HTMLInputElement).validity.patternMismatch)).toBe(true);
    expect((await admin.get("/web/admin/organizations")).body.organizations.find((x: { slug: string }) => x.slug === slug).status).toBe(
      "approved",
    );
    await row.locator("input[name=confirm]").fill(slug);
    await Promise.all([a.page.waitForURL((u) => u.pathname === "/admin"), row.locator("button:has-text('Suspend Plain Forms')").click()]);
    expect((await admin.get("/web/admin/organizations")).body.organizations.find((x: { slug: string }) => x.slug === slug).status).toBe(
      "suspended",
    );
    await a.page.goto(`${live.base}/admin?status=suspended`);
    await Promise.all([
      a.page.waitForURL((u) => u.pathname === "/admin"),
      a.page.locator(`tr[data-org='${slug}'] button:has-text('Reactivate')`).click(),
    ]);

    // invite and resend without JavaScript: back on /org with the link
    await o.page.goto(`${live.base}/org`);
    const invitee = `plain-${Date.now()}@example.com`;
    await o.page.fill("#invite-email", invitee);
    await Promise.all([o.page.waitForURL((u) => u.pathname === "/org"), o.page.click("button:text('Send the invitation')")]);
    expect(await o.page.textContent(`tr[data-invitation='${invitee}'] code`)).toContain("/accept-invitation/inv_");
    await Promise.all([
      o.page.waitForURL((u) => u.pathname === "/org"),
      o.page.click(`tr[data-invitation='${invitee}'] button:has-text('Resend')`),
    ]);
    const mails = (await live.env.database.client.execute({ sql: "SELECT id FROM mail_outbox WHERE to_address = ?", args: [invitee] }))
      .rows;
    expect(mails).toHaveLength(2);
    await o.context.close();
    await a.context.close();
  });

  test("a non-administrator opening /admin gets the 404 page; a member of an organization sees none of its admin-only parts on /org", async () => {
    const o = await orgWithProject(live.env, "Quay");
    const m = await signedUp(live.env);
    const inv = (await o.owner.post("/web/orgs/current/invitations", { email: m.email })).body;
    expect((await m.post(`/web/invitations/${inv.id}/accept`)).status).toBe(200);
    for (const who of [o.owner.email, m.email]) {
      const w = await signIn(who);
      expect(await w.page.locator("nav[aria-label=Main] a:has-text('Administration')").count()).toBe(0);
      for (const path of ["/admin", "/admin/users", "/admin/security-events"]) {
        const res = await w.page.goto(`${live.base}${path}`);
        expect(`${path} ${res?.status()}`).toBe(`${path} 404`);
        expect(await w.page.textContent("h1")).toBe("Not found");
      }
      await clean(w);
      if (who === m.email) {
        await w.page.goto(`${live.base}/org`);
        expect(
          await w.page.locator("#invitations, a[href='/org/sso'], a[href='/org/mail'], a[href='/org/expertises'], main select").count(),
        ).toBe(0);
        expect(await w.page.locator("nav[aria-label=Main] a").allTextContents()).toEqual(["Projects", "Catalog", "Organization"]);
      }
      await w.context.close();
    }
  });

  test(`at http://${LAN_HOST}:PORT (only Origin, no Sec-Fetch-*): an administrator's decision and an invitation through htmx work; a page of another origin that auto-submits "approve" with the administrator's cookie is refused and changes nothing`, async () => {
    const lan = await liveEnv({}, { host: LAN_HOST });
    try {
      const owner = await signedUp(lan.env);
      const org = (await owner.post("/web/orgs", { name: "Lan Harbor" })).body.organization;
      const admin = await signedUp(lan.env);
      await makePlatformAdmin(lan.env, admin.userId);
      const status = async () =>
        (await admin.get("/web/admin/organizations")).body.organizations.find((x: { id: string }) => x.id === org.id).status;
      const signInAt = async (email: string) => {
        const w = await newPage(browser);
        await w.page.goto(`${lan.base}/login`);
        await w.page.fill("#email", email);
        await w.page.fill("#password", PASSWORD);
        await Promise.all([w.page.waitForURL((u) => u.pathname === "/"), w.page.click("form[action='/login'] button[type=submit]")]);
        return w;
      };
      const a = await signInAt(admin.email);

      // another port of the same host: same site (the Lax cookie goes along), another origin
      const evil = servePage(
        `<!doctype html><title>win a prize</title><form id="f" method="post" action="${lan.base}/web/admin/organizations/${org.id}/approve"></form><script>document.getElementById("f").submit()</script>`,
        "127.0.0.1",
      );
      try {
        const answer = a.page.waitForResponse((r) => r.url() === `${lan.base}/web/admin/organizations/${org.id}/approve`);
        await a.page.goto(evil.origin(LAN_HOST));
        expect((await answer).status()).toBe(403);
      } finally {
        evil.stop();
      }
      expect(await status()).toBe("pending");
      a.problems.length = 0; // the refused navigation's own error line

      await a.page.goto(`${lan.base}/admin?status=pending`);
      await a.page.locator(`tr[data-org='${org.slug}'] button:has-text('Approve')`).click();
      await a.page.waitForSelector("#admin-orgs .notice:has-text('Lan Harbor is now approved.')");
      expect(await status()).toBe("approved");
      await clean(a);

      const o = await signInAt(owner.email);
      await o.page.goto(`${lan.base}/org`);
      const invitee = `lan-${Date.now()}@example.com`;
      await o.page.fill("#invite-email", invitee);
      await o.page.click("#invitations button:text('Send the invitation')");
      await o.page.waitForSelector(`tr[data-invitation='${invitee}']`);
      expect(await o.page.textContent(`tr[data-invitation='${invitee}'] code`)).toContain(`${lan.base}/accept-invitation/inv_`);
      await clean(o);
      await a.context.close();
      await o.context.close();
    } finally {
      await lan.close();
    }
  });
});
