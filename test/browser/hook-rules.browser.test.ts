/**
 * The hook rules in Chromium (docs/design.md "What blocks a commit"): `/org/policy`'s locked rules with the form to lock
 * one and lift each, and a project's Settings tab listing every rule with a detector (its choice a select per rule, the
 * lock read-only naming the policy), each with JavaScript off (form posts: 303 back, a refusal under its field) and on
 * (htmx), at 1280 and 390 px wide, axe-core clean. Screenshots: docs/screenshots/policy-hook-locks.png and
 * project-settings-hook-rules.png (UPDATE_SCREENSHOTS=1); the other widths under the system's temporary folder.
 */
import { describe, expect, test as bunTest } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import {
  axeViolations,
  expectCleanWithoutScripts,
  expectOnlyStatus,
  screenshot,
  signedInPage,
  submitForm,
  type WatchedPage,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const as = (email: string, javaScript: boolean): Promise<WatchedPage> => signedInPage(browser, live.base, email, PASSWORD, { javaScript });

/** The page fits the width (no sideways scroll of the page itself), at 1280 and 390 px; a look at each under tmp. */
async function atBothWidths(p: Page, name: string, at: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await p.setViewportSize({ width, height });
    await p.locator(at).scrollIntoViewIfNeeded();
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await p.screenshot({ path: join(tmpdir(), `${name}-${width}.png`) });
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

async function project(name: string) {
  const o = await orgWithProject(live.env, name);
  const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return o;
}

describe("/org/policy: the organization locks a hook rule", () => {
  test("without JavaScript: an unknown rule → 400 under the rule field; a lock → 303 and listed; unlock → gone", async () => {
    const o = await project("Locks NoJS");
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/org/policy`);
    expect(await p.textContent("#policy-locks-none")).toBe("No rule is locked.");
    await p.fill("#policy-lock-rule", "NOPE-001");
    expect(await submitForm(p, '#policy-lock-form button[type="submit"]')).toBe(400);
    expect(await p.textContent("#policy-lock-rule-error")).toContain("no detector of a shipped talent or active expertise");
    expect(await p.getAttribute("#policy-lock-rule", "aria-invalid")).toBe("true");
    expect(await p.inputValue("#policy-lock-rule")).toBe("NOPE-001");
    expectOnlyStatus(w, 400, false);
    await expectCleanWithoutScripts(browser, w);
    await atBothWidths(p, "policy-lock-refused-nojs", "#policy-lock-rule");

    await p.fill("#policy-lock-rule", "TS-005");
    await p.selectOption("#policy-lock-choice", "block");
    expect(await submitForm(p, '#policy-lock-form button[type="submit"]')).toBe(303);
    expect(await p.textContent("#lock-TS-005")).toContain("blocks (locked by policy)");
    expect(await p.textContent("#action-status")).toContain("Rule locked in every project");
    await expectCleanWithoutScripts(browser, w);
    await atBothWidths(p, "policy-locks-nojs", "#policy-locks");

    expect(await submitForm(p, '#lock-TS-005 button[type="submit"]')).toBe(303);
    expect(await p.isVisible("#lock-TS-005")).toBe(false);
    expect((await o.owner.get("/web/orgs/current/policy")).body.policy.hookRules).toEqual({});
    await w.context.close();
  });

  test("with JavaScript: htmx locks (the page comes back with the lock listed), a refusal under the rule field, unlock", async () => {
    const o = await project("Locks JS");
    const w = await as(o.owner.email, true);
    const p = w.page;
    await p.goto(`${live.base}/org/policy`);
    await p.fill("#policy-lock-rule", "TS-004");
    await p.click('#policy-lock-form button[type="submit"]');
    await p.waitForSelector("#policy-lock-rule-error:not([hidden])");
    expect(await p.textContent("#policy-lock-rule-error")).toContain("no detector");
    expect(await axeViolations(p)).toEqual([]);
    expectOnlyStatus(w, 400);

    await p.fill("#policy-lock-rule", "TS-002");
    await p.selectOption("#policy-lock-choice", "block");
    await p.click('#policy-lock-form button[type="submit"]');
    await p.waitForSelector("#lock-TS-002");
    await p.fill("#policy-lock-rule", "TS-003");
    await p.selectOption("#policy-lock-choice", "off");
    await p.click('#policy-lock-form button[type="submit"]');
    await p.waitForSelector("#lock-TS-003");
    expect(await p.textContent("#lock-TS-003")).toContain("off (locked by policy)");
    expect(await axeViolations(p)).toEqual([]);
    expect(w.problems).toEqual([]);
    await atBothWidths(p, "policy-locks-js", "#policy-locks");
    await p.locator("#policy-locks").scrollIntoViewIfNeeded();
    await screenshot(p, "policy-hook-locks");

    await p.click('#lock-TS-003 button[type="submit"]');
    await p.waitForSelector("#lock-TS-003", { state: "detached" });
    expect((await o.owner.get("/web/orgs/current/policy")).body.policy.hookRules).toEqual({ "TS-002": "block" });
    await w.context.close();
  });
});

describe("the project's Settings tab lists every rule with a detector", () => {
  test("without JavaScript: the rules with their talent, severity, earned figure, lock; a choice saved (303); a locked rule has no select", async () => {
    const o = await project("Hook Settings NoJS");
    await o.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-003": "advise" } });
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/projects/${o.project.id}?tab=settings`);
    expect(await p.textContent("#hook-row-TS-005")).toMatch(/earned blocking \(\d+ findings, [\d.]+% precision over \d+ commits\)/);
    expect(await p.textContent("#hook-row-TS-003")).toContain("locked to advise by the organization's policy");
    expect(await p.locator('select[name="rules.TS-003"]').count()).toBe(0);
    await p.selectOption("#hook-TS-005", "advise");
    expect(await submitForm(p, '#hook-rules-form button[type="submit"]')).toBe(303);
    expect(await p.textContent("#hook-row-TS-005")).toContain("advises (the project advises it)");
    expect(await p.inputValue("#hook-TS-005")).toBe("advise");
    await expectCleanWithoutScripts(browser, w);
    await atBothWidths(p, "settings-hook-rules-nojs", "#hook-rules");
    await w.context.close();
  });

  test("with JavaScript: htmx saves the choices (the tab comes back), axe clean at both widths", async () => {
    const o = await project("Hook Settings JS");
    await o.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-003": "advise" } });
    const w = await as(o.owner.email, true);
    const p = w.page;
    await p.goto(`${live.base}/projects/${o.project.id}?tab=settings`);
    await p.selectOption("#hook-TS-002", "block");
    await p.selectOption("#hook-TS-006", "off");
    await Promise.all([p.waitForURL((u) => u.search.includes("tab=settings")), p.click('#hook-rules-form button[type="submit"]')]);
    await p.waitForFunction(() => document.querySelector("#hook-row-TS-006")?.textContent?.includes("off in this project"));
    expect(await p.textContent("#hook-row-TS-002")).toContain("blocks");
    expect(await p.inputValue("#hook-TS-002")).toBe("block");
    expect(await axeViolations(p)).toEqual([]);
    expect(w.problems).toEqual([]);
    await atBothWidths(p, "settings-hook-rules-js", "#hook-rules");
    await p.locator("#hook-rules").scrollIntoViewIfNeeded();
    await screenshot(p, "project-settings-hook-rules");
    const rules = (await o.owner.get(`/web/projects/${o.project.id}/hook-rules`)).body.rules as { rule: string; choice: string | null }[];
    expect(Object.fromEntries(rules.filter((r) => r.choice).map((r) => [r.rule, r.choice]))).toEqual({
      "TS-002": "block",
      "TS-006": "off",
    });
    await w.context.close();
  });
});
