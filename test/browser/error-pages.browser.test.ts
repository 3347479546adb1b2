/**
 * The error page and the confirmation page (src/ui/errors.tsx) in Chromium: for a signed-in
 * viewer they carry the navigation of every other page (the main links, the active
 * organization in the switcher, sign-out), and for a signed-out viewer they still render,
 * without it. A field's issue shown on a page (the #flash) is the schema's own sentence, not a
 * TypeBox union's "Expected union value". axe-core finds nothing serious on any of them.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject, signedUp } from "../helpers";
import {
  expectClean,
  expectCleanWithoutScripts,
  expectOnlyStatus,
  newPage,
  signedInPage,
  submitForm,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const navLinks = (p: Page) => p.locator("header nav[aria-label=Main] a").allTextContents();
const activeOrg = (p: Page) => p.locator("#org-switch option[selected]").textContent();

describe("error and confirmation pages carry the navigation of a signed-in viewer", () => {
  test("a signed-in owner's 404 page shows the main navigation with the active organization selected, and sign-out", async () => {
    const o = await orgWithProject(live.env, "Nav Errors Co");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const answer = await w.page.goto(`${live.base}/projects/01HZZZZZZZZZZZZZZZZZZZZZZZ`);
    expect(answer!.status()).toBe(404);
    expect(await w.page.textContent("main h1")).toBe("Not found");
    expect(await navLinks(w.page)).toEqual(["Projects", "Catalog", "Organization", "Expertises", "Insights", "Adoption"]);
    expect(await activeOrg(w.page)).toBe("Nav Errors Co");
    expect(await w.page.textContent("header .signout")).toContain(o.owner.email);
    await expectClean(w);
    await w.context.close();
  });

  test("the confirmation page of a form posted without JavaScript shows the main navigation with the active organization", async () => {
    const o = await orgWithProject(live.env, "Nav Confirm Co");
    const pid = o.project.id;
    expect((await o.owner.post(`/web/projects/${pid}/talents`, { talents: ["javascript-base"] })).status).toBe(201);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    await w.page.goto(`${live.base}/projects/${pid}`);
    expect(await submitForm(w.page, "#installed button:has-text('Uninstall javascript-base')")).toBe(400);
    expect(await w.page.textContent("main h1")).toBe("Confirm: Uninstall javascript-base");
    expect(await navLinks(w.page)).toEqual(["Projects", "Catalog", "Organization", "Expertises", "Insights", "Adoption"]);
    expect(await activeOrg(w.page)).toBe("Nav Confirm Co");
    // switching organization from here returns to the page the form was on, not to the /web route it posted to
    expect(await w.page.inputValue("header form.org-switch input[name=return]")).toBe(`/projects/${pid}`);
    expectOnlyStatus(w, 400, false);
    await expectCleanWithoutScripts(browser, w);
    await w.context.close();
  });

  test("a signed-in person without an organization gets the navigation on the error page, without a switcher", async () => {
    const me = await signedUp(live.env);
    const w = await signedInPage(browser, live.base, me.email, PASSWORD);
    const answer = await w.page.goto(`${live.base}/no-such-page`);
    expect(answer!.status()).toBe(404);
    expect(await navLinks(w.page)).toEqual(["Projects", "Organization"]);
    expect(await w.page.locator("#org-switch").count()).toBe(0);
    await expectClean(w);
    await w.context.close();
  });

  test("a signed-out viewer's error page still renders, without navigation", async () => {
    const w = await newPage(browser);
    const answer = await w.page.goto(`${live.base}/no-such-page`);
    expect(answer!.status()).toBe(404);
    expect(await w.page.textContent("main h1")).toBe("Not found");
    expect(await w.page.locator("header nav").count()).toBe(0);
    expect(await w.page.locator("header .signout").count()).toBe(0);
    await expectClean(w);
    await w.context.close();
  });
});

describe("a field's issue on the page is the schema's own sentence", () => {
  test("a bad repository on the project's settings form and on the new project form: the field says `Repository must be a path such as payments-api or group/repo` (once: not again in #flash), not the union's own text", async () => {
    const o = await orgWithProject(live.env, "Repo Flash Co");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    const message = "Repository must be a path such as payments-api or group/repo";

    await page.goto(`${live.base}/projects/${o.project.id}?tab=settings`);
    await page.fill("#p-repo", "../elsewhere");
    const patched = page.waitForResponse((r) => r.url().endsWith(`/web/projects/${o.project.id}`) && r.request().method() === "PATCH");
    await page.click("form[hx-patch] button[type=submit]");
    expect((await patched).status()).toBe(400);
    await page.waitForSelector("#p-repo-error:not([hidden])");
    expect(await page.textContent("#p-repo-error")).toBe(message);
    expect(await page.textContent("#flash")).not.toContain("union");
    expect(await page.textContent("#flash")).not.toContain("must be a path"); // said once, under the field
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).body.project.repository).toBeNull();
    expectOnlyStatus(w, 400);
    await expectClean(w);

    await page.goto(`${live.base}/projects/new`);
    await page.fill("#name", "Bad repository");
    await page.fill("#repository", "a b");
    const created = page.waitForResponse((r) => r.url().endsWith("/web/projects") && r.request().method() === "POST");
    await page.click("button[type=submit]:text('Create and choose talents')");
    expect((await created).status()).toBe(400);
    await page.waitForSelector("#repository-error:not([hidden])");
    expect(await page.textContent("#repository-error")).toBe(message);
    expect(new URL(page.url()).pathname).toBe("/projects/new");
    expectOnlyStatus(w, 400);
    await expectClean(w);
    await w.context.close();
  });
});
