/**
 * The dashboard's small promises, each over app.handle: what a status line says (a first automation key
 * replaces nothing; a deleted project is named), one wording of an expertise's version on its sheet and in
 * its editor, an HTML error page for a page's bad query, an htmx read answered with its JSON, project names
 * unique within an organization (409 under the name field, on create and rename, with and without
 * JavaScript), and no "Leave" button for the only owner.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, orgWithProject, publishedExpertise, testEnv, type TestEnv, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const html = async (c: { cookie: string | null }, path: string) =>
  env.request(path, { headers: { cookie: c.cookie!, accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });

describe("status lines", () => {
  test("the first automation key does not say a previous one stopped working; a rotation does", async () => {
    const o = await orgWithProject(env, "Status Automation");
    const first = await htmxForm(env, o.owner, "POST", `/web/projects/${o.project.id}/token`, {});
    expect(first.status).toBe(201);
    expect(first.html).toContain("Automation key created — copy it now");
    expect(first.html).not.toContain("no longer works");
    const second = await htmxForm(env, o.owner, "POST", `/web/projects/${o.project.id}/token`, {});
    expect(second.html).toContain("Automation key created — copy it now; the previous one no longer works");
  });

  test("a deleted project's status line names it (htmx and the form without JavaScript)", async () => {
    const o = await orgWithProject(env, "Status Deleted");
    const r = await htmxForm(env, o.owner, "DELETE", `/web/projects/${o.project.id}`, { confirm: o.project.name });
    expect(r.status).toBe(204);
    const status = r.headers.getSetCookie().find((c) => c.startsWith("talentd_status="))!;
    const other = (await o.owner.post("/web/projects", { name: "Second of Status Deleted" })).body.project;
    const form = await formPost(env, o.owner, `/projects/${other.id}?tab=settings&form=delete`, { confirm: other.name });
    expect(form.status).toBe(303);
    for (const cookie of [status, form.setCookie!]) {
      const page = await env.request("/", { headers: { cookie: `${o.owner.cookie}; ${cookie.split(";")[0]}`, accept: "text/html" } });
      expect(await page.text()).toMatch(/The project “(Status Deleted project|Second of Status Deleted)” was deleted/);
    }
  });
});

test("an expertise's version reads the same on its catalog sheet and in its editor: 1.0.0 (publication 1)", async () => {
  const o = await orgWithProject(env, "Versions Same");
  const { id, ref } = await publishedExpertise(o.owner, o.org.slug, "ledger");
  const sheet = await (await html(o.owner, `/catalog/${ref}`)).text();
  const editor = await (await html(o.owner, `/org/expertises/${id}`)).text();
  expect(sheet).toContain("version 1.0.0 (publication 1)");
  expect(editor).toContain("version 1.0.0 (publication 1)");
});

test("a page's bad query (/org/insights?days=abc) is an HTML error page saying the problem in words, never raw JSON", async () => {
  const o = await orgWithProject(env, "Insights Days");
  const r = await html(o.owner, "/org/insights?days=abc");
  expect(r.status).toBe(400);
  expect(r.headers.get("content-type")).toStartWith("text/html");
  const text = await r.text();
  expect(text).toContain("<h1>That did not work</h1>");
  expect(text).toContain("must be a whole number from 1 to 90");
});

test("an htmx GET of a /web route without a fragment (GET /web/projects) answers its JSON, never an empty 204 with HX-Refresh", async () => {
  const o = await orgWithProject(env, "Htmx Read");
  const r = await o.owner.call("GET", "/web/projects", undefined, { "hx-request": "true" });
  expect(r.status).toBe(200);
  expect(r.headers.get("hx-refresh")).toBeNull();
  expect((await r.json()).projects.map((p: { name: string }) => p.name)).toEqual([o.project.name]);
});

describe("project names are unique within an organization", () => {
  test("create and rename to a name another project has (whatever its case) → 409 conflict naming the field; another organization may use it", async () => {
    const o = await orgWithProject(env, "Unique Names");
    const dup = await o.owner.post("/web/projects", { name: ` ${o.project.name.toUpperCase()} ` });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: "conflict", field: "name" });
    expect(dup.body.message).toContain("already exists in this organization");
    const other = (await o.owner.post("/web/projects", { name: "Another one" })).body.project;
    const rename = await o.owner.patch(`/web/projects/${other.id}`, { name: o.project.name });
    expect(rename.status).toBe(409);
    expect(rename.body.field).toBe("name");
    expect((await o.owner.patch(`/web/projects/${other.id}`, { name: "Another one", description: "same name kept" })).status).toBe(200);
    const elsewhere = await orgWithProject(env, "Unique Names Elsewhere");
    expect((await elsewhere.owner.post("/web/projects", { name: o.project.name })).status).toBe(201);
  });

  test("with htmx the refusal names the field (app.js shows it under it); without JavaScript the form again, the problem under the name", async () => {
    const o = await orgWithProject(env, "Unique Forms");
    const h = await htmxForm(env, o.owner, "POST", "/web/projects", { name: o.project.name });
    expect(h.status).toBe(409);
    expect(h.html).toContain('data-field="name"');
    const created = await formPost(env, o.owner, "/projects/new", { name: o.project.name, description: "", repository: "" });
    expect(created.status).toBe(409);
    expect(textOfId(created.html, "name-error")).toContain("already exists in this organization");
    const other = (await o.owner.post("/web/projects", { name: "Unique Forms other" })).body.project;
    const renamed = await formPost(env, o.owner, `/projects/${other.id}?tab=settings`, {
      name: o.project.name,
      description: "",
      repository: "",
      contextBudget: "",
    });
    expect(renamed.status).toBe(409);
    expect(textOfId(renamed.html, "p-name-error")).toContain("already exists in this organization");
  });
});

test("“Leave <org>” is not offered to the only owner (the server refuses it with 409 last_owner); it is once another owner exists", async () => {
  const o = await orgWithProject(env, "Last Owner");
  const page = await (await html(o.owner, "/org")).text();
  expect(page).not.toContain("Leave Last Owner");
  expect(page).toContain("data-last-owner");
  expect((await o.owner.del(`/web/orgs/current/members/${o.owner.userId}`)).body.error).toBe("last_owner");
});
