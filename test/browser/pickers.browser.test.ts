/**
 * In Chromium at 1280 and 390 px (docs/design.md "Pickers, not typed ids", "Authoring an expertise with a form",
 * "Risky selection changes name what they break"): the policy's talent picker filters as one types and saves the
 * ticked talents; the expertise authoring form makes a draft that opens in the form again; disabling a talent others
 * need asks in #flash, naming them, and only the confirm button disables it. axe-core finds nothing serious, nothing
 * goes wrong in the console, no page scrolls sideways.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectClean, expectOnlyStatus, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

const SIZES = [
  [1280, 800, "wide"],
  [390, 844, "phone"],
] as const;

/** The page does not scroll sideways. */
async function fits(page: Page): Promise<void> {
  const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(m.scroll).toBeLessThanOrEqual(m.inner);
}

describe("pickers, the authoring form and the disable warning in Chromium", () => {
  let browser: Browser;
  let live: LiveEnv;
  withChromiumAndApp((b, l) => {
    browser = b;
    live = l;
  });

  test("policy picker: typing filters the talents live, ticked ones stay; saving requires them (1280 and 390 px)", async () => {
    for (const [width, height, name] of SIZES) {
      const { owner } = await orgWithProject(live.env);
      const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height });
      await w.page.goto(`${live.base}/org/policy`);
      await w.page.check('input[name=requiredTalents][value="go-base"]');
      await w.page.fill("#policy-picker-q", "secret");
      expect(await w.page.isVisible('input[name=requiredTalents][value="secrets-handling"]')).toBe(true);
      expect(await w.page.isVisible('input[name=requiredTalents][value="angular"]')).toBe(false);
      expect(await w.page.isVisible('input[name=requiredTalents][value="go-base"]')).toBe(true); // ticked: stays
      await w.page.check('input[name=requiredTalents][value="secrets-handling"]');
      await w.page.evaluate(() => document.querySelector("#policy-form-card")?.scrollIntoView());
      await fits(w.page);
      await expectClean(w);
      await screenshot(w.page, `picker-${name}`);
      await Promise.all([w.page.waitForURL(`${live.base}/org/policy`), w.page.click("#policy-save")]);
      await w.page.waitForSelector("#policy-required");
      expect(await w.page.textContent("#policy-required")).toContain("secrets-handling");
      expect(await w.page.textContent("#policy-required")).toContain("go-base");
      await expectClean(w);
      await w.context.close();
    }
  });

  test("authoring form: a new expertise from the form opens in the form again with its values (1280 and 390 px)", async () => {
    for (const [width, height, name] of SIZES) {
      const { owner } = await orgWithProject(live.env);
      const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height });
      await w.page.goto(`${live.base}/org/expertises`);
      await Promise.all([w.page.waitForURL(`${live.base}/org/expertises/new`), w.page.click("#create-with-form")]);
      await w.page.fill("#form-slug", "payments");
      await w.page.fill("#form-title", "Payments service");
      await w.page.fill("#form-summary", "Money movement: designate it for refunds and invoices.");
      await w.page.fill("#form-files", "src/payments/**");
      await w.page.fill("#form-keywords", "refund");
      await w.page.fill("#rule-0-title", "Store amounts as integer minor units.");
      await w.page.fill("#rule-0-check", "Look for floats holding money.");
      await w.page.fill("#rule-1-title", "Make every migration reversible.");
      await w.page.fill("#rule-1-check", "Each migration has a down step.");
      await w.page.fill("#form-body", "# Payments\n\nMoney is integer cents.");
      await fits(w.page);
      await expectClean(w);
      await w.page.evaluate(() => document.querySelector("#authoring")?.scrollIntoView());
      await screenshot(w.page, `expertise-form-${name}`);
      await Promise.all([w.page.waitForURL(/\/org\/expertises\/[^/]+\?done=created/), w.page.click("#authoring-form button[type=submit]")]);
      await Promise.all([w.page.waitForURL(/\/form$/), w.page.click("#edit-with-form")]);
      expect(await w.page.inputValue("#form-title")).toBe("Payments service");
      expect(await w.page.inputValue("#form-files")).toBe("src/payments/**");
      expect(await w.page.inputValue("#rule-1-title")).toBe("Make every migration reversible.");
      expect(await w.page.inputValue("#form-body")).toBe("# Payments\n\nMoney is integer cents.");
      await fits(w.page);
      await expectClean(w);
      await w.context.close();
    }
  });

  test("disable warning: Disable on a needed talent asks, naming its dependents; nothing changes until the confirm button (1280 and 390 px)", async () => {
    for (const [width, height, name] of SIZES) {
      const { owner, project } = await orgWithProject(live.env);
      await owner.post(`/web/projects/${project.id}/talents`, {
        talents: ["javascript-base", "typescript-strict", "react-components", "node-http-services"],
      });
      const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height });
      await w.page.goto(`${live.base}/projects/${project.id}`);
      await w.page.getByRole("button", { name: "Disable javascript-base", exact: true }).click();
      await w.page.waitForSelector("#confirm-change");
      expect(await w.page.textContent("#confirm-change")).toContain(
        "javascript-base is needed by node-http-services, react-components and typescript-strict. Disable it anyway?",
      );
      expectOnlyStatus(w, 400);
      const state = w.page.locator("#installed tr", { has: w.page.locator('a[href="/catalog/javascript-base"]') }).locator(".state");
      expect(await state.textContent()).toBe("active");
      await fits(w.page);
      await expectClean(w);
      await screenshot(w.page, `disable-warning-${name}`);
      await w.page.click("#confirm-change button[type=submit]");
      await w.page.waitForSelector("#confirm-change", { state: "detached" });
      await w.page.waitForFunction(() => document.querySelector("#action-status")?.textContent?.includes("Disabled javascript-base"));
      expect(await w.page.textContent("#action-status")).toContain(
        "node-http-services, react-components and typescript-strict now miss it",
      );
      expect(await state.textContent()).toBe("disabled");
      await expectClean(w);
      await w.context.close();
    }
  });
});
