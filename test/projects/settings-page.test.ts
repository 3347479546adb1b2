/**
 * The Settings tab's form (src/projects/pages/settings.tsx) on its failure paths, over app.handle: posted without
 * JavaScript to `POST /projects/:id?tab=settings`, a refused save answers the tab again (400, not the error page) with
 * what was typed and each problem under its field, nothing saved; with htmx the JSON route's refusal is the #flash
 * fragment naming the field (app.js puts it under it). Signed out, another organization's project, an unknown one, another
 * site: nothing changes. The new-project form (`POST /projects/new`, pages/newProject.tsx) the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, joinedMember, orgWithProject, testEnv, type TestEnv, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const FORM = { name: "Renamed", description: "A description", repository: "group/payments", contextBudget: "4000" };

describe("POST /projects/:id?tab=settings: the Settings form without JavaScript", () => {
  test("a bad repository and context budget → 400 with the tab again: each problem under its field, what was typed kept, nothing saved", async () => {
    const o = await orgWithProject(env, "Settings Refused");
    const r = await formPost(env, o.owner, `/projects/${o.project.id}?tab=settings`, {
      ...FORM,
      repository: "../elsewhere",
      contextBudget: "12",
    });
    expect(r.status).toBe(400);
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(r.html).toContain('aria-current="page">Settings</a>');
    expect(textOfId(r.html, "p-repo-error")).toBe("Repository must be a path such as payments-api or group/repo");
    expect(textOfId(r.html, "p-budget-error")).toBe("must be a whole number of tokens from 500 to 200000, or null for the default");
    expect(textOfId(r.html, "p-name-error")).toBeNull();
    expect(textOfId(r.html, "settings-refused")).toBe("Not saved: fix the 2 fields marked below.");
    expect(r.html).toMatch(
      /<input id="p-repo" name="repository"[^>]*value="\.\.\/elsewhere"[^>]*aria-describedby="p-repo-help p-repo-error" aria-invalid="true"/,
    );
    expect(r.html).toContain('value="Renamed"');
    expect(r.html).toContain('value="12"');
    const saved = (await o.owner.get(`/web/projects/${o.project.id}`)).body.project;
    expect([saved.name, saved.repository]).toEqual([o.project.name, null]);
  });

  test("an empty name → 400 with the problem under the name", async () => {
    const o = await orgWithProject(env, "Settings Empty Name");
    const r = await formPost(env, o.owner, `/projects/${o.project.id}?tab=settings`, { ...FORM, name: "   " });
    expect(r.status).toBe(400);
    expect(textOfId(r.html, "p-name-error")).toBe("Name is required (at most 100 characters)");
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).body.project.name).toBe(o.project.name);
  });

  test("a good save → 303 back to the Settings tab with the status cookie, saved as PATCH would (an empty repository and budget: none, the default)", async () => {
    const o = await orgWithProject(env, "Settings Saved");
    const member = await joinedMember(env, o.owner);
    const r = await formPost(env, member, `/projects/${o.project.id}?tab=settings`, { ...FORM, repository: "", contextBudget: "" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/projects/${o.project.id}?tab=settings`);
    expect(r.setCookie).toContain("talentd_status=");
    const saved = (await o.owner.get(`/web/projects/${o.project.id}`)).body.project;
    expect(saved).toMatchObject({ name: "Renamed", description: "A description", repository: null });
  });

  test("the status line names the project: renamed without JavaScript says from what to what; a save with htmx names it", async () => {
    const o = await orgWithProject(env, "Settings Named");
    const said = (setCookie: string | null) =>
      Buffer.from(/talentd_status=([^.;]+)\./.exec(setCookie ?? "")![1]!, "base64url").toString("utf8");
    const renamed = await formPost(env, o.owner, `/projects/${o.project.id}?tab=settings`, { ...FORM, name: "checkout-web" });
    expect(said(renamed.setCookie)).toBe(`Project “${o.project.name}” renamed to “checkout-web”`);
    const again = await formPost(env, o.owner, `/projects/${o.project.id}?tab=settings`, { ...FORM, name: "checkout-web" });
    expect(said(again.setCookie)).toBe("Project “checkout-web” saved");
    const hx = await htmxForm(env, o.owner, "PATCH", `/web/projects/${o.project.id}`, { description: "Changed" });
    expect(hx.status).toBe(204);
    expect(said(hx.headers.get("set-cookie"))).toBe("Project “checkout-web” saved");
  });

  test("with htmx the JSON route's refusal is the #flash fragment naming the field", async () => {
    const o = await orgWithProject(env, "Settings Htmx");
    const r = await htmxForm(env, o.owner, "PATCH", `/web/projects/${o.project.id}`, { ...FORM, contextBudget: "12" });
    expect(r.status).toBe(400);
    expect(r.headers.get("hx-retarget")).toBe("#flash");
    expect(r.html).toContain('<li data-field="contextBudget" data-message="must be a whole number');
  });

  test("signed out → sign-in; another organization's project and an unknown one → 404; another site → 403; nothing changes", async () => {
    const a = await orgWithProject(env, "Settings A");
    const b = await orgWithProject(env, "Settings B");
    const anon = await env.request(`/projects/${a.project.id}?tab=settings`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(env.config.baseUrl).origin, accept: "text/html" },
      body: new URLSearchParams(FORM).toString(),
      redirect: "manual",
    });
    expect([anon.status, anon.headers.get("location")?.startsWith("/login")]).toEqual([303, true]);
    expect((await formPost(env, a.owner, `/projects/${b.project.id}?tab=settings`, FORM)).status).toBe(404);
    expect((await formPost(env, a.owner, "/projects/prj_nope?tab=settings", FORM)).status).toBe(404);
    const cross = await formPost(env, a.owner, `/projects/${a.project.id}?tab=settings`, FORM, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    for (const o of [a, b]) expect((await o.owner.get(`/web/projects/${o.project.id}`)).body.project.name).toBe(o.project.name);
  });
});

describe("POST /projects/:id?tab=settings&form=delete: the typed-name deletion without JavaScript", () => {
  test("a wrong name → 400 with the Settings tab again, the problem under the field and what was typed kept; nothing deleted", async () => {
    const o = await orgWithProject(env, "Delete Refused");
    const path = `/projects/${o.project.id}?tab=settings&form=delete`;
    const r = await formPost(env, o.owner, path, { confirm: `${o.project.name}x` });
    expect(r.status).toBe(400);
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(r.html).toContain('aria-current="page">Settings</a>');
    expect(textOfId(r.html, "confirm-name-error")).toBe(`"${o.project.name}x" is not "${o.project.name}": type the project's name exactly`);
    expect(r.html).toContain(`value="${o.project.name}x"`);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
  });

  test("the name typed exactly → 303 to / with the status cookie, the project gone; a member → 403, another site → 403, nothing deleted", async () => {
    const o = await orgWithProject(env, "Delete Accepted");
    const path = `/projects/${o.project.id}?tab=settings&form=delete`;
    const member = await joinedMember(env, o.owner);
    expect((await formPost(env, member, path, { confirm: o.project.name })).status).toBe(403);
    expect((await formPost(env, o.owner, path, { confirm: o.project.name }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
    const r = await formPost(env, o.owner, path, { confirm: o.project.name });
    expect([r.status, r.location]).toEqual([303, "/"]);
    expect(r.setCookie ?? "").toContain("Max-Age=60");
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(404);
  });
});

describe("POST /projects/new: the new-project form without JavaScript", () => {
  test("a bad repository and an empty name → 400 with the page again, each problem under its field, what was typed kept, no project made", async () => {
    const o = await orgWithProject(env, "New Refused");
    const r = await formPost(env, o.owner, "/projects/new", { name: " ", description: "Typed", repository: "a b" });
    expect(r.status).toBe(400);
    expect(r.html).toContain('id="new-project-form"');
    expect(textOfId(r.html, "name-error")).toBe("Name is required (at most 100 characters)");
    expect(textOfId(r.html, "repository-error")).toBe("Repository must be a path such as payments-api or group/repo");
    expect(textOfId(r.html, "description-error")).toBeNull();
    expect(r.html).toContain('value="Typed"');
    expect(r.html).toContain('value="a b"');
    expect((await o.owner.get("/web/projects")).body.projects).toHaveLength(1);
  });

  test("a good form → 303 to the new project's onboarding with the status cookie; another site → 403, nothing made", async () => {
    const o = await orgWithProject(env, "New Made");
    const cross = await formPost(env, o.owner, "/projects/new", { name: "Evil" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    const r = await formPost(env, o.owner, "/projects/new", { name: "Made without JS", description: "", repository: "group/made" });
    expect(r.status).toBe(303);
    const made = ((await o.owner.get("/web/projects")).body.projects as { id: string; name: string; repository: string }[]).find(
      (p) => p.name === "Made without JS",
    );
    expect(made?.repository).toBe("group/made");
    expect(r.location).toBe(`/projects/${made!.id}/onboarding`);
    expect(r.setCookie).toContain("talentd_status=");
    expect((await o.owner.get("/web/projects")).body.projects).toHaveLength(2);
  });
});
