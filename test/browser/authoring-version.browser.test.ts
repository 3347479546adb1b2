/**
 * In Chromium at 1280 and 390 px (docs/design.md "Authoring an expertise with a form"): a new expertise whose slug is taken
 * comes back with the refusal under the slug, a link to the expertise and "Save as a new version"; that button saves the
 * form as a new draft version of it, and the expertise's page says so. axe-core finds nothing serious, nothing goes wrong in
 * the console (the 409 aside), no page scrolls sideways.
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

async function fillForm(page: Page, title: string): Promise<void> {
  await page.fill("#form-slug", "payments");
  await page.fill("#form-title", title);
  await page.fill("#form-summary", "Money movement: designate it for refunds and invoices.");
  await page.fill("#form-files", "src/payments/**");
  await page.fill("#rule-0-title", "Store amounts as integer minor units.");
  await page.fill("#rule-0-check", "Look for floats holding money.");
  await page.fill("#rule-1-title", "Make every migration reversible.");
  await page.fill("#rule-1-check", "Each migration has a down step.");
  await page.fill("#rule-2-title", "Log a refund with its ledger id.");
  await page.fill("#rule-2-check", "A refund path logs the ledger id.");
}

describe("the authoring form's taken slug in Chromium", () => {
  let browser: Browser;
  let live: LiveEnv;
  withChromiumAndApp((b, l) => {
    browser = b;
    live = l;
  });

  test("a taken slug: the refusal under the slug links the expertise; Save as a new version saves a draft version of it (1280 and 390 px)", async () => {
    for (const [width, height, name] of SIZES) {
      const { owner } = await orgWithProject(live.env);
      const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height });
      await w.page.goto(`${live.base}/org/expertises/new`);
      await fillForm(w.page, "Payments service");
      await Promise.all([w.page.waitForURL(/\/org\/expertises\/[^/]+\?done=created/), w.page.click("#authoring-form button[type=submit]")]);
      const id = new URL(w.page.url()).pathname.split("/").pop()!;
      await w.page.goto(`${live.base}/org/expertises/new`);
      await fillForm(w.page, "Payments, second take");
      await w.page.click("#authoring-form button[type=submit]:not([name])");
      await w.page.waitForSelector("#form-slug-taken");
      expectOnlyStatus(w, 409, false);
      expect(await w.page.textContent("#form-slug-error")).toContain('An expertise with the slug "payments" already exists');
      expect(await w.page.getAttribute(`#form-slug-taken a[href="/org/expertises/${id}"]`, "href")).toBe(`/org/expertises/${id}`);
      expect(await w.page.inputValue("#form-title")).toBe("Payments, second take");
      const m = await w.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      expect(m.scroll).toBeLessThanOrEqual(m.inner);
      await expectClean(w);
      await w.page.evaluate(() => {
        document.querySelector("#form-slug")?.scrollIntoView();
        window.scrollBy(0, -120);
      });
      await screenshot(w.page, `expertise-form-taken-${name}`);
      await Promise.all([w.page.waitForURL(`${live.base}/org/expertises/${id}?done=version`), w.page.click("#save-as-version")]);
      expect(await w.page.textContent("#action-status")).toContain("Saved as a new draft version");
      await expectClean(w);
      const detail = (await owner.get(`/web/orgs/current/expertises/${id}`)).body;
      expect(detail.working.content).toContain('title: "Payments, second take"');
      expect(detail.publishedVersion).toBe(0);
      await w.context.close();
    }
  });
});
