/**
 * The Activity tab is kept between commits (docs/performance.md "Home feed and Activity"): its data
 * and HTML are read again only when the database changed, so whatever changed since the last view —
 * a call, a report's fail, a new tool, a talent installed — is on the very next view, and a view with
 * nothing new answers the same page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function asTool(key: string, path: string, body?: unknown, agent = "claude-code/1.0.0") {
  const r = await withKey(env, key, path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "user-agent": agent, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
}

describe("the Activity tab kept between commits", () => {
  test("a view with nothing new answers the same page; each change since the last view is on the next one", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
    const key = (await createKey(o.owner, o.project.id, ["prepare_task", "validate", "record_validation", "doctor"], { name: "k" })).value;
    const view = async (query = "") => {
      const r = await o.owner.call("GET", `/projects/${o.project.id}?tab=activity${query}`, undefined, { accept: "text/html" });
      expect(r.status).toBe(200);
      const html = await r.text();
      return /<section aria-labelledby="activity-h">[\s\S]*<\/section>/.exec(html)![0];
    };
    const task = await asTool(key, "/api/prepare-task", { talentIds: ["typescript-strict"] });
    expect(task.status).toBe(201);
    const first = await view();
    expect(first).toContain("prepared a task with typescript-strict");
    expect(await view()).toBe(first);

    // a call of another tool: its row, and the tool among the client filter's choices
    expect((await asTool(key, "/api/doctor", undefined, "curl/8.5.0")).status).toBe(200);
    const second = await view();
    expect(second).toContain("checked the project");
    expect(second).toContain('<option value="curl">curl</option>');

    // a report's fail verdict: the task's row leads with it
    const rep = await asTool(key, "/api/validation/reports", {
      submissionId: "kept-1",
      resolutionId: task.body.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/kept.ts:7"] }],
    });
    expect(rep.status).toBe(201);
    expect(await view()).toContain('<code class="evidence">src/kept.ts:7</code>');

    // a talent installed (a configuration change, no call of the key API): the talent filter offers it
    expect(await view()).not.toContain('<option value="javascript-base">');
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["javascript-base"] });
    expect(await view()).toContain('<option value="javascript-base">javascript-base</option>');

    // a filtered view is kept apart from the unfiltered one
    const curl = await view("&client=curl");
    expect(curl).toContain("checked the project");
    expect(curl).not.toContain("prepared a task");
    expect(await view()).toContain("prepared a task");
  });

  test("the older pages (before=) are read each time and follow the first page's Older link, the first page kept apart", async () => {
    const o = await orgWithProject(env);
    const key = (await createKey(o.owner, o.project.id, ["doctor"], { name: "pager" })).value;
    for (let i = 0; i < 52; i++)
      expect((await asTool(key, "/api/doctor", undefined, i < 2 ? "curl/8.5.0" : "claude-code/1.0.0")).status).toBe(200);
    const get = async (path: string) => (await o.owner.call("GET", path, undefined, { accept: "text/html" })).text();
    const first = await get(`/projects/${o.project.id}?tab=activity`);
    const older = /<a href="([^"]+before=[^"]+)">Older<\/a>/.exec(first)![1]!.replaceAll("&amp;", "&");
    const page2 = await get(older);
    // the two oldest calls (curl's) are on the second page only
    expect(page2).toContain('title="curl/8.5.0"');
    expect(first).not.toContain('title="curl/8.5.0"');
    expect(await get(`/projects/${o.project.id}?tab=activity`)).toBe(first);
  });
});
