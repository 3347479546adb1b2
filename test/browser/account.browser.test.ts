/**
 * `/account` in Chromium (src/identity/pages/account.tsx), at 1280 and 390 px: a wrong current password is
 * said under its field, the right one changes it and the status line says so, "Sign out elsewhere" ends
 * another browser's session; without JavaScript the form answers the page again with the problem under the
 * field. axe-core finds nothing serious. And the onboarding steps' labels, side by side, never overlap.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createKey, orgWithProject } from "../helpers";
import {
  expectClean,
  expectCleanWithoutScripts,
  expectOnlyStatus,
  screenshot,
  signedInPage,
  submitForm,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 150_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const NEW = "a brand new passphrase";
const status = async (p: Page): Promise<string> => ((await p.textContent("#action-status[role=status]")) ?? "").trim();

/** The page is no wider than its viewport (nothing scrolls sideways but the tables' own boxes). */
const fitsWidth = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

async function changePassword(p: Page, current: string, next: string): Promise<void> {
  await p.fill("#acc-current", current);
  await p.fill("#acc-new", next);
  await p.fill("#acc-repeat", next);
  await p.click("#acc-password-form button[type=submit]");
}

describe("/account", () => {
  test("with JavaScript at 1280 and 390 px: a wrong current password under its field, the right one changes it, sign out elsewhere ends another browser's session", async () => {
    const o = await orgWithProject(live.env, "Account Browser");
    await createKey(o.owner, o.project.id, ["prepare_task", "validate"]);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const p = w.page;
    await Promise.all([p.waitForURL((u) => u.pathname === "/account"), p.click("header.top a[href='/account']")]);
    expect(await p.textContent("#acc-keys")).toContain(o.project.name);
    await expectClean(w);

    await changePassword(p, "not my password at all", NEW);
    await p.waitForSelector("#acc-current-error:not([hidden])");
    expect((await p.textContent("#acc-current-error"))?.trim()).toBe("Current password is not your current password");
    expect(await p.getAttribute("#acc-current", "aria-invalid")).toBe("true");
    expectOnlyStatus(w, 400);

    await Promise.all([p.waitForURL((u) => u.pathname === "/account"), changePassword(p, PASSWORD, NEW)]);
    await p.waitForSelector("#action-status .status");
    expect(await status(p)).toBe("Your password is changed: every other session of yours is signed out.");

    // another browser signs in with the new password; sign out elsewhere ends its session, not this one
    const other = await signedInPage(browser, live.base, o.owner.email, NEW);
    await p.reload();
    expect(await p.locator("#acc-sessions tbody tr").count()).toBe(2);
    await p.click("button:has-text('Sign out elsewhere')");
    await p.waitForFunction(() => document.querySelector("#action-status")?.textContent?.includes("Signed out elsewhere"));
    expect(await status(p)).toBe("Signed out elsewhere: 1 other session ended.");
    expect(await p.locator("#acc-sessions tbody tr").count()).toBe(1);
    await other.page.goto(`${live.base}/account`);
    expect(new URL(other.page.url()).pathname).toBe("/login");
    await other.context.close();

    await expectClean(w, "account-desktop");
    await p.evaluate(() => document.getElementById("acc-sessions")?.scrollIntoView());
    await screenshot(p, "account-sessions-keys");
    expect(await fitsWidth(p)).toBe(true);
    await p.setViewportSize({ width: 390, height: 844 });
    await p.reload();
    await expectClean(w);
    expect(await fitsWidth(p)).toBe(true);
    await screenshot(p, "account-phone");
    await w.context.close();
  });

  test("without JavaScript: a wrong current password answers the page again (400), the problem under the field; the right one → 303 back with the status", async () => {
    const o = await orgWithProject(live.env, "Account No JS");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    const p = w.page;
    await p.goto(`${live.base}/account`);
    await p.fill("#acc-current", "not my password at all");
    await p.fill("#acc-new", NEW);
    await p.fill("#acc-repeat", NEW);
    expect(await submitForm(p, "#acc-password-form button[type=submit]")).toBe(400);
    expect((await p.textContent("#acc-current-error"))?.trim()).toBe("Current password is not your current password");
    expectOnlyStatus(w, 400, false);
    await expectCleanWithoutScripts(browser, w);
    await p.fill("#acc-current", PASSWORD);
    await p.fill("#acc-new", NEW);
    await p.fill("#acc-repeat", NEW);
    expect(await submitForm(p, "#acc-password-form button[type=submit]")).toBe(303);
    expect(new URL(p.url()).pathname).toBe("/account");
    expect(await status(p)).toBe("Your password is changed: every other session of yours is signed out.");
    await w.context.close();
  });
});

test("the onboarding steps' labels never overlap, at 1280 and at 390 px", async () => {
  const o = await orgWithProject(live.env, "Steps Layout");
  const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
  const p = w.page;
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: 800 });
    await p.goto(`${live.base}/projects/${o.project.id}/onboarding`);
    const boxes = await p.$$eval("ol.steps li", (lis) =>
      lis.map((li) => {
        const r = li.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      }),
    );
    expect(boxes.length).toBe(2);
    const [a, b] = boxes as [(typeof boxes)[0], (typeof boxes)[0]];
    const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
    expect(apart).toBe(true);
    // the number is inside its step's box, not in the gap over the previous label
    expect(await p.$eval("ol.steps", (ol) => getComputedStyle(ol).listStylePosition)).toBe("inside");
    if (width === 390) await screenshot(p, "onboarding-steps-phone");
  }
  await w.context.close();
});

test("a page's bad query in a browser (/org/insights?days=abc) is the kit's error page with the problem in words, not JSON", async () => {
  const o = await orgWithProject(live.env, "Insights Bad Days");
  const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
  const answer = await w.page.goto(`${live.base}/org/insights?days=abc`);
  expect(answer?.status()).toBe(400);
  expect(answer?.headers()["content-type"]).toStartWith("text/html");
  expect(await w.page.textContent("h1")).toBe("That did not work");
  expect(await w.page.textContent("main")).toContain("must be a whole number from 1 to 90");
  expectOnlyStatus(w, 400, false); // the document's own status is what is asserted above
  await w.context.close();
});
