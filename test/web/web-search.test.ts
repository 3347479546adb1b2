/**
 * `GET /web/search?q=` (the command palette, docs/api.md "Pages"): its failure paths and its isolation.
 * No session → 401 unauthenticated; a query over 200 characters → 400 validation_failed naming
 * `q`; another organization's projects, expertises and specializations never appear; a pending
 * organization searches nothing but the person's organizations.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  joinedMember,
  makePlatformAdmin,
  orgWithProject,
  publishedExpertise,
  signedUp,
  testEnv,
  WebClient,
  type TestEnv,
} from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("GET /web/search", () => {
  test("no session → 401 unauthenticated (JSON and htmx alike)", async () => {
    const anon = new WebClient(env);
    expect((await anon.get("/web/search?q=a")).status).toBe(401);
    expect((await anon.get("/web/search?q=a")).body.error).toBe("unauthenticated");
    expect((await anon.call("GET", "/web/search?q=a", undefined, { "hx-request": "true" })).status).toBe(401);
  });

  test("a query over 200 characters → 400 validation_failed with issues [{path: q}]", async () => {
    const a = await orgWithProject(env, "Searchers");
    const r = await a.owner.get(`/web/search?q=${"x".repeat(201)}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    expect(r.body.issues[0].path).toBe("q");
  });

  test("B never finds A's project, expertise or specialization; A finds its own", async () => {
    const a = await orgWithProject(env, "Nu");
    const b = await orgWithProject(env, "Xi");
    const { ref } = await publishedExpertise(a.owner, a.org.slug, "nu-secret");
    expect((await a.owner.post("/web/specializations", { name: "Nu stack", talents: ["go-base"] })).status).toBe(201);
    const mine = (await a.owner.get(`/web/search?q=nu`)).body.items
      .map((i: { id: string; label: string }) => `${i.id} ${i.label}`)
      .join("\n");
    expect(mine).toContain(ref);
    expect(mine).toContain("Nu stack");
    const theirs = await b.owner.get(`/web/search?q=nu`);
    expect(theirs.status).toBe(200);
    const text = JSON.stringify(theirs.body);
    for (const secret of [a.project.id, ref, "Nu stack", a.org.id]) expect(text).not.toContain(secret);
    // htmx: the palette's list items, with the same isolation
    const html = await (await b.owner.call("GET", "/web/search?q=nu", undefined, { "hx-request": "true" })).text();
    expect(html).toContain("<li");
    expect(html).not.toContain(ref);
  });

  test("a pending organization: no project, talent or specialization is searched; the person's organizations still are", async () => {
    const me = await signedUp(env);
    expect((await me.post("/web/orgs", { name: "Omicron pending" })).status).toBe(201);
    const r = await me.get("/web/search?q=typescript");
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
    // a second organization of the same person: the other one is offered to switch to
    expect((await me.post("/web/orgs", { name: "Omicron second" })).status).toBe(201);
    const orgs = (await me.get("/web/search?q=omicron")).body.items as { type: string; label: string }[];
    expect(orgs.map((i) => `${i.type} ${i.label}`)).toEqual(["organization Omicron pending"]);
  });
});

describe("GET /web/search: the palette navigates (pages before records)", () => {
  const lines = (items: { type: string; label: string; href: string }[]) => items.map((i) => `${i.type} ${i.label} ${i.href}`);

  test("'keys' lists the Keys tab first: the current project's (HX-Current-URL) before each other project's", async () => {
    const a = await orgWithProject(env, "Tabbed");
    const second = (await a.owner.post("/web/projects", { name: "Second tabbed" })).body.project;
    const here = { "hx-current-url": `${env.config.baseUrl}/projects/${second.id}?tab=activity` };
    const r = await a.owner.json("GET", "/web/search?q=keys", undefined, here);
    expect(lines(r.body.items).slice(0, 2)).toEqual([
      `page Keys /projects/${second.id}?tab=keys`,
      `page Keys /projects/${a.project.id}?tab=keys`,
    ]);
    expect(r.body.items[0].detail).toBe("tab of Second tabbed (this project)");
    const overview = (await a.owner.get("/web/search?q=overview")).body.items;
    expect(overview[0]).toMatchObject({ type: "page", label: "Overview" });
    expect(overview.map((i: { href: string }) => i.href)).toContain(`/projects/${a.project.id}`);
    // htmx: the same order in the palette's items
    const html = await (await a.owner.call("GET", "/web/search?q=keys", undefined, { "hx-request": "true", ...here })).text();
    expect(html.indexOf(`/projects/${second.id}?tab=keys`)).toBeGreaterThan(-1);
    expect(html.indexOf(`/projects/${second.id}?tab=keys`)).toBeLessThan(html.indexOf(`/projects/${a.project.id}?tab=keys`));
  });

  test("the organization's pages: its owners find SSO, Insights, Adoption, Expertises, Mail and Members; a member finds only Members", async () => {
    const a = await orgWithProject(env, "Paged");
    for (const [q, href] of [
      ["sso", "/org/sso"],
      ["insights", "/org/insights"],
      ["adoption", "/org/talent-adoption"],
      ["expertises", "/org/expertises"],
      ["mail", "/org/mail"],
      ["policy", "/org/policy"],
      ["members", "/org#members"],
    ]) {
      const first = (await a.owner.get(`/web/search?q=${q}`)).body.items[0];
      expect(`${q}: ${first.type} ${first.href}`).toBe(`${q}: page ${href}`);
    }
    const member = await joinedMember(env, a.owner);
    const seen = lines((await member.get("/web/search?q=s")).body.items).join("\n");
    expect(seen).toContain("/org#members");
    for (const hidden of ["/org/sso", "/org/insights", "/org/mail", "/org/expertises", "/org/talent-adoption", "/org/policy"])
      expect(seen).not.toContain(hidden);
  });

  test("the administration pages are listed for platform administrators only", async () => {
    const a = await orgWithProject(env, "Adminless");
    const plain = lines((await a.owner.get("/web/search?q=users")).body.items).join("\n");
    expect(plain).not.toContain("/admin");
    await makePlatformAdmin(env, a.owner.userId);
    const admin = (await a.owner.get("/web/search?q=users")).body.items;
    expect(admin[0]).toMatchObject({ type: "page", label: "Users", href: "/admin/users" });
    const all = lines((await a.owner.get("/web/search?q=administration")).body.items);
    expect(all.filter((l) => l.startsWith("page ")).map((l) => l.split(" ").at(-1))).toEqual([
      "/admin",
      "/admin/users",
      "/admin/security-events",
      "/admin/mail",
    ]);
  });
});
