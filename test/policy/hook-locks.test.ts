/**
 * The organization locks a hook rule (docs/design.md "What blocks a commit", docs/api.md "Organization policy"):
 * the policy's `hookRules` are saved and audited, every project's hook rules show the lock (`lockedBy: "policy"`)
 * and take it over their own choice (lock > choice > earned), a project's or calibration's attempt to relax it is
 * 409 locked_by_policy, `talentd calibrate --apply` skips it and says so, and the playbook serves the lock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitIn, gitRepo, removeRepos, stage, talentd } from "../client-support";
import { createKey, joinedMember, orgWithProject, withKey, type TestEnv } from "../helpers";

let live: LiveEnv;
let env: TestEnv;
beforeAll(async () => {
  live = await liveEnv();
  env = live.env;
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

async function project(talents = ["typescript-strict", "open-redirect"]) {
  const o = await orgWithProject(env);
  const installed = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents });
  if (installed.status !== 201) throw new Error(JSON.stringify(installed.body));
  const key = (await createKey(o.owner, o.project.id, ALL)).value;
  const api = async (method: string, body?: unknown) => {
    const r = await withKey(env, key, "/api/hook-rules", {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  return { ...o, key, api };
}

const row = (body: any, rule: string) => (body.rules as any[]).find((r) => r.rule === rule);

describe("PUT /web/orgs/current/policy takes hookRules: the organization locks rules", () => {
  test("saved with the policy, in the audit log, returned by GET; a PUT without hookRules keeps the locks", async () => {
    const p = await project();
    const put = await p.owner.put("/web/orgs/current/policy", {
      requiredTalents: [],
      hookRules: { "TS-005": "block", "TS-002": "advise" },
    });
    expect(put.status).toBe(200);
    expect(put.body.policy.hookRules).toEqual({ "TS-005": "block", "TS-002": "advise" });
    expect((await p.owner.get("/web/orgs/current/policy")).body.policy.hookRules).toEqual({ "TS-005": "block", "TS-002": "advise" });
    const log = (await p.owner.get("/web/orgs/current/audit-log?action=policy.changed")).body.entries as any[];
    expect(log[0].before.hookRules).toEqual({});
    expect(log[0].after.hookRules).toEqual({ "TS-005": "block", "TS-002": "advise" });
    const again = await p.owner.put("/web/orgs/current/policy", { requiredTalents: ["typescript-strict"] });
    expect(again.body.policy.hookRules).toEqual({ "TS-005": "block", "TS-002": "advise" });
    const cleared = await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: {} });
    expect(cleared.body.policy.hookRules).toEqual({});
  });

  test("an unknown rule, a bad value, a rule id that is not one: 400 validation_failed naming each; nothing is written", async () => {
    const p = await project();
    const unknown = await p.owner.put("/web/orgs/current/policy", {
      requiredTalents: [],
      hookRules: { "TS-005": "block", "NOPE-001": "off" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: "validation_failed", issues: [{ path: "hookRules.NOPE-001" }] });
    expect(unknown.body.message).toContain(
      "no detector of a shipped talent or active expertise of this organization carries rule NOPE-001",
    );
    // a rule without a detector (TS-004) is not lockable either
    const noDetector = await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-004": "block" } });
    expect(noDetector.body.issues.map((i: any) => i.path)).toEqual(["hookRules.TS-004"]);
    const bad = await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "warn" } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual([{ path: "hookRules.TS-005", message: 'hookRules.TS-005 must be "block", "advise" or "off"' }]);
    const notObject = await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: ["TS-005"] });
    expect(notObject.body.issues[0].path).toBe("hookRules");
    expect((await p.owner.get("/web/orgs/current/policy")).body.policy.hookRules).toEqual({});
  });

  test("from a form, hookRules is text: one RULE-ID choice per line; a line that is not one is 400 naming hookRules", async () => {
    const p = await project();
    const ok = await p.owner.put("/web/orgs/current/policy", { requiredTalents: "", hookRules: "TS-005 block\nTS-002=advise\n" });
    expect(ok.status).toBe(200);
    expect(ok.body.policy.hookRules).toEqual({ "TS-005": "block", "TS-002": "advise" });
    const bad = await p.owner.put("/web/orgs/current/policy", { requiredTalents: "", hookRules: "TS-005 block now" });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual([
      { path: "hookRules", message: 'hookRules: "TS-005 block now" is not a rule id and a choice (TS-005 block)' },
    ]);
  });

  test("a member (not owner or admin) cannot lock: 403 forbidden", async () => {
    const p = await project();
    const member = await joinedMember(env, p.owner);
    const r = await member.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "block" } });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("forbidden");
    expect((await p.owner.get("/web/orgs/current/policy")).body.policy.hookRules).toEqual({});
  });
});

describe("a locked rule: lock > project choice > earned, and a project cannot relax it", () => {
  test("the hook rules show lockedBy policy and the lock as effective, over the project's own choice", async () => {
    const p = await project();
    expect((await p.api("PUT", { rules: { "TS-005": "advise" } })).status).toBe(200);
    await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "block", "TS-002": "block" } });
    const r = await p.api("GET");
    expect(row(r.body, "TS-005")).toMatchObject({ choice: "advise", lock: "block", lockedBy: "policy", effective: "block" });
    expect(row(r.body, "TS-002")).toMatchObject({ earned: false, choice: null, lockedBy: "policy", effective: "block" });
    expect(row(r.body, "TS-003")).toMatchObject({ lockedBy: null, lock: null });
    // the web route reads the same
    expect(row((await p.owner.get(`/web/projects/${p.project.id}/hook-rules`)).body, "TS-005").lockedBy).toBe("policy");
  });

  test("a project's PUT relaxing a locked rule is 409 locked_by_policy, its sentence naming the policy; nothing is written", async () => {
    const p = await project();
    await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "block" } });
    const r = await p.api("PUT", { rules: { "TS-005": "advise", "TS-003": "off" } });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("locked_by_policy");
    expect(r.body.message).toBe("TS-005 is locked to block by the organization's policy; an owner or admin changes it at /org/policy.");
    expect(r.body.rules).toEqual([{ rule: "TS-005", lock: "block" }]);
    expect(row((await p.api("GET")).body, "TS-003").choice).toBeNull();
    const web = await p.owner.put(`/web/projects/${p.project.id}/hook-rules`, { rules: { "TS-005": "off" } });
    expect([web.status, web.body.error]).toEqual([409, "locked_by_policy"]);
    // the lock's own value is accepted; a PUT not naming the locked rule keeps the project's choice of it
    expect((await p.api("PUT", { rules: { "TS-005": "block", "TS-003": "off" } })).status).toBe(200);
    const kept = await p.api("PUT", { rules: {} });
    expect(kept.status).toBe(200);
    expect(row(kept.body, "TS-005")).toMatchObject({ choice: "block", effective: "block" });
    expect(row(kept.body, "TS-003").choice).toBeNull();
  });

  test("the playbook's hookRules carry the lock for locked rules, over the project's choice", async () => {
    const p = await project();
    await p.api("PUT", { rules: { "TS-005": "advise", "TS-006": "off" } });
    await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "block", "TS-002": "block" } });
    const prep = await withKey(env, p.key, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    const { resolutionId } = (await prep.json()) as { resolutionId: string };
    const pb = (await (await withKey(env, p.key, `/api/validation/playbook?resolutionId=${resolutionId}&include=detectors`)).json()) as any;
    expect(pb.hookRules).toEqual({ "TS-005": "block", "TS-002": "block", "TS-006": "off" });
    expect([...pb.hookRulesLocked].sort()).toEqual(["TS-002", "TS-005"]);
  });
});

describe("talentd calibrate --apply skips a locked rule and says so", () => {
  test("TS-005 broken by every commit but locked to block: not proposed, not applied, the line names the lock; it still blocks", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "block" } });
    const repo = gitRepo();
    for (let i = 1; i <= 8; i++) {
      stage(repo, { [`src/f${i}.ts`]: `export function add${i}(a: number) {\n  return a + ${i};\n}\n` });
      gitIn(repo, ["commit", "-q", "-m", `commit ${i}`]);
    }
    const r = await talentd(["calibrate", "--history", "50", "--apply"], repo, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("skipped: TS-005 (locked to block): locked by the organization's policy");
    expect(r.stdout).toContain("locked to block by the organization's policy: calibration leaves it");
    const rules = (await (await fetch(`${live.base}/api/hook-rules`, { headers: { authorization: `Bearer ${p.key}` } })).json()) as any;
    expect(row(rules, "TS-005")).toMatchObject({ choice: null, effective: "block", lockedBy: "policy" });
    const json = JSON.parse((await talentd(["calibrate", "--history", "50", "--json"], repo, p.env)).stdout);
    expect(json.proposals).toEqual({});
    expect(json.locked).toEqual(["TS-005"]);
  });
});

describe("talentd check says why a rule blocking for review does not block: advisory (hook: <reason>)", () => {
  test("locked to advise: (hook: locked by policy); the project advises: (hook: the project advises it); unmeasured: (hook: its detector is advisory until measured)", async () => {
    const p = await clientProject(live, ["typescript-strict", "javascript-base"]);
    await p.owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "advise" } });
    await fetch(`${live.base}/api/hook-rules`, {
      method: "PUT",
      headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      body: JSON.stringify({ rules: { "TS-006": "advise" } }),
    });
    const repo = gitRepo();
    stage(repo, { "src/a.ts": "// @ts-ignore\nexport function f(a: number) {\n  const x: any = a;\n  return x;\n}\n" });
    const r = await talentd(["check", "--staged", "--no-report"], repo, p.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("TS-005 advisory (hook: locked by policy) ");
    expect(r.stdout).toContain("TS-006 advisory (hook: the project advises it) ");
    expect(r.stdout).toContain("TS-002 advisory (hook: its detector is advisory until measured) ");
  });
});

describe("one vocabulary in the guidance: a blocking rule's line says when the hook only advises on it, and why", () => {
  test("TS-002 (blocking; hook advises: its detector is advisory until measured); TS-005 (blocking), its detector earned blocking", async () => {
    const p = await project();
    const prep = await withKey(env, p.key, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    const body = (await prep.json()) as { talents: { id: string; compact: string }[] };
    const compact = body.talents.find((t) => t.id === "typescript-strict")!.compact;
    expect(compact).toContain("- [TS-002] (blocking; hook advises: its detector is advisory until measured) ");
    expect(compact).toContain("- [TS-005] (blocking) ");
    expect(compact).toContain("- [TS-004] (blocking) ");
  });
});
