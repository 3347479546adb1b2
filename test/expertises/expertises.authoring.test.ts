/**
 * Authoring an expertise without friction: triggers written in the front matter count as
 * confirmed, "publish and serve" is one request (the agent loop serves the expertise right after
 * it), the page shows the version as written and publication only while there is something to
 * publish, and the creation form (without JavaScript) takes the slug as the template's id and
 * answers a taken slug beside the slug field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, formPost, orgWithProject, talentMd, testEnv, withKey, type TestEnv, type WebClient } from "../helpers";
import { starterContent } from "../../src/expertises/views/list";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const BASE = "/web/orgs/current/expertises";

/** A form post as a browser without JavaScript sends it (same origin unless told). */
const form = (c: WebClient, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  formPost(env, c, path, fields, headers);

async function html(c: WebClient, path: string): Promise<string> {
  const r = await c.call("GET", path, undefined, { accept: "text/html" });
  expect(r.status).toBe(200);
  return r.text();
}

/** The labels of the lifecycle section's buttons, in order. */
function lifecycleButtons(page: string): string[] {
  const section = page.slice(page.indexOf('id="lifecycle"'), page.indexOf("</section>", page.indexOf('id="lifecycle"')));
  return [...section.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]!.trim());
}

let acme: Awaited<ReturnType<typeof orgWithProject>>;
beforeAll(async () => {
  acme = await orgWithProject(env, "Authoring Org");
});

describe("triggers written in the front matter are taken as confirmed", () => {
  test("a draft whose front matter declares triggers is publishable without a separate confirmation; its version carries them", async () => {
    const content = talentMd("fm-triggers", { triggers: '{ files: ["src/ledger/**"], keywords: [ledger] }' });
    const e = (await acme.owner.post(BASE, { slug: "fm-triggers", content })).body;
    expect(e.verification).toMatchObject({ triggersConfirmed: true, triggersFrom: "front matter", publishable: true });
    expect(e.triggers).toBeNull();
    const pub = await acme.owner.post(`${BASE}/${e.id}/publish`);
    expect(pub.status).toBe(200);
    expect(pub.body.versions[0].triggers).toEqual({ files: ["src/ledger/**"], keywords: ["ledger"] });
    // a set confirmed by hand takes precedence over the front matter's
    await acme.owner.put(`${BASE}/${e.id}/triggers`, { keywords: ["books"] });
    const d = (await acme.owner.get(`${BASE}/${e.id}`)).body;
    expect(d.verification.triggersFrom).toBe("confirmed");
    expect(d.unpublishedChanges).toBe(true);
  });
});

