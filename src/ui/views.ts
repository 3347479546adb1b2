/**
 * The HTML side of the `/web/*` routes (docs/design.md "JSON by default, HTML when a browser asks"): a route answers JSON by default; the
 * same data as an HTML fragment when htmx asks (`HX-Request`); and a browser form posted
 * without JavaScript is sent back to a page (303, Post/Redirect/Get). Routes stay as they are:
 * each route's view is a part of its descriptor (http/route.ts, in the owning domain's describe.ts),
 * made from the app's deps into the app's own ViewRegistry (each app has one: a second app in the
 * same process answers with its own data), and one global hook picks the form of the answer.
 *
 * An htmx change to a route without a fragment gets `HX-Refresh` (the page reloads with the
 * new state), an htmx read (GET) without one its JSON; a navigation POST goes to the form's `return` field (a path of this site), or
 * to the page it came from.
 */
import { Elysia } from "elysia";
import { isHtmx, isNavigation } from "../http/negotiate";
import { safeNext } from "../http/next";
import { routePattern, type RouteDescriptor, type RouteView, type ViewContext } from "../http/route";
import { FLASH_CLEARED, statusCookie, statusOob, withStatus } from "./status";

export type { RouteView, ViewContext };

/** The HTML answers of one app's routes, by `METHOD /web/...` as each route is registered. */
export class ViewRegistry {
  readonly #views = new Map<string, RouteView>();

  /** Makes the view of each route descriptor that has one, from the app's deps: once, when the app is built. */
  describe<D>(routes: readonly RouteDescriptor<D>[], deps: D): void {
    for (const r of routes) if (r.view) this.#views.set(`${r.method} ${routePattern(r).replace(/\/$/, "")}`, r.view(deps));
  }

  /** The view of a route, if one was registered. */
  get(method: string, route: string): RouteView | undefined {
    return this.#views.get(`${method} ${route.replace(/\/$/, "")}`);
  }
}

/** The `return` field of each form post, read before the route's schema drops fields it does not name. */
const returns = new WeakMap<Request, string>();

/** Where a form asked to go back to (a path of this site), if it said. */
export function formReturn(request: Request): string | undefined {
  const r = returns.get(request);
  return r ? safeNext(r) : undefined;
}

/** The path a form asked to return to (`return` field), or the Referer's path on this site, or `fallback`. */
export function returnPath(request: Request, fallback: string): string {
  const asked = formReturn(request);
  if (asked) return asked;
  const referer = request.headers.get("referer");
  if (referer) {
    try {
      const r = new URL(referer);
      if (r.host === new URL(request.url).host) return safeNext(r.pathname + r.search);
    } catch {
      /* no usable referer */
    }
  }
  return fallback;
}

/** The global hook over one app's views; composed once in createApp before the routes. */
export function webViews(registry: ViewRegistry) {
  return new Elysia()
    .onTransform({ as: "global" }, ({ request, body }) => {
      const r = (body as Record<string, unknown> | null)?.return;
      if (typeof r === "string" && r !== "") returns.set(request, r);
    })
    .onAfterHandle({ as: "global" }, async ({ request, route, params, body, responseValue }) => {
      if (responseValue instanceof Response) {
        // a page opened after a change: its status line says what the change did
        const page = request.method === "GET" && !route.startsWith("/web/") && !isHtmx(request);
        return page ? withStatus(request, responseValue) : undefined;
      }
      if (!route.startsWith("/web/")) return;
      const htmx = isHtmx(request);
      const navigation = !htmx && request.method !== "GET" && isNavigation(request);
      if (!htmx && !navigation) return;
      const view = registry.get(request.method, route);
      // a read without a fragment answers its JSON: a reload would change nothing, and an empty answer tells nothing
      if (htmx && request.method === "GET" && !view?.fragment) return;
      const ctx: ViewContext = { request, params: (params ?? {}) as Record<string, string>, body };
      return htmx ? htmxAnswer(view, responseValue, ctx) : formAnswer(view, responseValue, ctx);
    });
}

/** The answer to htmx: a redirect, the route's fragment with the status line beside it, or a reload. */
async function htmxAnswer(view: RouteView | undefined, data: unknown, ctx: ViewContext): Promise<Response> {
  const status = await view?.status?.(data, ctx);
  const carried: Record<string, string> = status ? { "set-cookie": statusCookie(status, ctx.request) } : {};
  const to = view?.redirect?.(data, ctx);
  if (to) return new Response(null, { status: 204, headers: { "hx-redirect": to, ...carried } });
  if (view?.fragment) {
    // a change that succeeded: any refusal still in #flash is cleared (a read leaves it)
    const cleared = ctx.request.method === "GET" ? "" : FLASH_CLEARED;
    const html = String(await view.fragment(data, ctx)) + (status && !view.statusInFragment ? statusOob(status) : "") + cleared;
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
  }
  return new Response(null, { status: 204, headers: { "hx-refresh": "true", ...carried } });
}

/** The answer to a form posted without JavaScript: back to a page (303), the status carried to it. */
async function formAnswer(view: RouteView | undefined, data: unknown, ctx: ViewContext): Promise<Response> {
  const status = await view?.status?.(data, ctx);
  const to = view?.redirect?.(data, ctx) ?? returnPath(ctx.request, "/");
  const headers: Record<string, string> = { location: to, "cache-control": "no-store" };
  if (status) headers["set-cookie"] = statusCookie(status, ctx.request);
  return new Response(null, { status: 303, headers });
}
