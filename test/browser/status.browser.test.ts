/**
 * Every action answers (src/ui/status.ts): the layout's role="status" line names what changed —
 * after an install (its prerequisite named so), an uninstall, a disable, a specialization applied
 * (whose button then says "Applied", and "Apply again" once something of it was uninstalled),
 * a key created — in Chromium with JavaScript (htmx swaps the line in, or the next page shows it)
 * and without (the form's 303 carries it to the page in a signed cookie, shown once).
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectClean, expectCleanWithoutScripts, screenshot, signedInPage, submitForm, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 150_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

/** The text of the layout's status line (one region, role=status). */
const status = async (p: Page): Promise<string> => ((await p.textContent("#action-status[role=status]")) ?? "").trim();

/** The project's installed talents and their state, as the JSON route says. */
async function installed(client: { get(path: string): Promise<{ body: unknown }> }, pid: string): Promise<Record<string, string>> {
  const body = (await client.get(`/web/projects/${pid}/installed`)).body as { talents: { id: string; state: string }[] };
  return Object.fromEntries(body.talents.map((t) => [t.id, t.state]));
}

describe("every action answers in the layout's status line", () => {
  test("with JavaScript: apply (then Applied, Apply again after an uninstall), install with a prerequisite, uninstall, disable, a key created", async () => {
    const o = await orgWithProject(live.env, "Status JS Co");
    const pid = o.project.id;
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    page.on("dialog", (d) => void d.accept());
    expect(await status(page)).toBe(""); // nothing done yet, nothing said

    await page.goto(`${live.base}/projects/${pid}/onboarding`);
    await Promise.all([page.waitForLoadState("load"), page.click("button:has-text('Apply TypeScript service')")]);
    await page.waitForSelector("#action-status .status");
    expect(await status(page)).toMatch(/^Applied TypeScript service: \d+ talents installed$/);
    expect(await page.isDisabled("button:has-text('Applied TypeScript service')")).toBe(true);
    // a specialization never applied says Apply, though it shares talents with the one applied
    expect((await page.textContent("li:has(strong:text-is('CI and platform')) button"))?.trim()).toBe("Apply CI and platform");
    await expectClean(w, "onboarding-applied");
    await page.reload();
    expect(await status(page)).toBe(""); // said once

    // uninstall one of its talents (htmx swaps the list and the status line in place)
    await page.click("#installed button:has-text('Uninstall input-validation')");
    await page.waitForFunction(() => document.querySelector("#action-status")?.textContent === "Uninstalled input-validation");
    await page.reload();
    await Promise.all([page.waitForLoadState("load"), page.click("button:has-text('Apply again TypeScript service')")]);
    await page.waitForSelector("#action-status .status");
    expect(await status(page)).toMatch(/^Applied TypeScript service: 1 talent installed, \d+ were already there$/);

    // disable (htmx)
    await page.click("#installed button:has-text('Disable typescript-strict')");
    await page.waitForFunction(() => document.querySelector("#action-status")?.textContent === "Disabled typescript-strict");

    // a grouped install from the catalog: the ticked prerequisite is named so
    await page.goto(`${live.base}/catalog?project=${pid}&select=sql-migrations`);
    await Promise.all([page.waitForURL((u) => u.pathname === `/projects/${pid}`), page.click("button:text('Install selected')")]);
    expect(await status(page)).toBe("Installed sql-migrations and sql-base (a prerequisite)");
    await expectClean(w, "project-installed-status");

    // a key (htmx): the status line beside the one-time value
    await page.goto(`${live.base}/projects/${pid}?tab=keys`);
    await page.fill("#key-name", "ci");
    await page.click("#keys form button[type=submit]");
    await page.waitForSelector("#keys .secret");
    await page.waitForFunction(() => document.querySelector("#action-status")?.textContent === "Key “ci” created — copy it now");
    expect(await installed(o.owner, pid)).toMatchObject({ "typescript-strict": "disabled", "sql-base": "active" });
    await w.context.close();
  });

  test("without JavaScript: apply, install with a prerequisite, uninstall (after the question page) — each page after the 303 says what changed, once", async () => {
    const o = await orgWithProject(live.env, "Status NoJS Co");
    const pid = o.project.id;
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    const page = w.page;

    await page.goto(`${live.base}/projects/${pid}/onboarding`);
    expect(await submitForm(page, "button:has-text('Apply Go service')")).toBe(303);
    expect(new URL(page.url()).pathname).toBe(`/projects/${pid}/onboarding`);
    expect(await status(page)).toMatch(/^Applied Go service: \d+ talents installed$/);
    expect(await page.isDisabled("button:has-text('Applied Go service')")).toBe(true);
    await expectCleanWithoutScripts(browser, w);
    await page.reload();
    expect(await status(page)).toBe("");

    await page.goto(`${live.base}/catalog?project=${pid}&select=sql-migrations`);
    expect(await submitForm(page, "button:text('Install selected')")).toBe(303);
    expect(await status(page)).toBe("Installed sql-migrations and sql-base (a prerequisite)");
    await screenshot(page, "nojs-installed-status");

    expect(await submitForm(page, "#installed button:has-text('Uninstall sql-migrations')")).toBe(400); // the question page
    expect(await status(page)).toBe("");
    expect(await submitForm(page, "main form button.danger")).toBe(303);
    expect(await status(page)).toBe("Uninstalled sql-migrations");
    expect(await submitForm(page, "#installed button:has-text('Disable sql-base')")).toBe(303);
    expect(await status(page)).toBe("Disabled sql-base");
    expect(await installed(o.owner, pid)).toMatchObject({ "sql-base": "disabled" });
    expect((await installed(o.owner, pid))["sql-migrations"]).toBeUndefined();
    await expectCleanWithoutScripts(browser, w);
    await w.context.close();
  });

  test("a status cookie not signed by this server is dropped: the page says nothing, and clears it", async () => {
    const o = await orgWithProject(live.env, "Status Forged Co");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const forged = Buffer.from("Your organization was deleted").toString("base64url");
    await w.context.addCookies([{ name: "talentd_status", value: `${forged}.AAAA`, url: live.base }]);
    await w.page.goto(`${live.base}/`);
    expect(await status(w.page)).toBe("");
    expect((await w.context.cookies(live.base)).some((c) => c.name === "talentd_status")).toBe(false);
    await w.context.close();
  });
});
