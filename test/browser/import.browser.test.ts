/**
 * `/org/expertises/import` in Chromium, scripts off (the form works without JavaScript): two rule
 * files uploaded through `<input type=file multiple>` land on the list of their drafts, each linked
 * to its editor, which shows the imported rules; a file the content check refuses answers the form
 * again (400) with the problem and nothing imported. Checked with axe-core; screenshot
 * `org-expertises-import`.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectCleanWithoutScripts, expectOnlyStatus, screenshot, signedInPage, submitForm, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";
import { SAMPLES } from "../fixtures/rule-files";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

describe("/org/expertises/import in Chromium", () => {
  test("upload two files without JavaScript → 303 → the drafts listed and linked to their editors; a refused file answers 400 with the problem", async () => {
    const o = await orgWithProject(live.env, "Import Pages");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    const page = w.page;
    await page.goto(`${live.base}/org/expertises`);
    await Promise.all([page.waitForURL((u) => u.pathname === "/org/expertises/import"), page.click("a:text('Import rules')")]);

    await page.setInputFiles("input[type=file][name=files]", [
      { name: "AGENTS.md", mimeType: "text/markdown", buffer: Buffer.from(SAMPLES.agents.content) },
      { name: "react-components.mdc", mimeType: "text/plain", buffer: Buffer.from(SAMPLES.mdc.content) },
    ]);
    expect(await submitForm(page, "button:text('Import as drafts')")).toBe(303);
    expect(new URL(page.url()).searchParams.get("imported")?.split(",")).toHaveLength(2);
    const rowsOf = (table: string) =>
      page
        .locator(`${table} tbody tr`)
        .evaluateAll((trs) => trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent?.trim()).join(" | ")));
    // each draft: its rules and the lines not made rules, then those lines with why
    expect(await rowsOf("#imported > .scroll-x table")).toEqual([
      "agents | Project guidelines | 5 | 1",
      "react-components | React components | 2 | 1",
    ]);
    expect((await rowsOf("#skipped-agents"))[0]).toStartWith("8 | The project uses Vite. | not an instruction");
    await expectCleanWithoutScripts(browser, w);
    await screenshot(page, "org-expertises-import");

    // each draft's editor: status draft, its rules in the TALENT.md
    const href = await page.getAttribute("#imported tbody tr:nth-child(2) a", "href");
    expect(href).toMatch(/^\/org\/expertises\/exp_/);
    await page.goto(`${live.base}${href}`);
    expect(await page.inputValue("#content")).toContain("RC-001");
    expect(await page.textContent("main")).toContain("draft");

    // a pasted file with a right-to-left override: 400, the problem named, the text kept, nothing imported
    await page.goto(`${live.base}/org/expertises/import`);
    await page.fill("input[name=pastePath]", "CLAUDE.md");
    await page.fill("textarea[name=paste]", "# X\n- Use\u202e strict mode.\n");
    expect(await submitForm(page, "button:text('Import as drafts')")).toBe(400);
    expect(await page.textContent("#import-problems")).toContain("CLAUDE.md: line 2");
    expect(await page.inputValue("input[name=pastePath]")).toBe("CLAUDE.md");
    expectOnlyStatus(w, 400, false);
    expect((await o.owner.get("/web/orgs/current/expertises")).body.expertises).toHaveLength(2);
    await w.context.close();
  });
});
