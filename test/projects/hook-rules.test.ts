/**
 * The project's hook rules (docs/api.md "Hook rules"): GET lists every rule with a detector of the
 * enabled talents with its shipped severity, earned blocking, choice and effective behaviour; PUT
 * replaces the choices in one transaction, each change audited; the playbook's detectors carry the
 * effective severity (off: not served).
 */
import { withHookRules } from "../../src/client/hookRules";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, joinedMember, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";
import { sentenceOf } from "../../src/projects/activityRows";
import type { TraceEvent } from "../../src/journal/journal";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

async function project(talents = ["typescript-strict", "open-redirect"]) {
  const o = await orgWithProject(env);
  const installed = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents });
  if (installed.status !== 201) throw new Error(JSON.stringify(installed.body));
  const key = (await createKey(o.owner, o.project.id, ALL)).value;
  const api = async (method: string, body?: unknown, k = key) => {
    const r = await withKey(env, k, "/api/hook-rules", {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  return { ...o, key, api };
}

type Row = { rule: string; talent: string; shipped: string; earned: boolean; security: boolean; effective: string; choice: string | null };
const byRule = (rows: Row[]) => new Map(rows.map((r) => [r.rule, r]));

describe("GET /api/hook-rules: every rule with a detector of the project's enabled talents", () => {
  test("shipped severity, earned blocking, effective (block where earned, advise elsewhere), no choice, lockedBy null", async () => {
    const p = await project();
    const r = await p.api("GET");
    expect(r.status).toBe(200);
    const rows = byRule(r.body.rules);
    expect(rows.get("TS-005")).toEqual({
      rule: "TS-005",
      talent: "typescript-strict",
      shipped: "blocking",
      earned: true,
      security: false,
      effective: "block",
      choice: null,
      lockedBy: null,
      lock: null,
    } as Row);
    // a blocking rule whose detector did not earn blocking advises; a rule without a detector is not listed
    expect(rows.get("TS-002")).toMatchObject({ shipped: "blocking", earned: false, effective: "advise" });
    expect(rows.has("TS-004")).toBe(false);
    expect([...rows.values()].filter((x) => x.talent === "open-redirect").every((x) => x.security)).toBe(true);
  });

  test("a disabled talent's rules are not listed", async () => {
    const p = await project();
    await p.owner.patch(`/web/projects/${p.project.id}/talents/open-redirect`, { enabled: false });
    const rows: Row[] = (await p.api("GET")).body.rules;
    expect(rows.some((x) => x.talent === "open-redirect")).toBe(false);
  });
});

describe("PUT /api/hook-rules replaces the project's choices, each change in the audit log", () => {
  test("a choice changes effective; a second PUT without it puts the rule back to its shipped behaviour", async () => {
    const p = await project();
    const first = await p.api("PUT", { rules: { "TS-005": "advise", "TS-002": "block", "TS-003": "off" } });
    expect(first.status).toBe(200);
    expect(first.body.changed).toBe(3);
    let rows = byRule(first.body.rules);
    expect(rows.get("TS-005")).toMatchObject({ choice: "advise", effective: "advise", earned: true });
    expect(rows.get("TS-002")).toMatchObject({ choice: "block", effective: "block", earned: false });
    expect(rows.get("TS-003")).toMatchObject({ choice: "off", effective: "off" });
    // the web route reads the same
    expect(byRule((await p.owner.get(`/web/projects/${p.project.id}/hook-rules`)).body.rules).get("TS-005")?.choice).toBe("advise");

    const second = await p.api("PUT", { rules: { "TS-005": "advise" } });
    expect(second.body.changed).toBe(2);
    rows = byRule(second.body.rules);
    expect(rows.get("TS-002")).toMatchObject({ choice: null, effective: "advise" });
    expect(rows.get("TS-003")).toMatchObject({ choice: null, effective: "advise" });

    // the key's calls are in the journal, said in words on the Activity tab
    await Bun.sleep(50);
    const events = (await p.owner.get(`/web/projects/${p.project.id}/traces?limit=20`)).body.events as TraceEvent[];
    const sets = events.filter((e) => e.kind === "hook_rules_set");
    expect(sets.map((e) => sentenceOf(e)).sort()).toEqual(["changed 2 hook rules", "changed 3 hook rules"]);

    const log = (await p.owner.get("/web/orgs/current/audit-log?action=project.hook_rule_changed")).body.entries as any[];
    expect(log).toHaveLength(5);
    expect(log.every((e) => e.object.id === p.project.id && e.actor.kind === "key")).toBe(true);
    expect(log.map((e) => `${e.before.rule}:${e.before.choice}->${e.after.choice}`).sort()).toEqual([
      "TS-002:block->null",
      "TS-002:null->block",
      "TS-003:null->off",
      "TS-003:off->null",
      "TS-005:null->advise",
    ]);
  });

  test("an owner writes on /web, the entry by the person", async () => {
    const p = await project();
    const r = await p.owner.put(`/web/projects/${p.project.id}/hook-rules`, { rules: { "TS-005": "off" } });
    expect(r.status).toBe(200);
    expect(byRule(r.body.rules).get("TS-005")?.effective).toBe("off");
    const log = (await p.owner.get("/web/orgs/current/audit-log?action=project.hook_rule_changed")).body.entries as any[];
    expect(log.map((e) => e.actor.label)).toEqual([p.owner.email]);
  });
});

describe("hook rules refuse what they cannot take", () => {
  test("a rule id no installed talent's detector carries: 400 validation_failed naming it; nothing is written", async () => {
    const p = await project();
    const r = await p.api("PUT", { rules: { "TS-005": "advise", "NOPE-001": "off", "TS-004": "off" } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    expect(r.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(["rules.NOPE-001", "rules.TS-004"]);
    expect(JSON.stringify(r.body)).toContain("NOPE-001");
    expect(byRule((await p.api("GET")).body.rules).get("TS-005")?.choice).toBeNull();
  });

  test("a value other than block, advise or off, more than 1000 rules, or no rules object: 400 validation_failed", async () => {
    const p = await project();
    const bad = await p.api("PUT", { rules: { "TS-005": "warn" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "validation_failed", issues: [{ path: "rules.TS-005" }] });
    expect(bad.body.message).toContain('"block", "advise" or "off"');
    const many = await p.api("PUT", { rules: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`X-${i}`, "off"])) });
    expect([many.status, many.body.message]).toEqual([400, "rules names at most 1000 rules (got 1001)"]);
    const none = await p.api("PUT", { rule: { "TS-005": "off" } });
    expect(none.status).toBe(400);
    expect(none.body.issues[0].path).toBe("rules");
  });

  test("the key needs validate to read and install to write: 403 insufficient_scope naming it", async () => {
    const p = await project();
    const reader = (await createKey(p.owner, p.project.id, ["validate"])).value;
    expect((await p.api("GET", undefined, reader)).status).toBe(200);
    const w = await p.api("PUT", { rules: { "TS-005": "off" } }, reader);
    expect(w.status).toBe(403);
    expect(w.body).toMatchObject({ error: "insufficient_scope", requiredScope: "install" });
    const installer = (await createKey(p.owner, p.project.id, ["install"])).value;
    expect((await p.api("GET", undefined, installer)).body).toMatchObject({ error: "insufficient_scope", requiredScope: "validate" });
  });

  test("another organization's project is 404 on /web; a member reads but does not write (403 forbidden)", async () => {
    const p = await project();
    const other = await orgWithProject(env);
    expect((await other.owner.get(`/web/projects/${p.project.id}/hook-rules`)).status).toBe(404);
    expect((await other.owner.put(`/web/projects/${p.project.id}/hook-rules`, { rules: {} })).status).toBe(404);
    const member = await joinedMember(env, p.owner);
    expect((await member.get(`/web/projects/${p.project.id}/hook-rules`)).status).toBe(200);
    const w = await member.put(`/web/projects/${p.project.id}/hook-rules`, { rules: { "TS-005": "off" } });
    expect(w.status).toBe(403);
    expect(w.body.error).toBe("forbidden");
    expect(byRule((await p.api("GET")).body.rules).get("TS-005")?.choice).toBeNull();
  });
});

describe("the playbook carries the project's hook rules beside the pinned detectors, and the client applies them", () => {
  test("advise → advisory, block on an unearned rule → blocking, off → not run; the signed detectors unchanged; the rule stays in the index", async () => {
    const p = await project();
    const prepare = async () => {
      const prep = await withKey(env, p.key, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: ["typescript-strict"] }),
      });
      const { resolutionId } = (await prep.json()) as { resolutionId: string };
      return (await (await withKey(env, p.key, `/api/validation/playbook?resolutionId=${resolutionId}&include=detectors`)).json()) as any;
    };
    const before = await prepare();
    expect(before.hookRules).toBeUndefined();
    await p.api("PUT", { rules: { "TS-005": "advise", "TS-002": "block", "TS-003": "off" } });
    const pb = await prepare();
    expect(pb.hookRules).toEqual({ "TS-005": "advise", "TS-002": "block", "TS-003": "off" });
    // the detectors as pinned (what the signature proves), whatever the project chose
    expect(pb.obligations[0].rules).toEqual(before.obligations[0].rules);
    const applied = withHookRules(pb.obligations, pb.hookRules);
    const rules = new Map<string, any>(applied[0]!.rules.map((r: any) => [r.id, r]));
    expect(rules.get("TS-005").detect.map((d: any) => d.severity)).toEqual(["advisory"]);
    expect(rules.get("TS-002").detect.map((d: any) => d.severity)).toEqual(["blocking"]);
    expect(rules.get("TS-003").detect).toBeUndefined();
    expect(rules.get("TS-003").severity).toBe("blocking");
    expect(rules.get("TS-006").detect.map((d: any) => d.severity)).toEqual(["advisory"]);
  });
});
