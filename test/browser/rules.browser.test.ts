/**
 * `/org/insights/rules` (docs/design.md "Rule effectiveness") in Chromium: rules that fail most often
 * after being served, talents served but never audited, rules never served — each row linking to
 * the talent's sheet, and the measured effect of the latest uploaded eval per talent; checked with axe-core, no console error; a member gets the 404 page.
 */
import { describe, expect, test as bunTest } from "bun:test";
import { createKey, joinedMember, orgWithProject, withKey } from "../helpers";
import { expectClean, expectOnlyStatus, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";
import type { Browser } from "playwright-core";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

describe("/org/insights/rules in Chromium", () => {
  test("the Rules view: rules failing after served (findings), talents judged fail, served but never audited, never served; rows link to the talent sheet; a member gets the 404 page", async () => {
    const o = await orgWithProject(live.env, "Rules Effect");
    const key = (await createKey(o.owner, o.project.id, ["install", "prepare_task", "validate", "record_validation"])).value;
    const api = (method: string, path: string, body?: unknown, agent = "claude-code/1.0.0") =>
      withKey(live.env, key, path, {
        method,
        headers: { "content-type": "application/json", "user-agent": agent },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const install = await api("PATCH", `/api/projects/${o.project.id}/talents`, {
      talents: ["typescript-strict", "javascript-base", "dockerfiles"],
    });
    expect(install.status).toBe(200);
    // a hook's findings before any task: not served
    const early = await api("POST", "/api/findings", { counts: { "typescript-strict": { "TS-006": 2 } } }, "talentd-client/1.0.0 (hook)");
    expect(early.status).toBe(201);
    // the task: typescript-strict served, audited, failed; javascript-base served and never audited
    const prep = await api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const rid = ((await prep.json()) as { resolutionId: string }).resolutionId;
    expect((await api("GET", `/api/validation/playbook?resolutionId=${rid}`)).status).toBe(200);
    const report = await api("POST", "/api/validation/reports", {
      submissionId: "rules-1",
      resolutionId: rid,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/a.ts:1"] }],
    });
    expect(report.status).toBe(201);
    expect((await api("POST", "/api/prepare-task", { talentIds: ["javascript-base"] })).status).toBe(201);
    // CI's findings after the task: served
    const ci = await api(
      "POST",
      "/api/findings",
      { counts: { "typescript-strict": { "TS-002": 4, "TS-005": 1 } } },
      "talentd-client/1.0.0 (ci)",
    );
    expect(ci.status).toBe(201);

    // an eval's summary (talentd eval --upload): the measured effect per talent, latest first
    const arm = (findingsPerRun: number, min: number, max: number, checkPassRate: number | null) => ({
      runs: 3,
      findingsPerRun,
      findingsSpread: { min, max },
      checkPassRate,
    });
    const evalBody = {
      runsPerArm: 3,
      tasks: [{ id: "add", talents: ["typescript-strict"] }],
      runs: [],
      effects: [{ talent: "typescript-strict", with: arm(0.33, 0, 1, 1), without: arm(2, 1, 3, 0.67), neverInvoked: 1 }],
    };
    expect((await api("POST", "/api/evals", evalBody)).status).toBe(201);

    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    await page.goto(`${live.base}/org/insights`);
    await Promise.all([page.waitForURL(/\/org\/insights\/rules/), page.click("main a:text('rules')")]);
    const failing = page.locator("#failing tbody tr");
    expect(await failing.count()).toBe(2); // TS-002 and TS-005: found on changes whose task was served them
    const first = (await failing.first().locator("td").allTextContents()).map((t) => t.trim());
    expect(first[0]).toContain("TS-002");
    expect(first.slice(1, 3)).toEqual(["4", "0"]);
    expect(first[3]).toBe("talentd CI 4");
    expect(await failing.first().locator("a").getAttribute("href")).toBe("/catalog/typescript-strict");
    expect(await page.textContent("#failing")).not.toContain("TS-006"); // found only before the task: not served
    const judged = (await page.locator("#failing-talents tbody tr").first().locator("td").allTextContents()).map((t) => t.trim());
    expect(judged).toEqual(["typescript-strict", "1", "0", "0", "1", "1", "Claude Code 1 (1 audited)"]);
    expect(await page.textContent("#never-audited-talents")).toContain("javascript-base");
    expect(await page.locator("#never-audited-talents a").first().getAttribute("href")).toBe("/catalog/javascript-base");
    const never = await page.textContent("#never-served");
    expect(never).toContain("dockerfiles");
    expect(never).not.toContain("typescript-strict");
    // a rule's title is Markdown: its `backticks` drawn as code (ui/markdown.tsx), none left as typed
    expect(never).not.toContain("`");
    expect(await page.locator("#never-served td .small.muted code", { hasText: "FROM" }).count()).toBe(1);
    const measured = (await page.locator("#measured-effect tbody tr").first().locator("td").allTextContents()).map((t) => t.trim());
    expect(measured.slice(0, 5)).toEqual(["typescript-strict", "0.33 (0–1)", "2 (1–3)", "100%", "67%"]);
    expect(measured[5]).toBe("3+31 never invoked");
    expect(measured[6]).toMatch(/^\d{4}-\d{2}-\d{2} in /);
    await expectClean(w, "org-insights-rules");
    await page.locator("#measured-effect").scrollIntoViewIfNeeded();
    await screenshot(page, "org-insights-measured-effect");

    // the window chooser keeps the page
    await page.selectOption("#days", "7");
    await Promise.all([page.waitForURL(/days=7/), page.click("button:text('Show')")]);
    expect(await page.textContent("main")).toContain("In the last 7 days");

    // a member who is not an admin: the 404 page
    const member = await joinedMember(live.env, o.owner);
    const m = await signedInPage(browser, live.base, member.email, PASSWORD);
    const r = await m.page.goto(`${live.base}/org/insights/rules`);
    expect(r?.status()).toBe(404);
    expectOnlyStatus(m, 404, false);
  });
});
