/**
 * What a `/web/*` or `/api/auth/*` route is, as data (docs/design.md "Routes: one descriptor each"): its method
 * and path, who may call it, its body and query, its answer, its OpenAPI text and, where a browser
 * calls it through htmx or a form, its HTML view. Each domain lists its routes' descriptors beside
 * their handlers (`describe.ts`); `app.ts` collects the lists, the OpenAPI document (http/openapi.ts)
 * and the view registry (ui/views.ts) are built from them once at start-up. The key routes have
 * their own descriptors (http/keyRoute.ts).
 */
import type { KeyScope } from "../db/schema";
import type { Access, Operation, Schema } from "./schema";

/** A JSON answer that is not an object of declared fields: what the document says instead. */
export interface OtherAnswer {
  media: string;
}

/** What the view of a route reads: the request, its parameters and its (parsed) body. */
export interface ViewContext {
  request: Request;
  params: Record<string, string>;
  body: unknown;
}

/** What a route answers in HTML: a fragment for htmx, where to go after a form post. */
export interface RouteView {
  fragment?: (data: unknown, ctx: ViewContext) => unknown | Promise<unknown>;
  /**
   * The page to go to after the change, for a form posted without JavaScript and for htmx
   * alike (`HX-Redirect`), when the fragment is not the answer (default for a form post: the
   * form's `return`, else the Referer's path; for htmx: the page reloads). Null: no redirect
   * for this answer (htmx gets the fragment, a form post its default).
   */
  redirect?: (data: unknown, ctx: ViewContext) => string | null;
  /**
   * What the change did, in one line for the layout's status line (ui/status.ts): swapped in
   * beside the fragment for htmx, carried to the next page otherwise. Null: nothing to say.
   */
  status?: (data: unknown, ctx: ViewContext) => string | null | Promise<string | null>;
  /** The fragment already says what changed (its own notice line): htmx gets no second one. */
  statusInFragment?: boolean;
}

/**
 * One route: its OpenAPI row (method, path in OpenAPI form, summary, access, body, query, ok, errors),
 * its declared success answer and, optionally, its view made from the app's deps `D` at start-up.
 */
export interface RouteDescriptor<D = unknown> extends Operation {
  /** OpenAPI form, `/web/projects/{id}`: a literal type in a descriptor, so its pattern types the handler's `params`. */
  path: `/${string}`;
  /** The pattern the route is registered with when it is not the path's `:param` form (a wildcard `*`). */
  route?: `/${string}`;
  /** The success answer (test/http/response-shapes.test.ts walks each JSON answer against it); none for a redirect. */
  answer?: Schema | OtherAnswer;
  /** The HTML answer to htmx and to a form posted without JavaScript (ui/views.ts). */
  view?: (deps: D) => RouteView;
  /**
   * Whom the route's guard lets through where that is wider than `access` and the handler refuses
   * the rest itself: a member asking for an expertise is answered like for an unknown one (404),
   * a member may leave the organization. The OpenAPI document states `access`.
   */
  admits?: "member";
}

/** A path's `{param}`s as Elysia's `:param`s, as a type (what types a handler's `params`). */
type Pattern<P extends string> = P extends `${infer A}{${infer N}}${infer B}` ? `${A}:${N}${Pattern<B>}` : P;

/** The pattern of a descriptor, as a type: its `route`, else its path's `:param` form. */
export type RoutePattern<D extends { path: string; route?: string }> = D extends { route: infer R extends string } ? R : Pattern<D["path"]>;

/** The pattern a descriptor's route is registered with: `/web/projects/{id}` → `/web/projects/:id`. */
export function routePattern<D extends { path: string; route?: string }>(d: D): RoutePattern<D>;
export function routePattern(d: { path: string; route?: string }): string {
  return d.route ?? d.path.replace(/\{([A-Za-z]+)\}/g, ":$1");
}

/** The access level a descriptor's guard checks: its `admits` where it has one, else its `access`. */
type GuardAccess<R extends RouteDescriptor<never>> = R extends { admits: infer M extends Access } ? M : R["access"];

/**
 * The guard macro option (auth/guards.ts) an access level stands for, as a type: it types the
 * handler's context (`auth`, `org`, `caller`), so the context follows the descriptor's `access` literal.
 */
export type GuardOption<A extends Access> = A extends "public"
  ? {}
  : A extends "session"
    ? { session: true }
    : A extends "member" | "admin"
      ? { org: A }
      : A extends "platform"
        ? { platformAdmin: true }
        : A extends `admin+key:${infer S extends KeyScope}`
          ? { orgOrKey: S }
          : A extends `key:${infer S extends KeyScope}`
            ? { key: S }
            : never;

/** A described route's Elysia `detail`: its summary and the descriptor it was registered from. */
export interface RouteDetail {
  summary: string;
  "x-descriptor": RouteDescriptor<never>;
}

/** The guard option of each access level without a scope. */
const GUARDS: Record<string, object> = {
  public: {},
  session: { session: true },
  member: { org: "member" },
  admin: { org: "admin" },
  platform: { platformAdmin: true },
};

/**
 * The options a described route is registered with (`.get(routePattern(d), handler, routeGuard(d))`):
 * the guard its access names (`admits`, else `access`) and, as the route's `detail`, the
 * descriptor itself, so that the route table says which descriptor each route was registered
 * from (test/http/route-descriptors.test.ts). Built once, at registration.
 */
export function routeGuard<R extends RouteDescriptor<never>>(d: R): GuardOption<GuardAccess<R>> & { detail: RouteDetail };
export function routeGuard(d: RouteDescriptor<never>): object {
  const access = d.admits ?? d.access;
  const scoped = /^(admin\+)?key:(.+)$/.exec(access);
  const guard = scoped ? { [scoped[1] ? "orgOrKey" : "key"]: scoped[2] } : GUARDS[access];
  if (!guard) throw new Error(`No guard for the access ${access} (${d.method} ${d.path}).`);
  const detail: RouteDetail = { summary: d.summary, "x-descriptor": d };
  return { ...guard, detail };
}
