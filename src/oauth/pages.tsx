/** @jsxImportSource hono/jsx */
/**
 * The front channel, under the web session: `GET /oauth/authorize` (consent page),
 * `POST /oauth/authorize` (the consent form, CSRF-checked). Sign-in is the `/login` page
 * (identity/pages/login.tsx), which returns to the consent afterwards.
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../deps";
import { clientAddressOf } from "../http/client";
import { optionalSession } from "../auth/session";
import { checkSameOrigin } from "../http/csrf";
import { AppError } from "../http/errors";
import { formField } from "../http/form";
import type { SessionRecord } from "../auth/sessions";
import { page } from "../ui/layout";
import {
  AUTHORIZE_PARAMS,
  checkAuthorizeRequest,
  projectForConsent,
  projectsForConsent,
  redirectWith,
  type AuthorizeCheck,
  type AuthorizeRequest,
  type MetadataLookup,
} from "./authorize";
import type { MetadataFetchBudget } from "./cimd";
import { issueCode } from "./grants";
import { ConsentPage, OAuthErrorPage } from "./views";
import type { SignInClientOf } from "../identity/pages/login";

const html = (node: unknown, status = 200, headers: Record<string, string> = {}) => page(node, status, headers);
const redirect = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 302, headers: { location, "cache-control": "no-store", ...headers } });

/** The hidden fields that carry the authorization request through the form. */
function carried(get: (n: string) => string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of AUTHORIZE_PARAMS) {
    const v = get(n);
    if (v !== undefined) out[n] = v;
  }
  return out;
}

/** The page explaining why there is nothing to consent to, with a way back to the client. */
function refusal(base: string, req: AuthorizeRequest, session: SessionRecord, message: string, status: number, returnTo: string): Response {
  return html(
    <OAuthErrorPage
      title="Access cannot be granted"
      message={message}
      user={session.user}
      links={[
        { href: `/login?next=${encodeURIComponent(returnTo)}`, label: "Sign in with another account" },
        {
          href: redirectWith(req.redirectUri, { error: "access_denied", error_description: message, state: req.state }, base),
          label: "Return to ",
          name: req.client.name,
        },
      ]}
    />,
    status,
  );
}

/**
 * How a client id that is a metadata document's URL is looked up (oauth/cimd.ts): fetched within
 * `budget` for the request's client address, or, without a budget (nobody signed in), only kept.
 */
function clientMetadata(deps: CoreDeps, request: Request | null, budget: MetadataFetchBudget | null): MetadataLookup {
  const settings = { egress: deps.config.egress, allowLoopback: deps.config.oauthClientMetadataLoopback, log: deps.log };
  return { settings, fetch: budget && request ? { budget, address: clientAddressOf(request) } : null };
}

/** The page of a request refused before any redirect: the client or redirect URI (400; 429 past the lookup budget). */
function refusedPage(check: Extract<AuthorizeCheck, { page: string }>): Response {
  return html(<OAuthErrorPage title="Authorization request refused" message={check.page} />, check.status ?? 400, check.headers ?? {});
}

/**
 * The application a sign-in is for (the `/login` page of an authorization request's `next`): its
 * registered client_name or its metadata document's (only when already kept: the sign-in page
 * never fetches one), and its redirect host; null unless the request is valid.
 */
export function signInClient(deps: CoreDeps): SignInClientOf {
  return async (next) => {
    const url = new URL(next, deps.config.baseUrl);
    if (url.pathname !== "/oauth/authorize") return null;
    const get = (n: string) => url.searchParams.get(n) ?? undefined;
    const check = await checkAuthorizeRequest(deps.database, deps.config.baseUrl, get, clientMetadata(deps, null, null));
    if (!check.ok) return null;
    const c = check.request.client;
    return { name: c.name, from: c.from, redirectHost: new URL(check.request.redirectUri).host };
  };
}

/**
 * `GET /oauth/authorize`: the request checked, then sign-in or the consent page (the project named, or a
 * choice of them). A metadata document is fetched only for a signed-in person: a visitor is sent to sign in first.
 */
