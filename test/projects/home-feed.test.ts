/**
 * Home is a feed of the organization's agent work (docs/design.md "Home: what did my agents do?"):
 * per project, runs in the last 7 days, the last run (when, by whom, with which tool), the talents
 * whose latest verdict is a fail with their file:line evidence, findings on rules that block a commit
 * per rule, the talents count, and a "needs you" line; those that need you come first, the MCP URL
 * below the outcomes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv, type WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const DAY = 86_400_000;

async function asTool(key: string, path: string, body?: unknown, agent = "claude-code/1.0.0") {
  const r = await withKey(env, key, path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "user-agent": agent, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
}

async function home(owner: WebClient): Promise<string> {
  const r = await owner.call("GET", "/", undefined, { accept: "text/html" });
  expect(r.status).toBe(200);
  return r.text();
}

/** Each card's HTML, in page order. */
const cards = (html: string) => html.split('<li class="card feed-card').slice(1);
const cardOf = (html: string, name: string) => cards(html).find((c) => c.includes(`>${name}</a></h3>`)) ?? "";

/**
 * An organization requiring javascript-base, with four projects: "failing" (a fail verdict with evidence through the
 * key API, blocking findings), "expiring" (a key that expires in 3 days), "left out" (a task without the required
 * talent) and "calm", made last (the newest), whose task designated everything and passed.
 */
async function seededOrg() {
  const o = await orgWithProject(env);
  const owner = o.owner;
  expect((await owner.put("/web/orgs/current/policy", { requiredTalents: ["javascript-base"] })).status).toBe(200);
  const project = async (name: string) => {
    const p = (await owner.post("/web/projects", { name })).body.project as { id: string };
    expect((await owner.post(`/web/projects/${p.id}/talents`, { talents: ["typescript-strict"] })).status).toBe(201);
    const key = (await createKey(owner, p.id, ["prepare_task", "record_validation", "validate"], { name: `${name} key` })).value;
    return { id: p.id, key };
  };
  const failing = await project("failing");
  expect((await owner.put(`/web/projects/${failing.id}/hook-rules`, { rules: { "TS-005": "block", "TS-002": "advise" } })).status).toBe(
    200,
  );
  const task = await asTool(failing.key, "/api/prepare-task", { talentIds: ["typescript-strict", "javascript-base"] });
  expect(task.status).toBe(201);
  const report = await asTool(failing.key, "/api/validation/reports", {
    submissionId: "home-1",
    resolutionId: task.body.resolutionId,
    expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/pay.ts:42"] }],
  });
  expect(report.status).toBe(201);
  const findings = await asTool(
    failing.key,
    "/api/findings",
    { counts: { "typescript-strict": { "TS-005": 4, "TS-002": 1 } } },
    "talentd-client/0.1.0 (hook)",
  );
  expect(findings.status).toBe(201);

  const expiring = await project("expiring");
  await createKey(owner, expiring.id, ["doctor"], { name: "ci-deploy", expiresAt: new Date(Date.now() + 3 * DAY).toISOString() });
  await createKey(owner, expiring.id, ["doctor"], { name: "later-key", expiresAt: new Date(Date.now() + 30 * DAY).toISOString() });

  const leftOut = await project("left out");
  expect((await asTool(leftOut.key, "/api/prepare-task", { talentIds: ["typescript-strict"] }, "cursor/1.2.0")).status).toBe(201);

  const calm = await project("calm");
  const ok = await asTool(calm.key, "/api/prepare-task", { talentIds: ["typescript-strict", "javascript-base"] });
  expect(
    (
      await asTool(calm.key, "/api/validation/reports", {
        submissionId: "calm-1",
        resolutionId: ok.body.resolutionId,
        expertiseResults: [{ id: "typescript-strict", verdict: "pass" }],
      })
    ).status,
  ).toBe(201);
  return { ...o, failing, expiring, leftOut, calm };
}

