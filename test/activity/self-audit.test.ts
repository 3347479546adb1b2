/**
 * Self-audit against the hook (docs/design.md "Self-audit against the hook", docs/api.md "insights"):
 * of the pass verdicts an agent recorded for a talent on a task whose hook sent a findings report
 * naming the task's resolution, how many that report contradicted with findings on the talent's
 * rules that block a commit (the project's effective hook choice `block`). Real key API calls, a
 * real database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const HOOK = "talentd-client/0.1.0 (hook)";
const AGENT = "claude-code/1.0.0";

async function asTool(key: string, path: string, body: unknown, agent: string) {
  const r = await withKey(env, key, path, {
    method: "POST",
    headers: { "user-agent": agent, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
}

/** A project whose TS-005 blocks a commit, TS-002 only advises and TS-003 is off; an agent's key. */
async function project() {
  const o = await orgWithProject(env);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
  const rules = { "TS-005": "block", "TS-002": "advise", "TS-003": "off" };
  expect((await o.owner.put(`/web/projects/${o.project.id}/hook-rules`, { rules })).status).toBe(200);
  const key = (await createKey(o.owner, o.project.id, ["prepare_task", "validate", "record_validation"], { name: "agent-key" })).value;
  return { ...o, key };
}

/** A task whose agent recorded `pass` for typescript-strict; with the hook's findings report for it when `counts` is given. */
async function passedTask(p: Awaited<ReturnType<typeof project>>, counts?: Record<string, number>) {
  const task = await asTool(p.key, "/api/prepare-task", { talentIds: ["typescript-strict"] }, AGENT);
  expect(task.status).toBe(201);
  const resolutionId = task.body.resolutionId as string;
  const rep = await asTool(
    p.key,
    "/api/validation/reports",
    { submissionId: `pass-${resolutionId}`, resolutionId, expertiseResults: [{ id: "typescript-strict", verdict: "pass" }] },
    AGENT,
  );
  expect(rep.status).toBe(201);
  if (counts) {
    const f = await asTool(p.key, "/api/findings", { resolutionId, counts: { "typescript-strict": counts } }, HOOK);
    expect(f.status).toBe(201);
  }
  return resolutionId;
}

async function selfAudit(p: Awaited<ReturnType<typeof project>>) {
  const r = await p.owner.get("/web/orgs/current/insights");
  expect(r.status).toBe(200);
  return r.body.selfAudit;
}

describe("insights: passes the hook contradicted (self-audit against the hook)", () => {
  test("a pass for a talent whose task's findings report has a blocking finding on the talent's rule is contradicted: 1 of 1, the case listed", async () => {
    const p = await project();
    const resolutionId = await passedTask(p, { "TS-005": 3, "TS-002": 2 });
    const s = await selfAudit(p);
    expect([s.contradicted, s.passes, s.share]).toEqual([1, 1, 1]);
    expect(s.byClient).toEqual([{ name: "Claude Code", passes: 1, contradicted: 1, share: 1 }]);
    expect(s.cases).toHaveLength(1);
    const c = s.cases[0];
    expect(c).toMatchObject({
      projectId: p.project.id,
      projectName: p.project.name,
      resolutionId,
      talentId: "typescript-strict",
      // only the blocking rule, with its count; the advisory TS-002 is not a contradiction
      rules: [{ rule: "TS-005", findings: 3 }],
      author: "agent-key",
      client: AGENT,
      clientName: "Claude Code",
    });
    expect(c.href).toBe(`/projects/${p.project.id}?tab=activity&talent=typescript-strict&result=fail`);
    expect(typeof c.reportId).toBe("string");
    expect(Number.isNaN(Date.parse(c.recordedAt))).toBe(false);
  });

  test("a pass whose findings report has only findings on rules that advise or are off is not contradicted: 0 of 1", async () => {
    const p = await project();
    const resolutionId = await passedTask(p, { "TS-002": 4, "TS-003": 1, "TS-005": 0 });
    const s = await selfAudit(p);
    expect([s.contradicted, s.passes, s.share]).toEqual([0, 1, 0]);
    expect(s.cases).toEqual([]);
    // a later report of the same task that blocks: the next view says so (nothing kept past the report)
    expect((await asTool(p.key, "/api/findings", { resolutionId, counts: { "typescript-strict": { "TS-005": 1 } } }, HOOK)).status).toBe(
      201,
    );
    expect((await selfAudit(p)).contradicted).toBe(1);
  });

  test("a pass on a task with no findings report is not counted (neither in N nor in M)", async () => {
    const p = await project();
    await passedTask(p);
    await passedTask(p, { "TS-005": 1 });
    const s = await selfAudit(p);
    expect([s.contradicted, s.passes]).toEqual([1, 1]);
  });

  test("a findings report without the task's resolutionId contradicts no pass; a fail verdict is not a pass", async () => {
    const p = await project();
    const task = await asTool(p.key, "/api/prepare-task", { talentIds: ["typescript-strict"] }, AGENT);
    const resolutionId = task.body.resolutionId as string;
    const fail = { id: "typescript-strict", verdict: "fail", evidence: ["src/a.ts:1"] };
    expect(
      (await asTool(p.key, "/api/validation/reports", { submissionId: "f-1", resolutionId, expertiseResults: [fail] }, AGENT)).status,
    ).toBe(201);
    expect((await asTool(p.key, "/api/findings", { resolutionId, counts: { "typescript-strict": { "TS-005": 2 } } }, HOOK)).status).toBe(
      201,
    );
    await passedTask(p);
    expect((await asTool(p.key, "/api/findings", { counts: { "typescript-strict": { "TS-005": 2 } } }, HOOK)).status).toBe(201);
    const s = await selfAudit(p);
    expect([s.contradicted, s.passes]).toEqual([0, 0]);
  });

  test("another organization's passes and findings are never counted", async () => {
    const a = await project();
    await passedTask(a, { "TS-005": 3 });
    const b = await project();
    const s = await selfAudit(b);
    expect([s.contradicted, s.passes, s.cases]).toEqual([0, 0, []]);
    expect((await selfAudit(a)).contradicted).toBe(1);
  });

  test("the page states the figure's definition in one sentence, says N of M, and links each case to the project's Activity", async () => {
    const p = await project();
    await passedTask(p, { "TS-005": 3 });
    const html = await (await p.owner.call("GET", "/org/insights", undefined, { accept: "text/html" })).text();
    const section = /<section class="card" id="self-audit"[\s\S]*?<\/section>/.exec(html)![0];
    expect(section).toContain("<strong>1</strong> of 1 passes recorded by agents were contradicted by the hook");
    expect(section).toContain("A pass is contradicted when a findings report of the hook for the same task");
    expect(section).toContain(`href="/projects/${p.project.id}?tab=activity&amp;talent=typescript-strict&amp;result=fail"`);
    expect(section).toContain('<code class="rule-id">TS-005</code> × 3');
  });
});
