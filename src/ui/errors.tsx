/** @jsxImportSource hono/jsx */
/**
 * Errors as a person sees them ("errors show on the page, never a raw JSON body or
 * a blank page"): an htmx request gets a fragment swapped into the page's message area; a
 * page, or a form posted without JavaScript, gets an error page with the status; APIs keep the
 * JSON error model. Given to the edge as its `htmlError` (`htmlErrors`).
 */
import { type AppError, ERROR_CODES, type Issue } from "../http/errors";
import { isApiPath, isHtmx, isNavigation } from "../http/negotiate";
import type { Confirmation } from "../http/methodOverride";
import { markedFields } from "./form";
import { Layout, page } from "./layout";
import { flatParentheses, issueWords } from "./refusalWords";
import type { Viewer } from "./pageGuard";
import { returnPath } from "./views";
import { safeNext } from "../http/next";

const TITLES: Record<number, string> = {
  400: "That did not work",
  401: "Sign in first",
  403: "Not allowed",
  404: "Not found",
  409: "That clashes with what is there",
  410: "Expired",
  413: "Too large",
  429: "Too many attempts",
};

/**
 * The problem in words (docs/design.md "Form refusals"): each issue once, in a person's words (ui/refusalWords.ts), and
 * the error's own sentence only when no issue says it; the unknown ids only when that sentence does not name them.
 * Each issue carries its path (`data-field`) and what it says beside its field (`data-message`): app.js
 * moves it under the field it names and leaves the alert one sentence (`data-marked-one`, `data-marked-many`).
 */
export function ErrorDetails(props: { error: AppError; requestId: string }) {
  const issues = (props.error.details.issues as Issue[] | undefined) ?? [];
  const said = !saidByIssues(props.error, issues);
  const pairs = (props.error.details.pairs as { a: string; b: string }[] | undefined) ?? [];
  const ids = ((props.error.details.ids as string[] | undefined) ?? []).filter(
    (id) => issues.length === 0 && !props.error.message.includes(id),
  );
  const field = (issues.length === 0 && (props.error.details.field as string | undefined)) || undefined;
  return (
    <>
      {/* a refusal of one field (a 409 naming it): app.js also shows it under that field */}
      {said ? (
        <p data-field={field} data-message={field ? flatParentheses(props.error.message) : undefined}>
          {flatParentheses(props.error.message)}
        </p>
      ) : null}
      {issues.length > 0 ? (
        <ul>
          {issues.map((i) => {
            const words = issueWords(i);
            return (
              <li data-field={i.path || undefined} data-message={words.atField}>
                {words.alone}
              </li>
            );
          })}
        </ul>
      ) : null}
      {pairs.length > 0 ? (
        <ul>
          {pairs.map((p) => (
            <li>
              <code>{p.a}</code> conflicts with <code>{p.b}</code>
            </li>
          ))}
        </ul>
      ) : null}
      {ids.length > 0 ? (
        <p>
          Unknown:{" "}
          {ids.map((id) => (
            <code>{id} </code>
          ))}
        </p>
      ) : null}
      {props.error.status >= 500 ? <p class="muted">Request {props.requestId}</p> : null}
    </>
  );
}

/**
 * Whether an error's own sentence only repeats its issues: the code's default sentence ("The request is not valid."),
 * the one issue's sentence (`validationFailed` of one issue), or unknown ids every one of which an issue names.
 */
function saidByIssues(error: AppError, issues: Issue[]): boolean {
  if (issues.length === 0) return false;
  if (error.message === ERROR_CODES[error.code].message) return true;
  if (issues.some((i) => error.message === i.message || error.message === `${i.path}: ${i.message}`)) return true;
  const ids = (error.details.ids as string[] | undefined) ?? [];
  return ids.length > 0 && ids.every((id) => issues.some((i) => i.message.includes(id)));
}

/** The htmx fragment of an error: retargeted into the page's #flash area. */
export function errorFragment(error: AppError, requestId: string, request?: Request): Response {
  const c = error.details.confirm as Confirmation | undefined;
  const html = String(
    c && request ? (
      <ConfirmFragment c={c} request={request} />
    ) : (
      <div class="flash error" role="alert" data-marked-one={markedFields(1)} data-marked-many={markedFields("{n}")}>
        <strong>{TITLES[error.status] ?? "Something went wrong"}.</strong> <ErrorDetails error={error} requestId={requestId} />
      </div>
    ),
  );
  return new Response(html, {
    status: error.status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "hx-retarget": "#flash",
      "hx-reswap": "innerHTML",
      "cache-control": "no-store",
      ...error.headers,
    },
  });
}

