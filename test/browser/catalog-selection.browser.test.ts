/**
 * docs/design.md "Catalog: talents first", "Catalog selection across search" in Chromium: the
 * talents are on screen before the specializations, which open from a link and filter by words;
 * in grouped install a ticked talent stays ticked through a search and the next page, then
 * installs with the others, with JavaScript and without; a card and a sheet draw `code` as code.
 * axe-core clean on each page.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectClean, expectCleanWithoutScripts, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const isTicked = (page: Page, id: string) => page.isChecked(`input[name=talents][value='${id}']`);
const submitted = (page: Page, click: Promise<void>) => Promise.all([page.waitForLoadState("load"), page.waitForURL(/./), click]);

describe("the catalog in Chromium", () => {
  test("talents come first; the specializations open from a link and filter by words; a card shows `code` as code", async () => {
    const o = await orgWithProject(live.env, "Catalog Reader");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/catalog`);
    const firstCard = (await page.locator(".talent-card").first().boundingBox())!;
    expect(firstCard.y).toBeLessThan(800); // the first talent is in the first screen
    expect(await page.locator("#specializations").getAttribute("open")).toBeNull();
    expect((await page.locator("#specializations").boundingBox())!.y).toBeGreaterThan(firstCard.y);
    await expectClean(w, "catalog");

    await Promise.all([page.waitForURL((u) => u.searchParams.has("spec")), page.click("a:text-matches('^specializations \\\\(')")]);
    expect(await page.locator("#specializations").getAttribute("open")).not.toBeNull();
    const all = await page.locator("#specializations li.card").count();
    await page.fill("#spec-filter", "react");
    // htmx swaps the block alone (the talents above stay the same elements) and keeps the address in step
    await page
      .locator(".talent-card")
      .first()
      .evaluate((e) => e.setAttribute("data-before-filter", ""));
    await Promise.all([
      page.waitForResponse((r) => r.url().includes("spec=react") && r.request().headers()["hx-request"] === "true"),
      page.press("#spec-filter", "Enter"),
    ]);
    await page.waitForFunction(() => document.querySelectorAll("#specializations li.card").length > 0 && /react/.test(location.search));
    expect(await page.locator(".talent-card[data-before-filter]").count()).toBe(1);
    expect(await page.locator("#specializations").getAttribute("open")).not.toBeNull();
    const names = await page.locator("#specializations li.card h3").allTextContents();
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThan(all);
    expect(names.join(" ").toLowerCase()).toContain("react");
    await page.locator("#specializations").evaluate((d) => d.scrollIntoView());
    await expectClean(w);
    await screenshot(page, "catalog-specializations");

    // Markdown in a summary: code, not backticks
    await page.goto(`${live.base}/catalog?query=pydantic`);
    const summary = page.locator(".talent-card", { hasText: "pydantic-v2" }).locator("p").nth(1);
    expect(await summary.locator("code").allTextContents()).toContain("ConfigDict");
    expect(await summary.textContent()).not.toContain("`");
    await page.goto(`${live.base}/catalog/pydantic-v2`);
    expect(await page.locator("main > p code", { hasText: "TypeAdapter" }).count()).toBe(1);
    expect(await page.title()).not.toContain("`");
    await expectClean(w);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${live.base}/catalog`);
    expect((await page.locator(".talent-card").first().boundingBox())!.y).toBeLessThan(844);
    await screenshot(page, "catalog-phone");
    await w.context.close();
  });

  test("grouped install: a ticked talent stays ticked through a search and the next page, then installs with the others", async () => {
    const o = await orgWithProject(live.env, "Catalog Ticks");
    const pid = o.project.id;
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/catalog?project=${pid}&relevance=all`);
    const first = await page.locator("input[name=talents]:not([disabled])").first().getAttribute("value");
    await page.check(`input[name=talents][value='${first}']`);

    // a search: the tick is sent along, its card shown first though it does not match
    await page.fill("#f-query", "typescript");
    await submitted(page, page.press("#f-query", "Enter"));
    expect(new URL(page.url()).searchParams.get("query")).toBe("typescript");
    expect(await isTicked(page, first!)).toBe(true);
    await page.check("input[name=talents][value='typescript-strict']");
    await expectClean(w, "catalog-ticks-search");

    // back to everything, then the next page: both ticks and the prerequisite kept
    await page.fill("#f-query", "");
    await submitted(page, page.click(".filters button[type=submit]"));
    for (const id of [first!, "typescript-strict", "javascript-base"]) expect(await isTicked(page, id)).toBe(true);
    await submitted(page, page.click("#catalog-pick button:text('More')"));
    expect(new URL(page.url()).searchParams.get("cursor")).toBeTruthy();
    for (const id of [first!, "typescript-strict", "javascript-base"]) expect(await isTicked(page, id)).toBe(true);
    const later = await page
      .locator("ul.cards .talent-card input[name=talents]:not(:checked):not([disabled])")
      .first()
      .getAttribute("value");
    await page.check(`input[name=talents][value='${later}']`);
    await expectClean(w);
    await screenshot(page, "catalog-ticks-page-2");

    await Promise.all([page.waitForURL((u) => u.pathname === `/projects/${pid}`), page.click("button:text('Install selected')")]);
    const installed = await page.locator("#installed").textContent();
    for (const id of [first!, "typescript-strict", "javascript-base", later!]) expect(installed).toContain(id);
    await w.context.close();
  });

  test("without JavaScript the ticks survive a search and the next page the same way (plain GET form), and install", async () => {
    const o = await orgWithProject(live.env, "Catalog Ticks NoJS");
    const pid = o.project.id;
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    const page = w.page;
    await page.goto(`${live.base}/catalog?project=${pid}&relevance=all`);
    const first = await page.locator("input[name=talents]:not([disabled])").first().getAttribute("value");
    await page.check(`input[name=talents][value='${first}']`);
    await page.fill("#f-query", "sql");
    await submitted(page, page.click(".filters button[type=submit]"));
    expect(await isTicked(page, first!)).toBe(true);
    await page.check("input[name=talents][value='sql-base']");
    await page.fill("#f-query", "");
    await submitted(page, page.click(".filters button[type=submit]"));
    await submitted(page, page.click("#catalog-pick button:text('More')"));
    for (const id of [first!, "sql-base"]) expect(await isTicked(page, id)).toBe(true);
    expect(await page.textContent("#ticked")).toContain("sql-base");
    await Promise.all([page.waitForURL((u) => u.pathname === `/projects/${pid}`), page.click("button:text('Install selected')")]);
    const installed = await page.locator("#installed").textContent();
    for (const id of [first!, "sql-base"]) expect(installed).toContain(id);
    await expectCleanWithoutScripts(browser, w);
    await w.context.close();
  });
});
