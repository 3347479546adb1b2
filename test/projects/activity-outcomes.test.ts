/**
 * The Activity tab leads with the outcome (docs/design.md "The Activity tab leads with the outcome"):
 * a fail verdict recorded through the key API and findings on a rule that blocks a commit are in
 * their row without expanding anything, the fail's `file:line` evidence with it, and the row's Result
 * says "fail"; the filters (client, result, talent) are query parameters of the page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";
import { connectWithBearer, liveEnv, type LiveEnv } from "../mcp-support";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ALL = ["prepare_task", "validate", "record_validation", "doctor"];

/** A key call as a tool makes it (its User-Agent names the tool). */
async function asTool(key: string, path: string, body?: unknown, agent = "claude-code/1.0.0") {
  const r = await withKey(env, key, path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "user-agent": agent, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
}

/** A project with a task whose report failed typescript-strict at src/app.ts:12 (through the key API), a blocking findings report, and a curl call. */
async function seeded() {
  const o = await orgWithProject(env);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  // TS-005's findings block a commit in this project, whatever its detector earned
  expect((await o.owner.put(`/web/projects/${o.project.id}/hook-rules`, { rules: { "TS-005": "block", "TS-002": "advise" } })).status).toBe(
    200,
  );
  const key = (await createKey(o.owner, o.project.id, ALL, { name: "agent-key" })).value;
  const task = await asTool(key, "/api/prepare-task", { talentIds: ["typescript-strict"] });
  expect(task.status).toBe(201);
  const rep = await asTool(key, "/api/validation/reports", {
    submissionId: "outcome-1",
    resolutionId: task.body.resolutionId,
    expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/app.ts:12", "src/db.ts:4-9"] }],
  });
  expect(rep.status).toBe(201);
  const hook = "talentd-client/0.1.0 (hook)";
  const findings = await asTool(key, "/api/findings", { counts: { "typescript-strict": { "TS-005": 3, "TS-002": 2 } } }, hook);
  expect(findings.status).toBe(201);
  expect((await asTool(key, "/api/doctor", undefined, "curl/8.5.0")).status).toBe(200);
  return o;
}

async function activity(o: Awaited<ReturnType<typeof orgWithProject>>, query = "") {
  const r = await o.owner.call("GET", `/projects/${o.project.id}?tab=activity${query}`, undefined, { accept: "text/html" });
  expect(r.status).toBe(200);
  return r.text();
}

const rows = (html: string) => html.split("<tr").slice(2);
/** What a row shows without expanding anything: its HTML without the `<details>` of its calls. */
const unexpanded = (row: string) => row.replace(/<details[\s\S]*?<\/details>/g, "");
const resultOf = (row: string) => /<td data-label="Result"><span class="[^"]*"[^>]*>([^<]*)<\/span><\/td>\s*<\/tr>/.exec(row)?.[1];