/**
 * An htmx change the server asks to confirm (a route's `confirm` detail, e.g. a disable that leaves talents without a
 * prerequisite): the question in #flash with a button that sends the same change again with `confirm=yes` and the
 * fields it names, its answer replacing the confirmation's `target`. Nothing was changed.
 */
function ConfirmFragment(props: { c: Confirmation; request: Request }) {
  const { c, request } = props;
  const url = new URL(request.url);
  const method = request.method.toLowerCase();
  // "keep it": the page the question was asked on, again (htmx names it), else the home page
  const current = request.headers.get("hx-current-url");
  let keep = "/";
  try {
    if (current) keep = safeNext(new URL(current).pathname + new URL(current).search);
  } catch {
    /* not a URL: the home page */
  }
  const htmx = { [`hx-${method}`]: url.pathname + url.search, ...(c.target ? { "hx-target": c.target, "hx-swap": "outerHTML" } : {}) };
  return (
    <div class="flash warning confirm" role="alert" id="confirm-change">
      <strong>Confirm: {c.label}.</strong> <p>{c.question}</p>
      <p class="muted small">Nothing was changed yet.</p>
      <form method="post" action={`${url.pathname}?_method=${request.method}`} {...htmx} class="inline">
        {Object.entries(c.fields ?? {}).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" class="danger small">
          {c.label}
        </button>{" "}
        <a href={keep}>Keep it as it is</a>
      </form>
    </div>
  );
}

/** The error page of a page route or a browser form post; with the header of a signed-in `viewer`. */
export function errorPage(error: AppError, requestId: string, viewer: Viewer | null = null): Response {
  const title = TITLES[error.status] ?? "Something went wrong";
  return page(
    <Layout title={title} user={viewer?.user} nav={viewer?.nav}>
      <div class="card">
        <h1>{title}</h1>
        <ErrorDetails error={error} requestId={requestId} />
        <p>{error.status === 401 ? <a href="/login">Sign in</a> : <a href="/">Back to your projects</a>}</p>
      </div>
    </Layout>,
    error.status,
    error.headers,
  );
}

/**
 * The page of a destructive change posted without JavaScript and not yet confirmed
 * (http/methodOverride.ts `requireConfirmation`): the question, a button that posts the same
 * form again with `confirm=yes`, and a way back. Nothing was changed.
 */
export function confirmationPage(error: AppError, request: Request, viewer: Viewer | null = null): Response {
  const c = error.details.confirm as Confirmation;
  const url = new URL(request.url);
  const back = returnPath(request, "/");
  return page(
    <Layout title={`Confirm: ${c.label}`} user={viewer?.user} nav={viewer?.nav}>
      <div class="card">
        <h1>Confirm: {c.label}</h1>
        <p>{c.question}</p>
        <p class="muted">Nothing was changed yet.</p>
        <form method="post" action={url.pathname + url.search}>
          {Object.entries(c.fields ?? {}).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirm" value="yes" />
          <input type="hidden" name="return" value={back} />
          <p>
            <button type="submit" class="danger">
              {c.label}
            </button>{" "}
            <a href={back}>Cancel</a>
          </p>
        </form>
      </div>
    </Layout>,
    error.status,
    error.headers,
  );
}

/** Finds the signed-in viewer of a request (ui/pageGuard.ts `viewerOf`), the page being at `path`. */
export type ViewerLookup = (request: Request, path: string) => Promise<Viewer | null>;

/**
 * The edge's htmlError: a fragment for htmx, a page for a browser navigation (a page, a form
 * posted without JavaScript), null (JSON) for the rest. A page has the header of every other
 * page when the viewer is signed in; its switcher returns to the page itself (a GET) or to the
 * page the form was posted from.
 */
export function htmlErrors(viewerOf: ViewerLookup) {
  return async (error: AppError, request: Request, requestId: string): Promise<Response | null> => {
    if (isHtmx(request)) return errorFragment(error, requestId, request);
    if (!isNavigation(request)) return null;
    const url = new URL(request.url);
    if (isApiPath(url.pathname)) return null;
    const viewer = await viewerOf(request, request.method === "GET" ? url.pathname : returnPath(request, "/"));
    return error.details.confirm ? confirmationPage(error, request, viewer) : errorPage(error, requestId, viewer);
  };
}
