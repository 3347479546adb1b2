/**
 * The expertise authoring form (docs/design.md "Authoring an expertise with a form"): `/org/expertises/new` makes a
 * draft whose TALENT.md has the front matter and body the YAML editor would save; the draft opens in the form again
 * with its values (`/org/expertises/:id/form`); an edit by the form keeps what the form does not show; the JSON API and
 * the YAML flow are unchanged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fieldsOfTalentMd, talentMdOfFields, type AuthoringFields } from "../../src/expertises/authoring";
import { formPost, joinedMember, orgWithProject, testEnv, textOfId, type TestEnv, type WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function html(c: WebClient, path: string): Promise<string> {
  const r = await c.call("GET", path, undefined, { accept: "text/html" });
  expect(r.status).toBe(200);
  return r.text();
}

const FIELDS: [string, string][] = [
  ["slug", "payments"],
  ["title", "Payments service"],
  ["summary", "Money movement in the payments service: designate it for refunds, invoices and ledgers."],
  ["roles", "backend"],
  ["languages", "typescript, sql"],
  ["files", "src/payments/**\nmigrations/**"],
  ["keywords", "refund\ninvoice"],
  ["ruleCount", "4"],
  ["rule_0_title", "Store amounts as integer minor units."],
  ["rule_0_check", "Look for floats holding money."],
  ["rule_0_severity", "blocking"],
  ["rule_0_pass", "amountCents: number"],
  ["rule_0_fail", "amount: 12.5"],
  ["rule_1_title", "Make every migration reversible."],
  ["rule_1_check", "Each migration has a down step."],
  ["rule_1_severity", "advisory"],
  ["rule_2_title", "Log a refund with its ledger id."],
  ["rule_2_check", "A refund path logs the ledger id."],
  ["rule_2_severity", "advisory"],
  ["rule_3_title", ""],
  ["body", "# Payments\n\nMoney is integer cents."],
];

describe("the authoring form", () => {
  test("the fields make a TALENT.md that reads back as the same fields (round trip, pure)", () => {
    const f: AuthoringFields = {
      title: "T",
      summary: "S",
      roles: "backend, reviewer",
      languages: "go",
      files: "**/*.go",
      keywords: "grpc",
      rules: [{ id: "", severity: "blocking", title: "Do a.", check: "Look for a.", pass: "a()", fail: "b()" }],
      body: "Guidance.",
    };
    const md = talentMdOfFields(f, "go-grpc");
    expect(md).toStartWith("---\nid: go-grpc\n");
    expect(fieldsOfTalentMd(md)).toEqual({ ...f, rules: [{ ...f.rules[0]!, id: "GG-001" }] });
  });

  test("POST /org/expertises/new → 303 to the new draft; its TALENT.md holds the fields; /:id/form shows them again; the detail API agrees", async () => {
    const { owner } = await orgWithProject(env);
    const created = await formPost(env, owner, "/org/expertises/new", FIELDS);
    expect(created.status).toBe(303);
    const id = created.location!.split("/").pop()!.split("?")[0]!;
    const detail = (await owner.get(`/web/orgs/current/expertises/${id}`)).body;
    expect(detail.slug).toBe("payments");
    const content: string = detail.working.content;
    expect(content).toContain('title: "Payments service"');
    expect(content).toContain('triggers:\n  files: ["src/payments/**", "migrations/**"]\n  keywords: ["refund", "invoice"]');
    expect(content).toContain("  - id: PA-001\n    severity: blocking\n");
    expect(content).toContain('  - { rule: PA-001, pass: "amountCents: number", fail: "amount: 12.5" }');
    expect(content).toEndWith("---\n# Payments\n\nMoney is integer cents.\n");
    const form = await html(owner, `/org/expertises/${id}/form`);
    expect(form).toContain('name="title" value="Payments service"');
    expect(form).toContain("src/payments/**\nmigrations/**</textarea>");
    expect(form).toContain('name="rule_1_title" value="Make every migration reversible."');
    expect(form).toContain('<option value="blocking" selected="">');
    expect(form).toContain('name="rule_0_id" value="PA-001"');
    expect(form).toContain("# Payments\n\nMoney is integer cents.</textarea>");
  });

  test("an edit by the form keeps what it does not show (budget, requires); a stale revision → 409 with the form as sent", async () => {
    const { owner } = await orgWithProject(env);
    const created = await formPost(env, owner, "/org/expertises/new", FIELDS);
    const id = created.location!.split("/").pop()!.split("?")[0]!;
    const before = (await owner.get(`/web/orgs/current/expertises/${id}`)).body;
    // the YAML editor's JSON route sets what the form does not show
    const yaml = before.working.content.replace("budget: 1200", "budget: 900").replace("requires: []", 'requires: ["sql-base"]');
    const patched = await owner.patch(`/web/orgs/current/expertises/${id}`, { expectedRevision: before.revision, content: yaml });
    expect(patched.status).toBe(200);
    const form = await html(owner, `/org/expertises/${id}/form`);
    const revision = /name="expectedRevision" value="(\d+)"/.exec(form)![1]!;
    const edited = FIELDS.map(([k, v]): [string, string] =>
      k === "title" ? [k, "Payments"] : k === "slug" ? ["rule_0_id", "PA-001"] : [k, v],
    );
    const saved = await formPost(env, owner, `/org/expertises/${id}/form`, [...edited, ["expectedRevision", revision]]);
    expect(saved.status).toBe(303);
    const after: string = (await owner.get(`/web/orgs/current/expertises/${id}`)).body.working.content;
    expect(after).toContain('title: "Payments"');
    expect(after).toContain("budget: 900");
    expect(after).toContain('requires: ["sql-base"]');
    const stale = await formPost(env, owner, `/org/expertises/${id}/form`, [...edited, ["expectedRevision", revision]]);
    expect(stale.status).toBe(409);
    expect(stale.html).toContain('id="authoring-refused"');
    expect(stale.html).toContain('name="title" value="Payments"');
  });

  test("a taken slug → 409 with the form as typed; the list page links the form, the YAML creation form stays", async () => {
    const { owner } = await orgWithProject(env);
    expect((await formPost(env, owner, "/org/expertises/new", FIELDS)).status).toBe(303);
    const again = await formPost(env, owner, "/org/expertises/new", FIELDS);
    expect(again.status).toBe(409);
    expect(again.html).toContain('name="title" value="Payments service"');
    const list = await html(owner, "/org/expertises");
    expect(list).toContain('href="/org/expertises/new"');
    expect(list).toContain('id="new-content"');
  });

  test("failure paths: a member or another organization's owner → 404 (the form, its post, the new page for a member); unknown id → 404; signed out → the sign-in; a bad form → 400 with the form, nothing made", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const made = await formPost(env, a.owner, "/org/expertises/new", FIELDS);
    expect(made.status).toBe(303);
    const id = made.headers.get("location")!.split("?")[0]!.split("/")[3]!;
    const member = await joinedMember(env, a.owner);
    for (const [who, c] of [
      ["a member", member],
      ["another organization's owner", b.owner],
    ] as const) {
      const form = await c.call("GET", `/org/expertises/${id}/form`, undefined, { accept: "text/html" });
      const post = await formPost(env, c, `/org/expertises/${id}/form`, FIELDS);
      expect({ who, form: form.status, post: post.status }).toEqual({ who, form: 404, post: 404 });
    }
    expect((await member.call("GET", "/org/expertises/new", undefined, { accept: "text/html" })).status).toBe(404);
    expect((await a.owner.call("GET", "/org/expertises/exp_unknown/form", undefined, { accept: "text/html" })).status).toBe(404);
    const anon = await env.request("/org/expertises/new", { headers: { accept: "text/html" } });
    expect(anon.status).toBe(303);
    expect(anon.headers.get("location")).toStartWith("/login?next=");
    const before = (await a.owner.get("/web/orgs/current/expertises")).body;
    const bad = await formPost(env, a.owner, "/org/expertises/new", [
      ["slug", "Bad Slug!"],
      ["title", ""],
      ["ruleCount", "1"],
    ]);
    expect(bad.status).toBe(400);
    expect(textOfId(bad.html, "authoring-refused")).toBeTruthy();
    expect((await a.owner.get("/web/orgs/current/expertises")).body).toEqual(before);
  });
});
