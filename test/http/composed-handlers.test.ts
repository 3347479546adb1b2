/**
 * What Elysia compiles for every route stays lean: no global hook may name `server` in its context
 * (Elysia then defines that property on each request's context object, a dictionary-mode object
 * for the rest of the request: the key route lost a fifth of its throughput to it). The edge
 * reads the listening server through a getter instead (src/http/edge.ts EdgeOptions.server).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KEY_ROUTE_LIST } from "../../src/keyRoutes";
import { testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("the composed route handlers", () => {
  test("no key route's compiled handler defines a per-request `server` property (a global hook naming server)", async () => {
    await env.request("/healthz");
    // (sign-in routes name `server` in their own handlers for the client address: only they pay for it)
    const routes = (env.app as unknown as { routes: { method: string; path: string; compile?: () => unknown }[] }).routes;
    const keys = new Set(KEY_ROUTE_LIST.map((r) => `${r.method} ${r.path}`));
    const keyRoutes = routes.filter((r) => keys.has(`${r.method} ${r.path}`) && typeof r.compile === "function");
    expect(keyRoutes.length).toBe(keys.size);
    const defining = keyRoutes
      .filter((r) => String(r.compile!()).includes("defineProperty(c,'server'"))
      .map((r) => `${r.method} ${r.path}`);
    expect(defining).toEqual([]);
  });
});
