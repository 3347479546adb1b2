/**
 * `/web/catalog*` and `/web/projects/:id/relevance` (docs/api.md "Catalog for people", "Relevance"):
 * the catalog for people — cards, filters, paging, facets, the talent sheet with its graph —
 * with published expertises of the active organization only, a project's install states, and
 * the project's relevance, which orders the designable directory and the discovery index and
 * pre-filters grouped install mode, but never designates or serves anything.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, publishedExpertise, signedUp, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

type Card = { id: string; kind: string; installed?: string; why?: string[]; roles: string[]; languages: string[] };

describe("GET /web/catalog: cards, filters, cursor paging", () => {
  test("pages through the whole public catalog, each talent once, in id order; total and nextCursor", async () => {
    const o = await orgWithProject(env);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const r = await o.owner.get(`/web/catalog?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(env.state.catalog!.list.length);
      seen.push(...r.body.items.map((c: Card) => c.id));
      cursor = r.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(env.state.catalog!.list.map((t) => t.id));
    const first = (await o.owner.get("/web/catalog?limit=1")).body.items[0];
    expect(Object.keys(first).sort()).toEqual([
      "conflicts",
      "id",
      "kind",
      "languages",
      "requires",
      "roles",
      "rules",
      "summary",
      "title",
      "tokens",
      "version",
    ]);
  });

  test("query ranks by the literal search; role, language and kind filter", async () => {
    const o = await orgWithProject(env);
    const q = await o.owner.get("/web/catalog?query=typescript");
    expect(q.body.items[0].id).toBe("typescript-strict");
    const go = await o.owner.get("/web/catalog?language=go&limit=100");
    expect(go.body.items.length).toBeGreaterThan(0);
    expect(go.body.items.every((c: Card) => c.languages.includes("go"))).toBe(true);
    const role = env.state.catalog!.list[0]!.roles[0]!;
    const byRole = await o.owner.get(`/web/catalog?role=${role}&limit=100`);
    expect(byRole.body.items.every((c: Card) => c.roles.includes(role))).toBe(true);
    expect((await o.owner.get("/web/catalog?kind=expertise")).body.items).toEqual([]);
  });

  const bad = [
    "limit=0",
    "limit=101",
    "limit=1.5",
    "kind=plugin",
    "cursor=bm9wZQ",
    "relevance=maybe",
    "project=nope",
    "query=" + "x".repeat(201),
  ];
  test(`bad parameters → 400 validation_failed: ${bad.join(", ")}`, async () => {
    const o = await orgWithProject(env);
    for (const q of bad) {
      const r = await o.owner.get(`/web/catalog?${q}`);
      expect({ q, status: r.status, error: r.body.error }).toEqual({ q, status: 400, error: "validation_failed" });
    }
  });

  test("rule 1 and 2: no session → 401; a pending organization → 403 organization_not_approved; another organization's project → 404", async () => {
    expect((await env.request("/web/catalog")).status).toBe(401);
    const pending = await signedUp(env);
    await pending.post("/web/orgs", { name: "Pending Co" });
    const p = await pending.get("/web/catalog");
    expect(p.status).toBe(403);
    expect(p.body.error).toBe("organization_not_approved");
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const r = await b.owner.get(`/web/catalog?project=${a.project.id}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not_found");
    expect((await b.owner.get(`/web/catalog/typescript-strict?project=${a.project.id}`)).status).toBe(404);
  });
});

describe("published expertises of the active organization, never another's", () => {
  test("they appear with kind expertise (listing, kind filter, query, facets, sheet); another organization sees none of it (404 on the sheet, as unknown)", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const { ref } = await publishedExpertise(a.owner, a.org.slug, "ledger");
    const list = await a.owner.get("/web/catalog?kind=expertise");
    expect(list.body.items.map((c: Card) => [c.id, c.kind])).toEqual([[ref, "expertise"]]);
    expect((await a.owner.get("/web/catalog?query=ledger")).body.items.map((c: Card) => c.id)).toContain(ref);
    expect((await a.owner.get("/web/catalog/facets")).body.kinds.expertise).toBe(1);
    const sheet = await a.owner.get(`/web/catalog/${ref}`);
    expect(sheet.status).toBe(200);
    expect(sheet.body.kind).toBe("expertise");
    expect(sheet.body.graph.edges).toContainEqual({ from: ref, to: "typescript-strict", type: "requires" });
    // encoded as a single path segment too
    expect((await a.owner.get(`/web/catalog/${encodeURIComponent(ref)}`)).status).toBe(200);

    expect((await b.owner.get("/web/catalog?kind=expertise")).body.items).toEqual([]);
    expect((await b.owner.get("/web/catalog?query=ledger")).body.items.map((c: Card) => c.id)).not.toContain(ref);
    expect((await b.owner.get("/web/catalog/facets")).body.kinds.expertise).toBeUndefined();
    const hidden = await b.owner.get(`/web/catalog/${ref}`);
    const unknown = await b.owner.get("/web/catalog/@nobody/nothing");
    expect([hidden.status, hidden.body.error]).toEqual([404, "not_found"]);
    expect([unknown.status, unknown.body.error]).toEqual([404, "not_found"]);
  });
});

describe("GET /web/catalog/:id: the talent sheet", () => {
  test("front matter, rules with check, conformance tests, the compact preview (exactly what prepare-task serves), files with digest and size, the graph over the requires-closure, dependents and conflicts", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.get("/web/catalog/typescript-strict");
    expect(r.status).toBe(200);
    const t = env.state.catalog!.get("typescript-strict")!;
    expect(r.body.rules[0]).toEqual({
      id: t.rules[0]!.id,
      severity: t.rules[0]!.severity,
      title: t.rules[0]!.title,
      check: t.rules[0]!.check,
    });
    expect(r.body.tests).toEqual(t.tests);
    expect(r.body.compact).toBe(t.compact);
    const main = r.body.files.find((f: { path: string }) => f.path === "TALENT.md");
    expect(main).toEqual({
      path: "TALENT.md",
      digest: t.files.get("TALENT.md")!.digest,
      size: Buffer.byteLength(t.files.get("TALENT.md")!.content),
    });
    expect(r.body.graph.nodes.find((n: { id: string }) => n.id === "typescript-strict").relation).toBe("self");
    expect(r.body.graph.edges).toContainEqual({ from: "typescript-strict", to: "javascript-base", type: "requires" });
    // dependents: javascript-base's sheet lists typescript-strict as one
    const base = await o.owner.get("/web/catalog/javascript-base");
    expect(base.body.graph.nodes).toContainEqual(expect.objectContaining({ id: "typescript-strict", relation: "dependent" }));
    // compact preview equals what an agent is served
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const k = await createKey(o.owner, o.project.id, ["prepare_task"]);
    const served = await (
      await withKey(env, k.value, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: ["typescript-strict"] }),
      })
    ).json();
    expect(served.talents[0].compact).toBe(r.body.compact);
  });

  test("with project: the talent's state there and every graph node's (not_installed, disabled, active)", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    await o.owner.patch(`/web/projects/${o.project.id}/talents/javascript-base`, { enabled: false });
    const r = await o.owner.get(`/web/catalog/typescript-strict?project=${o.project.id}`);
    expect(r.body.installed).toBe("active");
    expect(r.body.graph.nodes.find((n: { id: string }) => n.id === "javascript-base").installed).toBe("disabled");
    const other = await o.owner.get(`/web/catalog/go-base?project=${o.project.id}`);
    expect(other.body.installed).toBe("not_installed");
    const cards = await o.owner.get(`/web/catalog?project=${o.project.id}&query=typescript`);
    expect(cards.body.items.find((c: Card) => c.id === "typescript-strict").installed).toBe("active");
  });

  test("an unknown id → 404 not_found; a malformed escape → 400", async () => {
    const o = await orgWithProject(env);
    expect((await o.owner.get("/web/catalog/no-such-talent")).status).toBe(404);
    expect((await o.owner.get("/web/catalog/%E0%A4%A")).status).toBe(400);
  });
});

describe("relevance: it orders and filters, never designates or serves", () => {
  test("GET derives settings from the installed talents; PUT replaces (validated); DELETE resets to derived", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const derived = await o.owner.get(`/web/projects/${o.project.id}/relevance`);
    expect(derived.body.source).toBe("derived");
    expect(derived.body.settings.languages).toContain("typescript");
    const put = await o.owner.put(`/web/projects/${o.project.id}/relevance`, {
      languages: ["Go"],
      roles: [],
      paths: ["cmd/**/*.go"],
      exclude: ["go-errors"],
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      source: "stored",
      settings: { languages: ["go"], roles: [], paths: ["cmd/**/*.go"], exclude: ["go-errors"] },
    });
    const reset = await o.owner.del(`/web/projects/${o.project.id}/relevance`);
    expect(reset.body.source).toBe("derived");
  });

  test("derived languages come from language-specific talents only: a TypeScript service's settings hold no Go (cross-cutting talents name seven)", async () => {
    const o = await orgWithProject(env);
    const applied = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, { specializationId: "typescript-service" });
    expect(applied.status).toBeLessThan(300);
    const derived = await o.owner.get(`/web/projects/${o.project.id}/relevance`);
    expect(derived.body.source).toBe("derived");
    expect(derived.body.settings.languages).toEqual(["javascript", "typescript"]);
    // the grouped install's listing follows them
    const r = await o.owner.get(`/web/catalog?project=${o.project.id}&limit=100`);
    expect(r.body.items.map((c: Card) => c.id).filter((id: string) => id.startsWith("go-"))).toEqual([]);
    // only cross-cutting talents installed: their languages are what there is
    const p = (await o.owner.post("/web/projects", { name: "Logs only" })).body.project;
    await o.owner.post(`/web/projects/${p.id}/talents`, { talents: ["structured-logging"] });
    expect((await o.owner.get(`/web/projects/${p.id}/relevance`)).body.settings.languages).toContain("go");
  });

  const badBodies: [string, unknown][] = [
    ["languages not an array", { languages: "go" }],
    ["a language with a space", { languages: ["type script"] }],
    ["an absolute path glob", { paths: ["/etc/**"] }],
    ["a path with ..", { paths: ["../x/*.go"] }],
    ["too many exclusions", { exclude: Array.from({ length: 201 }, (_, i) => `t${i}`) }],
    ["an unknown setting", { language: ["go"] }],
    ["not an object", ["go"]],
  ];
  for (const [name, body] of badBodies) {
    test(`PUT relevance with ${name} → 400 validation_failed, nothing stored`, async () => {
      const o = await orgWithProject(env);
      const r = await o.owner.put(`/web/projects/${o.project.id}/relevance`, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect((await o.owner.get(`/web/projects/${o.project.id}/relevance`)).body.source).toBe("derived");
    });
  }

  test("another organization's project → 404 on GET, PUT and DELETE; no session → 401", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    for (const [m, body] of [
      ["GET", undefined],
      ["PUT", { languages: ["go"] }],
      ["DELETE", undefined],
    ] as const) {
      const r = await b.owner.json(m, `/web/projects/${a.project.id}/relevance`, body);
      expect({ m, status: r.status, error: r.body.error }).toEqual({ m, status: 404, error: "not_found" });
    }
    expect((await env.request(`/web/projects/${a.project.id}/relevance`)).status).toBe(401);
  });

  test("grouped install mode: with project, the catalog shows what is relevant (why names the match); relevance=all shows everything", async () => {
    const o = await orgWithProject(env);
    await o.owner.put(`/web/projects/${o.project.id}/relevance`, { languages: ["go"], exclude: ["go-errors"] });
    const r = await o.owner.get(`/web/catalog?project=${o.project.id}&limit=100`);
    const ids = r.body.items.map((c: Card) => c.id);
    expect(ids).toContain("go-base");
    expect(ids).not.toContain("go-errors"); // excluded
    expect(ids).not.toContain("typescript-strict"); // another language
    expect(ids).toContain("conventional-commits"); // language-neutral suits every codebase
    expect(r.body.items.find((c: Card) => c.id === "go-base").why).toEqual(["language go"]);
    expect(r.body.relevance.applied).toBe(true);
    const all = await o.owner.get(`/web/catalog?project=${o.project.id}&limit=100&relevance=all`);
    expect(all.body.items.map((c: Card) => c.id)).toContain("typescript-strict");
  });

  test("the catalog's roles are the project's: stored roles narrow the cards; a project that names no role gets its installed talents' roles, said to be theirs; the relevance route keeps what was stored", async () => {
    const o = await orgWithProject(env);
    const ids = async () => {
      const r = await o.owner.get(`/web/catalog?project=${o.project.id}&limit=100`);
      return { ids: r.body.items.map((c: Card) => c.id) as string[], relevance: r.body.relevance };
    };
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["postgres-indexing", "sql-base"] }); // backend, dba, data
    // settings that name no role: the installed talents' roles stand in (react-components is frontend, fullstack, reviewer)
    await o.owner.put(`/web/projects/${o.project.id}/relevance`, { exclude: ["go-errors"] });
    const none = await ids();
    expect(none.relevance).toMatchObject({ source: "stored", rolesFrom: "derived" });
    expect(none.relevance.settings).toMatchObject({ roles: ["backend", "data", "dba"], exclude: ["go-errors"] });
    expect(none.ids).not.toContain("react-components");
    expect(none.ids).toContain("api-pagination"); // backend
    expect((await o.owner.get(`/web/projects/${o.project.id}/relevance`)).body.settings.roles).toEqual([]); // the route: as stored
    const html = await (await o.owner.call("GET", `/catalog?project=${o.project.id}`, undefined, { accept: "text/html" })).text();
    expect(html).toContain("roles backend, data, dba (those of its installed talents)");
    // the project names its roles: they alone narrow, whatever is installed
    await o.owner.put(`/web/projects/${o.project.id}/relevance`, { roles: ["frontend"] });
    const own = await ids();
    expect(own.relevance).toMatchObject({ source: "stored", rolesFrom: "stored", settings: { roles: ["frontend"] } });
    expect(own.ids).toContain("react-components");
    expect(own.ids).not.toContain("api-pagination"); // backend, fullstack: not frontend
    // nothing stored: derived, the union of the installed talents' roles
    await o.owner.del(`/web/projects/${o.project.id}/relevance`);
    expect((await ids()).relevance).toMatchObject({
      source: "derived",
      rolesFrom: "derived",
      settings: { roles: ["backend", "data", "dba"] },
    });
    // nothing stored, nothing installed: no role narrows
    const bare = (await o.owner.post("/web/projects", { name: "Bare" })).body.project;
    const b = await o.owner.get(`/web/catalog?project=${bare.id}&limit=100`);
    expect(b.body.relevance).toMatchObject({ source: "derived", rolesFrom: null, settings: { roles: [] } });
  });

  test("designable directory and discovery index: relevant first with why; the selection and what prepare-task serves are unchanged", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base", "go-base"] });
    await o.owner.put(`/web/projects/${o.project.id}/relevance`, { languages: ["go"] });
    const k = await createKey(o.owner, o.project.id, ["prepare_task", "discover"]);
    const designable = await (await withKey(env, k.value, "/api/prepare-task/designable")).json();
    expect(designable.talents[0]).toMatchObject({ id: "go-base", relevant: true, why: ["language go"] });
    expect(designable.talents.map((t: { id: string }) => t.id).sort()).toEqual(["go-base", "javascript-base", "typescript-strict"]); // nothing dropped
    const discovery = await (await withKey(env, k.value, "/api/discovery/playbook")).json();
    expect(discovery.catalog.talents[0].relevant).toBe(true);
    expect(discovery.catalog.talents.at(-1).relevant).toBe(false);
    // the installed three are the selection's, not the index's: the index holds the rest, cut at the budget with the count left
    expect(discovery.catalog.talents.length + discovery.catalog.left).toBe(env.state.catalog!.list.length - 3);
    // relevance never designates: a non-relevant active talent is still served when designated
    const served = await withKey(env, k.value, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    expect(served.status).toBe(201);
  });
});

describe("GET /web/catalog/:id kept sheets follow the organization's expertises", () => {
  test("an expertise that requires a public talent appears among its dependents for its organization only, and leaves when deactivated", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const dependents = async (c: typeof a.owner) =>
      (await c.get("/web/catalog/typescript-strict")).body.graph.nodes
        .filter((n: { relation: string }) => n.relation === "dependent")
        .map((n: { id: string }) => n.id);
    const before = await dependents(a.owner);
    expect(before.some((id: string) => id.startsWith("@"))).toBe(false);
    const { id, ref } = await publishedExpertise(a.owner, a.org.slug, "sheet-ledger");
    expect(await dependents(a.owner)).toContain(ref);
    expect(await dependents(b.owner)).toEqual(before);
    expect(await dependents(a.owner)).toContain(ref);
    expect((await a.owner.post(`/web/orgs/current/expertises/${id}/deactivate`)).status).toBe(200);
    expect(await dependents(a.owner)).toEqual(before);
  });
});
