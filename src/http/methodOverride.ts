/**
 * Method override for browser forms (docs/design.md "Pages work without JavaScript": pages read without JavaScript; forms post
 * normally and htmx enhances them"). A browser form can only GET or POST, while the `/web/*`
 * routes that change a resource are PUT, PATCH and DELETE (htmx sends those verbs). So a form
 * posts to the same route with the verb in the query string:
 *
 *     <form method="post" action="/web/projects/p1/keys/k1?_method=DELETE" hx-delete="/web/projects/p1/keys/k1">
 *
 * and, before routing, the request takes that method: the route, its guard, the CSRF check
 * (src/http/csrf.ts: the request is a DELETE, so it is checked like any other) and the 303 of a
 * form post (src/ui/views.ts) are the route's own. The rule, and nothing else:
 *   - only a POST whose path is under `/web/`;
 *   - only a form body (`application/x-www-form-urlencoded` or `multipart/form-data`);
 *   - only `_method` = PUT, PATCH or DELETE (any case).
 * A `/web/*` POST that names a `_method` outside this rule (a JSON body, GET, an unknown verb)
 * is refused with 400 `validation_failed` (issue `_method`), never run as the POST it is. A GET,
 * or a path outside `/web/`, is not looked at: `_method` is an unknown query parameter there.
 *
 * The request object keeps its identity (only its `method` is shadowed), so what is keyed by
 * request (the edge's id and timings, the guards' results, the peer address of the socket) stays
 * right. It is then handed to the app again (`dispatch`): Bun's own router picks a route by the
 * socket's method before any hook runs, so a path with both a POST and a DELETE route would
 * otherwise run the POST.
 *
 * A destructive change posted this way must be confirmed (htmx asked with `hx-confirm`, a form
 * without JavaScript cannot): routes call `requireConfirmation` or `requireTypedName`; a
 * request that is not an override (htmx, a script's DELETE) is not asked again.
 */
import { Elysia } from "elysia";
import { AppError, validationFailed } from "./errors";
import { formField } from "./form";

const OVERRIDABLE = new Set(["PUT", "PATCH", "DELETE"]);
const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/** Requests whose method was taken from `_method` (a browser form, without JavaScript). */
const overridden = new WeakSet<Request>();

/**
 * What `_method` asks of a request: null when the rule does not look at it (not a POST, not under
 * /web/, no `_method`), the method to take, or why it is refused.
 */
export function overrideOf(request: Request): { method: string } | { refused: string } | null {
  if (request.method !== "POST" || !request.url.includes("/web/")) return null; // (no URL parse for the key API's posts)
  const url = new URL(request.url);
  if (!url.pathname.startsWith("/web/")) return null;
  const asked = url.searchParams.get("_method");
  if (asked === null) return null;
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!FORM_TYPES.has(type))
    return {
      refused: "is only accepted on a form post (application/x-www-form-urlencoded or multipart/form-data); send the method itself",
    };
  const method = asked.toUpperCase();
  if (!OVERRIDABLE.has(method)) return { refused: "must be PUT, PATCH or DELETE" };
  return { method };
}

/** The plugin, composed after the edge (its request id) and before the routes. */
export function methodOverride(dispatch: (request: Request) => Response | Promise<Response>) {
  return new Elysia({ name: "method-override" }).onRequest(({ request }) => {
    if (overridden.has(request)) return; // handed back by dispatch: route it
    const o = overrideOf(request);
    if (o === null) return;
    if ("refused" in o)
      throw validationFailed(
        [{ path: "_method", message: o.refused }],
        "This form asked for a method the server does not take from a form.",
      );
    Object.defineProperty(request, "method", { value: o.method, configurable: true, enumerable: true });
    overridden.add(request);
    return dispatch(request);
  });
}

/** What a confirmation page asks and the label of its button (src/ui/errors.tsx renders it). */
export interface Confirmation {
  question: string;
  label: string;
  /** Fields the confirmed post sends again beside `confirm=yes` (a disable's `enabled=false`). */
  fields?: Record<string, string>;
  /** With htmx, the element the confirmed answer replaces (outerHTML), e.g. `#installed`; else the page reloads. */
  target?: string;
}

/** A form posted without JavaScript whose method came from `?_method=` (its route may ask for a confirmation). */
export function isFormOverride(request: Request): boolean {
  return overridden.has(request);
}

/** The body confirms the change: `confirm=yes` (the kit's confirmation page) or `confirm=1`. */
export function isConfirmed(body: unknown): boolean {
  const c = formField(body, "confirm");
  return c === "yes" || c === "1";
}

/**
 * A destructive change posted by a form without JavaScript goes through only with `confirm=yes`
 * in its body; without it, 400 `validation_failed` (issue `confirm`) whose details carry the
 * question, which a browser sees as a page asking it with a button that posts again confirmed.
 * `ask` is called only then (it may read names to put in the question).
 */
export async function requireConfirmation(request: Request, body: unknown, ask: () => Confirmation | Promise<Confirmation>): Promise<void> {
  if (!overridden.has(request) || isConfirmed(body)) return;
  const c = await ask();
  throw new AppError("validation_failed", `${c.question} Nothing was changed yet: confirm to go on.`, {
    issues: [{ path: "confirm", message: "confirm the change (confirm=yes)" }],
    confirm: c,
  });
}

/**
 * A deletion posted by a form without JavaScript goes through only when its `confirm` field is
 * the name typed exactly (with JavaScript, app.js enables the button only then); else 400
 * `validation_failed` (issue `confirm`) and nothing is deleted. `nameOf` is read only then.
 */
export async function requireTypedName(request: Request, body: unknown, nameOf: () => Promise<string>, what: string): Promise<void> {
  if (!overridden.has(request)) return;
  const refusal = typedNameRefusal(body, await nameOf(), what);
  if (refusal) throw refusal;
}

/**
 * The refusal of a typed-name deletion whose `confirm` field is not `name` exactly (400 validation_failed, issue
 * `confirm`), or null: `requireTypedName`, and a page that takes the deletion form's post itself.
 */
export function typedNameRefusal(body: unknown, name: string, what: string): AppError | null {
  const typed = formField(body, "confirm");
  if (typed === name) return null;
  return validationFailed(
    [
      {
        path: "confirm",
        message: typed ? `"${typed}" is not "${name}": type the ${what}'s name exactly` : `type the ${what}'s name, "${name}"`,
      },
    ],
    `Nothing was deleted: type the ${what}'s name, ${name}, to confirm.`,
  );
}
