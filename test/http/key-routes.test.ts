/**
 * One descriptor per key route (src/keyRoutes.ts lists them), and everything derived from it: every key
 * route the app registers has exactly one descriptor and every descriptor is registered; each
 * route's guard refuses a key without the descriptor's scope (naming that scope) and traces the
 * refusal under the descriptor's kind; the OpenAPI document carries the descriptor's scope,
 * summary, parameters and answer; the MCP tools are the descriptors' tools, with their scope and
 * the routes they reach.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { routeKey } from "../../src/http/keyRoute";
import { KEY_ROUTE_LIST } from "../../src/keyRoutes";
import { TOOLS } from "../../src/mcp/tools";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

describe("key-route descriptors: the one table the routes, the OpenAPI document and the MCP tools derive from", () => {
  test("every registered /api route outside /api/auth has exactly one descriptor, and every descriptor is registered", () => {
    const registered = env.app.routes
      .filter((r) => r.path.startsWith("/api/") && !r.path.startsWith("/api/auth/"))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const described = KEY_ROUTE_LIST.map(routeKey);
    expect(new Set(described).size).toBe(described.length);
    expect(registered).toEqual([...described].sort());
  });

  test("each route's guard requires the descriptor's scope, and a refused call is traced under the descriptor's kind", async () => {
    const o = await orgWithProject(env);
    for (const r of KEY_ROUTE_LIST) {
      const key = (
        await createKey(
          o.owner,
          o.project.id,
          ALL.filter((s) => s !== r.scope),
        )
      ).value;
      const path = r.path.replace(":id", o.project.id);
      const res = await withKey(env, key, path, { method: r.method, ...(r.method === "GET" ? {} : { body: "{}" }) });
      const body = (await res.json()) as { error: string; requiredScope?: string };
      expect(`${routeKey(r)}: ${res.status} ${body.error} ${body.requiredScope}`).toBe(`${routeKey(r)}: 403 insufficient_scope ${r.scope}`);
    }
    await Bun.sleep(50);
    const events = (await o.owner.get(`/web/projects/${o.project.id}/traces?limit=100`)).body.events as { kind: string; status: number }[];
    expect(events.map((e) => `${e.kind} ${e.status}`).sort()).toEqual(KEY_ROUTE_LIST.map((r) => `${r.kind} 403`).sort());
  });

  test("the OpenAPI document's key routes are the descriptors: scope, summary, parameters, body and answer", async () => {
    const doc = await (await env.request("/openapi.json")).json();
    for (const r of KEY_ROUTE_LIST) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
      expect(op?.["x-access"]).toBe(`key:${r.scope}`);
      expect(op.summary).toBe(r.summary);
      expect(op.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name)).toEqual(
        (r.query ?? []).map((q) => q.name),
      );
      expect(op.requestBody?.content["application/json"].schema).toEqual(r.body);
      expect(op.responses[String(r.ok ?? 200)].content["application/json"].schema).toEqual(r.answer);
    }
  });

  test("the MCP tools are the descriptors' tools: name, scope, and the routes each reaches (its own and those it is named on)", () => {
    const expected = KEY_ROUTE_LIST.filter((r) => r.tool).map((r) => ({
      name: r.tool!.name,
      scope: r.scope,
      routes: KEY_ROUTE_LIST.filter((x) => x === r || x.reachedBy === r.tool!.name).map(routeKey),
    }));
    expect(TOOLS.map((t) => ({ name: t.name, scope: t.scope, routes: t.routes }))).toEqual(expected);
    expect(TOOLS).toHaveLength(7);
    for (const r of KEY_ROUTE_LIST.filter((x) => x.reachedBy)) expect(TOOLS.some((t) => t.name === r.reachedBy)).toBe(true);
  });
});
