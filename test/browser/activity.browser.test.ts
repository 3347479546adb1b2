/**
 * The project's Activity tab and the organization's insights page in Chromium say what the context
 * budget cut: a prepare-task over the project's budget shows, in its row, the designated talents that
 * were listed but not served; insights count such prepare-tasks per project, with the budget in force
 * and the talents cut most often.
 */
import { describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createKey, orgWithProject, withKey } from "../helpers";
import { expectClean, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

describe("the Activity tab in Chromium", () => {
  test("a prepare-task over the context budget: its row names the talents designated but not served because of the budget; one under it does not", async () => {
    const o = await orgWithProject(live.env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base", "sql-base"] });
    expect((await o.owner.patch(`/web/projects/${o.project.id}`, { contextBudget: 500 })).body.project.contextBudget).toBe(500);
    const key = await createKey(o.owner, o.project.id, ["prepare_task"], { name: "agent-key" });
    const prepare = async (talentIds: string[]) => {
      const r = await withKey(live.env, key.value, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds }),
      });
      expect(r.status).toBe(201);
      return (await r.json()) as { talents: { id: string }[]; notServed?: { id: string }[] };
    };
    const small = await prepare(["sql-base"]);
    expect(small.notServed).toBeUndefined();
    const over = await prepare(["typescript-strict", "javascript-base", "sql-base"]);
    expect(over.talents.map((t) => t.id)).toEqual(["typescript-strict"]);
    expect(over.notServed!.map((t) => t.id)).toEqual(["javascript-base", "sql-base"]);

    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/projects/${o.project.id}?tab=activity`);
    const rows = await w.page.locator("table tbody tr").allTextContents();
    const cut = rows.filter((r) => r.includes("over the context budget"));
    expect(cut).toHaveLength(1);
    expect(cut[0]).toContain("prepared a task with typescript-strict; over the context budget, not served: javascript-base, sql-base");
    expect(rows.find((r) => r.includes("prepared a task with sql-base"))).not.toContain("not served");
    await expectClean(w, "project-activity-budget");
    await w.context.close();
  }, 90_000);

  test("insights: the prepared tasks the budget cut, per project, with the budget in force (→ settings) and the talents cut most often (→ their sheet)", async () => {
    const o = await orgWithProject(live.env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base", "sql-base"] });
    expect((await o.owner.patch(`/web/projects/${o.project.id}`, { contextBudget: 500 })).status).toBe(200);
    const key = await createKey(o.owner, o.project.id, ["prepare_task"], { name: "agent-key" });
    for (const talentIds of [["typescript-strict", "javascript-base", "sql-base"], ["typescript-strict", "sql-base"], ["sql-base"]]) {
      const r = await withKey(live.env, key.value, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds }),
      });
      expect(r.status).toBe(201);
    }

    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/org/insights`);
    const card = w.page.locator("#budget-cuts");
    await expect(card.locator("h2").textContent()).resolves.toBe("Talents cut by the context budget");
    expect(await card.locator("p strong").textContent()).toBe("2");
    const row = card.locator("tbody tr");
    expect(await row.count()).toBe(1);
    const text = (await row.textContent())!.replace(/\s+/g, " ");
    expect(text).toContain("2 of 3");
    expect(text).toContain("500 tokens");
    expect(text).toContain("sql-base (2) javascript-base (1)");
    expect(await row.locator("a", { hasText: "raise it in settings" }).getAttribute("href")).toBe(`/projects/${o.project.id}?tab=settings`);
    expect(await row.locator("a", { hasText: "sql-base" }).getAttribute("href")).toBe("/catalog/sql-base");
    await expectClean(w);
    await card.scrollIntoViewIfNeeded();
    await screenshot(w.page, "insights-budget-cuts");
    // the talent's link opens its sheet
    await Promise.all([w.page.waitForURL((u) => u.pathname === "/catalog/sql-base"), row.locator("a", { hasText: "sql-base" }).click()]);
    await w.context.close();
  }, 90_000);
});
