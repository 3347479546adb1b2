/**
 * The pages show the project's state, in Chromium: a talent's sheet (and an expertise's) says
 * where it is installed and active, installed but disabled, or not installed; its graph marks
 * prerequisites by their state in the chosen project; "Install into" lists only the projects
 * without it; the grouped install's "suits the project" filter narrows by the project's
 * languages and roles and says which. Keys that do not surprise: the automation key is created
 * once, then offered as "Rotate", which names what it breaks and asks first (with and without
 * JavaScript); a cancelled rotation leaves the old key working, a confirmed one refuses it.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { createKey, orgWithProject, publishedExpertise, withKey } from "../helpers";
import { expectClean, expectOnlyStatus, screenshot, signedInPage, submitForm, withChromiumAndApp } from "../browser-support";
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
    await expectClean(w, "talent-sheet-states");

    // the graph in another project, chosen with the form (no script needed)
    await page.selectOption("#graph-project", missing.id);
    await Promise.all([page.waitForURL((u) => u.search.includes(missing.id)), page.click("button:text('Show')")]);
    expect(await text(page, "figure.graph figcaption")).toContain("javascript-base (required, not installed)");
    expect(await page.locator("figure.graph svg.wide .graph-node.missing").count()).toBe(1);

    // installed everywhere: nothing to install into
    await o.owner.post(`/web/projects/${missing.id}/talents`, { talents: ["typescript-strict"] });
    await page.goto(`${live.base}/catalog/typescript-strict`);
    expect(await page.locator("#install-project").count()).toBe(0);
    expect(await text(page, "main")).toContain("Installed in every project of this organization.");
    await w.context.close();
  });

  test("the talent sheet's measured effect: not measured yet, then the latest uploaded eval of the organization (findings per run and check with and without, runs, date, project)", async () => {
    const o = await orgWithProject(live.env, "Sheet Measured");
    expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] })).status).toBe(201);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/catalog/typescript-strict`);
    expect(await text(page, "#measured-effect")).toContain("Not measured yet: talentd eval --upload");
    const key = (await createKey(o.owner, o.project.id, ["validate"])).value;
    const arm = (findingsPerRun: number, min: number, max: number, checkPassRate: number | null) => ({
      runs: 3,
      findingsPerRun,
      findingsSpread: { min, max },
      checkPassRate,
    });
    const upload = (w: ReturnType<typeof arm>, wo: ReturnType<typeof arm>) =>
      withKey(live.env, key, "/api/evals", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          runsPerArm: 3,
          tasks: [],
          runs: [],
          effects: [{ talent: "typescript-strict", with: w, without: wo, neverInvoked: 0 }],
        }),
      });
    expect((await upload(arm(1, 1, 1, null), arm(1, 1, 1, null))).status).toBe(201);
    await Bun.sleep(5);
    expect((await upload(arm(0, 0, 0, 1), arm(2.33, 1, 3, 0.33))).status).toBe(201);
    await page.goto(`${live.base}/catalog/typescript-strict`);
    const said = await text(page, "#measured-effect");
    expect(said).toContain("Findings of its rules per run: 0 with talentd, 2.33 (1–3) without");
    expect(said).toContain("the task's check passed 100% with, 33% without. 3+3 runs in Sheet Measured project");
    expect(said).toMatch(/\d{4}-\d{2}-\d{2}/);
    await expectClean(w);
    await page.locator("#measured-effect").scrollIntoViewIfNeeded();
    await screenshot(page, "talent-sheet-measured-effect");
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
    await expectClean(w, "catalog-grouped-typescript");
    // every page of the listing
    const seen: string[] = [];
    for (;;) {
      seen.push(...(await page.$$eval("ul.cards .talent-card input[name=talents]", (xs) => xs.map((x) => (x as HTMLInputElement).value))));
      const more = page.locator("#catalog-pick button:text('More')");
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

describe("keys that do not surprise: the automation key is created once, then rotated after a question", () => {
  const doctor = (key: string) => withKey(live.env, key, "/api/doctor").then((r) => r.status);
  const secret = (p: Page) => p.textContent("#automation #secret-value").then((t) => (t ?? "").trim());

  test("with JavaScript (Keys tab): a first key never speaks of a previous one; Rotate asks; cancelled the old key works, confirmed it is refused (401)", async () => {
    const o = await orgWithProject(live.env, "Rotate With Script");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/projects/${o.project.id}?tab=keys`);
    expect(await text(page, "#automation")).toContain("Create the automation key");
    expect(await text(page, "#automation")).not.toMatch(/previous|revoke/i);
    await page.click("#automation button[type=submit]");
    await page.waitForSelector("#automation #secret-value");
    const first = await secret(page);
    expect(await text(page, "#automation")).not.toMatch(/previous/i);
    expect(await text(page, "#automation button[type=submit]")).toBe("Rotate the automation key");
    expect(await doctor(first)).toBe(200);

    // a fresh view offers Rotate, never Create again
    await page.goto(`${live.base}/projects/${o.project.id}?tab=keys`);
    expect(await text(page, "#automation button[type=submit]")).toBe("Rotate the automation key");
    expect(await text(page, "#automation")).toContain("TALENTD_KEY must be replaced");
    const questions: string[] = [];
    page.once("dialog", (d) => void (questions.push(d.message()), d.dismiss()));
    await page.click("#automation button[type=submit]");
    await page.waitForTimeout(300);
    expect(questions[0]).toContain("the CI secret TALENTD_KEY is replaced");
    expect(await page.locator("#automation #secret-value").count()).toBe(0);
    expect(await doctor(first)).toBe(200);

    page.once("dialog", (d) => void d.accept());
    await page.click("#automation button[type=submit]");
    await page.waitForSelector("#automation #secret-value");
    const second = await secret(page);
    expect(second).not.toBe(first);
    expect(await text(page, "#automation")).toContain("The previous automation key no longer works.");
    expect(await doctor(first)).toBe(401);
    expect(await doctor(second)).toBe(200);
    await expectClean(w, "project-keys-rotated");
    await w.context.close();
  });

  test("without JavaScript (overview): Rotate asks on a page; Cancel goes back and the old key works; confirmed, the new value is shown once and the old key is refused (401)", async () => {
    const o = await orgWithProject(live.env, "Rotate Without Script");
    const pid = o.project.id;
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    const page = w.page;
    await page.goto(`${live.base}/projects/${pid}`);
    await page.click("#ci summary"); // the overview's "CI validation and hooks" block
    // created without a question, its value on the answer
    expect(await submitForm(page, "#automation button:text('Create the automation key')")).toBe(200);
    const first = await secret(page);
    expect(await text(page, "main")).not.toMatch(/previous/i);
    expect(await doctor(first)).toBe(200);

    await page.goto(`${live.base}/projects/${pid}`);
    await page.click("#ci summary");
    expect(await submitForm(page, "#automation button:text('Rotate the automation key')")).toBe(400);
    expect(await text(page, "main")).toContain("the CI secret TALENTD_KEY is replaced with the new value");
    expect(await text(page, "main")).toContain("Nothing was changed yet.");
    await Promise.all([page.waitForURL((u) => u.pathname === `/projects/${pid}`), page.click("main a:text('Cancel')")]);
    expect(await doctor(first)).toBe(200);

    await page.click("#ci summary");
    expect(await submitForm(page, "#automation button:text('Rotate the automation key')")).toBe(400);
    expect(await submitForm(page, "main form button.danger")).toBe(200);
    const second = await secret(page);
    expect(second).toMatch(/^svc_pk_/);
    expect(second).not.toBe(first);
    expect(await text(page, "main")).toContain("The previous automation key no longer works.");
    expect(await doctor(first)).toBe(401);
    expect(await doctor(second)).toBe(200);
    expectOnlyStatus(w, 400, false);
    await w.context.close();
  });
});

describe("the overview: Add talents, the installed list before the graph, a graph legible with 50 talents", () => {
  test("with every talent of the catalog installed (50), the list comes first, Add talents leads to the grouped install, and the graph's labels stay at least 10 px at 1280 and 390 px", async () => {
    const o = await orgWithProject(live.env, "Fifty Talents");
    const pid = o.project.id;
    const all = live.env.state.catalog!.list.map((t) => t.id);
    // a talent that conflicts with one already installed waits outside (one atomic install each)
    for (const id of all) await o.owner.post(`/web/projects/${pid}/talents`, { talents: [id] });
    const installed = (await o.owner.get(`/web/projects/${pid}/installed`)).body.talents.length as number;
    expect(installed).toBeGreaterThanOrEqual(45);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    for (const [width, height, name] of [
      [1280, 800, "wide-project-overview-50"],
      [390, 844, "phone-project-overview-50"],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`${live.base}/projects/${pid}`);
      // the list before the graph
      const order = await page.evaluate(() => {
        const table = document.querySelector("#installed table");
        const graph = document.querySelector("#installed figure.graph");
        return table && graph ? table.compareDocumentPosition(graph) & Node.DOCUMENT_POSITION_FOLLOWING : -1;
      });
      expect(order).toBeGreaterThan(0);
      expect(await page.getAttribute("#installed a:text('Add talents')", "href")).toBe(`/catalog?project=${pid}`);
      // legible: each shown label's drawn height, after any scaling of the figure (one of its two drawings is shown)
      const smallest = await page.$$eval("#installed figure.graph text", (ts) =>
        Math.min(...ts.filter((t) => t.getClientRects().length > 0).map((t) => (t as SVGGraphicsElement).getBoundingClientRect().height)),
      );
      expect({ width, smallest: smallest >= 10 }).toEqual({ width, smallest: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await expectClean(w, name);
      if (process.env.GRAPH_SHOT)
        await page.locator("#installed figure.graph").screenshot({ path: `${process.env.GRAPH_SHOT}-${width}.png` });
    }
    await w.context.close();
  });
});

describe("the talent sheet's review line", () => {
  test("the line under the title says Reviewed <date> and Covers: <product> <versions>, readable and clean (axe)", async () => {
    const o = await orgWithProject(live.env, "Sheet Review");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/catalog/ef-core`);
    const t = live.env.state.catalog!.get("ef-core")!;
    const facts = await text(w.page, "main h1 + p");
    expect(facts).toContain(`Reviewed ${t.reviewed}`);
    expect(facts).toContain("Covers: EF Core 10; .NET 10");
    await expectClean(w, "talent-sheet-review");
  });
});
