/**
 * Admin → Users in Chromium (src/tenancy/views/adminUsers.tsx): a platform administrator
 * disables a signed-in user (confirmed once); that user's open page is signed out and their
 * sign-in is refused on /login with the reason; enabled again, they sign in. Checked with
 * axe-core, no console error beyond the refused sign-in's 403.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser } from "playwright-core";
import { makePlatformAdmin, signedUp } from "../helpers";
import { expectClean, expectOnlyStatus, newPage, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

describe("Admin → Users in Chromium", () => {
  test("disable (confirmed) → the user's session ends and sign-in is refused with the reason → enable → sign-in works", async () => {
    const admin = await signedUp(live.env);
    await makePlatformAdmin(live.env, admin.userId);
    const user = await signedUp(live.env);
    const a = await signedInPage(browser, live.base, admin.email, PASSWORD);
    const u = await signedInPage(browser, live.base, user.email, PASSWORD);
    const dialogs: string[] = [];
    a.page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.accept();
    });

    await a.page.goto(`${live.base}/admin/users`);
    const row = a.page.locator(`tr[data-user='${user.email}']`);
    expect(await row.textContent()).toContain("enabled");
    await row.locator("button:has-text('Disable')").click();
    await a.page.waitForSelector(`#admin-users .notice:has-text('${user.email} is disabled: signed out everywhere')`);
    expect(dialogs).toEqual([`Disable ${user.email}? They are signed out everywhere and cannot sign in until enabled again.`]);
    expect(await row.textContent()).toContain("disabled");
    expect(await row.locator("button:has-text('Enable')").count()).toBe(1);
    await expectClean(a, "admin-users-disabled");

    // the user's open session is over: the next page is the sign-in page
    await u.page.goto(`${live.base}/`);
    expect(new URL(u.page.url()).pathname).toBe("/login");
    // and signing in again is refused, saying why
    await u.page.fill("#email", user.email);
    await u.page.fill("#password", PASSWORD);
    await Promise.all([u.page.waitForLoadState("load"), u.page.click("form[action='/login'] button[type=submit]")]);
    expect(await u.page.textContent("[role=alert]")).toContain("This account is disabled");
    expectOnlyStatus(u, 403, false);

    // enabled: one click, no question
    await row.locator("button:has-text('Enable')").click();
    await a.page.waitForSelector(`#admin-users .notice:has-text('${user.email} is enabled: they can sign in again')`);
    expect(dialogs).toHaveLength(1);
    await expectClean(a);
    const back = await newPage(browser);
    await back.page.goto(`${live.base}/login`);
    await back.page.fill("#email", user.email);
    await back.page.fill("#password", PASSWORD);
    await Promise.all([back.page.waitForURL((x) => x.pathname === "/"), back.page.click("form[action='/login'] button[type=submit]")]);
    await expectClean(back);
    await Promise.all([a.context.close(), u.context.close(), back.context.close()]);
  });
});
