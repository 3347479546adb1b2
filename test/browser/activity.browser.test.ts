/**
 * The project's Activity tab in Chromium says what the context budget cut: a prepare-task over the
 * project's budget shows, in its row, the designated talents that were listed but not served.
 */
import { describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createKey, orgWithProject, withKey } from "../helpers";
import { expectClean, signedInPage, withChromiumAndApp } from "../browser-support";
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
});
