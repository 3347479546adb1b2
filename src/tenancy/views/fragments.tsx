/** @jsxImportSource hono/jsx */
/**
 * The HTML views of the tenancy routes (docs/design.md "JSON by default, HTML when a browser asks": a resource's
 * fragments beside its routes): the organization's approval status, its members with their roles, its invitations (with the
 * accept link, for installs without mail) and its code hosting; the platform administrators'
 * table of organizations is in admin.tsx. The pages (tenancy/pages/org.tsx, tenancy/pages/admin.tsx) render the
 * same components; after a change through htmx the route answers the updated section with a
 * line saying what changed (tenancyViews, in the routes' descriptors).
 *
 * Who sees which control follows the service's rules (service.ts): owners change any role
 * (the owner role included) and remove anyone; admins change and remove members and admins;
 * everyone may leave. The last owner is not hidden from these controls: the server refuses
 * (409 last_owner) and the page says why.
 */
import type { ViewDeps } from "../../deps";
import { sessionOf } from "../../auth/guards";
import { activeOrganization } from "../../auth/session";
import { AppError } from "../../http/errors";
import type { RouteView, ViewContext } from "../../ui/views";
import { getCodeHosting } from "../codeHosting";
import { AdminOrganizations, refererStatus, statusFilter } from "./admin";
import { listAllOrganizations, listInvitations, listMembers } from "../service";

import { InvitationsSection, MembersSection, StatusCard } from "./org";
import { CODE_HOSTING_SAVED, CodeHostingSection } from "./codeHosting";
import { invitedLine } from "../invite";
import { AdminUsers } from "./adminUsers";
import { listAdminUsers, type AdminUserView } from "../adminUsers";

/** The sections a fragment answers, of the viewer's active organization. */
function sectionsOf(deps: ViewDeps) {
  const viewer = async (ctx: ViewContext) => {
    const session = sessionOf(ctx.request);
    const org = session ? await activeOrganization(deps.database, session) : undefined;
    if (!session || !org) throw new AppError("no_active_organization");
    return { session, org };
  };
  const members = async (ctx: ViewContext, notice?: string) => {
    const { session, org } = await viewer(ctx);
    return (
      <MembersSection
        members={await listMembers(deps.database, org.id)}
        viewer={{ userId: session.user.id, role: org.role }}
        orgName={org.name}
        notice={notice}
      />
    );
  };
  const invitations = async (ctx: ViewContext, notice?: string) => {
    const { org } = await viewer(ctx);
    return (
      <InvitationsSection
        invitations={await listInvitations(deps.database, org.id)}
        baseUrl={deps.config.baseUrl}
        viewerRole={org.role}
        mail={deps.config.smtpUrl !== undefined}
        notice={notice}
      />
    );
  };
  const codeHosting = async (ctx: ViewContext, notice?: string) => {
    const { org } = await viewer(ctx);
    return <CodeHostingSection codeHosting={await getCodeHosting(deps.database, org.id)} admin={org.role !== "member"} notice={notice} />;
  };
  return { viewer, members, invitations, codeHosting };
}

/**
 * The views of the tenancy routes' readings and changes (their descriptors: tenancy/describe.ts), made from the app's
 * deps when the app is built: the same sections as the pages (htmx asks with HX-Request), each change's with a line saying what changed.
 */
export function tenancyViews(deps: ViewDeps) {
  const { members, invitations, codeHosting } = sectionsOf(deps);
  return {
    created: { redirect: () => "/org" },
    switched: { redirect: () => "/" },
    status: {
      fragment: async (_d, ctx) => {
        const session = sessionOf(ctx.request);
        const org = session ? await activeOrganization(deps.database, session) : null;
        return org ? <StatusCard org={org} /> : <p class="muted">No active organization.</p>;
      },
    },
    members: { fragment: (_d, ctx) => members(ctx) },
    invitations: { fragment: (_d, ctx) => invitations(ctx) },
    codeHosting: { fragment: (_d, ctx) => codeHosting(ctx) },
    organizations: {
      fragment: async (_d, ctx) => (
        <AdminOrganizations
          organizations={await listAllOrganizations(deps.database)}
          status={statusFilter(new URL(ctx.request.url).searchParams.get("status"))}
        />
      ),
    },
    organizationMoved: {
      fragment: async (data, ctx) => {
        const o = (data as { organization: { name: string; status: string } }).organization;
        return (
          <AdminOrganizations
            organizations={await listAllOrganizations(deps.database)}
            status={refererStatus(ctx.request)}
            notice={`${o.name} is now ${o.status}.`}
          />
        );
      },
    },
    ...changeViews(deps),
    ...adminUserViews(deps),
  } satisfies Record<string, RouteView>;
}

