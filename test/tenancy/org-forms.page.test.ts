/**
 * `POST /org/new` (src/tenancy/pages/org.tsx): the new-organization form without JavaScript, over app.handle. A refusal
 * answers the form again (400 or 409, not the error page) with what was typed and the problem under its field: a
 * taken short name (409), a bad one (400), no name (400); nothing is made. A good form → 303 to /org, the new
 * organization active. Signed out → sign-in; another site → 403. With htmx `POST /web/orgs`'s 409 names the field.
 * `POST /org/code-hosting` (the code hosting form without JavaScript) the same way: /org again with the problem under
 * its field, or a 303 back; a member gets the 404 page. `POST /org/invitations` (the invitation form): /org again with
 * the problem under the e-mail field (400 not an address, 409 already a member), or a 303 back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, joinedMember, makePlatformAdmin, orgWithProject, signedUp, testEnv, type TestEnv, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ AUTO_APPROVE_ORGS: "true" });
});
afterAll(() => env.close());

const orgsOf = async (c: Awaited<ReturnType<typeof signedUp>>) => (await c.get("/web/orgs")).body.organizations as { slug: string }[];

describe("POST /org/new: the new-organization form without JavaScript", () => {
  test("a taken short name → 409 with the form again, the problem under the short name, the name kept; nothing made", async () => {
    const first = await signedUp(env);
    expect((await first.post("/web/orgs", { name: "Taken Co", slug: "taken-co" })).status).toBe(201);
    const c = await signedUp(env);
    const r = await formPost(env, c, "/org/new", { name: "My Co", slug: "taken-co" });
    expect(r.status).toBe(409);
    expect(r.html).toContain('id="new-org-form"');
    expect(r.html).not.toContain("That clashes with what is there"); // not the error page
    expect(textOfId(r.html, "org-slug-error")).toBe('The slug "taken-co" is taken; choose another.');
    expect(textOfId(r.html, "org-name-error")).toBeNull();
    expect(r.html).toContain('value="My Co"');
    expect(r.html).toContain('value="taken-co"');
    expect(await orgsOf(c)).toEqual([]);
  });

  test("no name, a bad short name → 400, each under its field", async () => {
    const c = await signedUp(env);
    const noName = await formPost(env, c, "/org/new", { name: "  ", slug: "" });
    expect(noName.status).toBe(400);
    expect(textOfId(noName.html, "org-name-error")).toBe("Name is required (at most 100 characters)");
    const badSlug = await formPost(env, c, "/org/new", { name: "Bad Slug Co", slug: "Bad Slug" });
    expect(badSlug.status).toBe(400);
    expect(textOfId(badSlug.html, "org-slug-error")).toBe("invalid slug");
    expect(badSlug.html).toContain('value="Bad Slug Co"');
    expect(await orgsOf(c)).toEqual([]);
  });

  test("a good form → 303 to /org, the organization made and active; signed out → sign-in; another site → 403", async () => {
    const c = await signedUp(env);
    const cross = await formPost(env, c, "/org/new", { name: "Evil Co" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    const r = await formPost(env, c, "/org/new", { name: "Made Co", slug: "" });
    expect([r.status, r.location]).toEqual([303, "/org"]);
    const orgs = await c.get("/web/orgs");
    expect(orgs.body.organizations.map((o: { slug: string }) => o.slug)).toEqual(["made-co"]);
    expect(orgs.body.activeOrganizationId).toBe(orgs.body.organizations[0].id);
    const anon = await env.request("/org/new", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(env.config.baseUrl).origin, accept: "text/html" },
      body: "name=Anon",
      redirect: "manual",
    });
    expect([anon.status, anon.headers.get("location")?.startsWith("/login")]).toEqual([303, true]);
  });

  test("with htmx the JSON route's 409 is the #flash fragment naming the short name (app.js puts it under it)", async () => {
    const c = await signedUp(env);
    const r = await env.request("/web/orgs", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(env.config.baseUrl).origin,
        cookie: c.cookie!,
        "hx-request": "true",
      },
      body: new URLSearchParams({ name: "Again", slug: "taken-co" }).toString(),
    });
    expect(r.status).toBe(409);
    expect(await r.text()).toContain(
      '<p data-field="slug" data-message="The slug &quot;taken-co&quot; is taken; choose another.">The slug &quot;taken-co&quot; is taken; choose another.</p>',
    );
  });
});

describe("POST /org/code-hosting: the code hosting form without JavaScript", () => {
  test("a bad URL and branch → 400 with /org again, each problem under its field, what was typed kept; nothing saved", async () => {
    const o = await orgWithProject(env, "Hosting Refused");
    const r = await formPost(env, o.owner, "/org/code-hosting", {
      provider: "github",
      url: "ftp://example.com/acme",
      defaultBranch: "bad branch",
    });
    expect(r.status).toBe(400);
    expect(r.html).toContain('id="code-hosting-form"');
    expect(r.html).toContain('id="members-h"'); // the whole /org page, not the error page
    expect(textOfId(r.html, "ch-url-error")).toBe("must be an http(s) URL");
    expect(textOfId(r.html, "ch-branch-error")).toBe("must be a branch name");
    expect(textOfId(r.html, "ch-provider-error")).toBeNull();
    expect(r.html).toContain('value="ftp://example.com/acme"');
    expect(r.html).toContain('value="bad branch"');
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toBeNull();
  });

  test("a good form → 303 to /org with the status cookie; a member → the 404 page; another site → 403", async () => {
    const o = await orgWithProject(env, "Hosting Saved");
    const member = await joinedMember(env, o.owner);
    const fields = { provider: "gitlab", url: "https://gitlab.example.com/acme", defaultBranch: "trunk" };
    expect((await formPost(env, member, "/org/code-hosting", fields)).status).toBe(404);
    expect((await formPost(env, o.owner, "/org/code-hosting", fields, { origin: "https://evil.example" })).status).toBe(403);
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toBeNull();
    const r = await formPost(env, o.owner, "/org/code-hosting", fields);
    expect([r.status, r.location]).toEqual([303, "/org"]);
    expect(r.setCookie).toContain("talentd_status=");
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toMatchObject(fields);
  });
});

const invitationsOf = async (c: Awaited<ReturnType<typeof signedUp>>) =>
  (await c.get("/web/orgs/current/invitations")).body.invitations as { email: string; role: string }[];

describe("POST /org/invitations: the invitation form without JavaScript", () => {
  test("not an e-mail address → 400 with /org again, the problem under the e-mail field, what was typed kept; nothing sent", async () => {
    const o = await orgWithProject(env, "Invite Bad");
    const r = await formPost(env, o.owner, "/org/invitations", { email: "bob at example", role: "admin" });
    expect(r.status).toBe(400);
    expect(r.html).toContain('id="invitations"');
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(textOfId(r.html, "invite-email-error")).toBe("must be an e-mail address");
    expect(textOfId(r.html, "invite-refused")).toBe("Not saved: fix the field marked below.");
    expect(r.html).toMatch(/<input id="invite-email" name="email"[^>]*value="bob at example"[^>]*aria-invalid="true"/);
    expect(r.html).toContain('<option value="admin" selected="">admin</option>');
    expect(await invitationsOf(o.owner)).toEqual([]);
  });

  test("already a member → 409 with /org again, the problem under the e-mail field; no invitation", async () => {
    const o = await orgWithProject(env, "Invite Member");
    const member = await joinedMember(env, o.owner);
    const r = await formPost(env, o.owner, "/org/invitations", { email: member.email, role: "member" });
    expect(r.status).toBe(409);
    expect(textOfId(r.html, "invite-email-error")).toBe(`${member.email} is already a member.`);
    expect(r.html).toContain(`value="${member.email}"`);
    expect(await invitationsOf(o.owner)).toEqual([]);
  });

  test("a good form → 303 to /org with the status cookie, the invitation sent; a member → the 404 page; another site → 403", async () => {
    const o = await orgWithProject(env, "Invite Good");
    const member = await joinedMember(env, o.owner);
    const fields = { email: "carol@example.com", role: "admin" };
    expect((await formPost(env, member, "/org/invitations", fields)).status).toBe(404);
    expect((await formPost(env, o.owner, "/org/invitations", fields, { origin: "https://evil.example" })).status).toBe(403);
    expect(await invitationsOf(o.owner)).toEqual([]);
    const r = await formPost(env, o.owner, "/org/invitations", fields);
    expect([r.status, r.location]).toEqual([303, "/org"]);
    expect(r.setCookie).toContain("talentd_status=");
    expect((await invitationsOf(o.owner)).map((i) => [i.email, i.role])).toEqual([["carol@example.com", "admin"]]);
  });

  test("signed out → sign-in; an admin cannot invite an owner (403, no invitation)", async () => {
    const o = await orgWithProject(env, "Invite Anon");
    const anon = await env.request("/org/invitations", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(env.config.baseUrl).origin, accept: "text/html" },
      body: new URLSearchParams({ email: "x@example.com" }).toString(),
      redirect: "manual",
    });
    expect([anon.status, anon.headers.get("location")?.startsWith("/login")]).toEqual([303, true]);
    const admin = await joinedMember(env, o.owner);
    expect((await o.owner.patch(`/web/orgs/current/members/${admin.userId}`, { role: "admin" })).status).toBe(200);
    expect((await formPost(env, admin, "/org/invitations", { email: "x@example.com", role: "owner" })).status).toBe(403);
    expect(await invitationsOf(o.owner)).toEqual([]);
  });

  test("with htmx the JSON route's 409 is the #flash fragment naming the e-mail field (app.js puts it under it)", async () => {
    const o = await orgWithProject(env, "Invite Htmx");
    const member = await joinedMember(env, o.owner);
    const r = await htmxForm(env, o.owner, "POST", "/web/orgs/current/invitations", { email: member.email });
    expect(r.status).toBe(409);
    expect(r.headers.get("hx-retarget")).toBe("#flash");
    expect(r.html).toContain(
      `<p data-field="email" data-message="${member.email} is already a member.">${member.email} is already a member.</p>`,
    );
  });
});

describe("POST /admin/organizations/:id/reject|suspend: the typed-slug form without JavaScript", () => {
  const statusOf = async (id: string) =>
    (await env.database.client.execute({ sql: "SELECT status FROM organizations WHERE id = ?", args: [id] })).rows[0]!.status;

  test("a wrong slug → 400 with /admin again, that form open with what was typed and the problem under it; nothing changed", async () => {
    const o = await orgWithProject(env, "Stop Wrong");
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const r = await formPost(env, admin, `/admin/organizations/${o.org.id}/suspend`, { confirm: `${o.org.slug}x` });
    expect(r.status).toBe(400);
    expect(r.html).not.toContain("That did not work"); // not the error page
    const id = `confirm-suspend-${o.org.id}`;
    expect(textOfId(r.html, `${id}-error`)).toBe(`"${o.org.slug}x" is not "${o.org.slug}": type the organization's slug exactly`);
    expect(r.html).toMatch(new RegExp(`<input id="${id}"[^>]*value="${o.org.slug}x"[^>]*aria-invalid="true"`));
    expect(r.html).toMatch(/<details class="confirm" open="">/);
    expect(await statusOf(o.org.id)).toBe("approved");
    const empty = await formPost(env, admin, `/admin/organizations/${o.org.id}/suspend`, {});
    expect(empty.status).toBe(400);
    expect(textOfId(empty.html, `${id}-error`)).toBe(`type the organization's slug, "${o.org.slug}"`);
  });

  test("the slug typed exactly → 303 to /admin with the status cookie, suspended; a non-admin → 404, another site → 403, an unknown operation → 404", async () => {
    const o = await orgWithProject(env, "Stop Right");
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const path = `/admin/organizations/${o.org.id}/suspend`;
    expect((await formPost(env, o.owner, path, { confirm: o.org.slug })).status).toBe(404);
    expect((await formPost(env, admin, path, { confirm: o.org.slug }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await formPost(env, admin, `/admin/organizations/${o.org.id}/approve`, { confirm: o.org.slug })).status).toBe(404);
    expect((await formPost(env, admin, "/admin/organizations/org_nope/suspend", { confirm: "x" })).status).toBe(404);
    expect(await statusOf(o.org.id)).toBe("approved");
    const r = await formPost(env, admin, path, { confirm: o.org.slug });
    expect([r.status, r.location]).toEqual([303, "/admin"]);
    expect(r.setCookie).toContain("talentd_status=");
    expect(await statusOf(o.org.id)).toBe("suspended");
  });
});
