/**
 * The authoring form's taken slug (docs/design.md "Authoring an expertise with a form"): a new form whose slug an
 * expertise of the organization holds answers 409 with the refusal under the slug, a link to that expertise and a
 * "Save as a new version" button; that button's post writes a new working (draft) version of it through the YAML
 * editor's write, publishing nothing. Its failure paths: a member, another organization's expertise, a slug changed
 * since the offer, a revision saved since, a deleted expertise's reserved slug (no offer).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, joinedMember, orgWithProject, testEnv, textOfId, type TestEnv, type WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const BASE = "/web/orgs/current/expertises";

const fieldsOf = (slug: string, title: string): [string, string][] => [
  ["slug", slug],
  ["title", title],
  ["summary", "Money movement in the payments service: designate it for refunds, invoices and ledgers."],
  ["roles", "backend"],
  ["languages", "typescript"],
  ["files", "src/payments/**"],
  ["keywords", "refund"],
  ["ruleCount", "3"],
  ["rule_0_title", "Store amounts as integer minor units."],
  ["rule_0_check", "Look for floats holding money."],
  ["rule_0_severity", "advisory"],
  ["rule_1_title", "Make every migration reversible."],
  ["rule_1_check", "Each migration has a down step."],
  ["rule_1_severity", "advisory"],
  ["rule_2_title", "Log a refund with its ledger id."],
  ["rule_2_check", "A refund path logs the ledger id."],
  ["rule_2_severity", "advisory"],
  ["body", "# Payments\n\nMoney is integer cents."],
];

/** A published expertise made by the form: its id and detail. */
async function published(c: WebClient, slug: string) {
  const made = await formPost(env, c, "/org/expertises/new", fieldsOf(slug, "Payments service"));
  expect(made.status).toBe(303);
  const id = made.location!.split("?")[0]!.split("/").pop()!;
  expect((await c.put(`${BASE}/${id}/triggers`, { files: ["src/payments/**"], keywords: ["refund"] })).status).toBe(200);
  expect((await c.post(`${BASE}/${id}/publish`)).status).toBe(200);
  return { id, detail: (await c.get(`${BASE}/${id}`)).body };
}

/** The offer's button value and revision in a refused page. */
function offerOf(html: string): { id: string; revision: string } | null {
  const id = /name="overwrite" value="([^"]+)"/.exec(html)?.[1];
  const revision = /name="overwriteRevision" value="(\d+)"/.exec(html)?.[1];
  return id && revision ? { id, revision } : null;
}

describe("the authoring form's taken slug", () => {
  test("a taken slug → 409: the refusal under the slug links the expertise and offers a new version; that post saves a draft version, nothing published", async () => {
    const { owner, org } = await orgWithProject(env);
    const { id, detail } = await published(owner, "payments");
    const again = await formPost(env, owner, "/org/expertises/new", fieldsOf("payments", "Payments, second take"));
    expect(again.status).toBe(409);
    expect(textOfId(again.html, "form-slug-error")).toContain('An expertise with the slug "payments" already exists');
    expect(again.html).toContain('aria-invalid="true"');
    const taken = again.html.slice(again.html.indexOf('id="form-slug-taken"'));
    expect(taken).toContain(`<a href="/org/expertises/${id}"><code>@${org.slug}/payments</code></a>`);
    expect(textOfId(again.html, "form-slug-taken")).toContain(`Save as a new version of @${org.slug}/payments`);
    expect(again.html).toContain('name="title" value="Payments, second take"');
    const offer = offerOf(again.html)!;
    expect(offer).toEqual({ id, revision: String(detail.revision) });

    const saved = await formPost(env, owner, "/org/expertises/new", [
      ...fieldsOf("payments", "Payments, second take"),
      ["overwriteRevision", offer.revision],
      ["overwrite", offer.id],
    ]);
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`/org/expertises/${id}?done=version`);
    const after = (await owner.get(`${BASE}/${id}`)).body;
    expect(after.revision).toBe(detail.revision + 1);
    expect(after.working.content).toContain('title: "Payments, second take"');
    expect(after.publishedVersion).toBe(detail.publishedVersion);
    expect(after.status).toBe(detail.status);
    // one expertise still, the audit log says a working version was written
    const list = (await owner.get(BASE)).body;
    expect(list.expertises.filter((e: { slug: string }) => e.slug === "payments")).toHaveLength(1);
    const log = (await owner.get("/web/orgs/current/audit-log?action=expertise.updated")).body;
    expect(JSON.stringify(log)).toContain(id);
  });

  test("failure paths: a member → 404; another organization's expertise → 404, nothing written; the slug changed since the offer → 400 under the slug; a revision saved since → 409 with the offer again", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const { id, detail } = await published(a.owner, "ledger");
    const offerFields = (slug: string, revision = String(detail.revision)): [string, string][] => [
      ...fieldsOf(slug, "Ledger, overwritten"),
      ["overwriteRevision", revision],
      ["overwrite", id],
    ];
    const member = await joinedMember(env, a.owner);
    expect((await formPost(env, member, "/org/expertises/new", offerFields("ledger"))).status).toBe(404);
    // b's owner names a's expertise, with the same slug in b: 404, nothing made or changed anywhere
    const other = await formPost(env, b.owner, "/org/expertises/new", offerFields("ledger"));
    expect(other.status).toBe(404);
    expect((await b.owner.get(BASE)).body.expertises).toHaveLength(0);
    expect((await a.owner.get(`${BASE}/${id}`)).body.revision).toBe(detail.revision);

    const renamed = await formPost(env, a.owner, "/org/expertises/new", offerFields("ledger-two"));
    expect(renamed.status).toBe(400);
    expect(textOfId(renamed.html, "form-slug-error")).toContain('but the slug is now "ledger-two"');
    expect((await a.owner.get(`${BASE}/${id}`)).body.revision).toBe(detail.revision);

    const patched = await a.owner.patch(`${BASE}/${id}`, { expectedRevision: detail.revision, content: detail.working.content });
    expect(patched.status).toBe(200);
    const stale = await formPost(env, a.owner, "/org/expertises/new", offerFields("ledger"));
    expect(stale.status).toBe(409);
    expect(textOfId(stale.html, "form-slug-error")).toContain("Someone saved this expertise since it was offered");
    expect(offerOf(stale.html)).toEqual({ id, revision: String(detail.revision + 1) });
    expect((await a.owner.get(`${BASE}/${id}`)).body.working.content).not.toContain("Ledger, overwritten");
  });

  test("a deleted expertise's reserved slug → 409 under the slug, with no offer", async () => {
    const { owner } = await orgWithProject(env);
    const made = await formPost(env, owner, "/org/expertises/new", fieldsOf("gone", "Gone"));
    const id = made.location!.split("?")[0]!.split("/").pop()!;
    expect((await owner.del(`${BASE}/${id}`)).status).toBe(200);
    const again = await formPost(env, owner, "/org/expertises/new", fieldsOf("gone", "Gone again"));
    expect(again.status).toBe(409);
    expect(textOfId(again.html, "form-slug-error")).toContain("stays reserved");
    expect(textOfId(again.html, "form-slug-taken")).toBeNull();
    expect(offerOf(again.html)).toBeNull();
  });
});
