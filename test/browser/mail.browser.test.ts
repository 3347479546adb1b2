/**
 * Mail in Chromium (docs/design.md "Pages are tested in a real browser"): the links that arrive by mail work in a real
 * browser, and the organization's mail page works for its admins.
 *   - an invitation arrives over SMTP (smtp-server, read with mailparser); the invited person
 *     opens its link, creates the account and joins;
 *   - "Forgot your password?" on /login → the /reset-password form → the mail's link → a new
 *     password, signed in; the same link then says it is used, an expired one says so too;
 *   - a mail the SMTP server refuses (5xx) is listed on /org/mail for the owner with a Retry
 *     button that sends it; a member gets the 404 page.
 * Each scenario runs at http://127.0.0.1:PORT (Sec-Fetch-Site sent) and at
 * http://talentd.test:PORT (a LAN name: Origin only), with axe-core and no console error.
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { MailDelivery } from "../../src/mail/delivery";
import { createLogger } from "../../src/lib/log";
import { sha256Hex } from "../../src/lib/crypto";
import { joinedMember, orgWithProject, signedUp } from "../helpers";
import { resetTokenValid } from "../../src/identity/passwordReset";
import {
  axeViolations,
  LAN_HOST,
  launchChromium,
  newPage,
  screenshot,
  servePage,
  type WatchedPage,
  expectClean,
  submitForm,
} from "../browser-support";
import { liveEnv, PASSWORD, type LiveEnv } from "../mcp-support";
import { eventually } from "../proc";
import { linkIn, TestSmtp } from "../mail-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser.close();
});

const submit = submitForm;

let seq = 0;
const email = (who: string) => `${who}${++seq}-${Date.now()}@example.com`;

for (const host of ["127.0.0.1", LAN_HOST]) {
  const shots = host === "127.0.0.1";
  describe(`mail links and the mail page in Chromium at http://${host}:PORT`, () => {
    let live: LiveEnv;
    let smtp: TestSmtp;
    let delivery: MailDelivery;
    let w: WatchedPage;
    beforeAll(async () => {
      smtp = await TestSmtp.create();
      live = await liveEnv({ SMTP_URL: smtp.url }, { host });
      delivery = new MailDelivery({ database: live.env.database, config: live.env.config, log: createLogger("error", () => {}) });
      delivery.start();
    });
    afterAll(async () => {
      await delivery.stop();
      await smtp.stop();
      await live.close();
    });
    const fresh = async () => {
      w = await newPage(browser);
      return w.page;
    };
    const signIn = async (page: Page, who: string) => {
      await page.goto(`${live.base}/login`);
      await page.fill("#email", who);
      await page.fill("#password", PASSWORD);
      expect(await submit(page, "form[action='/login'] button[type=submit]")).toBe(303);
    };

    test("an invitation arrives by mail; the invited person opens its link, creates the account and joins", async () => {
      const o = await orgWithProject(live.env);
      const invitee = email("invited");
      await o.owner.post("/web/orgs/current/invitations", { email: invitee, role: "member" });
      const [mail] = await smtp.waitFor(invitee);
      const link = linkIn(mail!, `${live.base}/accept-invitation/`);
      const page = await fresh();
      await page.goto(link);
      await expectClean(w);
      expect(await page.inputValue("#email")).toBe(invitee);
      await page.fill("#password", PASSWORD);
      expect(await submit(page, "button[type=submit]:text('Create account and join')")).toBe(200);
      expect(await page.textContent("h1")).toContain(`Welcome to ${o.org.name}`);
      await page.goto(`${live.base}/`);
      expect(await page.textContent("main")).toContain(o.project.name);
      await w.context.close();
    });

    test("forgot password: /login → /reset-password → the mail's link → a new password, signed in; the link then refuses a second use; an expired link says so", async () => {
      const user = await signedUp(live.env, email("forgetful"));
      const page = await fresh();
      await page.goto(`${live.base}/login`);
      await page.click("text=Forgot your password?");
      await page.waitForLoadState("load");
      expect(new URL(page.url()).pathname).toBe("/reset-password");
      await expectClean(w);
      if (shots) await screenshot(page, "reset-password-request");
      await page.fill("#email", user.email);
      expect(await submit(page, "button[type=submit]:text('Send me a link')")).toBe(200);
      expect(await page.textContent("main")).toContain("If an account exists for this e-mail");
      await expectClean(w);
      const mail = (await smtp.waitFor(user.email, 2))[1]; // after the sign-up's verification mail
      const link = linkIn(mail!, `${live.base}/reset-password?token=`);
      await page.goto(link);
      expect(await page.textContent("h1")).toContain("Choose a new password");
      await expectClean(w);
      if (shots) await screenshot(page, "reset-password-choose");
      // too short first: the problem is on the page, the form stays
      await page.fill("#password", "short");
      await page.$eval("#password", (el) => el.removeAttribute("minlength"));
      expect(await submit(page, "button[type=submit]:text('Set the new password')")).toBe(400);
      expect(await page.textContent("[role=alert]")).toContain("at least 10");
      await page.fill("#password", "my new password 42");
      expect(await submit(page, "button[type=submit]:text('Set the new password')")).toBe(200);
      expect(await page.textContent("h1")).toContain("Your password is set");
      await expectClean(w);
      await page.click("text=Continue to your projects");
      await page.waitForLoadState("load");
      expect(new URL(page.url()).pathname).toBe("/"); // signed in
      // the same link again
      await page.goto(link);
      expect(await page.textContent("h1")).toContain("This link does not work");
      expect(await page.textContent("[role=alert]")).toContain("invalid, expired or already used");
      await expectClean(w);
      if (shots) await screenshot(page, "reset-password-used");
      // the old password is gone, the new one works
      expect((await user.post("/api/auth/sign-in", { email: user.email, password: PASSWORD })).status).toBe(401);
      expect((await user.post("/api/auth/sign-in", { email: user.email, password: "my new password 42" })).status).toBe(200);
      // an expired link: the choose page is refused, and so is a form posted before expiry
      await page.goto(`${live.base}/reset-password`);
      await page.fill("#email", user.email);
      expect(await submit(page, "button[type=submit]:text('Send me a link')")).toBe(200);
      const second = linkIn((await smtp.waitFor(user.email, 3))[2]!, `${live.base}/reset-password?token=`);
      await page.goto(second);
      expect(await page.textContent("h1")).toContain("Choose a new password");
      await live.env.database.client.execute({
        sql: "UPDATE password_resets SET expires_at = ? WHERE token_hash = ?",
        args: [Date.now() - 1, sha256Hex(new URL(second).searchParams.get("token")!)],
      });
      await page.fill("#password", "too late password");
      expect(await submit(page, "button[type=submit]:text('Set the new password')")).toBe(410);
      expect(await page.textContent("[role=alert]")).toContain("invalid, expired or already used");
      await page.goto(second);
      expect(await page.textContent("h1")).toContain("This link does not work");
      await expectClean(w);
      await w.context.close();
    });

    test("/org/mail: a refused mail is listed for the owner with Retry, which sends it; a member gets the 404 page", async () => {
      const o = await orgWithProject(live.env);
      const member = await joinedMember(live.env, o.owner);
      await smtp.waitFor(member.email, 2); // its verification mail and its invitation
      smtp.mode = "reject";
      const invitee = email("refused");
      await o.owner.post("/web/orgs/current/invitations", { email: invitee });
      const row = async () =>
        (await live.env.database.client.execute({ sql: "SELECT status FROM mail_outbox WHERE to_address = ?", args: [invitee] })).rows[0]
          ?.status;
      expect(await eventually(async () => (await row()) === "failed", 10_000)).toBe(true);
      smtp.mode = "accept";
      const page = await fresh();
      await signIn(page, o.owner.email);
      await page.goto(`${live.base}/org/mail`);
      expect(await page.textContent("h1")).toContain("Mail not delivered yet");
      const line = page.locator("tr", { hasText: invitee });
      expect(await line.textContent()).toContain("failed");
      expect(await line.textContent()).toContain("550");
      await expectClean(w);
      if (shots) await screenshot(page, "org-mail");
      expect(await submit(page, `tr:has-text("${invitee}") button:text('Retry')`)).toBe(303);
      expect(new URL(page.url()).pathname).toBe("/org/mail");
      expect(await page.textContent("#action-status")).toMatch(new RegExp(`^The mail to ${invitee} (is queued again|was sent)\\.$`)); // the status line
      if (shots) await screenshot(page, "org-mail-retried");
      await smtp.waitFor(invitee);
      expect(await eventually(async () => (await row()) === "sent", 5000)).toBe(true);
      await page.reload();
      expect(await page.textContent("main")).toContain("Every mail of");
      await expectClean(w);
      await w.context.close();
      // a member: the 404 page
      const mpage = await fresh();
      await signIn(mpage, member.email);
      const r = await mpage.goto(`${live.base}/org/mail`);
      expect(r!.status()).toBe(404);
      expect(await mpage.textContent("h1")).toContain("Not found");
      expect(await mpage.textContent("main")).not.toContain(invitee);
      await expectClean(w);
      await w.context.close();
    });
    test("cross-site: another origin's page that auto-submits Retry (with the owner's cookie) or a reset confirmation → 403 page, nothing changed", async () => {
      const o = await orgWithProject(live.env);
      await live.env.database.client.execute({
        sql: "INSERT INTO mail_outbox (id, organization_id, kind, to_address, subject, body, status, attempts, next_attempt_at, created_at, error) VALUES (?, ?, 'invitation', 'x@example.com', 'Join', 'b', 'failed', 8, 0, ?, 'SMTP 550')",
        args: [`mail_csrf${seq}`, o.org.id, Date.now()],
      });
      const mailId = `mail_csrf${seq}`;
      const user = await signedUp(live.env, email("target"));
      const r = await fetch(`http://127.0.0.1:${new URL(live.base).port}/api/auth/password-reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: user.email }),
      });
      expect(r.status).toBe(202);
      const token = new URL(linkIn((await smtp.waitFor(user.email, 2))[1]!, `${live.base}/reset-password?token=`)).searchParams.get(
        "token",
      )!;
      const page = await fresh();
      await signIn(page, o.owner.email);
      const autoSubmit = (action: string, fields: Record<string, string>) =>
        `<!doctype html><title>win a prize</title><form id="f" method="post" action="${action}">${Object.entries(fields)
          .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
          .join("")}</form><script>document.getElementById("f").submit()</script>`;
      // another port of the same host: same site (the Lax cookie goes along), another origin
      for (const [action, fields] of [
        [`${live.base}/web/orgs/current/mail/${mailId}/retry`, { return: "/org/mail" }],
        [`${live.base}/reset-password/confirm`, { token, password: "attacker chosen password" }],
      ] as const) {
        const evil = servePage(autoSubmit(action, fields), "127.0.0.1");
        try {
          const answer = page.waitForResponse((res) => res.url() === action && res.request().method() === "POST");
          await page.goto(evil.origin(new URL(live.base).hostname));
          const res = await answer;
          expect(res.status()).toBe(403);
          expect(res.headers()["content-type"]).toContain("text/html");
        } finally {
          evil.stop();
        }
      }
      expect(
        (await live.env.database.client.execute({ sql: "SELECT status FROM mail_outbox WHERE id = ?", args: [mailId] })).rows[0]!.status,
      ).toBe("failed");
      expect(await resetTokenValid(live.env.database, token)).toBe(true);
      await w.context.close();
    });
  });
}
