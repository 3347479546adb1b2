/**
 * The insights' "Self-audit against the hook" section in Chromium at 1280 and 390 px (docs/design.md
 * "Self-audit against the hook"): N of M passes, the figure's definition, the tools, the contradicted
 * pass with its blocking rule linked to the project's Activity tab filtered to the talent's fails;
 * the page never wider than the screen; axe-core finds nothing. `UPDATE_SCREENSHOTS=1` saves the
 * section as docs/screenshots/insights-self-audit-<width>.png.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { createKey, orgWithProject, ROOT, withKey } from "../helpers";
import { expectClean, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

async function asTool(key: string, path: string, body: unknown, agent: string) {
  const r = await withKey(live.env, key, path, {
    method: "POST",
    headers: { "user-agent": agent, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as any;
}

/** Two passes by Claude Code, one of them contradicted by the hook's blocking TS-005 findings; one by Cursor, not. */
let orgs = 0;
async function seeded() {
  const o = await orgWithProject(live.env, `Checkout ${++orgs}`);
  const id = o.project.id;
  await o.owner.post(`/web/projects/${id}/talents`, { talents: ["typescript-strict"] });
  expect((await o.owner.put(`/web/projects/${id}/hook-rules`, { rules: { "TS-005": "block", "TS-002": "advise" } })).status).toBe(200);
  const key = (await createKey(o.owner, id, ["prepare_task", "validate", "record_validation"], { name: "checkout-agent" })).value;
  const runs: [string, Record<string, number>][] = [
    ["claude-code/1.0.33", { "TS-005": 4, "TS-002": 1 }],
    ["claude-code/1.0.33", { "TS-002": 2 }],
    ["cursor/1.2.0", { "TS-005": 0 }],
  ];
  for (const [i, [agent, counts]] of runs.entries()) {
    const task = await asTool(key, "/api/prepare-task", { talentIds: ["typescript-strict"] }, agent);
    const pass = [{ id: "typescript-strict", verdict: "pass" }];
    await asTool(
      key,
      "/api/validation/reports",
      { submissionId: `sa-${i}`, resolutionId: task.resolutionId, expertiseResults: pass },
      agent,
    );
    await asTool(
      key,
      "/api/findings",
      { resolutionId: task.resolutionId, counts: { "typescript-strict": counts } },
      "talentd-client/0.1.0 (hook)",
    );
  }
  return o;
}

const overflow = (w: Awaited<ReturnType<typeof signedInPage>>) =>
  w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("insights: self-audit against the hook in Chromium", () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: 1 of 3 passes contradicted, the definition, the tools, the case linked to the Activity tab; axe clean`, async () => {
      const o = await seeded();
      const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height: 900 });
      await w.page.goto(`${live.base}/org/insights`);
      const section = w.page.locator("#self-audit");
      await section.scrollIntoViewIfNeeded();
      const text = (await section.textContent())!.replace(/\s+/g, " ");
      expect(text).toContain("1 of 3 passes recorded by agents were contradicted by the hook (33 %)");
      expect(text).toContain("A pass is contradicted when a findings report of the hook for the same task");
      expect(text).toContain("Claude Code 1/2");
      expect(text).toContain("Cursor 0/1");
      const row = section.locator("tbody tr");
      expect(await row.count()).toBe(1);
      expect(await row.locator("code.rule-id", { hasText: "TS-005" }).isVisible()).toBe(true);
      expect(await row.textContent()).not.toContain("TS-002");
      expect(await overflow(w)).toBeLessThanOrEqual(0);
      await expectClean(w);
      if (process.env.UPDATE_SCREENSHOTS === "1")
        await section.screenshot({ path: join(ROOT, "docs", "screenshots", `insights-self-audit-${width}.png`) });
      // the case opens the project's Activity tab, filtered to the talent's fails: the blocking report is there
      await Promise.all([w.page.waitForURL((u) => u.searchParams.get("tab") === "activity"), row.locator("a").first().click()]);
      const url = new URL(w.page.url());
      expect([url.pathname, url.searchParams.get("talent"), url.searchParams.get("result")]).toEqual([
        `/projects/${o.project.id}`,
        "typescript-strict",
        "fail",
      ]);
      expect(await w.page.locator("tr.failing code.rule-id", { hasText: "TS-005" }).count()).toBeGreaterThan(0);
      await w.context.close();
    }, 90_000);
  }
});
