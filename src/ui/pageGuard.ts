/**
 * What every dashboard page needs first: the person (or a redirect to `/login`), their
 * organizations and the active one (the header's switcher), and, for the pages of an
 * organization's data, that organization approved and their role (docs/design.md "Organizations and their data", rule 1: a pending
 * organization's members see only its status). The kit knows sessions and memberships only
 * by the shape it reads (PageSession, PageOrg): the domain that owns them hands in PageSessions
 * (tenancy/pageSessions.ts), the composition root wires it where a lower domain needs a page.
 */
import { Elysia } from "elysia";
import type { Config } from "../config";
import { checkSameOrigin } from "../http/csrf";
import { AppError, notFound } from "../http/errors";
import type { Nav } from "./layout";

/** What the kit reads of a signed-in person's session. */
export interface PageSession {
  user: { id: string; email: string; role: string };
  activeOrganizationId: string | null;
}

/** What the kit reads of one of the person's organizations (a membership, with the person's role). */
export interface PageOrg {
  id: string;
  name: string;
  status: string;
  role: string;
}

/** Who is signed in on a request and their organizations, found by the domain that owns sessions. */
export interface PageSessions<S extends PageSession = PageSession, O extends PageOrg = PageOrg> {
  /** For the cross-site check of a posted form. */
  config: Config;
  /** The session of the request with the person's organizations, or null when signed out. */
  signedIn(request: Request): Promise<{ session: S; organizations: O[] } | null>;
}

export interface PageContext<S extends PageSession = PageSession, O extends PageOrg = PageOrg> {
  session: S;
  organizations: O[];
  active: O | null;
  nav: Nav;
}

/** Who a page's header shows as signed in: the person and the navigation of their organizations. */
export interface Viewer {
  user: PageSession["user"];
  nav: Nav;
}

/** The viewers pageContext found, by request: an error page of the same request reuses its lookup. */
const viewers = new WeakMap<Request, Viewer>();

/** The header's navigation of a person's organizations, the page being at `path`. */
function navOf(session: PageSession, organizations: PageOrg[], active: PageOrg | null, path: string): Nav {
  return { organizations, activeOrganizationId: active?.id ?? null, path, platformAdmin: session.user.role === "admin" };
}

/** The signed-in page context, or a 303 to `/login?next=<this page>`. */
export async function pageContext<S extends PageSession, O extends PageOrg>(
  sessions: PageSessions<S, O>,
  request: Request,
): Promise<PageContext<S, O> | Response> {
  const found = await sessions.signedIn(request);
  const url = new URL(request.url);
  if (!found) {
    return new Response(null, {
      status: 303,
      headers: { location: `/login?next=${encodeURIComponent(url.pathname + url.search)}`, "cache-control": "no-store" },
    });
  }
  const { session, organizations } = found;
  // the active organization is one of them (or none: the session's choice is no longer a membership)
  const active = organizations.find((o) => o.id === session.activeOrganizationId) ?? null;
  const nav = navOf(session, organizations, active, url.pathname);
  viewers.set(request, { user: session.user, nav });
  return { session, organizations, active, nav };
}

/**
 * The signed-in viewer of a page that is not a dashboard page of its own (the error page, the
 * confirmation page: ui/errors.tsx), its navigation at `path`; null when signed out, or when
 * the lookup itself fails (an error page never fails for want of its header).
 */
export async function viewerOf(sessions: PageSessions, request: Request, path: string): Promise<Viewer | null> {
  const seen = viewers.get(request);
  if (seen) return { user: seen.user, nav: { ...seen.nav, path } };
  try {
    const found = await sessions.signedIn(request);
    if (!found) return null;
    const { session, organizations } = found;
    const active = organizations.find((o) => o.id === session.activeOrganizationId) ?? null;
    return { user: session.user, nav: navOf(session, organizations, active, path) };
  } catch {
    return null;
  }
}

/** The active organization, approved (else the error page says why and what to do). */
export function approvedOrg<O extends PageOrg>(ctx: PageContext<PageSession, O>): O {
  if (!ctx.active)
    throw new AppError("no_active_organization", "You do not belong to an organization yet: create one, or accept an invitation.");
  if (ctx.active.status !== "approved") {
    throw new AppError(
      "organization_not_approved",
      `${ctx.active.name} is ${ctx.active.status}: a platform administrator must approve it before its projects can be used. ` +
        "Its status stays visible on the home page.",
    );
  }
  return ctx.active;
}

/** Whether the person may administer the active organization (owner or admin). */
export const isOrgAdmin = (org: PageOrg): boolean => org.role === "owner" || org.role === "admin";

/** A page's viewer: anyone signed in, or a platform administrator (anyone else: the 404 page). */
export type PageRule = "signedIn" | "platform";
/** A page of the active organization's data: any member, or its owners and admins (anyone else: the 404 page with this message). */
export type OrgPageRule = "member" | { admin: string };

/**
 * The pages' guard as Elysia macros, beside each route as the JSON routes' guards are
 * (auth/guards.ts): `{ page: "signedIn" | "platform" }` hands the handler `page` (the
 * PageContext); `{ orgPage: "member" | { admin: "<404 message>" } }` also `org`, the approved
 * active organization. Signed out: a 303 to /login?next=<the page>; no or an unapproved
 * organization: approvedOrg's error page; the wrong role: the 404 page. Runs in `transform`,
 * before the body is read; a posted form is CSRF-checked once the session is known.
 */
export function createPageGuard<S extends PageSession, O extends PageOrg>(sessions: PageSessions<S, O>) {
  /** What the guard found for a request: the context and organization, or the redirect to /login. */
  const guarded = new WeakMap<Request, { page?: PageContext<S, O>; org?: O; redirect?: Response }>();
  /** Signed out: the 303 to /login, kept for beforeHandle; signed in: a form from another site is refused, then `check` decides. */
  const guard = async (request: Request, check: (page: PageContext<S, O>) => O | undefined): Promise<void> => {
    const page = await pageContext(sessions, request);
    if (page instanceof Response) return void guarded.set(request, { redirect: page });
    checkSameOrigin(sessions.config, request, true);
    guarded.set(request, { page, org: check(page) });
  };
  const got = (request: Request) => guarded.get(request) ?? {};
  return new Elysia().macro({
    page: (rule: PageRule) => ({
      async transform({ request }) {
        await guard(request, (page) => {
          if (rule === "platform" && page.session.user.role !== "admin") throw notFound("No such page.");
          return undefined;
        });
      },
      beforeHandle: ({ request }) => got(request).redirect,
      resolve: ({ request }) => ({ page: got(request).page! }),
    }),
    orgPage: (rule: OrgPageRule) => ({
      async transform({ request }) {
        await guard(request, (page) => {
          const org = approvedOrg(page);
          if (rule !== "member" && !isOrgAdmin(org)) throw notFound(rule.admin);
          return org;
        });
      },
      beforeHandle: ({ request }) => got(request).redirect,
      resolve: ({ request }) => ({ page: got(request).page!, org: got(request).org! }),
    }),
  });
}
