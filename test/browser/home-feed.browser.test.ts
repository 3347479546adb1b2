/**
 * Home's feed and the Activity tab's outcomes in Chromium at 1280 and 390 px (docs/design.md "Home:
 * what did my agents do?", "The Activity tab leads with the outcome"): the project that needs you
 * first, its failing verdict's evidence and blocking findings on its card; on the Activity tab the
 * fail verdict and its evidence visible without expanding anything, the row's Result "fail", no
 * counter broken inside a word, the page never wider than the screen; the filters swap the list
 * (htmx) and keep the address. axe-core finds nothing.
 */
import { describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createKey, orgWithProject, withKey } from "../helpers";
import { expectClean, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

async function asTool(key: string, path: string, body?: unknown, agent = "claude-code/1.0.0") {
  const r = await withKey(live.env, key, path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "user-agent": agent, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as any;
}

/** An organization with a calm project and one whose agent failed a verdict, whose hook found blocking findings, whose key expires in 3 days. */
let orgs = 0;
async function seeded() {
  const o = await orgWithProject(live.env, `Payments ${++orgs}`);
  const owner = o.owner;
  const calm = (await owner.post("/web/projects", { name: "docs-site" })).body.project as { id: string };
  await owner.post(`/web/projects/${calm.id}/talents`, { talents: ["typescript-strict"] });
  const calmKey = (await createKey(owner, calm.id, ["prepare_task"], { name: "docs-agent" })).value;
  await asTool(calmKey, "/api/prepare-task", { talentIds: ["typescript-strict"] }, "cursor/1.2.0");
  const id = o.project.id;
  await owner.post(`/web/projects/${id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  expect((await owner.put(`/web/projects/${id}/hook-rules`, { rules: { "TS-005": "block" } })).status).toBe(200);
  const key = (await createKey(owner, id, ["prepare_task", "validate", "record_validation", "doctor"], { name: "payments-agent" })).value;
  await createKey(owner, id, ["doctor"], { name: "ci-deploy", expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() });
  for (let i = 0; i < 3; i++) await asTool(key, "/api/prepare-task/designable");
  const task = await asTool(key, "/api/prepare-task", { talentIds: ["typescript-strict", "javascript-base"] });
  await asTool(key, `/api/validation/playbook?resolutionId=${task.resolutionId}`);
  await asTool(key, "/api/validation/reports", {
    submissionId: "browser-1",
    resolutionId: task.resolutionId,
    expertiseResults: [
      { id: "typescript-strict", verdict: "fail", evidence: ["src/payments/charge.ts:42", "src/payments/refund.ts:17-21"] },
      { id: "javascript-base", verdict: "pass" },
    ],
  });
  await asTool(key, "/api/findings", { counts: { "typescript-strict": { "TS-005": 4 } } }, "talentd-client/0.1.0 (hook)");
  await asTool(key, "/api/doctor", undefined, "curl/8.5.0");
  return { ...o, calm };
}

/** How much wider than the viewport the document is (0: it fits). */
const overflow = (w: Awaited<ReturnType<typeof signedInPage>>) =>
  w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("home feed and Activity outcomes in Chromium", () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px: home lists the project that needs you first with its evidence; Activity shows the fail and its evidence unexpanded, counters whole`, async () => {
      const o = await seeded();
      const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height: 900 });
      await w.page.goto(`${live.base}/`);
      const first = w.page.locator("li.feed-card").first();
      expect(await first.locator("h3").textContent()).toBe(`Payments ${orgs} project`);
      expect(await first.locator(".needs").isVisible()).toBe(true);
      const needs = (await first.locator(".needs").textContent())!;
      expect(needs).toContain("1 failing verdict");
      expect(needs).toContain("ci-deploy expires in 3 days");
      expect(await first.locator("code.evidence", { hasText: "src/payments/charge.ts:42" }).isVisible()).toBe(true);
      expect(await first.locator("code.rule-id", { hasText: "TS-005" }).isVisible()).toBe(true);
      expect(await w.page.locator("li.feed-card").nth(1).locator(".needs").count()).toBe(0);
      expect(await overflow(w)).toBeLessThanOrEqual(0);
      await expectClean(w, `home-feed-${width}`);

      // the evidence opens the Activity tab filtered to the failing talent
      await Promise.all([w.page.waitForURL((u) => u.searchParams.get("tab") === "activity"), first.locator(".needs a").first().click()]);
      expect(new URL(w.page.url()).searchParams.get("result")).toBe("fail");
      await w.page.goto(`${live.base}/projects/${o.project.id}?tab=activity`);
      const row = w.page.locator("tr.failing", { hasText: "prepared a task" });
      expect(await row.count()).toBe(1);
      expect(await row.locator("code.evidence", { hasText: "src/payments/refund.ts:17-21" }).isVisible()).toBe(true);
      expect((await row.locator("td").last().textContent())!.trim()).toBe("fail");
      const findings = w.page.locator("tr.failing", { hasText: "detector findings" });
      expect(await findings.locator("code.rule-id", { hasText: "TS-005" }).isVisible()).toBe(true);
      // every counter on one line: never "prepare_t / ask"
      const broken = await w.page.$$eval(".counts span", (spans) =>
        spans
          .filter(
            (s) =>
              s.getClientRects().length > 1 || s.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(s).lineHeight || "20"),
          )
          .map((s) => s.textContent),
      );
      expect(broken).toEqual([]);
      expect(await overflow(w)).toBeLessThanOrEqual(0);
      await expectClean(w, `activity-outcomes-${width}`);
      await w.context.close();
    }, 90_000);
  }

  test("the Activity filters swap the list with htmx and keep the address; the same query works as a link", async () => {
    const o = await seeded();
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/projects/${o.project.id}?tab=activity`);
    const before = await w.page.locator("#activity-list tbody tr").count();
    await Promise.all([w.page.waitForURL((u) => u.searchParams.get("result") === "fail"), w.page.selectOption("#activity-result", "fail")]);
    await w.page.waitForFunction(() => document.querySelectorAll("#activity-list tbody tr:not(.failing)").length === 0);
    const rows = await w.page.locator("#activity-list tbody tr").allTextContents();
    expect(rows.length).toBe(2);
    expect(rows.length).toBeLessThan(before);
    for (const r of rows) expect(r.trim().endsWith("fail")).toBe(true);
    await Promise.all([w.page.waitForURL((u) => u.searchParams.get("client") === "curl"), w.page.selectOption("#activity-client", "curl")]);
    await w.page.waitForFunction(() =>
      document.querySelector("#activity-list")?.textContent?.includes("No activity matches these filters."),
    );
    await expectClean(w);
    await w.context.close();
  }, 90_000);
});
