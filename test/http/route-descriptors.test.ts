/**
 * One descriptor per route (src/http/route.ts, each domain's describe.ts; the key routes'
 * src/keyRoutes.ts): every route the app serves under /api/ and /web/ has exactly one
 * descriptor and every descriptor is served (Elysia's `:param` and `*` against the descriptor's
 * OpenAPI `{param}`, or its `route` where it names one); each view belongs to a /web route; the
 * OpenAPI document has one row per descriptor; and the access a descriptor declares is the
 * guard's — each route is registered with the guard its descriptor's access names (or its wider
 * `admits`, where the handler refuses the rest itself) — and, as a check of behaviour: a caller without credentials is refused with 401 by every route that is not public,
 * and never by one that is; a member is refused with 403 by every route for owners and admins or
 * platform administrators, and an owner who is not a platform administrator by every platform route.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ROUTES } from "../../src/app";
import { routeKey } from "../../src/http/keyRoute";
import { KEY_ROUTE_LIST } from "../../src/keyRoutes";
import { routePattern, type RouteDetail } from "../../src/http/route";
import { joinedMember, orgWithProject, testEnv, type TestEnv, type WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/**
 * Routes served under /api/ or /web/ on purpose without a descriptor, with why (none today: an
 * internal route would be listed here, and a route that is not internal gets its descriptor).
 */
const UNDESCRIBED: Record<string, string> = {};

/**
 * Owner-or-admin routes that answer a member's request with 404 rather than 403, with why (the placeholder ids
 * of these calls are unknown).
 */
const MEMBER_NOT_FOUND: [RegExp, string][] = [
  [
    /^[A-Z]+ \/web\/orgs\/current\/expertises/,
    "a member's request is answered exactly like an unknown expertise, so a member learns nothing (expertises/routes.ts)",
  ],
  [
    /^DELETE \/web\/orgs\/current\/members\/\{userId\}$/,
    "every member may leave: the guard admits members, the service refuses another's removal",
  ],
];