describe("home: what did my agents do?", () => {
  test("projects that need you come first (failing verdicts, a key expiring within 14 days, a required talent left out of a task); a calm one after, though newest", async () => {
    const o = await seededOrg();
    const html = await home(o.owner);
    const order = cards(html).map((c) => /<h3><a href="[^"]+">([^<]+)<\/a><\/h3>/.exec(c)?.[1]);
    // those that need you by their last run, newest first (one never ran); then the rest, the calm one before the first project that never ran
    expect(order).toEqual(["left out", "failing", "expiring", "calm", `${o.org.name} project`]);
    expect(html).toContain("3 projects need you, listed first.");
    for (const n of ["left out", "failing", "expiring"]) expect(cardOf(html, n)).toStartWith(' needs-you">');
    expect(cardOf(html, "calm")).not.toContain("Needs you");
  });

  test("a failing verdict through the key API: in Needs you, and listed with its file:line evidence, linked to the Activity filtered to it; blocking findings per rule; the MCP URL below the outcomes", async () => {
    const o = await seededOrg();
    const card = cardOf(await home(o.owner), "failing");
    const activity = `/projects/${o.failing.id}?tab=activity`;
    expect(card).toContain(`<a href="${activity}&amp;result=fail">1 failing verdict</a>`);
    expect(card).toContain(
      `<a href="${activity}&amp;result=fail&amp;talent=typescript-strict">typescript-strict</a> at <code class="evidence">src/pay.ts:42</code>`,
    );
    expect(card).toContain(
      `<a href="${activity}&amp;result=fail&amp;talent=typescript-strict"><code class="rule-id">TS-005</code> of typescript-strict</a>: 4 findings`,
    );
    expect(card).not.toContain("TS-002"); // advisory in this project
    expect(card.indexOf("Failing verdicts")).toBeLessThan(card.indexOf("MCP URL"));
    expect(card.indexOf("Blocking findings")).toBeLessThan(card.indexOf("MCP URL"));
    expect(card).toContain(`/mcp/${o.failing.id}`);
  });

  test("the last run says when, by which key and with which tool (through the client names); runs in 7 days and talents are counted", async () => {
    const o = await seededOrg();
    const html = await home(o.owner);
    const left = cardOf(html, "left out");
    expect(left).toMatch(/Last run \d{4}-\d\d-\d\d \d\d:\d\d UTC by left out key with Cursor/);
    expect(left).toContain("<strong>1</strong> run in 7 days");
    // typescript-strict, and javascript-base installed by the policy
    expect(left).toContain("<strong>2</strong> talents");
    expect(left).toContain(
      `Required <a href="/projects/${o.leftOut.id}?tab=activity&amp;talent=javascript-base">javascript-base</a> left out of 1 task`,
    );
    expect(cardOf(html, "calm")).toContain("with Claude Code");
    expect(cardOf(html, `${o.org.name} project`)).toContain("No run yet");
  });

  test("a key expiring in 3 days needs you (linked to the Keys tab); one expiring in 30 days does not", async () => {
    const o = await seededOrg();
    const card = cardOf(await home(o.owner), "expiring");
    expect(card).toContain(`Key <a href="/projects/${o.expiring.id}?tab=keys">ci-deploy</a> expires in 3 days`);
    expect(card).not.toContain("later-key");
  });

  test("a required talent not installed and enabled in a project needs you (a state an older selection can leave: the routes refuse to disable it)", async () => {
    const o = await seededOrg();
    await env.database.client.execute({
      sql: "UPDATE installed_talents SET enabled = 0 WHERE project_id = ? AND talent_id = 'javascript-base'",
      args: [o.calm.id],
    });
    const card = cardOf(await home(o.owner), "calm");
    expect(card).toContain(`Required by the organization, not installed and enabled: <a href="/projects/${o.calm.id}">javascript-base</a>`);
    expect(card).toContain("(1 disabled)");
  });

  test("a view after a change shows it: a fail recorded after a view, then a key expiring soon, are on the next view (each project's feed is kept only while its own clock stands)", async () => {
    const o = await orgWithProject(env);
    const id = o.project.id;
    await o.owner.post(`/web/projects/${id}/talents`, { talents: ["typescript-strict"] });
    const key = (await createKey(o.owner, id, ["prepare_task", "record_validation"], { name: "agent" })).value;
    const task = await asTool(key, "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const name = `${o.org.name} project`;
    expect(cardOf(await home(o.owner), name)).not.toContain("Needs you");
    expect(cardOf(await home(o.owner), name)).toContain("<strong>1</strong> run in 7 days");
    const report = await asTool(key, "/api/validation/reports", {
      submissionId: "later-1",
      resolutionId: task.body.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", missing: ["a return type on exported functions"] }],
    });
    expect(report.status).toBe(201);
    const failing = cardOf(await home(o.owner), name);
    expect(failing).toContain("1 failing verdict");
    expect(failing).toContain("missing: a return type on exported functions");
    await createKey(o.owner, id, ["doctor"], { name: "soon", expiresAt: new Date(Date.now() + 2 * DAY).toISOString() });
    expect(cardOf(await home(o.owner), name)).toContain("expires in 2 days");
  });
});
