/**
 * The dashboard's journeys in Chromium — sign in, create a
 * project, onboard with a specialization, copy the Claude Code configuration, create a key,
 * an agent call through the key API that then shows in the activity tab; grouped install from
 * the catalog; the talent sheet; uninstall and delete; the command palette switching
 * organization with the keyboard alone; another organization's project is the 404 page.
 * Every page is checked with axe-core and must log no console error (CSP included).
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject, signedUp, withKey } from "../helpers";
import {
  axeViolations,
  newPage,
  screenshot,
  type WatchedPage,
  expectClean,
  signedInPage,
  expectOnlyStatus,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const clean = expectClean;
const signIn = (email: string): Promise<WatchedPage> => signedInPage(browser, live.base, email, PASSWORD);
const expectedOnly = (w: WatchedPage, status: number): void => expectOnlyStatus(w, status);
const main = (p: Page) => p.textContent("main").then((t) => t ?? "");

describe("the dashboard's journeys in Chromium", () => {
  test("sign in → create a project → onboarding with a specialization → copy the Claude Code configuration → create a key → an agent call → it shows in the activity tab", async () => {
    const me = await signedUp(live.env);
    await me.post("/web/orgs", { name: "Journey Co" });
    const w = await signIn(me.email);
    const page = w.page;
    expect(await main(page)).toContain("No project yet");
    await clean(w, "home-empty");

    await Promise.all([page.waitForURL((u) => u.pathname === "/projects/new"), page.click("text=Create your first project")]);
    await clean(w, "project-new");
    await page.fill("#name", "Payments API");
    await page.fill("#repository", "payments-api");
    await Promise.all([
      page.waitForURL((u) => u.pathname.endsWith("/onboarding")),
      page.click("button[type=submit]:text('Create and choose talents')"),
    ]);
    const projectId = new URL(page.url()).pathname.split("/")[2]!;
    expect(await main(page)).toContain("No talent is installed yet");
    await clean(w, "onboarding-talents");

    // apply a specialization: its talents and their prerequisites are installed, the graph drawn
    await Promise.all([page.waitForLoadState("load"), page.click("button:has-text('Apply TypeScript service')")]);
    await page.waitForSelector("#installed table");
    expect(await page.textContent("#installed")).toContain("typescript-strict");
    expect(await page.textContent("#installed")).toContain("javascript-base"); // a prerequisite came along
    expect(await page.locator("#installed svg.wide").count()).toBe(1);
    await clean(w);

    await Promise.all([page.waitForURL((u) => u.search === "?step=connect"), page.click("text=Next: connect an agent")]);
    await page.click("#client-claude-code summary");
    await page.click("#client-claude-code button[data-copy='#cmd-claude-code']");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `claude mcp add --transport http talentd ${live.base}/mcp/${projectId}`,
    );
    await clean(w, "onboarding-connect");

    // the automation key: shown once, and it works on the key API
    await page.click("#automation button[type=submit]");
    await page.waitForSelector("#automation #secret-value");
    const key = (await page.textContent("#automation #secret-value"))!.trim();
    expect(key).toMatch(/^svc_pk_/);
    const served = await withKey(live.env, key, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "journey-hook/1.0" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    expect(served.status).toBe(201);

    // keys tab: create a key by hand, value once
    await page.goto(`${live.base}/projects/${projectId}?tab=keys`);
    await page.fill("#key-name", "ci of payments");
    await page.click("#keys form button[type=submit]");
    await page.waitForSelector("#keys .secret");
    expect(await page.textContent("#keys .secret code")).toMatch(/^svc_pk_/);
    expect(await page.textContent("#keys table")).toContain("ci of payments");
    await clean(w, "project-keys");

    // the activity tab shows the agent's call with its client and author
    await page.goto(`${live.base}/projects/${projectId}?tab=activity`);
    const activity = await main(page);
    expect(activity).toContain("prepare_task");
    expect(activity).toContain("automation (hooks and CI)");
    // an unknown tool is named by its first word (src/journal/clients.ts), its raw label on hover
    expect(activity).toContain("journey-hook");
    expect(await page.getAttribute('td[title="journey-hook/1.0"]', "title")).toBe("journey-hook/1.0");
    await clean(w, "project-activity");

    await page.goto(`${live.base}/projects/${projectId}`);
    await clean(w, "project-overview");
    await w.context.close();
  });

  test("grouped install from the catalog (one atomic install, prerequisites ticked), the talent sheet, then uninstall and delete with a typed confirmation", async () => {
    const o = await orgWithProject(live.env);
    const w = await signIn(o.owner.email);
    const page = w.page;
    page.on("dialog", (d) => void d.accept());

    await page.goto(`${live.base}/catalog`);
    expect(await page.textContent("#specs-h")).toContain("Specializations");
    await clean(w, "catalog");

    // the talent sheet, then "Install…" into the project: the grouped mode with it and its prerequisites ticked
    await page.goto(`${live.base}/catalog/typescript-strict`);
    expect(await main(page)).toContain("TS-001");
    expect(await page.locator("figure.graph svg.wide").count()).toBe(1);
    await clean(w, "talent-sheet");
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/catalog" && u.searchParams.get("project") === o.project.id),
      page.click("button:text('Install…')"),
    ]);
    expect(await page.locator("#specs-h").count()).toBe(0); // the specializations block is hidden in grouped mode
    expect(await page.isChecked("input[name=talents][value='typescript-strict']")).toBe(true);
    expect(await page.isChecked("input[name=talents][value='javascript-base']")).toBe(true);
    await clean(w, "catalog-grouped");
    await page.fill("#f-query", "sql");
    await Promise.all([page.waitForLoadState("load"), page.click(".filters button[type=submit]")]);
    // the search kept what was ticked (the one form carries the ticks)
    expect(await page.isChecked("input[name=talents][value='typescript-strict']")).toBe(true);
    expect(await page.isChecked("input[name=talents][value='javascript-base']")).toBe(true);
    await page.check("input[name=talents][value='sql-base']");
    await Promise.all([page.waitForURL((u) => u.pathname === `/projects/${o.project.id}`), page.click("button:text('Install selected')")]);
    for (const id of ["sql-base", "typescript-strict", "javascript-base"]) expect(await page.textContent("#installed")).toContain(id);

    // uninstall through htmx (the list is swapped in place)
    await page.click("#installed button:has-text('Uninstall sql-base')");
    await page.waitForFunction(() => !document.querySelector("#installed")?.textContent?.includes("sql-base"));
    // disable (a talent nothing installed requires: javascript-base would ask first, typescript-strict needs it)
    await page.click("#installed button:has-text('Disable typescript-strict')");
    await page.waitForSelector("#installed button:has-text('Enable typescript-strict')");

    // delete with a typed confirmation
    await page.goto(`${live.base}/projects/${o.project.id}?tab=settings`);
    const del = page.locator("button.danger:has-text('Delete')");
    expect(await del.isDisabled()).toBe(true);
    await page.fill("#confirm-name", "wrong name");
    expect(await del.isDisabled()).toBe(true);
    await page.fill("#confirm-name", o.project.name);
    await clean(w, "project-settings");
    await Promise.all([page.waitForURL((u) => u.pathname === "/"), del.click()]);
    expect(await main(page)).not.toContain(o.project.name);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(404);
    await w.context.close();
  });

  test("the command palette, with the keyboard alone: Ctrl+K, type, arrows, Enter — to a talent, and to another organization (switched)", async () => {
    const o = await orgWithProject(live.env, "Palette One");
    await o.owner.post("/web/orgs", { name: "Palette Two" }); // auto-approved
    await o.owner.post("/web/projects", { name: "Second project" });
    const w = await signIn(o.owner.email); // a new session acts in the newest organization: Palette Two
    const page = w.page;
    await page.keyboard.press("Control+k");
    await page.waitForSelector("#palette[open]");
    await page.keyboard.type("typescript");
    await page.waitForSelector("#palette-results li:first-child a:has-text('Strict TypeScript')");
    await clean(w, "palette");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await Promise.all([page.waitForURL((u) => u.pathname.startsWith("/catalog/")), page.keyboard.press("Enter")]);

    await page.keyboard.press("Control+k");
    await page.waitForSelector("#palette[open]");
    await page.keyboard.type("Palette One");
    await page.waitForSelector("#palette-results li:first-child[data-type=organization]"); // the results of the whole query
    await Promise.all([page.waitForURL((u) => u.pathname === "/"), page.keyboard.press("Enter")]);
    expect(await main(page)).toContain("Palette One project");
    expect(await main(page)).not.toContain("Second project");
    expect(await page.inputValue("#org-switch")).toBe(o.org.id);
    await w.context.close();
  });

  test("errors are shown on the page, not as JSON: a specialization in conflict with the installed selection (409 selection_conflict) and a project without a name (400, the field named) land in the page's alert area; nothing changed", async () => {
    const o = await orgWithProject(live.env);
    expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["pnpm-workspaces"] })).status).toBe(201);
    const w = await signIn(o.owner.email);
    const page = w.page;

    await page.goto(`${live.base}/projects/${o.project.id}/onboarding`);
    const answer = page.waitForResponse((r) => r.url().endsWith("/apply-specialization"));
    await page.click("button:has-text('Apply JavaScript monorepo')");
    expect((await answer).status()).toBe(409);
    await page.waitForSelector("#flash [role=alert]");
    // the alert is in view where the button was pressed, however far down the page (the area sticks to the top)
    const box = (await page.locator("#flash [role=alert]").boundingBox())!;
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    const flash = (await page.textContent("#flash"))!;
    expect(flash).toContain("npm-workspaces");
    expect(flash).toContain("pnpm-workspaces");
    expect(flash).not.toContain("{");
    expect(new URL(page.url()).pathname).toBe(`/projects/${o.project.id}/onboarding`);
    const installed = (await o.owner.get(`/web/projects/${o.project.id}/installed`)).body.talents.map((t: { id: string }) => t.id);
    expect(installed).toEqual(["pnpm-workspaces"]); // the conflicting group was not half-applied
    expectedOnly(w, 409);
    await clean(w, "error-conflict");

    // a form the browser would refuse is sent anyway (its `required` removed): the server's 400 names the field
    await page.goto(`${live.base}/projects/new`);
    await page.evaluate(() => document.querySelector("#name")!.removeAttribute("required"));
    const created = page.waitForResponse((r) => r.url().endsWith("/web/projects") && r.request().method() === "POST");
    await page.click("button[type=submit]:text('Create and choose talents')");
    expect((await created).status()).toBe(400);
    await page.waitForSelector("#name-error:not([hidden])");
    expect(await page.textContent("#name-error")).toContain("Name");
    expect(await page.textContent("#flash")).toContain("fix the field marked below"); // said once: under the field
    expect(new URL(page.url()).pathname).toBe("/projects/new");
    expectedOnly(w, 400);
    await clean(w);
    await w.context.close();
  });

  test("a member of another organization who opens a project's URL gets the 404 page; a signed-out visitor is sent to /login", async () => {
    const a = await orgWithProject(live.env);
    const b = await orgWithProject(live.env);
    const w = await signIn(b.owner.email);
    const res = await w.page.goto(`${live.base}/projects/${a.project.id}`);
    expect(res?.status()).toBe(404);
    expect(await w.page.textContent("h1")).toBe("Not found");
    expect(await main(w.page)).not.toContain(a.project.name);
    await clean(w, "not-found");
    await w.context.close();
    const anon = await newPage(browser);
    await anon.page.goto(`${live.base}/projects/${a.project.id}`);
    expect(new URL(anon.page.url()).pathname).toBe("/login");
    await anon.context.close();
  });
});
