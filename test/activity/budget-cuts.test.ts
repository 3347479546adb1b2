/**
 * Insights say what the context budget cut (docs/api.md "Activity, insights and adoption",
 * `budgetCuts`): per project, the prepare-tasks of the window whose designated talents did not all
 * fit the project's budget, the talents cut most often, and the budget in force.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/activity/daily";
import { touchAll as forgetMemo } from "../../src/journal/dayMemo";
import { DEFAULT_CONTEXT_BUDGET } from "../../src/resolution/budget";
import { loopProject, sql } from "../activity-support";
import { joinedMember, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
});
afterAll(() => env.close());

/** A project with three talents installed and a 500-token budget: typescript-strict alone fits. */
async function tightProject() {
  const s = await loopProject(env);
  await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["sql-base"] });
  expect((await s.owner.patch(`/web/projects/${s.project.id}`, { contextBudget: 500 })).status).toBe(200);
  return s;
}

describe("insights: what the context budget cut", () => {
  test("prepare-tasks over the budget are counted per project with the talents cut most often; one under it, or a failed one, is not cut", async () => {
    const s = await tightProject();
    const over = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict", "javascript-base", "sql-base"] });
    expect(over.status).toBe(201);
    expect(over.body.notServed.map((t: { id: string }) => t.id)).toEqual(["javascript-base", "sql-base"]);
    await s.prepare(["typescript-strict", "sql-base"]);
    await s.prepare(["sql-base"]);
    expect((await s.api("POST", "/api/prepare-task", { talentIds: ["nope"] })).status).toBe(400);

    const r = await s.owner.get("/web/orgs/current/insights");
    expect(r.status).toBe(200);
    expect(r.body.budgetCuts).toEqual({
      resolutions: 2,
      projects: [
        {
          projectId: s.project.id,
          projectName: s.project.name,
          budget: 500,
          defaultBudget: false,
          prepared: 3,
          cut: 2,
          talents: [
            { id: "sql-base", count: 2 },
            { id: "javascript-base", count: 1 },
          ],
        },
      ],
    });
  });

  test("the budget in force is today's: a project back on the default shows the default budget", async () => {
    const s = await tightProject();
    await s.prepare(["typescript-strict", "javascript-base"]);
    expect((await s.owner.patch(`/web/projects/${s.project.id}`, { contextBudget: null })).status).toBe(200);
    const mine = (await s.owner.get("/web/orgs/current/insights")).body.budgetCuts.projects;
    expect(mine).toEqual([
      expect.objectContaining({ projectId: s.project.id, budget: DEFAULT_CONTEXT_BUDGET, defaultBudget: true, cut: 1 }),
    ]);
  });

  test("a cut of a settled day is counted while inside the window, and leaves it with the window", async () => {
    const s = await tightProject();
    await s.prepare(["typescript-strict", "javascript-base"]);
    const r0 = await s.owner.get("/web/orgs/current/insights");
    expect(r0.body.budgetCuts.resolutions).toBe(1);
    // the event moved 10 days back (the test's SQL, behind the service: the memo read afresh once)
    await sql(env, "UPDATE trace_events SET created_at = created_at - ? WHERE project_id = ?", [10 * DAY_MS, s.project.id]);
    forgetMemo();
    expect((await s.owner.get("/web/orgs/current/insights?days=30")).body.budgetCuts.resolutions).toBe(1);
    expect((await s.owner.get("/web/orgs/current/insights?days=7")).body.budgetCuts).toEqual({ resolutions: 0, projects: [] });
  });

  test("only owners and admins read it: a member gets 403 forbidden; a bad window is 400 validation_failed", async () => {
    const s = await tightProject();
    const m = await joinedMember(env, s.owner);
    const r = await m.get("/web/orgs/current/insights");
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("forbidden");
    const bad = await s.owner.get("/web/orgs/current/insights?days=0");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_failed");
  });
});
