/**
 * Small layout rules in Chromium: a project card's MCP URL wraps inside its card with its copy
 * button there too; a rule id ("JS-001") never wraps; a rule's check text shows its `backticked`
 * spans as code; a graph's caption never ends in ". .".
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Locator } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectClean, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

/** True when `inner`'s box lies within `outer`'s (to the pixel). */
async function inside(inner: Locator, outer: Locator): Promise<boolean> {
  const [i, o] = [(await inner.boundingBox())!, (await outer.boundingBox())!];
  return i.x >= o.x - 0.5 && i.y >= o.y - 0.5 && i.x + i.width <= o.x + o.width + 0.5 && i.y + i.height <= o.y + o.height + 0.5;
}

describe("small layout rules in Chromium", () => {
  test("the home card's MCP URL wraps inside its card, with a copy button inside the card that copies it", async () => {
    const o = await orgWithProject(live.env, "Card Width");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/`);
    const card = page.locator("ul.cards > li").first();
    const url = card.locator(`#mcp-url-${o.project.id}`);
    const copy = card.locator(`button[data-copy='#mcp-url-${o.project.id}']`);
    expect(await url.textContent()).toBe(`${live.base}/mcp/${o.project.id}`);
    expect(await inside(url, card)).toBe(true);
    expect(await inside(copy, card)).toBe(true);
    await copy.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${live.base}/mcp/${o.project.id}`);
    await expectClean(w);
    await w.context.close();
  });

  test("the talent sheet: rule ids stay on one line; check texts show `backticks` as code; the graph caption ends once", async () => {
    const o = await orgWithProject(live.env, "Sheet Reader");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    // narrow: the table's first column is at its tightest
    await page.setViewportSize({ width: 420, height: 800 });
    await page.goto(`${live.base}/catalog/javascript-base`);
    const ids = page.locator("code.rule-id");
    expect(await ids.count()).toBeGreaterThan(3);
    for (const lines of await ids.evaluateAll((els) => els.map((e) => e.getClientRects().length))) expect(lines).toBe(1);
    const row = page.locator("tr", { has: page.locator(".muted", { hasText: "Check:" }) }).filter({ hasText: "JS-002" });
    expect(await row.locator(".muted code").allTextContents()).toEqual(["==", "!=", "null", "undefined"]);
    expect(await row.textContent()).not.toContain("`");
    const caption = (await page.locator("figure figcaption").first().textContent())!.trim();
    expect(caption).not.toMatch(/\.\s*\.$/);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectClean(w);
    await page.locator("h2:text('Rules')").evaluate((h) => h.scrollIntoView());
    await screenshot(page, "talent-sheet-rules");
    await w.context.close();
  });
});