/** `METHOD /pattern` as Elysia registers it, without a trailing slash (a prefix's `""` route is `/prefix/`). */
const served = () =>
  env.app.routes.filter((r) => /^\/(api|web)\//.test(r.path)).map((r) => `${r.method} ${r.path.replace(/(.)\/$/, "$1")}`);

/** Each descriptor's `METHOD /pattern`: the key routes' and the domains'. */
const described = () => [...KEY_ROUTE_LIST.map(routeKey), ...ROUTES.map((r) => `${r.method} ${routePattern(r)}`)];

/** A path to call a pattern with: each `:param` and `*` a placeholder. */
const concrete = (pattern: string) => pattern.replace(/:[A-Za-z]+/g, "x").replace(/\*$/, "x/usage");

describe("route descriptors: one per route, the table the OpenAPI document and the views derive from", () => {
  test("every descriptor names a route once", () => {
    const all = described();
    expect(all.filter((d, i) => all.indexOf(d) !== i)).toEqual([]);
  });

  test("every route served under /api/ and /web/ has exactly one descriptor, and every descriptor is served", () => {
    const all = new Set(described());
    const routes = served();
    expect(new Set(routes).size).toBe(routes.length);
    expect(routes.filter((r) => !all.has(r) && !(r in UNDESCRIBED)).sort()).toEqual([]);
    expect([...all].filter((d) => !routes.includes(d)).sort()).toEqual([]);
    // an allowance that no longer applies is removed
    expect(Object.keys(UNDESCRIBED).filter((r) => !routes.includes(r) || all.has(r))).toEqual([]);
  });

  test("every described route is registered with its descriptor's guard (`routeGuard`), so a descriptor's access is its route's guard", () => {
    const keyRoutes = new Set(KEY_ROUTE_LIST.map(routeKey));
    const byKey = new Map(ROUTES.map((r) => [`${r.method} ${routePattern(r)}`, r]));
    const wrong = env.app.routes
      .filter((r) => /^\/(api|web)\//.test(r.path))
      .map((r) => ({ key: `${r.method} ${r.path.replace(/(.)\/$/, "$1")}`, hooks: r.hooks as { detail?: Partial<RouteDetail> } }))
      .filter(({ key }) => !keyRoutes.has(key) && !(key in UNDESCRIBED))
      .filter(({ key, hooks }) => hooks.detail?.["x-descriptor"] !== byKey.get(key))
      .map(({ key }) => key);
    expect(wrong).toEqual([]);
  });

  test("a guard wider than its descriptor's access (`admits`) is one of the routes that answer a member 404 rather than 403", () => {
    const wider = ROUTES.filter((r) => r.admits).map((r) => `${r.method} ${r.path}`);
    expect(wider.length).toBeGreaterThan(0);
    for (const route of wider) expect(MEMBER_NOT_FOUND.some(([re]) => re.test(route))).toBe(true);
    for (const [re] of MEMBER_NOT_FOUND) expect(wider.some((route) => re.test(route))).toBe(true);
  });

  test("a descriptor's OpenAPI path names the route's parameters; `route` is given only where the path cannot say it (a wildcard)", () => {
    for (const r of ROUTES) {
      expect(r.path).not.toContain(":");
      if (r.route) {
        expect(r.route).toEndWith("/*");
        expect(r.route).not.toBe(r.path.replace(/\{([A-Za-z]+)\}/g, ":$1"));
      }
    }
  });

  test("only /web routes have a view (the fragment, redirect and status line of htmx and forms)", () => {
    const viewed = ROUTES.filter((r) => r.view).map((r) => `${r.method} ${r.path}`);
    expect(viewed.length).toBeGreaterThan(0);
    expect(viewed.filter((v) => !v.split(" ")[1]!.startsWith("/web/"))).toEqual([]);
  });

  test("the OpenAPI document has one operation per descriptor, with its access", async () => {
    const doc = (await (await env.request("/openapi.json")).json()) as { paths: Record<string, Record<string, { "x-access": string }>> };
    const rows = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(rows.length).toBe(KEY_ROUTE_LIST.length + ROUTES.length);
    for (const r of ROUTES) expect(doc.paths[r.path]?.[r.method.toLowerCase()]?.["x-access"]).toBe(r.access);
  });

  test("the access a descriptor declares is its guard's: without credentials, 401 from every route that is not public, never from one that is", async () => {
    const wrong: string[] = [];
    for (const r of [...ROUTES, ...KEY_ROUTE_LIST.map((k) => ({ method: k.method, path: k.path, access: `key:${k.scope}` }))]) {
      const res = await env.request(concrete(routePattern(r)), {
        method: r.method,
        redirect: "manual",
        headers: { origin: env.config.baseUrl, "content-type": "application/json" },
        ...(r.method === "GET" ? {} : { body: "{}" }),
      });
      if ((res.status === 401) !== (r.access !== "public")) wrong.push(`${r.method} ${r.path} (${r.access}): ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  test("a member gets 403 from every owner-or-admin and platform route; an owner who is not a platform administrator from every platform route", async () => {
    const { owner } = await orgWithProject(env);
    const member = await joinedMember(env, owner);
    const call = (c: WebClient, r: (typeof ROUTES)[number]) =>
      c.call(r.method, concrete(routePattern(r)), r.method === "GET" ? undefined : {}).then((res) => res.status);
    const wrong: string[] = [];
    for (const r of ROUTES) {
      if (r.access === "public") continue;
      const refusesMember = r.access === "admin" || r.access === "platform" || r.access.startsWith("admin+key:");
      const status = await call(member, r);
      const notFound = MEMBER_NOT_FOUND.some(([re]) => re.test(`${r.method} ${r.path}`));
      // a member's route may answer 403 only where its descriptor lists 403 (built-ins are read-only, …)
      const refused = status === 403;
      const fine = notFound ? status === 404 : refusesMember ? refused : !refused || (r.errors ?? []).includes(403);
      if (!fine) wrong.push(`member ${r.method} ${r.path} (${r.access}): ${status}`);
      if (r.access === "platform" && (await call(owner, r)) !== 403) wrong.push(`owner ${r.method} ${r.path} (platform)`);
    }
    expect(wrong).toEqual([]);
  });
});
