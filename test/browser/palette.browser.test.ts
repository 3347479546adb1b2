/**
 * The command palette navigates (src/projects/pages/searchPages.ts) and keeps its size: on a
 * project's page, typing "keys" lists that project's Keys tab first and Enter opens it; the
 * results box has the same bounding height for no result, one and many (no layout jump).
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectClean, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

/** Types `q` into the open palette (replacing what was there) and waits for its answer. */
async function search(page: Page, q: string): Promise<number> {
  const answer = page.waitForResponse((r) => r.url().includes("/web/search") && r.url().includes(`q=${encodeURIComponent(q)}`));
  await page.fill("#palette-q", q);
  await answer;
  await page.waitForTimeout(50); // htmx swaps after the answer
  return page.locator("#palette-results li:not([data-empty])").count();
}

describe("the command palette in Chromium", () => {
  test("'keys' lists the Keys tab of the current project first and Enter opens it; the box keeps one height for 0, 1 and many results", async () => {
    const o = await orgWithProject(live.env, "Quokka Works");
    const other = (await o.owner.post("/web/projects", { name: "Wombat service" })).body.project;
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/projects/${other.id}`);
    await page.keyboard.press("Control+k");
    await page.waitForSelector("#palette[open]");
    const box = async () => (await page.locator("#palette-results").boundingBox())!.height;

    expect(await search(page, "keys")).toBeGreaterThan(1);
    const first = page.locator("#palette-results li:first-child");
    expect(await first.getAttribute("data-type")).toBe("page");
    expect(await first.textContent()).toContain("Keys");
    expect(await first.textContent()).toContain("tab of Wombat service (this project)");
    await expectClean(w, "palette-keys");
    const many = await box();

    expect(await search(page, "zzqqxx-nothing")).toBe(0);
    const none = await box();
    expect(await search(page, "wombat")).toBe(1);
    const one = await box();
    expect([none, one]).toEqual([many, many]);

    await search(page, "keys");
    await Promise.all([page.waitForURL((u) => u.searchParams.get("tab") === "keys"), page.keyboard.press("Enter")]);
    expect(new URL(page.url()).pathname).toBe(`/projects/${other.id}`);
    await expectClean(w);
    await w.context.close();
  });
});
