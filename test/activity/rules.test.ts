/**
 * Rule effectiveness (docs/api.md "Rule effectiveness"): a project's and the organization's rules
 * over a window — served, audited, verdicts, and the findings real `talentd check` runs in a real
 * git repository reported, split by whether the rule was served to the task and by client — and
 * the report itself: counts only, never a path, a line or code.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort, liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitIn, gitRepo, removeRepos, stage, talentd } from "../client-support";
import { joinedMember } from "../helpers";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

/** A key call as an agent's tool would make it (its User-Agent names Claude Code). */
async function asAgent(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      "user-agent": "claude-code/1.0.0",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json() };
}

const CHANGE = {
  "src/new.ts": "const a = 1;\n// @ts-ignore\nlet b: any = a;\nexport const d = (x: number) => x;\n",
};

/** A repository with one staged change holding a TS-002, a TS-005 and a TS-006 finding. */
function repoWithChange(): string {
  const repo = gitRepo();
  stage(repo, { "README.md": "# x\n" });
  gitIn(repo, ["commit", "-q", "-m", "init"]);
  stage(repo, CHANGE);
  return repo;
}

describe("rule effectiveness: served, audited, verdicts and reported findings, per rule and per talent", () => {
  test("known counts: findings before the task (not served) and after it (served), by client; served and audited per talent and by client; fail verdict per talent; JSON and CSV; project and organization", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = repoWithChange();
    // 1. a check before any task: its findings were not served to a task
    const before = await talentd(["check", "--staged"], repo, { ...p.env, TALENTD_RUN: "hook" });
    expect(before.code).toBe(1);
    // 2. an agent's task is served typescript-strict, audits it and records a fail verdict
    const task = await asAgent(live.base, p.key, "POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    expect(task.status).toBe(201);
    const rid = task.body.resolutionId;
    expect((await asAgent(live.base, p.key, "GET", `/api/validation/playbook?resolutionId=${rid}`)).status).toBe(200);
    const rep = await asAgent(live.base, p.key, "POST", "/api/validation/reports", {
      submissionId: "effect-1",
      resolutionId: rid,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/new.ts:3"] }],
    });
    expect(rep.status).toBe(201);
    // 3. a second check after the task (a CI run): its findings were served to the task
    const after = await talentd(["check"], repo, { ...p.env, CI: "true" });
    expect(after.code).toBe(1);
    // 4. an opted-out check reports nothing
    expect((await talentd(["check", "--staged", "--no-report"], repo, p.env)).code).toBe(1);
    expect((await talentd(["check", "--staged"], repo, { ...p.env, TALENTD_REPORT: "0" })).code).toBe(1);

    const r = await p.owner.get(`/web/projects/${p.project.id}/rules?days=7`);
    expect(r.status).toBe(200);
    const rule = (id: string) => r.body.rules.find((x: any) => x.talentId === "typescript-strict" && x.ruleId === id);
    for (const id of ["TS-002", "TS-005", "TS-006"]) {
      expect(rule(id).findings).toEqual({ served: 1, notServed: 1, total: 2 });
      expect(rule(id).reports).toBe(2);
      expect(
        rule(id)
          .byClient.map((c: any) => [c.name, c.served, c.notServed])
          .sort(),
      ).toEqual([
        ["talentd CI", 1, 0],
        ["talentd hook", 0, 1],
      ]);
    }
    const ts = r.body.talents.find((t: any) => t.talentId === "typescript-strict");
    // served: the task's resolution and the four checks' own ones; each of them fetched its playbook (audited)
    expect(ts.served).toBe(5);
    expect(ts.audited).toBe(5);
    expect(ts.verdicts).toEqual({ pass: 0, fail: 1, not_applicable: 0 });
    // served and audited by the tool that prepared each resolution: the agent's task, the hook's run, the two checks
    // run by hand, the CI run
    expect(ts.byClient.map((c: any) => [c.name, c.served, c.audited])).toEqual([
      ["talentd check by hand", 2, 2],
      ["Claude Code", 1, 1],
      ["talentd CI", 1, 1],
      ["talentd hook", 1, 1],
    ]);
    expect(ts.findings).toEqual({ served: 3, notServed: 3 });
    expect(ts.href).toBe("/catalog/typescript-strict");
    expect(r.body.failingAfterServed[0]).toMatchObject({ talentId: "typescript-strict", failVerdicts: 1 });
    expect(
      r.body.failingAfterServed
        .slice(0, 3)
        .map((x: any) => x.ruleId)
        .sort(),
    ).toEqual(["TS-002", "TS-005", "TS-006"]);
    expect(r.body.totals.verdicts.fail).toBe(1);

    const csv = await p.owner.call("GET", `/web/projects/${p.project.id}/rules?days=7&format=csv`);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe(
      "talent_id,rule_id,title,severity,served,audited,fail_verdicts,findings_served,findings_not_served,findings_total,reports",
    );
    expect(lines.find((l) => l.startsWith("typescript-strict,TS-002,"))).toMatch(/,5,5,1,1,1,2,2$/);

    const org = await p.owner.get("/web/orgs/current/rules?days=7");
    expect(org.status).toBe(200);
    expect(org.body.organizationId).toBeTruthy();
    expect(org.body.rules.find((x: any) => x.ruleId === "TS-002").findings).toEqual({ served: 1, notServed: 1, total: 2 });
  });

  test("the client's report holds counts per talent and rule only: no path, no line, no code (the request inspected through a proxy)", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    const repo = repoWithChange();
    const seen: { path: string; body: string }[] = [];
    const port = freePort();
    const proxy = Bun.serve({
      port,
      hostname: "127.0.0.1",
      async fetch(req) {
        const url = new URL(req.url);
        const body = req.method === "GET" ? undefined : await req.text();
        seen.push({ path: url.pathname, body: body ?? "" });
        const headers = new Headers(req.headers);
        headers.delete("host");
        const r = await fetch(live.base + url.pathname + url.search, { method: req.method, headers, body });
        return new Response(await r.arrayBuffer(), { status: r.status, headers: r.headers });
      },
    });
    try {
      const r = await talentd(["check", "--staged"], repo, { ...p.env, TALENTD_URL: `http://127.0.0.1:${port}` });
      expect(r.code).toBe(1);
    } finally {
      proxy.stop(true);
    }
    const reports = seen.filter((s) => s.path === "/api/findings");
    expect(reports.length).toBe(1);
    const body = JSON.parse(reports[0]!.body);
    expect(Object.keys(body)).toEqual(["counts"]);
    expect(body.counts["typescript-strict"]).toMatchObject({ "TS-002": 1, "TS-005": 1, "TS-006": 1 });
    for (const rules of Object.values(body.counts) as Record<string, unknown>[])
      for (const [rule, n] of Object.entries(rules)) {
        expect(rule).toMatch(/^[A-Z][A-Z0-9]*-\d+$/);
        expect(Number.isInteger(n)).toBe(true);
      }
    const raw = reports[0]!.body;
    for (const leak of ["src/", "new.ts", "any", "ts-ignore", ":3", "line", "file"]) expect(raw).not.toContain(leak);
  });

  test("POST /api/findings refuses anything but rule ids and counts (400 validation_failed), an unknown resolution or another project's (404 not_found), a key without validate (403 insufficient_scope)", async () => {
    const p = await clientProject(live, ["typescript-strict"]);
    const post = (body: unknown, key = p.key) => asAgent(live.base, key, "POST", "/api/findings", body);
    const ok = await post({ counts: { "typescript-strict": { "TS-002": 2 } } });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ rules: 1, findings: 2, served: [], notServed: ["typescript-strict"], resolutionId: null });
    for (const bad of [
      { counts: { "typescript-strict": { "TS-002": 1 } }, file: "src/a.ts" },
      { counts: { "typescript-strict": { "TS-002": { line: 3 } } } },
      { counts: { "typescript-strict": { "src/a.ts:3": 1 } } },
      { counts: { "../etc": { "TS-002": 1 } } },
      { counts: { "typescript-strict": { "TS-002": -1 } } },
      { counts: { "typescript-strict": { "TS-002": 1.5 } } },
      { counts: [] },
      {},
    ]) {
      const r = await post(bad);
      expect([r.status, r.body.error]).toEqual([400, "validation_failed"]);
    }
    const unknown = await post({ resolutionId: "res_nope", counts: { "typescript-strict": { "TS-002": 1 } } });
    expect([unknown.status, unknown.body.error]).toEqual([404, "not_found"]);
    // a resolution that exists, but of another project: as unknown as one that does not (its existence is not told)
    const other = await clientProject(live, ["typescript-strict"]);
    const theirs = await asAgent(live.base, other.key, "POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    expect(theirs.status).toBe(201);
    const cross = await post({ resolutionId: theirs.body.resolutionId, counts: { "typescript-strict": { "TS-002": 1 } } });
    expect([cross.status, cross.body.error]).toEqual([404, "not_found"]);
    const mine = await asAgent(live.base, p.key, "POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const own = await post({ resolutionId: mine.body.resolutionId, counts: { "typescript-strict": { "TS-002": 1 } } });
    expect([own.status, own.body.served]).toEqual([201, ["typescript-strict"]]);
    const narrow = await clientProject(live, [], ["prepare_task"]);
    const refused = await post({ counts: {} }, narrow.key);
    expect([refused.status, refused.body.error]).toEqual([403, "insufficient_scope"]);
  });

  test("the rules routes: a bad days or format is 400 validation_failed, another organization's project 404 not_found, the organization's rules to a member 403 forbidden", async () => {
    const p = await clientProject(live, []);
    const q = await clientProject(live, []);
    expect((await p.owner.get(`/web/projects/${p.project.id}/rules?days=0`)).body.error).toBe("validation_failed");
    expect((await p.owner.get(`/web/projects/${p.project.id}/rules?format=xml`)).body.error).toBe("validation_failed");
    expect((await p.owner.get("/web/orgs/current/rules?days=91")).status).toBe(400);
    const other = await p.owner.get(`/web/projects/${q.project.id}/rules`);
    expect([other.status, other.body.error]).toEqual([404, "not_found"]);
    const empty = await p.owner.get(`/web/projects/${p.project.id}/rules`);
    expect(empty.body.rules).toEqual([]);
    expect(empty.body.window.days).toBe(30);
    // a member reads a project's rules; the organization's are for owners and admins (403 forbidden)
    const member = await joinedMember(live.env, p.owner);
    expect((await member.get(`/web/projects/${p.project.id}/rules`)).status).toBe(200);
    const refused = await member.get("/web/orgs/current/rules");
    expect([refused.status, refused.body.error]).toEqual([403, "forbidden"]);
  });
});
