/**
 * The Keys tab's creation form (src/projects/pages/keys.tsx) over app.handle: posted without JavaScript to
 * `POST /projects/:id/keys`, a new key answers the tab itself with its value shown once (never a redirect that would lose
 * it), and the key works on the key API; a refused creation (bad name, no tools, bad expiry) answers the tab again (400,
 * not the error page) with what was typed and each problem under its field, nothing stored. With htmx the JSON route
 * still answers the #keys fragment or its refusal. Signed out, another organization's project, another site: no key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { joinedMember, orgWithProject, testEnv, withKey, type TestEnv, type WebClient, textOfId, formPost } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** Posts the creation form as a browser does without JavaScript (each checked tool a field of its own). */
const postKeyForm = (c: WebClient | null, path: string, fields: [string, string][], headers: Record<string, string> = {}) =>
  formPost(env, c, path, fields, headers);

const keysOf = async (c: WebClient, projectId: string) => (await c.get(`/web/projects/${projectId}/keys`)).body.keys as { name: string }[];

describe("POST /projects/:id/keys: the key creation form without JavaScript", () => {
  test("a new key → 200 with the Keys tab showing its value once (no-store), and the key works on the key API", async () => {
    const o = await orgWithProject(env, "Keys Created");
    const member = await joinedMember(env, o.owner);
    const r = await postKeyForm(member, `/projects/${o.project.id}/keys`, [
      ["name", "ci of payments"],
      ["tools", "validate"],
      ["tools", "doctor"],
      ["expiresAt", "2099-01-31"],
    ]);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.html).toContain('aria-current="page">Keys</a>');
    const value = /(svc_pk_[A-Za-z0-9_-]+)/.exec(r.html)?.[1];
    expect(value).toBeDefined();
    const keys = (await o.owner.get(`/web/projects/${o.project.id}/keys`)).body.keys;
    expect(keys.map((k: { name: string; tools: string[] }) => [k.name, k.tools])).toEqual([["ci of payments", ["validate", "doctor"]]]);
    expect((await withKey(env, value!, "/api/doctor")).status).toBe(200);
    // the tab opened again does not show it
    const again = await (
      await env.request(`/projects/${o.project.id}?tab=keys`, { headers: { cookie: member.cookie!, accept: "text/html" } })
    ).text();
    expect(again).not.toContain(value!);
  });

  test("no tools and an expiry in the past → 400 with the tab again: each problem under its field, what was typed kept, no key", async () => {
    const o = await orgWithProject(env, "Keys Refused");
    const r = await postKeyForm(o.owner, `/projects/${o.project.id}/keys`, [
      ["name", "nightly job"],
      ["expiresAt", "2001-01-01"],
    ]);
    expect(r.status).toBe(400);
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(r.html).toContain('aria-current="page">Keys</a>');
    expect(textOfId(r.html, "key-tools-error")).toStartWith("choose at least one of prepare_task");
    expect(textOfId(r.html, "key-expires-error")).toBe("must be in the future");
    expect(textOfId(r.html, "key-name-error")).toBeNull();
    expect(textOfId(r.html, "key-refused")).toBe("Not saved: fix the 2 fields marked below.");
    expect(r.html).toMatch(/<input id="key-name" name="name"[^>]*value="nightly job"/);
    expect(r.html).toMatch(/<input id="key-expires" name="expiresAt" type="date" value="2001-01-01"[^>]*aria-invalid="true"/);
    expect(r.html).not.toMatch(/name="tools" value="prepare_task" checked/); // the boxes as they were sent: none
    expect(await keysOf(o.owner, o.project.id)).toEqual([]);
  });

  test("a blank name and an unknown tool → 400, the name's problem under the name and the checked tools kept", async () => {
    const o = await orgWithProject(env, "Keys Blank");
    const r = await postKeyForm(o.owner, `/projects/${o.project.id}/keys`, [
      ["name", "   "],
      ["tools", "deepen"],
      ["tools", "rm_rf"],
    ]);
    expect(r.status).toBe(400);
    expect(textOfId(r.html, "key-name-error")).toBe("must not be empty: it is the only later means of identifying the key");
    expect(textOfId(r.html, "key-tools-error")).toStartWith("unknown scope(s) rm_rf");
    expect(r.html).toMatch(/name="tools" value="deepen" checked/);
    expect(r.html).not.toMatch(/name="tools" value="validate" checked/);
    expect(await keysOf(o.owner, o.project.id)).toEqual([]);
  });

  test("a name over 100 characters and an expiry that is no date → 400, each under its field", async () => {
    const o = await orgWithProject(env, "Keys Long");
    const r = await postKeyForm(o.owner, `/projects/${o.project.id}/keys`, [
      ["name", "x".repeat(101)],
      ["tools", "doctor"],
      ["expiresAt", "someday"],
    ]);
    expect(r.status).toBe(400);
    expect(textOfId(r.html, "key-name-error")).toBe("must be at most 100 characters");
    expect(textOfId(r.html, "key-expires-error")).toBe("must be an ISO 8601 timestamp");
    expect(await keysOf(o.owner, o.project.id)).toEqual([]);
  });

  test("with htmx the JSON route answers the #keys fragment with the value, and its refusal in #flash naming the field", async () => {
    const o = await orgWithProject(env, "Keys Htmx");
    const hx = { "hx-request": "true" };
    const ok = await postKeyForm(
      o.owner,
      `/web/projects/${o.project.id}/keys`,
      [
        ["name", "hx"],
        ["tools", "validate"],
      ],
      hx,
    );
    expect(ok.status).toBe(201);
    expect(ok.html).toStartWith('<section id="keys"');
    expect(ok.html).toMatch(/svc_pk_[A-Za-z0-9_-]+/);
    const refused = await postKeyForm(
      o.owner,
      `/web/projects/${o.project.id}/keys`,
      [
        ["name", "hx2"],
        ["tools", ""],
      ],
      hx,
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get("hx-retarget")).toBe("#flash");
    expect(refused.html).toContain('<li data-field="tools" data-message="choose at least one of');
    expect((await keysOf(o.owner, o.project.id)).map((k) => k.name)).toEqual(["hx"]);
  });

  test("signed out → sign-in; another organization's project and an unknown one → 404; another site → 403; no key made", async () => {
    const a = await orgWithProject(env, "Keys A");
    const b = await orgWithProject(env, "Keys B");
    const form: [string, string][] = [
      ["name", "sneaky"],
      ["tools", "validate"],
    ];
    const anon = await postKeyForm(null, `/projects/${a.project.id}/keys`, form);
    expect([anon.status, anon.location?.startsWith("/login")]).toEqual([303, true]);
    expect((await postKeyForm(a.owner, `/projects/${b.project.id}/keys`, form)).status).toBe(404);
    expect((await postKeyForm(a.owner, "/projects/prj_nope/keys", form)).status).toBe(404);
    const cross = await postKeyForm(a.owner, `/projects/${a.project.id}/keys`, form, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    for (const o of [a, b]) expect(await keysOf(o.owner, o.project.id)).toEqual([]);
  });
});
