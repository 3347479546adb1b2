/**
 * `GET /web/search?q=` (the command palette, docs/api.md "Pages"): its failure paths and its isolation.
 * No session → 401 unauthenticated; a query over 200 characters → 400 validation_failed naming
 * `q`; another organization's projects, expertises and specializations never appear; a pending
 * organization searches nothing but the person's organizations.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithProject, publishedExpertise, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

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