async function consentPage(deps: CoreDeps, request: Request, budget: MetadataFetchBudget): Promise<Response> {
  const base = deps.config.baseUrl;
  const url = new URL(request.url);
  const get = (n: string) => url.searchParams.get(n) ?? undefined;
  const session = await optionalSession(deps, request);
  const here = url.pathname + url.search;
  const check = await checkAuthorizeRequest(deps.database, base, get, clientMetadata(deps, request, session ? budget : null));
  if (!check.ok) {
    if ("redirect" in check) return redirect(check.redirect);
    if ("signIn" in check) return redirect(`/login?next=${encodeURIComponent(here)}`);
    return refusedPage(check);
  }
  if (!session) return redirect(`/login?next=${encodeURIComponent(here)}`);
  const req = check.request;
  let project = null;
  let choices: { id: string; name: string; organizationName: string }[] = [];
  if (req.projectId) {
    const p = await projectForConsent(deps.database, session.user.id, req.projectId);
    if ("refused" in p) return refusal(base, req, session, p.refused, p.status, here);
    project = p;
  } else {
    choices = await projectsForConsent(deps.database, session.user.id);
    if (choices.length === 0) return refusal(base, req, session, "You have no project in an approved organization.", 403, here);
  }
  return html(
    <ConsentPage
      user={session.user}
      client={{ id: req.client.id, name: req.client.name, from: req.client.from }}
      redirectHost={new URL(req.redirectUri).host}
      project={project}
      choices={choices}
      scopes={req.scopes}
      request={carried(get)}
    />,
  );
}

/** `POST /oauth/authorize`: the consent form (CSRF-checked); allowed, a code for the chosen project and scopes. */
async function consentPost(deps: CoreDeps, request: Request, body: unknown, budget: MetadataFetchBudget): Promise<Response> {
  const base = deps.config.baseUrl;
  const get = (n: string) => formField(body, n);
  const session = await optionalSession(deps, request);
  if (!session)
    return html(<OAuthErrorPage title="Signed out" message="Your session ended. Start the connection again from the application." />, 401);
  try {
    checkSameOrigin(deps.config, request, true);
  } catch (e) {
    if (e instanceof AppError) return html(<OAuthErrorPage title="Request refused" message={e.message} user={session.user} />, e.status);
    throw e;
  }
  const check = await checkAuthorizeRequest(deps.database, base, get, clientMetadata(deps, request, budget));
  if (!check.ok) {
    if ("redirect" in check) return redirect(check.redirect);
    if ("page" in check) return refusedPage(check);
    throw new Error("unreachable: a signed-in lookup may fetch");
  }
  const req = check.request;
  const deny = (description: string) =>
    redirect(redirectWith(req.redirectUri, { error: "access_denied", error_description: description, state: req.state }, base));
  if (get("decision") !== "allow") return deny("The user denied access.");
  const projectId = req.projectId ?? get("project_id") ?? "";
  const here = `/oauth/authorize?${new URLSearchParams(carried(get)).toString()}`;
  const p = await projectForConsent(deps.database, session.user.id, projectId);
  if ("refused" in p) return refusal(base, req, session, p.refused, p.status, here);
  const scopes = req.scopes.filter((s) => get(`scope_${s}`) !== undefined);
  if (scopes.length === 0) return deny("No scope was granted.");
  const code = await issueCode(
    deps.database,
    {
      clientId: req.client.id,
      userId: session.user.id,
      projectId: p.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      scopes,
      resource: req.resource,
    },
    req.client,
  );
  return redirect(redirectWith(req.redirectUri, { code, state: req.state }, base));
}

/** The consent page and form of the authorization server's front channel; `budget` bounds the metadata documents they fetch. */
export function consentRoutes(deps: CoreDeps, budget: MetadataFetchBudget) {
  return new Elysia()
    .get("/oauth/authorize", ({ request }) => consentPage(deps, request, budget))
    .post("/oauth/authorize", ({ request, body }) => consentPost(deps, request, body, budget));
}
