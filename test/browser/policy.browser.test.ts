/**
 * The organization's talent policy in Chromium (docs/design.md "Pickers, not typed ids"), at 1280 and 390 px: an owner
 * ticks required talents and, with "only", allowed talents in their pickers on /org/policy (htmx), each list filtered by
 * its own search box as one types; a choice that is no longer known is refused under the allowed talents with the
 * closest ids; without JavaScript the allowed filter is a GET of its own whose "did you mean" link filters by the closest
 * id, and a refused save keeps the ticks. The page says who set the policy, and the project page shows the talent locked
 * ("required by policy, set by …") with neither Disable nor Uninstall. axe-core finds nothing serious; nothing goes wrong
 * in the console; no page scrolls sideways.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
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

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

const SIZES = [
  [1280, 800, "wide"],
  [390, 844, "phone"],
] as const;

const allowedBox = (id: string) => `#policy-allowed-picker input[name=allowedTalents][value="${id}"]`;

/** The page does not scroll sideways. */
async function fits(page: Page): Promise<void> {
  const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(m.scroll).toBeLessThanOrEqual(m.inner);
}

describe("/org/policy in Chromium", () => {
  let browser: Browser;
  let live: LiveEnv;
  withChromiumAndApp((b, l) => {
    browser = b;
    live = l;
  });

  test("an owner ticks required and allowed talents (htmx, 1280 and 390 px); a stale choice is refused under the allowed talents; the project page shows the required one locked", async () => {
    for (const [width, height, name] of SIZES) {
      const { owner, project } = await orgWithProject(live.env);
      const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height });
      await w.page.goto(`${live.base}/org/policy`);
      expect(await w.page.textContent("#policy-set-by")).toContain("Never set.");
      expect(await w.page.isChecked('input[name=allowedMode][value="any"]')).toBe(true);
      // the required talents are ticked in their picker
      await w.page.check('input[name=requiredTalents][value="secrets-handling"]');
      await w.page.check('input[name=requiredTalents][value="input-validation"]');
      // the allowed ones in theirs, filtered by its own box as one types (the required list is not filtered)
      await w.page.check('input[name=allowedMode][value="only"]');
      await w.page.fill("#policy-allowed-q", "sql");
      expect(await w.page.isVisible(allowedBox("sql-base"))).toBe(true);
      expect(await w.page.isVisible(allowedBox("angular"))).toBe(false);
      expect(await w.page.isVisible('input[name=requiredTalents][value="angular"]')).toBe(true);
      await w.page.check(allowedBox("sql-base"));
      await w.page.fill("#policy-allowed-q", "zzzz");
      expect(await w.page.isVisible("#policy-allowed-picker [data-picker-empty]")).toBe(true);
      expect(await w.page.isVisible(allowedBox("sql-base"))).toBe(true); // ticked: stays
      await w.page.fill("#policy-allowed-q", "");
      await fits(w.page);
      // a choice the server no longer knows (as a page opened before an expertise was deactivated sends it)
      await w.page.evaluate(() => {
        const box = document.querySelector<HTMLInputElement>('#policy-allowed-picker input[value="go-base"]')!;
        box.value = "secrets-handlng";
        box.checked = true;
      });
      await w.page.click("#policy-save");
      await w.page.waitForSelector("#flash [role=alert]");
      expect(await w.page.textContent("#flash")).toContain("fix the field marked below");
      expect(await w.page.textContent("#policy-allowed-field-error")).toContain(
        'unknown talent "secrets-handlng" — did you mean "secrets-handling"?',
      );
      expectOnlyStatus(w, 400);
      await w.page.uncheck('#policy-allowed-picker input[value="secrets-handlng"]');
      await Promise.all([w.page.waitForURL(`${live.base}/org/policy`), w.page.click("#policy-save")]);
      await w.page.waitForSelector("#policy-required");
      expect(await w.page.textContent("#policy-required")).toContain("secrets-handling");
      expect(await w.page.textContent("#policy-allowed")).toContain("sql-base");
      expect(await w.page.textContent("#policy-set-by")).toContain(`Set by ${owner.email}`);
      expect(await w.page.isChecked('input[name=allowedMode][value="only"]')).toBe(true);
      expect(await w.page.isChecked(allowedBox("sql-base"))).toBe(true);
      await fits(w.page);
      await expectClean(w, name === "wide" ? "org-policy" : undefined);
      if (name === "wide") {
        await w.page.evaluate(() => {
          document.querySelector("#policy-allowed-field")?.scrollIntoView();
          window.scrollBy(0, -90); // the end of the required talents above, the legend in view
        });
        await screenshot(w.page, "org-policy-form");
      }

      await w.page.goto(`${live.base}/projects/${project.id}`);
      const row = w.page.locator("#installed tr", { hasText: "secrets-handling" }).first();
      expect(await row.textContent()).toContain("required");
      expect(await row.textContent()).toContain(`Required by policy, set by ${owner.email}`);
      expect(await row.locator("button").count()).toBe(0);
      await expectClean(w);
      if (name === "wide") {
        await w.page.evaluate(() => document.querySelector("#installed")?.scrollIntoView());
        await screenshot(w.page, "project-required-talent");
      }
      await w.context.close();
    }
  });

  test("without JavaScript: the allowed filter's GET offers the closest id, its link filters by it; a refused save keeps the ticks; the save comes back with the allow-list", async () => {
    const { owner } = await orgWithProject(live.env);
    const w = await signedInPage(browser, live.base, owner.email, PASSWORD, { javaScript: false });
    await w.page.goto(`${live.base}/org/policy`);
    // the allowed filter (its own GET form, the box inside the policy form by its form attribute), misspelt
    await w.page.fill("#policy-allowed-q", "sql-bas3");
    await Promise.all([w.page.waitForURL(/aq=sql-bas3/), w.page.click('button[form="policy-allowed-filter"]')]);
    expect(await w.page.textContent("#policy-allowed-picker-hidden")).toContain("did you mean sql-base");
    await Promise.all([w.page.waitForURL(/aq=sql-base/), w.page.click('#policy-allowed-picker-hidden a[href*="aq=sql-base"]')]);
    expect(await w.page.isVisible(allowedBox("sql-base"))).toBe(true);
    expect(await w.page.locator("#policy-allowed-picker li").count()).toBeLessThan(5);
    await w.page.check('input[name=allowedMode][value="only"]');
    await w.page.check(allowedBox("sql-base"));
    // a refusal (two required talents that conflict): the page again at its own address, the ticks kept
    await w.page.check('input[name=requiredTalents][value="npm-workspaces"]');
    await w.page.check('input[name=requiredTalents][value="pnpm-workspaces"]');
    expect(await submitForm(w.page, "#policy-save")).toBe(409);
    expectOnlyStatus(w, 409, false);
    expect(new URL(w.page.url()).pathname).toBe("/org/policy");
    expect(await w.page.textContent("#policy-required-field-error")).toContain("conflict");
    expect(await w.page.isVisible("#policy-allowed-field-error")).toBe(false);
    expect(await w.page.isChecked(allowedBox("sql-base"))).toBe(true);
    expect(await w.page.isChecked('input[name=allowedMode][value="only"]')).toBe(true);
    await expectCleanWithoutScripts(browser, w);
    await w.page.uncheck('input[name=requiredTalents][value="pnpm-workspaces"]');
    expect(await submitForm(w.page, "#policy-save")).toBe(303);
    expect(new URL(w.page.url()).pathname).toBe("/org/policy");
    expect(await w.page.textContent("#policy-allowed")).toContain("sql-base");
    expect(await w.page.textContent("#policy-required")).toContain("npm-workspaces");
    await expectCleanWithoutScripts(browser, w);
    await w.context.close();
  });
});
