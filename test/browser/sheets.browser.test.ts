/**
 * The pages show the project's state, in Chromium: a talent's sheet (and an expertise's) says
 * where it is installed and active, installed but disabled, or not installed; its graph marks
 * prerequisites by their state in the chosen project; "Install into" lists only the projects
 * without it; the grouped install's "suits the project" filter narrows by the project's
 * languages and roles and says which.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { orgWithProject, publishedExpertise } from "../helpers";
import { expectClean, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const text = (p: Page, selector: string) => p.textContent(selector).then((t) => (t ?? "").replace(/\s+/g, " "));
/** The rows of the sheet's "In your projects" table: project name → state in words. */
const stateRows = (p: Page) =>
  p.$$eval("section[aria-labelledby=where-h] tbody tr", (rows) =>
    Object.fromEntries((rows as HTMLTableRowElement[]).map((r) => [r.cells[0]!.textContent!.trim(), r.cells[1]!.textContent!.trim()])),
  );

describe("the pages show the project's state", () => {
  test("the talent sheet: installed and active, installed but disabled, not installed; the graph in the chosen project; Install into only where missing", async () => {
    const o = await orgWithProject(live.env, "Sheet States");
    const active = o.project;
    const disabled = (await o.owner.post("/web/projects", { name: "Disabled here" })).body.project;
    const missing = (await o.owner.post("/web/projects", { name: "Missing here" })).body.project;
    expect((await o.owner.post(`/web/projects/${active.id}/talents`, { talents: ["typescript-strict", "javascript-base"] })).status).toBe(
      201,
    );
    expect((await o.owner.post(`/web/projects/${disabled.id}/talents`, { talents: ["typescript-strict"] })).status).toBe(201);
    expect((await o.owner.patch(`/web/projects/${disabled.id}/talents/typescript-strict`, { enabled: false })).status).toBe(200);

    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/catalog/typescript-strict?project=${active.id}`);
    expect(await stateRows(page)).toEqual({
      [active.name]: "installed, active",
      [disabled.name]: "installed, disabled",
      [missing.name]: "not installed",
    });
    // the prerequisite is active in the chosen project: never "not installed"
    expect(await text(page, "figure.graph figcaption")).toContain("javascript-base (active)");
    expect(await page.$$eval("#install-project option", (os) => os.map((x) => x.textContent))).toEqual([missing.name]);
    await expectClean(w, "talent-sheet");

    // the graph in another project, chosen with the form (no script needed)
    await page.selectOption("#graph-project", missing.id);
    await Promise.all([page.waitForURL((u) => u.search.includes(missing.id)), page.click("button:text('Show')")]);
    expect(await text(page, "figure.graph figcaption")).toContain("javascript-base (required, not installed)");
    expect(await page.locator("figure.graph .graph-node.missing").count()).toBe(1);

    // installed everywhere: nothing to install into
    await o.owner.post(`/web/projects/${missing.id}/talents`, { talents: ["typescript-strict"] });
    await page.goto(`${live.base}/catalog/typescript-strict`);
    expect(await page.locator("#install-project").count()).toBe(0);
    expect(await text(page, "main")).toContain("Installed in every project of this organization.");
    await w.context.close();
  });

  test("the expertise sheet shows the same states", async () => {
    const o = await orgWithProject(live.env, "Expertise States");
    const exp = await publishedExpertise(o.owner, o.org.slug, "payments");
    const other = (await o.owner.post("/web/projects", { name: "Without it" })).body.project;
    expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [exp.ref] })).status).toBe(201);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/catalog/${encodeURIComponent(exp.ref)}`);
    expect(await stateRows(w.page)).toEqual({ [o.project.name]: "installed, active", [other.name]: "not installed" });
    expect(await w.page.$$eval("#install-project option", (os) => os.map((x) => x.textContent))).toEqual([other.name]);
    await expectClean(w);
    await w.context.close();
  });

  test("the grouped install's filter for a TypeScript/Node project shows no Go, Next.js or pnpm talent, and names the languages and roles it used", async () => {
    const o = await orgWithProject(live.env, "TypeScript Node");
    const pid = o.project.id;
    expect(
      (await o.owner.post(`/web/projects/${pid}/talents`, { talents: ["typescript-strict", "javascript-base", "npm-workspaces"] })).status,
    ).toBe(201);
    expect(
      (await o.owner.put(`/web/projects/${pid}/relevance`, { languages: ["typescript", "javascript"], roles: ["backend"] })).status,
    ).toBe(200);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/catalog?project=${pid}`);
    expect(await text(page, "#narrowed")).toContain(
      "languages javascript, typescript (or none); roles backend (the project's relevance settings)",
    );
    await expectClean(w, "catalog-grouped");
    // every page of the listing
    const seen: string[] = [];
    for (;;) {
      seen.push(...(await page.$$eval("ul.cards .talent-card input[name=talents]", (xs) => xs.map((x) => (x as HTMLInputElement).value))));
      const more = page.locator("a:text('More')");
      if ((await more.count()) === 0) break;
      await Promise.all([page.waitForLoadState("load"), more.click()]);
    }
    expect(seen).toContain("node-http-services");
    expect(seen.filter((id) => /^go-|nextjs|pnpm/.test(id))).toEqual([]);

    // asked for everything, they are there
    await page.goto(`${live.base}/catalog?project=${pid}&relevance=all&query=pnpm`);
    expect(await page.locator("input[value=pnpm-workspaces]").count()).toBe(1);
    expect(await page.locator("#narrowed").count()).toBe(0);
    await w.context.close();
  });
});
