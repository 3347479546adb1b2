/**
 * The pages of the hook rules and their locks, without JavaScript and with htmx: `/org/policy` lists the locked rules with
 * a form to lock one and to lift each (`POST /org/policy/locks`; htmx `POST`/`DELETE /web/orgs/current/policy/hook-rules`),
 * each refusal under its field; the project's Settings tab lists every rule with a detector (talent, severity for review,
 * earned blocking with its measured figure, the project's choice, the lock naming the policy, what the hook does) and
 * saves the choices in one form (`POST /projects/:id?tab=settings&form=hook-rules`; htmx `PUT …/hook-rules`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, joinedMember, orgWithProject, testEnv, textOfId, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function project() {
  const o = await orgWithProject(env);
  const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return o;
}
const locksOf = async (c: { get: (p: string) => Promise<{ body: any }> }) =>
  (await c.get("/web/orgs/current/policy")).body.policy.hookRules;
const pageOf = async (c: { get: (p: string) => Promise<{ body: any; status: number }> }, path: string) => {
  const r = await env.request(path, { headers: { cookie: (c as any).cookie, accept: "text/html" } });
  return { status: r.status, html: await r.text() };
};

describe("/org/policy: the locked rules, a form to lock one and to lift each", () => {
  test("without JavaScript: lock → 303 and listed; an unknown rule → 400 under the rule field, as typed; unlock → 303, gone", async () => {
    const { owner } = await project();
    const none = await pageOf(owner, "/org/policy");
    expect(textOfId(none.html, "policy-locks-none")).toBe("No rule is locked.");
    const locked = await formPost(env, owner, "/org/policy/locks", { rule: "TS-005", choice: "block" });
    expect([locked.status, locked.location]).toEqual([303, "/org/policy#policy-locks-h"]);
    expect(await locksOf(owner)).toEqual({ "TS-005": "block" });
    const listed = await pageOf(owner, "/org/policy");
    expect(textOfId(listed.html, "lock-TS-005")).toContain("blocks (locked by policy)");
    const unknown = await formPost(env, owner, "/org/policy/locks", { rule: "NOPE-001", choice: "advise" });
    expect(unknown.status).toBe(400);
    expect(textOfId(unknown.html, "policy-lock-rule-error")).toContain("no detector of a shipped talent or active expertise");
    expect(unknown.html).toContain('value="NOPE-001"');
    const bad = await formPost(env, owner, "/org/policy/locks", { rule: "", choice: "warn" });
    expect(textOfId(bad.html, "policy-lock-rule-error")).toBe("Rule is required: a rule id such as TS-005");
    expect(textOfId(bad.html, "policy-lock-choice-error")).toBe('Choice must be "block", "advise" or "off"');
    const lifted = await formPost(env, owner, "/org/policy/locks", { rule: "TS-005", remove: "yes" });
    expect(lifted.status).toBe(303);
    expect(await locksOf(owner)).toEqual({});
  });

  test("with htmx: POST and DELETE /web/orgs/current/policy/hook-rules; a refusal names the rule field in #flash; a member is refused", async () => {
    const { owner } = await project();
    const ok = await htmxForm(env, owner, "POST", "/web/orgs/current/policy/hook-rules", { rule: "TS-002", choice: "block" });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("hx-redirect")).toBe("/org/policy");
    expect(await locksOf(owner)).toEqual({ "TS-002": "block" });
    const refused = await htmxForm(env, owner, "POST", "/web/orgs/current/policy/hook-rules", { rule: "TS-004", choice: "block" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('data-field="rule"');
    const del = await htmxForm(env, owner, "DELETE", "/web/orgs/current/policy/hook-rules/TS-002", {});
    expect(del.status).toBe(204);
    expect(await locksOf(owner)).toEqual({});
    const member = await joinedMember(env, owner);
    expect((await member.post("/web/orgs/current/policy/hook-rules", { rule: "TS-005", choice: "off" })).status).toBe(403);
    expect((await formPost(env, member, "/org/policy/locks", { rule: "TS-005", choice: "off" })).status).toBe(404);
  });
});

describe("the Settings tab lists every rule with a detector and saves the project's choices", () => {
  test("each rule: talent, severity for review, earned with its figure, the choice, the lock naming the policy, what the hook does", async () => {
    const { owner, project: p } = await project();
    await owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-003": "advise" } });
    const tab = await pageOf(owner, `/projects/${p.id}?tab=settings`);
    expect(tab.status).toBe(200);
    const ts5 = textOfId(tab.html, "hook-row-TS-005")!;
    expect(ts5).toContain("typescript-strict");
    expect(ts5).toContain("earned blocking");
    expect(ts5).toMatch(/\d+ findings, [\d.]+% precision over \d+ commits/);
    expect(ts5).toContain("blocks");
    expect(textOfId(tab.html, "hook-row-TS-002")).toContain("advises (its detector is advisory until measured)");
    const ts3 = textOfId(tab.html, "hook-row-TS-003")!;
    expect(ts3).toContain("locked to advise by the organization's policy");
    expect(ts3).toContain("advises (locked by policy)");
    // a locked rule has no select: the form cannot send it
    expect(tab.html).not.toContain('name="rules.TS-003"');
    expect(tab.html).toContain('name="rules.TS-005"');
  });

  test("without JavaScript: the form saves (303, audited); with htmx the PUT saves; a member sees the rules without a form", async () => {
    const { owner, project: p } = await project();
    const saved = await formPost(env, owner, `/projects/${p.id}?tab=settings&form=hook-rules`, {
      "rules.TS-005": "advise",
      "rules.TS-002": "",
      rules: "",
    });
    expect([saved.status, saved.location]).toEqual([303, `/projects/${p.id}?tab=settings#hook-rules-h`]);
    const rules = (await owner.get(`/web/projects/${p.id}/hook-rules`)).body.rules as any[];
    expect(rules.find((r) => r.rule === "TS-005").choice).toBe("advise");
    expect(rules.find((r) => r.rule === "TS-002").choice).toBeNull();
    const log = (await owner.get("/web/orgs/current/audit-log?action=project.hook_rule_changed")).body.entries as any[];
    expect(log.map((e) => e.after)).toEqual([{ rule: "TS-005", choice: "advise" }]);
    const tab = await pageOf(owner, `/projects/${p.id}?tab=settings`);
    expect(textOfId(tab.html, "hook-row-TS-005")).toContain("advises (the project advises it)");
    const htmx = await htmxForm(env, owner, "PUT", `/web/projects/${p.id}/hook-rules`, { rules: "", "rules.TS-003": "off" });
    expect([htmx.status, htmx.headers.get("hx-redirect")]).toEqual([204, `/projects/${p.id}?tab=settings`]);
    const after = (await owner.get(`/web/projects/${p.id}/hook-rules`)).body.rules as any[];
    expect(after.find((r) => r.rule === "TS-003").choice).toBe("off");
    expect(after.find((r) => r.rule === "TS-005").choice).toBeNull();
    const member = await joinedMember(env, owner);
    const seen = await pageOf(member, `/projects/${p.id}?tab=settings`);
    expect(textOfId(seen.html, "hook-row-TS-003")).toContain("off in this project");
    expect(seen.html).not.toContain('id="hook-rules-form"');
    expect((await formPost(env, member, `/projects/${p.id}?tab=settings&form=hook-rules`, { rules: "" })).status).toBe(403);
  });

  test("a refused save without JavaScript (a locked rule sent with another value): 409, the tab again, the sentence under the rule", async () => {
    const { owner, project: p } = await project();
    await owner.put("/web/orgs/current/policy", { requiredTalents: [], hookRules: { "TS-005": "block" } });
    const r = await formPost(env, owner, `/projects/${p.id}?tab=settings&form=hook-rules`, { rules: "", "rules.TS-005": "off" });
    expect(r.status).toBe(409);
    expect(r.html).toContain('id="hook-rules-form"');
    expect(textOfId(r.html, "hook-rules-refused")).toBe("Not saved: fix the field marked below.");
    expect(textOfId(r.html, "hook-TS-005-error")).toBe(
      "TS-005 is locked to block by the organization's policy; an owner or admin changes it at /org/policy",
    );
  });
});

describe("one vocabulary: the talent sheet says per rule what the hook does, apart from its severity for review", () => {
  test("TS-005 hook: blocks; TS-002 (blocking for review) hook: advises (its detector is advisory until measured); TS-004 no detector", async () => {
    const { owner } = await project();
    const sheet = await pageOf(owner, "/catalog/typescript-strict");
    expect(sheet.status).toBe(200);
    expect(textOfId(sheet.html, "rule-TS-005")).toContain("hook: blocks");
    const ts2 = textOfId(sheet.html, "rule-TS-002")!;
    expect(ts2).toContain("blocking");
    expect(ts2).toContain("hook: advises (its detector is advisory until measured)");
    expect(textOfId(sheet.html, "rule-TS-004")).toContain("hook: no detector (review only)");
  });
});

describe("one lock at a time, in the transaction that reads the policy", () => {
  test("two locks sent at once both land; the lists and the projects' selections are untouched; lifting an unlocked rule is 400", async () => {
    const { owner } = await project();
    await owner.put("/web/orgs/current/policy", { requiredTalents: ["typescript-strict"] });
    const [a, b] = await Promise.all([
      owner.post("/web/orgs/current/policy/hook-rules", { rule: "TS-005", choice: "block" }),
      owner.post("/web/orgs/current/policy/hook-rules", { rule: "TS-002", choice: "advise" }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const policy = (await owner.get("/web/orgs/current/policy")).body.policy;
    expect(policy.hookRules).toEqual({ "TS-005": "block", "TS-002": "advise" });
    expect(policy.requiredTalents).toEqual(["typescript-strict"]);
    const notLocked = await owner.call("DELETE", "/web/orgs/current/policy/hook-rules/TS-003");
    const body = await notLocked.json();
    expect([notLocked.status, body.issues]).toEqual([
      400,
      [{ path: "rule", message: "TS-003 is not locked by the organization's policy" }],
    ]);
    const log = (await owner.get("/web/orgs/current/audit-log?action=policy.changed")).body.entries as any[];
    expect(log).toHaveLength(3);
  });
});
