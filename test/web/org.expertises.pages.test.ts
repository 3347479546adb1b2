/**
 * The organization's expertise, insights and adoption pages on their failure paths, as HTML (the journeys are in
 * org.expertises.browser.test.ts): organization rule 2 ("Expertise responses … require owner or admin
 * role. A resource of another organization is hidden as 404") as the 404 page; a signed-out
 * visitor goes to /login; the editor's save follows organization rule 3 (a stale expected revision →
 * 409 with the server version, here as the page with both texts) and the CSRF rule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expertiseMd, formPost, joinedMember, orgWithProject, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function page(c: WebClient, path: string) {
  const r = await c.call("GET", path, undefined, { accept: "text/html" });
  return { status: r.status, type: r.headers.get("content-type") ?? "", location: r.headers.get("location"), html: await r.text() };
}

/** Posts the editor's form as a browser would (form-encoded, same origin unless told). */
const saveForm = (c: WebClient, id: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  formPost(env, c, `/org/expertises/${id}`, fields, headers);

describe("the organization's pages on their failure paths", () => {
  test("organization rule 2: another organization's expertise, an unknown one, and every page for a member → the 404 page in HTML, nothing of the expertise", async () => {
    const a = await orgWithProject(env, "Alpha Pages");
    const b = await orgWithProject(env, "Beta Pages");
    const created = await a.owner.post("/web/orgs/current/expertises", {
      slug: "hidden-rules",
      content: expertiseMd("hidden-rules", "Secret body."),
    });
    const id = created.body.id as string;
    for (const path of [`/org/expertises/${id}`, "/org/expertises/exp_nope"]) {
      const p = await page(b.owner, path);
      expect(`${path} ${p.status}`).toBe(`${path} 404`);
      expect(p.type).toContain("text/html");
      expect(p.html).toContain("Not found");
      expect(p.html).not.toContain("hidden-rules");
    }
    const member = await joinedMember(env, a.owner);
    for (const path of ["/org/expertises", `/org/expertises/${id}`, "/org/insights", "/org/talent-adoption"]) {
      const p = await page(member, path);
      expect(`${path} ${p.status}`).toBe(`${path} 404`);
      expect(p.html).not.toContain("hidden-rules");
    }
    const save = await saveForm(member, id, { expectedRevision: "1", content: "x", fileCount: "0" });
    expect(save.status).toBe(404);
    expect((await a.owner.get(`/web/orgs/current/expertises/${id}`)).body.revision).toBe(1);
  });

  test("a signed-out visitor of an organization page is sent to /login?next=<the page>", async () => {
    const anon = new WebClient(env);
    for (const path of ["/org/expertises", "/org/insights", "/org/talent-adoption"]) {
      const p = await page(anon, path);
      expect(p.status).toBe(303);
      expect(p.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  test("organization rule 3: the editor saves with the expected revision (303 back); a stale one → the 409 page with the person's text and the server's, nothing overwritten; a cross-site post → 403 csrf_rejected; a bad path → 400 with the typed text kept", async () => {
    const a = await orgWithProject(env, "Gamma Pages");
    const created = await a.owner.post("/web/orgs/current/expertises", { slug: "edits", content: "first" });
    const id = created.body.id as string;
    const ok = await saveForm(a.owner, id, {
      expectedRevision: "1",
      content: "second",
      fileCount: "1",
      fpath_0: "notes.md",
      ftext_0: "a note",
    });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/org/expertises/${id}?done=saved`);
    const now = (await a.owner.get(`/web/orgs/current/expertises/${id}`)).body;
    expect(now.working).toEqual({ content: "second", files: { "notes.md": "a note" } });
    expect(now.revision).toBe(2);

    const stale = await saveForm(a.owner, id, { expectedRevision: "1", content: "mine, from an old tab", fileCount: "0" });
    expect(stale.status).toBe(409);
    expect(stale.html).toContain("Someone saved this expertise since you opened it");
    expect(stale.html).toContain("mine, from an old tab");
    expect(stale.html).toMatch(/id="server-content"[^>]*readonly[^>]*>second</);
    expect(stale.html).toContain('name="expectedRevision" value="2"');
    expect((await a.owner.get(`/web/orgs/current/expertises/${id}`)).body.working.content).toBe("second");

    const cross = await saveForm(
      a.owner,
      id,
      { expectedRevision: "2", content: "evil", fileCount: "0" },
      { origin: "http://evil.example" },
    );
    expect(cross.status).toBe(403);
    const bad = await saveForm(a.owner, id, {
      expectedRevision: "2",
      content: "kept text",
      fileCount: "1",
      fpath_0: "../out.md",
      ftext_0: "x",
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("files.../out.md");
    expect(bad.html).toContain("kept text");
    expect((await a.owner.get(`/web/orgs/current/expertises/${id}`)).body.revision).toBe(2);
  });

  test("/org/talent-adoption sorts on the server: ?sort=talent&order=asc by id, the header says aria-sort; an unknown column falls back to designations", async () => {
    const a = await orgWithProject(env, "Delta Pages");
    await a.owner.post(`/web/projects/${a.project.id}/talents`, { talents: ["typescript-strict", "javascript-base", "sql-base"] });
    const asc = await page(a.owner, "/org/talent-adoption?sort=talent&order=asc");
    expect(asc.status).toBe(200);
    const ids = [...asc.html.matchAll(/<td[^>]*><a href="[^"]+"><code>([^<]+)<\/code>/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids).toEqual([...ids].sort());
    expect(asc.html).toMatch(/<th scope="col" aria-sort="ascending"><a href="[^"]*sort=talent&amp;order=desc"/);
    const desc = await page(a.owner, "/org/talent-adoption?sort=talent&order=desc");
    const idsDesc = [...desc.html.matchAll(/<td[^>]*><a href="[^"]+"><code>([^<]+)<\/code>/g)].map((m) => m[1]!);
    expect(idsDesc).toEqual([...ids].reverse());
    const fallback = await page(a.owner, "/org/talent-adoption?sort=nope");
    expect(fallback.html).toMatch(/aria-sort="descending"><a href="[^"]*sort=designations/);
  });

  test("the dashboard's trigger form (form-encoded, one entry per line) confirms lists; the same strings in JSON stay a 400", async () => {
    const a = await orgWithProject(env, "Epsilon Pages");
    const id = (await a.owner.post("/web/orgs/current/expertises", { slug: "lines", content: expertiseMd("lines", "Body.") })).body
      .id as string;
    const r = await env.request(`/web/orgs/current/expertises/${id}/triggers`, {
      method: "PUT",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "hx-request": "true",
        origin: new URL(env.config.baseUrl).origin,
        cookie: a.owner.cookie!,
      },
      body: new URLSearchParams({
        expectedRevision: "1",
        files: "src/payments/**\r\n\r\n**/*.sql",
        keywords: "Payment\nledger",
      }).toString(),
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("hx-redirect")).toBe(`/org/expertises/${id}?done=triggers`);
    expect((await a.owner.get(`/web/orgs/current/expertises/${id}`)).body.triggers).toEqual({
      files: ["src/payments/**", "**/*.sql"],
      keywords: ["payment", "ledger"],
    });
    expect((await a.owner.put(`/web/orgs/current/expertises/${id}/triggers`, { files: "src/**" })).status).toBe(400);
  });
});
