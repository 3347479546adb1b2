/**
 * What every dashboard page needs first: the person (or a redirect to `/login`), their
 * organizations and the active one (the header's switcher), and, for the pages of an
 * organization's data, that organization approved and their role (docs/design.md "Organizations and their data", rule 1: a pending
 * organization's members see only its status).
 */
import type { AppDeps } from "../deps";
import { optionalSession } from "../auth/session";
import { AppError } from "../http/errors";
import type { SessionRecord } from "../identity/sessions";
import { listMemberships, type OrgMembership } from "../tenancy/service";
import type { Nav } from "./layout";

export interface PageContext {
  session: SessionRecord;
  organizations: OrgMembership[];
  active: OrgMembership | null;
  nav: Nav;
}

/** Who a page's header shows as signed in: the person and the navigation of their organizations. */
export interface Viewer {
  user: SessionRecord["user"];
  nav: Nav;
}

/** The viewers pageContext found, by request: an error page of the same request reuses its lookup. */
const viewers = new WeakMap<Request, Viewer>();

/** The header's navigation of a person's organizations, the page being at `path`. */
function navOf(session: SessionRecord, organizations: OrgMembership[], active: OrgMembership | null, path: string): Nav {
  return { organizations, activeOrganizationId: active?.id ?? null, path, platformAdmin: session.user.role === "admin" };
}

/** The signed-in page context, or a 303 to `/login?next=<this page>`. */
export async function pageContext(deps: AppDeps, request: Request): Promise<PageContext | Response> {
  const session = await optionalSession(deps, request);
  const url = new URL(request.url);
  if (!session) {
    return new Response(null, { status: 303, headers: { location: `/login?next=${encodeURIComponent(url.pathname + url.search)}`, "cache-control": "no-store" } });
  }
  const organizations = await listMemberships(deps.database, session.user.id);
  // the active organization is one of them (or none: the session's choice is no longer a membership)
  const active = organizations.find((o) => o.id === session.activeOrganizationId) ?? null;
  const nav = navOf(session, organizations, active, url.pathname);
  viewers.set(request, { user: session.user, nav });
  return { session, organizations, active, nav };
}

/**
 * The signed-in viewer of a page that is not a dashboard page of its own (the error page, the
 * confirmation page: web/errors.tsx), its navigation at `path`; null when signed out, or when
 * the lookup itself fails (an error page never fails for want of its header).
 */
export async function viewerOf(deps: AppDeps, request: Request, path: string): Promise<Viewer | null> {
  const seen = viewers.get(request);
  if (seen) return { user: seen.user, nav: { ...seen.nav, path } };
  try {
    const session = await optionalSession(deps, request);
    if (!session) return null;
    const organizations = await listMemberships(deps.database, session.user.id);
    const active = organizations.find((o) => o.id === session.activeOrganizationId) ?? null;
    return { user: session.user, nav: navOf(session, organizations, active, path) };
  } catch {
    return null;
  }
}

/** The active organization, approved (else the error page says why and what to do). */
export function approvedOrg(ctx: PageContext): OrgMembership {
  if (!ctx.active) throw new AppError("no_active_organization", "You do not belong to an organization yet: create one, or accept an invitation.");
  if (ctx.active.status !== "approved") {
    throw new AppError("organization_not_approved", `${ctx.active.name} is ${ctx.active.status}: a platform administrator must approve it before its projects can be used. Its status stays visible on the home page.`);
  }
  return ctx.active;
}

/** Whether the person may administer the active organization (owner or admin). */
export const isOrgAdmin = (org: OrgMembership): boolean => org.role === "owner" || org.role === "admin";
