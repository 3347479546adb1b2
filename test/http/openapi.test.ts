/**
 * `/openapi.json` is an OpenAPI 3.1 document of the key API and `/web/*`;
 * every registered route under /api and /web is in it, and every documented route exists.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** `GET /web/projects/:id/talents/*` and `GET /web/projects/{id}/talents/{talentId}` alike: `GET /web/projects/{}/talents/{}`. */
const shape = (method: string, path: string) => `${method} ${path.replace(/\/$/, "").replace(/:[A-Za-z]+|\*|\{[^}]+\}/g, "{}")}`;

describe("GET /openapi.json", () => {
  test("an OpenAPI 3.1 document, served without a session, with the security schemes of keys, OAuth and sessions", async () => {
    const r = await env.request("/openapi.json");
    expect(r.status).toBe(200);
    const doc = await r.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0].url).toBe(env.config.baseUrl);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["oauth", "projectKey", "session"]);
    expect(doc.paths["/api/prepare-task"].post.security).toEqual([{ projectKey: [] }, { oauth: ["prepare_task"] }]);
    expect(doc.paths["/web/projects/{id}"].get.parameters[0]).toMatchObject({ name: "id", in: "path", required: true });
  });

  test("every registered /api and /web route is documented, and every documented route is registered", async () => {
    const doc = await (await env.request("/openapi.json")).json();
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
      for (const m of Object.keys(ops)) documented.add(shape(m.toUpperCase(), path));
    const registered = new Set(env.app.routes.filter((r) => /^\/(api|web)\//.test(r.path)).map((r) => shape(r.method, r.path)));
    // a wildcard route (`…/talents/*`, where a talent id may hold a slash) answers every documented path under it
    const wildcards = [...registered].filter(
      (r) => r.endsWith("{}") && env.app.routes.some((x) => x.path.endsWith("/*") && shape(x.method, x.path) === r),
    );
    const under = (d: string) => wildcards.some((w) => d.startsWith(w.slice(0, -2)) && d.length > w.length - 2);
    expect([...registered].filter((r) => !documented.has(r) && !(wildcards.includes(r) && [...documented].some(under))).sort()).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d) && !under(d)).sort()).toEqual([]);
  });
});
