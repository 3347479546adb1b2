/**
 * What a `/web/*` or `/api/auth/*` route is, as data (docs/design.md "Routes: one descriptor each"): its method
 * and path, who may call it, its body and query, its answer, its OpenAPI text and, where a browser
 * calls it through htmx or a form, its HTML view. Each domain lists its routes' descriptors beside
 * their handlers (`describe.ts`); `app.ts` collects the lists, the OpenAPI document (http/openapi.ts)
 * and the view registry (ui/views.ts) are built from them once at start-up. The key routes have
 * their own descriptors (http/keyRoute.ts).
 */
import type { Operation, Schema } from "./schema";

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
  /** The pattern the route is registered with when it is not the path's `:param` form (a wildcard `*`). */
  route?: string;
  /** The success answer (test/http/response-shapes.test.ts walks each JSON answer against it); none for a redirect. */
  answer?: Schema | OtherAnswer;
  /** The HTML answer to htmx and to a form posted without JavaScript (ui/views.ts). */
  view?: (deps: D) => RouteView;
}

/** The pattern a descriptor's route is registered with: `/web/projects/{id}` → `/web/projects/:id`. */
export function routePattern(d: { path: string; route?: string }): string {
  return d.route ?? d.path.replace(/\{([A-Za-z]+)\}/g, ":$1");
}
