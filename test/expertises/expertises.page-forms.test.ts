/**
 * An expertise page's forms without JavaScript (src/expertises/pages.tsx). The trigger form posts to the expertise's
 * page (`POST /org/expertises/:id?form=triggers`), which confirms as `PUT …/:id/triggers` does (303 back to the page with its
 * status line) or, on a refusal, answers the page again (400 or 409, not the error page) with the lines as typed and
 * each problem under the list it concerns, a stale revision above the form. With htmx the JSON route's 400 names the
 * line (`files[1]`), which app.js puts under the files field. The typed-slug deletion posts to the page too
 * (`?form=delete`): a wrong slug answers the page again (400) with what was typed and why under the field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, joinedMember, orgWithProject, talentMd, testEnv, type TestEnv, type WebClient, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const BASE = "/web/orgs/current/expertises";

let owner: WebClient;
beforeAll(async () => {
  owner = (await orgWithProject(env, "Triggers Form Org")).owner;
});

/** A new draft expertise (no triggers) and its revision. */
async function draft(slug: string): Promise<{ id: string; revision: number }> {
  const e = (await owner.post(BASE, { slug, content: talentMd(slug) })).body;
  return { id: e.id, revision: e.revision };
}

const page = (id: string) => `/org/expertises/${id}`;

describe("POST /org/expertises/:id?form=triggers: a refused trigger set answers its form again", () => {
  test("a bad glob → 400 with the form, the problem under the files (not the keywords), both lists kept; nothing confirmed", async () => {
    const e = await draft("tf-bad-glob");
    const r = await formPost(env, owner, `${page(e.id)}?form=triggers`, {
      expectedRevision: String(e.revision),
      files: "src/ledger/**\n/etc/passwd",
      keywords: "ledger",
    });
    expect(r.status).toBe(400);
    expect(r.html).toContain('id="trigger-form"');
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(textOfId(r.html, "trigger-files-error")).toBe('"/etc/passwd" must be relative (no leading /)');
    expect(textOfId(r.html, "trigger-keywords-error")).toBeNull();
    expect(r.html).toContain("src/ledger/**\n/etc/passwd</textarea>");
    expect(r.html).toContain("ledger</textarea>");
    expect(r.html).toContain(`name="expectedRevision" value="${e.revision}"`);
    expect((await owner.get(`${BASE}/${e.id}`)).body.triggers).toBeNull();
  });

  test("a stale revision → 409 with the message above the form, the lines kept and the current revision to confirm against", async () => {
    const e = await draft("tf-stale");
    const current = (
      await owner.patch(`${BASE}/${e.id}`, { expectedRevision: e.revision, content: talentMd("tf-stale", { title: "Changed" }) })
    ).body.revision as number;
    expect(current).toBeGreaterThan(e.revision);
    const r = await formPost(env, owner, `${page(e.id)}?form=triggers`, {
      expectedRevision: String(e.revision),
      files: "src/**",
      keywords: "",
    });
    expect(r.status).toBe(409);
    expect(textOfId(r.html, "trigger-refused")).toContain(`The expertise is at revision ${current}, not ${e.revision}`);
    expect(r.html).toContain("src/**</textarea>");
    expect(r.html).toContain(`name="expectedRevision" value="${current}"`);
  });

  test("a good form → 303 to the page with the status cookie, the triggers confirmed; a member → 404; another site → 403", async () => {
    const e = await draft("tf-good");
    const fields = { expectedRevision: String(e.revision), files: "src/ledger/**", keywords: "Ledger" };
    expect((await formPost(env, owner, `${page(e.id)}?form=triggers`, fields, { origin: "https://evil.example" })).status).toBe(403);
    const member = await joinedMember(env, owner);
    expect((await formPost(env, member, `${page(e.id)}?form=triggers`, fields)).status).toBe(404);
    const r = await formPost(env, owner, `${page(e.id)}?form=triggers`, fields);
    expect([r.status, r.location]).toEqual([303, `${page(e.id)}?done=triggers`]);
    expect(r.setCookie ?? "").toContain("Max-Age=60");
    expect((await owner.get(`${BASE}/${e.id}`)).body.triggers).toEqual({ files: ["src/ledger/**"], keywords: ["ledger"] });
  });

  test("with htmx PUT …/triggers' 400 is the #flash fragment naming the line (files[1]) that app.js puts under the files", async () => {
    const e = await draft("tf-htmx");
    const r = await htmxForm(env, owner, "PUT", `${BASE}/${e.id}/triggers`, {
      expectedRevision: String(e.revision),
      files: "src/**\n/etc/passwd",
      keywords: "",
    });
    expect(r.status).toBe(400);
    expect(r.html).toContain('<li data-field="files[1]" data-message="&quot;/etc/passwd&quot; must be relative');
  });
});

describe("POST /org/expertises/:id?form=delete: the typed-slug deletion without JavaScript answers its card again on a wrong slug", () => {
  test("a wrong slug → 400 with the page, the problem under the field, what was typed kept; nothing deleted", async () => {
    const e = await draft("td-wrong");
    const r = await formPost(env, owner, `${page(e.id)}?form=delete`, { confirm: "td-wron" });
    expect(r.status).toBe(400);
    expect(r.html).toContain('id="delete-h"'); // the expertise page itself
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(textOfId(r.html, "confirm-name-error")).toBe('"td-wron" is not "td-wrong": type the expertise\'s name exactly');
    expect(r.html).toMatch(/<input id="confirm-name"[^>]* value="td-wron"[^>]* aria-invalid="true"/);
    expect((await owner.get(`${BASE}/${e.id}`)).status).toBe(200);
    const empty = await formPost(env, owner, `${page(e.id)}?form=delete`, { confirm: "" });
    expect([empty.status, textOfId(empty.html, "confirm-name-error")]).toEqual([400, 'type the expertise\'s name, "td-wrong"']);
  });

  test("the slug typed exactly → 303 to the list with the status cookie, the expertise gone; a member → 404; another site → 403", async () => {
    const e = await draft("td-right");
    expect(
      (await formPost(env, owner, `${page(e.id)}?form=delete`, { confirm: "td-right" }, { origin: "https://evil.example" })).status,
    ).toBe(403);
    const member = await joinedMember(env, owner);
    expect((await formPost(env, member, `${page(e.id)}?form=delete`, { confirm: "td-right" })).status).toBe(404);
    expect((await owner.get(`${BASE}/${e.id}`)).status).toBe(200);
    const r = await formPost(env, owner, `${page(e.id)}?form=delete`, { confirm: "td-right" });
    expect([r.status, r.location]).toEqual([303, "/org/expertises?done=deleted"]);
    expect(r.setCookie ?? "").toContain("Max-Age=60");
    expect((await owner.get(`${BASE}/${e.id}`)).status).toBe(404);
  });
});