describe("the Activity tab leads with the outcome", () => {
  test("a fail verdict recorded through the key API is in its row unexpanded, with its file:line evidence, and the row's Result says fail (not ok)", async () => {
    const o = await seeded();
    const html = await activity(o);
    const task = rows(html).find((r) => r.includes("prepared a task with typescript-strict"))!;
    expect(task).toBeDefined();
    const shown = unexpanded(task);
    expect(shown).toContain('<strong class="error">fail</strong> <a href="/catalog/typescript-strict">typescript-strict</a>');
    expect(shown).toContain('<code class="evidence">src/app.ts:12</code>');
    expect(shown).toContain('<code class="evidence">src/db.ts:4-9</code>');
    expect(resultOf(task)).toBe("fail");
    expect(task).toContain('class="grouped failing"');
  });

  test("findings on a rule that blocks a commit are in their row unexpanded, counted per rule; an advisory rule's are not; the Result says fail", async () => {
    const o = await seeded();
    const row = rows(await activity(o)).find((r) => r.includes("reported 5 detector findings"))!;
    expect(row).toBeDefined();
    expect(unexpanded(row)).toContain(
      '<strong class="error">blocking</strong> 3 findings of <a href="/catalog/typescript-strict">typescript-strict</a> <code class="rule-id">TS-005</code>',
    );
    expect(row).not.toContain("TS-002");
    expect(resultOf(row)).toBe("fail");
    // the trace keeps the blocking rules, per rule (GET /web/projects/:id/traces)
    const traces = await o.owner.get(`/web/projects/${o.project.id}/traces`);
    const e = traces.body.events.find((x: { kind: string }) => x.kind === "report_findings");
    expect(e.detail).toEqual({ rules: 2, findings: 5, blocking: [{ talent: "typescript-strict", rule: "TS-005", findings: 3 }] });
  });

  test("the result filter: fail lists only the calls that recorded a fail or blocking findings; error only failed calls; ok the rest", async () => {
    const o = await seeded();
    const refused = await asTool("svc_pk_not_a_key", "/api/doctor");
    expect(refused.status).toBe(401); // an unknown key is not traced: make a failing call with a real key instead
    const narrow = (await createKey(o.owner, o.project.id, ["prepare_task"], { name: "narrow-key" })).value;
    expect((await asTool(narrow, "/api/doctor")).status).toBe(403);
    const fail = rows(await activity(o, "&result=fail"));
    expect(
      fail.map((r) => (r.includes("recorded verdicts") ? "verdicts" : r.includes("detector findings") ? "findings" : "other")),
    ).toEqual(["findings", "verdicts"]);
    for (const r of fail) expect(resultOf(r)).toBe("fail");
    const error = rows(await activity(o, "&result=error"));
    expect(error).toHaveLength(1);
    expect(error[0]).toContain("narrow-key");
    const ok = rows(await activity(o, "&result=ok"));
    expect(ok.some((r) => r.includes("prepared a task"))).toBe(true);
    expect(ok.some((r) => r.includes("recorded verdicts") || r.includes("narrow-key") || r.includes("detector findings"))).toBe(false);
  });

  test("the client filter takes a tool's name (every raw label of it); the talent filter the calls naming or serving a talent", async () => {
    const o = await seeded();
    const curl = rows(await activity(o, "&client=curl"));
    expect(curl).toHaveLength(1);
    expect(curl[0]).toContain("checked the project");
    const claude = rows(await activity(o, "&client=Claude+Code"));
    expect(claude.every((r) => r.includes(">Claude Code<"))).toBe(true);
    expect(claude.length).toBeGreaterThan(0);
    const talent = rows(await activity(o, "&talent=typescript-strict"));
    const sentences = talent.map((r) =>
      r.includes("prepared a task")
        ? "prepare"
        : r.includes("detector findings")
          ? "findings"
          : r.includes("installed typescript-strict")
            ? "install"
            : r,
    );
    // the report is a call of the task's row; the doctor call names no talent
    expect(sentences.sort()).toEqual(["findings", "install", "prepare"]);
    expect(rows(await activity(o, "&talent=javascript-base")).every((r) => !r.includes("checked the project"))).toBe(true);
    expect(await activity(o, "&client=Nobody")).toContain("No activity matches these filters.");
  });

  test("the filter form works without JavaScript (a GET of the page with its choices kept) and htmx swaps only the list", async () => {
    const o = await seeded();
    const html = await activity(o, "&result=fail&client=Claude+Code");
    const form = /<form[^>]*role="search"[\s\S]*?<\/form>/.exec(html)![0];
    expect(form).toContain(`action="/projects/${o.project.id}"`);
    expect(form).toContain('method="get"');
    expect(form).toContain('<input type="hidden" name="tab" value="activity"/>');
    expect(form).toContain('hx-select="#activity-list"');
    expect(form).toContain('<option value="fail" selected="">');
    expect(form).toContain('<option value="Claude Code" selected="">');
    expect(form).toContain('<option value="curl">');
    expect(form).toContain('<option value="typescript-strict">');
    // a value not understood is the unfiltered list, not an error
    expect(rows(await activity(o, "&result=maybe")).length).toBeGreaterThan(2);
  });
});

describe("a fail verdict recorded over MCP", () => {
  let live: LiveEnv;
  beforeAll(async () => {
    live = await liveEnv();
  });
  afterAll(() => live.close());

  test("svc_record_validation's fail is in its row unexpanded with its evidence, the row's Result fail, the tool named from clientInfo", async () => {
    const o = await orgWithProject(live.env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
    const key = await createKey(o.owner, o.project.id, ALL, { name: "mcp-agent" });
    const client = await connectWithBearer(`${live.base}/mcp`, key.value, { name: "claude-code", version: "2.0.1" });
    try {
      const prepared = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["typescript-strict"] } });
      expect(prepared.isError).toBeFalsy();
      const resolutionId = (prepared.structuredContent as { resolutionId: string }).resolutionId;
      const recorded = await client.callTool({
        name: "svc_record_validation",
        arguments: {
          submissionId: "mcp-1",
          resolutionId,
          expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["lib/io.ts:7"] }],
        },
      });
      expect(recorded.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const r = await o.owner.call("GET", `/projects/${o.project.id}?tab=activity`, undefined, { accept: "text/html" });
    const row = rows(await r.text()).find((x) => x.includes("prepared a task with typescript-strict"))!;
    expect(unexpanded(row)).toContain('<code class="evidence">lib/io.ts:7</code>');
    expect(row).toContain(">Claude Code<");
    expect(resultOf(row)).toBe("fail");
  });
});