/** The fragments of the changes: the updated section with a line saying what changed. */
function changeViews(deps: ViewDeps) {
  const { viewer, members, invitations, codeHosting } = sectionsOf(deps);
  const said = statusWords(deps, viewer);
  // each fragment says what changed in its own notice line; the same words go to the next page's
  // status line when the answer is a page (a form posted without JavaScript, a redirect)
  const saying = (status: (data: unknown, ctx: ViewContext) => string | Promise<string>) => ({ status, statusInFragment: true });
  const revoked = "The invitation was revoked; its link no longer works.";
  return {
    roleChanged: {
      // one's own role changed: the whole page, since what it shows depends on that role
      redirect: (_d, ctx) => (ctx.params.userId === sessionOf(ctx.request)?.user.id ? "/org" : null),
      fragment: async (data, ctx) => members(ctx, await said.role(data, ctx)),
      ...saying(said.role),
    },
    memberRemoved: {
      // leaving: the organization's pages are no longer this person's
      redirect: (_d, ctx) => (ctx.params.userId === sessionOf(ctx.request)?.user.id ? "/" : null),
      fragment: (_d, ctx) => members(ctx, said.removed),
      ...saying((_d, ctx) => (ctx.params.userId === sessionOf(ctx.request)?.user.id ? "You left the organization." : said.removed)),
    },
    invited: { fragment: (data, ctx) => invitations(ctx, said.invited(data)), ...saying(said.invited) },
    resent: { fragment: (data, ctx) => invitations(ctx, said.resent(data)), ...saying(said.resent) },
    revoked: { fragment: (_d, ctx) => invitations(ctx, revoked), ...saying(() => revoked) },
    codeHostingSaved: { fragment: (_d, ctx) => codeHosting(ctx, CODE_HOSTING_SAVED), ...saying(() => CODE_HOSTING_SAVED) },
    codeHostingCleared: { fragment: (_d, ctx) => codeHosting(ctx, "Code hosting cleared."), ...saying(() => "Code hosting cleared.") },
  } satisfies Record<string, RouteView>;
}

/** The users table after a change by a platform administrator, with a line saying what changed. */
function adminUserViews(deps: ViewDeps) {
  const table = async (ctx: ViewContext, notice: string) => (
    <AdminUsers users={await listAdminUsers(deps.database)} viewerId={sessionOf(ctx.request)?.user.id ?? ""} notice={notice} />
  );
  // one's own role or account changed: the whole page, since what it shows depends on them
  const selfChanged = (_d: unknown, ctx: ViewContext) => (ctx.params.id === sessionOf(ctx.request)?.user.id ? "/" : null);
  return {
    userChanged: {
      redirect: selfChanged,
      fragment: (data, ctx) => {
        const u = (data as { user: AdminUserView }).user;
        const asked = ctx.body as { disabled?: unknown; role?: unknown } | null;
        const said: string[] = [];
        if (asked?.disabled !== undefined) {
          said.push(
            u.disabled ? "is disabled: signed out everywhere, and refused at sign-in until enabled" : "is enabled: they can sign in again",
          );
        }
        if (asked?.role !== undefined)
          said.push(u.role === "admin" ? "is now a platform administrator" : "is no longer a platform administrator");
        return table(ctx, `${u.email} ${said.join("; ")}.`);
      },
    },
    userRemoved: {
      redirect: selfChanged,
      fragment: (_d, ctx) => table(ctx, "The user was removed: their sessions, keys and memberships ended at once."),
    },
  } satisfies Record<string, RouteView>;
}

/** What each change of the organization's members, invitations and code hosting says. */
function statusWords(deps: ViewDeps, viewer: ReturnType<typeof sectionsOf>["viewer"]) {
  return {
    role: async (data: unknown, ctx: ViewContext): Promise<string> => {
      const d = data as { userId: string; role: string };
      const who = (await listMembers(deps.database, (await viewer(ctx)).org.id)).find((m) => m.userId === d.userId)?.email ?? "The member";
      return `${who} is now ${d.role}.`;
    },
    removed: "The member was removed; their access ended at once.",
    invited: (data: unknown): string => invitedLine(deps, data as { email: string; role: string }),
    resent: (data: unknown): string =>
      `The invitation of ${(data as { email: string }).email} was sent again; it is valid 7 more days, with the same link.`,
  };
}