describe("publish and serve in one step", () => {
  test("POST …/publish {serve: true}: published and active in one request; the agent loop serves it right after; nothing left to publish", async () => {
    const key = (await createKey(acme.owner, acme.project.id, ["prepare_task", "install"])).value;
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await withKey(env, key, path, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, body: await r.json() };
    };
    const e = (await acme.owner.post(BASE, { slug: "one-click", content: talentMd("one-click") })).body;
    const pub = await acme.owner.post(`${BASE}/${e.id}/publish`, { serve: true, expectedRevision: 1 });
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ status: "active", serving: 1, published: { version: 1, created: true }, unpublishedChanges: false });
    const ref = `@${acme.org.slug}/one-click`;
    expect((await api("PATCH", "/api/projects/current/talents", { talent: ref })).body.installed).toEqual([ref]);
    const prepared = await api("POST", "/api/prepare-task", { talentIds: [ref] });
    expect(prepared.status).toBe(201);
    expect(prepared.body.talents[0]).toMatchObject({ id: ref, kind: "expertise", version: "1" });
    // without serve, a publication of an inactive expertise stays unserved; serve reactivates it
    await acme.owner.post(`${BASE}/${e.id}/deactivate`);
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: talentMd("one-click", {}, "Now better.") });
    const edited = (await acme.owner.get(`${BASE}/${e.id}`)).body;
    expect(edited.unpublishedChanges).toBe(true);
    const again = await acme.owner.post(`${BASE}/${e.id}/publish`, { serve: "true" });
    expect(again.body).toMatchObject({ status: "active", serving: 2 });
    expect((await api("POST", "/api/prepare-task", { talentIds: [ref] })).body.talents[0].version).toBe("2");
    // serve on what is already published and inactive: no new version, served again
    await acme.owner.post(`${BASE}/${e.id}/deactivate`);
    const same = await acme.owner.post(`${BASE}/${e.id}/publish`, { serve: true });
    expect(same.body).toMatchObject({ status: "active", published: { version: 2, created: false } });
    expect((await acme.owner.post(`${BASE}/${e.id}/publish`, { serve: "maybe" })).status).toBe(400);
  });

  test("the page: 'Publish and serve' is the main button of a draft (with 'Publish only' beside it); after it the main button is no longer 'Publish revision N'; the version shows as written", async () => {
    const e = (await acme.owner.post(BASE, { slug: "page-serve", content: talentMd("page-serve") })).body;
    expect(lifecycleButtons(await html(acme.owner, `/org/expertises/${e.id}`))).toEqual(["Publish and serve", "Publish only"]);
    const r = await form(acme.owner, `${BASE}/${e.id}/publish`, {
      expectedRevision: "1",
      serve: "true",
      return: `/org/expertises/${e.id}`,
    });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/org/expertises/${e.id}?done=served`);
    const after = await html(acme.owner, r.location!);
    // the status line says what was done: carried by the status cookie, not by the address
    expect(after).not.toContain("Published and served");
    const carried = `${acme.owner.cookie}; ${r.setCookie!.split(";")[0]}`;
    const shown = await (await env.request(r.location!, { headers: { accept: "text/html", cookie: carried } })).text();
    expect(shown).toContain("Published and served");
    expect(lifecycleButtons(after)).toEqual(["Deactivate"]);
    expect(after).toContain("serving version 1.0.0 (publication 1)");
    expect(after).toContain("nothing new to publish");
    // the list shows the version as written too
    const item = (await acme.owner.get(BASE)).body.expertises.find((x: { id: string }) => x.id === e.id);
    expect(item).toMatchObject({ serving: 1, publishedDeclaredVersion: "1.0.0" });
    const list = await html(acme.owner, "/org/expertises");
    const row = list.slice(list.indexOf(`/org/expertises/${e.id}`));
    expect(row.slice(0, row.indexOf("</tr>"))).toMatch(/<td[^>]*>1\.0\.0<\/td>/);
    // an unpublished edit brings the publication back
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: talentMd("page-serve", {}, "Changed.") });
    expect(lifecycleButtons(await html(acme.owner, `/org/expertises/${e.id}`))).toEqual(["Publish revision 2", "Deactivate"]);
    // published, not served: activate stays available on its own
    const p = (await acme.owner.post(BASE, { slug: "page-only", content: talentMd("page-only") })).body;
    await acme.owner.post(`${BASE}/${p.id}/publish`);
    expect(lifecycleButtons(await html(acme.owner, `/org/expertises/${p.id}`))).toEqual(["Activate"]);
  });
});

describe("the creation form without JavaScript", () => {
  test("the template's id follows the slug on the server: the draft's TALENT.md says id: <slug> and passes the id check", async () => {
    const r = await form(acme.owner, "/org/expertises", { slug: "api-errors", content: starterContent() });
    expect(r.status).toBe(303);
    const id = /\/org\/expertises\/(exp_\w+)\?done=created/.exec(r.location ?? "")?.[1];
    expect(id).toBeDefined();
    const d = (await acme.owner.get(`${BASE}/${id}`)).body;
    expect(d.working.content).toContain("\nid: api-errors\n");
    expect(d.verification.issues.map((i: { path: string }) => i.path)).not.toContain(`@${acme.org.slug}/api-errors/TALENT.md: id`);
    // an id the author wrote is theirs: never rewritten
    const own = await form(acme.owner, "/org/expertises", { slug: "api-errors-2", content: starterContent("other-id") });
    const ownId = /(exp_\w+)/.exec(own.location ?? "")![1];
    expect((await acme.owner.get(`${BASE}/${ownId}`)).body.working.content).toContain("\nid: other-id\n");
  });

  test("a taken slug → 409 page with the error beside the slug field (not above the list), the typed text kept; a cross-site post → 403", async () => {
    const typed = starterContent("api-errors").replace("The compact guidance", "My own words. The compact guidance");
    const r = await form(acme.owner, "/org/expertises", { slug: "api-errors", content: typed });
    expect(r.status).toBe(409);
    const create = r.html.slice(r.html.indexOf('id="create"'));
    const slugField = create.indexOf('id="new-slug"');
    const problem = create.indexOf('id="new-slug-error"');
    expect(slugField).toBeGreaterThan(0);
    expect(problem).toBeGreaterThan(slugField);
    expect(problem).toBeLessThan(create.indexOf('id="new-content"'));
    expect(create.slice(problem, problem + 300)).toContain("already exists");
    expect(r.html.slice(0, r.html.indexOf('id="create"'))).not.toContain("already exists");
    expect(create).toContain("My own words.");
    expect(create).toContain('aria-describedby="new-slug-help new-slug-error"');
    const bad = await form(acme.owner, "/org/expertises", { slug: "Bad Slug", content: "x" });
    expect(bad.status).toBe(400);
    expect(bad.html.slice(bad.html.indexOf('id="new-slug-error"'))).toContain("not a valid slug");
    const cross = await form(acme.owner, "/org/expertises", { slug: "cross-site", content: "x" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
  });
});
