/**
 * The organization's talent policy in Chromium: an owner ticks required talents in the picker on /org/policy
 * (htmx, then without JavaScript; an unknown id of the allow-list is refused under it, either
 * way), the page says who set it, and the project page shows the
 * talent locked ("required by policy, set by …") with neither Disable nor Uninstall. axe-core
 * finds nothing serious; nothing goes wrong in the console.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser } from "playwright-core";
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

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

describe("/org/policy in Chromium", () => {
  let browser: Browser;
  let live: LiveEnv;
  withChromiumAndApp((b, l) => {
    browser = b;
    live = l;
  });

  test("an owner requires a talent through the form (htmx); the project page shows it locked, set by the owner, without disable or uninstall", async () => {
    const { owner, project } = await orgWithProject(live.env);
    const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
    await w.page.goto(`${live.base}/org/policy`);
    expect(await w.page.textContent("#policy-set-by")).toContain("Never set.");
    // an unknown id (the allow-list is typed): the page stays, the list that holds it says which one (the alert points there), nothing saved
    await w.page.fill("textarea[name=allowedTalents]", "no-such-talent");
    await w.page.click("#policy-form button[type=submit]");
    await w.page.waitForSelector("#flash [role=alert]");
    expect(await w.page.textContent("#flash")).toContain("fix the field marked below");
    // under the list that holds it (app.js, from the alert's issue), said once
    expect(await w.page.textContent("#flash")).not.toContain("no-such-talent");
    expect(await w.page.textContent("#policy-allowed-field-error")).toContain('unknown talent "no-such-talent"');
    expectOnlyStatus(w, 400);
    await w.page.fill("textarea[name=allowedTalents]", "");
    // the required talents are ticked in the picker
    await w.page.check('input[name=requiredTalents][value="secrets-handling"]');
    await w.page.check('input[name=requiredTalents][value="input-validation"]');
    await Promise.all([w.page.waitForURL(`${live.base}/org/policy`), w.page.click("#policy-form button[type=submit]")]);
    await w.page.waitForSelector("#policy-required");
    expect(await w.page.textContent("#policy-required")).toContain("secrets-handling");
    expect(await w.page.textContent("#policy-set-by")).toContain(`Set by ${owner.email}`);
    await expectClean(w, "org-policy");
    await w.page.evaluate(() => document.querySelector("#policy-form-card")?.scrollIntoView());
    await screenshot(w.page, "org-policy-form");

    await w.page.goto(`${live.base}/projects/${project.id}`);
    const row = w.page.locator("#installed tr", { hasText: "secrets-handling" }).first();
    expect(await row.textContent()).toContain("required");
    expect(await row.textContent()).toContain(`Required by policy, set by ${owner.email}`);
    expect(await row.locator("button").count()).toBe(0);
    await expectClean(w);
    await w.page.evaluate(() => document.querySelector("#installed")?.scrollIntoView());
    await screenshot(w.page, "project-required-talent");
    await w.context.close();
  });

  test("without JavaScript the form posts and comes back to the page with the allow-list saved", async () => {
    const { owner } = await orgWithProject(live.env);
    const w = await signedInPage(browser, live.base, owner.email, PASSWORD, { javaScript: false });
    await w.page.goto(`${live.base}/org/policy`);
    // a refusal: the page again at its own address, the unknown id under the allow-list, what was typed kept
    await w.page.check('input[name=requiredTalents][value="secrets-handling"]');
    await w.page.fill("textarea[name=allowedTalents]", "sql-base, no-such-talent");
    expect(await submitForm(w.page, "#policy-form button[type=submit]")).toBe(400);
    expectOnlyStatus(w, 400, false);
    expect(new URL(w.page.url()).pathname).toBe("/org/policy");
    expect(await w.page.textContent("#policy-allowed-field-error")).toContain('unknown talent "no-such-talent"');
    expect(await w.page.isChecked('input[name=requiredTalents][value="secrets-handling"]')).toBe(true);
    expect(await w.page.isVisible("#policy-required-field-error")).toBe(false);
    expect(await w.page.inputValue("textarea[name=allowedTalents]")).toBe("sql-base, no-such-talent");
    expect(await w.page.getAttribute("textarea[name=allowedTalents]", "aria-invalid")).toBe("true");
    await expectCleanWithoutScripts(browser, w);
    await w.page.fill("textarea[name=allowedTalents]", "sql-base, go-base");
    expect(await submitForm(w.page, "#policy-form button[type=submit]")).toBe(303);
    expect(new URL(w.page.url()).pathname).toBe("/org/policy");
    expect(await w.page.textContent("#policy-allowed")).toContain("go-base");
    await expectCleanWithoutScripts(browser, w);
    await w.context.close();
  });
});
