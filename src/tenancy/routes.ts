/**
 * `/web/orgs/*`, `/web/invitations/*` and `/web/admin/*`: organizations, the active
 * organization, members, invitations, and platform administration.
 */
import { Elysia, t } from "elysia";
import type { CoreDeps } from "../deps";
import type { Guards } from "../auth/guards";
import { activeOrganization } from "../auth/session";
import { MEMBER_ROLES } from "../db/schema";
import { notFound } from "../http/errors";
import { intParam } from "../http/query";
import { requireConfirmation } from "../http/methodOverride";
import { confirmations } from "../ui/confirmations";
import { listSecurityEvents } from "../identity/security";
import { setActiveOrganization } from "../auth/sessions";
import { INVITE_EMAIL_ISSUE, INVITE_EMAIL_PATTERN, INVITE_ROLE_ISSUE, mailInvitation, sendInvitation } from "./invite";
import { adminUserRoutes } from "./adminUserRoutes";
import { listAdminUsers } from "./adminUsers";
import {
  acceptInvitation,
  APPROVAL_OPERATIONS,
  changeApproval,
  changeMemberRole,
  createOwnOrganization,
  findMembership,
  listAllOrganizations,
  listInvitations,
  listMembers,
  listMemberships,
  membershipView,
  removeMember,
  renewInvitation,
  revokeInvitation,
  type ApprovalOperation,
} from "./service";
import { iso } from "../lib/time";
import { userActor } from "../audit/record";
import { routeGuard, routePattern } from "../http/route";
import { TENANCY } from "./describe";

const Role = t.Union(
  MEMBER_ROLES.map((r) => t.Literal(r)),
  { error: INVITE_ROLE_ISSUE },
);

/** The organizations, members, invitations and platform administration routes. */
export function tenancyRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(orgRoutes(deps, guards))
    .use(memberRoutes(deps, guards))
    .use(invitationRoutes(deps, guards))
    .use(acceptInvitationRoutes(deps, guards))
    .use(platformAdminRoutes(deps, guards));
}

/** The signed-in user's organizations (no approval needed: not a business route). */
function orgRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(TENANCY.orgs),
      async ({ auth }) => ({
        organizations: (await listMemberships(deps.database, auth.user.id)).map(membershipView),
        activeOrganizationId: auth.activeOrganizationId,
      }),
      routeGuard(TENANCY.orgs),
    )
    .post(
      routePattern(TENANCY.createOrg),
      async ({ auth, body, set }) => {
        const org = await createOwnOrganization(deps, auth, body);
        set.status = 201;
        return { organization: membershipView(org) };
      },
      {
        ...routeGuard(TENANCY.createOrg),
        body: t.Object({ name: t.String({ minLength: 1, maxLength: 100 }), slug: t.Optional(t.String({ maxLength: 40 })) }),
      },
    )
    .get(
      routePattern(TENANCY.status),
      async ({ auth }) => {
        const org = await activeOrganization(deps.database, auth);
        return {
          organization: org ? { id: org.id, slug: org.slug, name: org.name, status: org.status } : null,
          role: org?.role ?? null,
          approved: org?.status === "approved",
        };
      },
      routeGuard(TENANCY.status),
    )
    .post(
      routePattern(TENANCY.setActive),
      async ({ auth, body }) => {
        const org = await findMembership(deps.database, auth.user.id, body.organizationId);
        if (!org) throw notFound("No such organization among yours.");
        await deps.database.write((tx) => setActiveOrganization(tx, auth.id, org.id));
        return { organization: membershipView(org) };
      },
      { ...routeGuard(TENANCY.setActive), body: t.Object({ organizationId: t.String({ maxLength: 64 }) }) },
    );
}

/** The members of the active organization. */
function memberRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(TENANCY.members),
      async ({ org }) => ({
        members: (await listMembers(deps.database, org.id)).map((m) => ({
          userId: m.userId,
          email: m.email,
          name: m.name,
          role: m.role,
          joinedAt: iso(m.joinedAt),
        })),
      }),
      routeGuard(TENANCY.members),
    )
    .patch(
      routePattern(TENANCY.changeRole),
      async ({ auth, org, params, body }) =>
        deps.database.write((tx) => changeMemberRole(tx, org.id, { ...userActor(auth.user), role: org.role }, params.userId, body.role)),
      { ...routeGuard(TENANCY.changeRole), body: t.Object({ role: Role }) },
    )
    .delete(
      routePattern(TENANCY.removeMember),
      async ({ auth, org, params, body, request }) => {
        await requireConfirmation(request, body, async () => {
          const m = (await listMembers(deps.database, org.id)).find((x) => x.userId === params.userId);
          if (!m) throw notFound("No such member.");
          return m.userId === auth.user.id ? confirmations.leave(org.name) : confirmations.removeMember(m.email, org.name);
        });
        await deps.database.write((tx) => removeMember(tx, org.id, { ...userActor(auth.user), role: org.role }, params.userId));
        return { removed: params.userId };
      },
      routeGuard(TENANCY.removeMember),
    );
}

/** Invitations to the active organization. */
function invitationRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(TENANCY.invitations),
      async ({ org }) => ({
        invitations: (await listInvitations(deps.database, org.id)).map((i) => ({
          id: i.id,
          email: i.email,
          role: i.role,
          status: i.status,
          expiresAt: iso(i.expiresAt),
          createdAt: iso(i.createdAt),
          link: `${deps.config.baseUrl}/accept-invitation/${i.id}`,
        })),
      }),
      routeGuard(TENANCY.invitations),
    )
    .post(
      routePattern(TENANCY.invite),
      async ({ auth, org, body, set }) => {
        const inv = await sendInvitation(deps, auth.user, org, body);
        set.status = 201;
        return { id: inv.id, link: inv.link, email: inv.email, role: inv.role, expiresAt: iso(inv.expiresAt) };
      },
      {
        ...routeGuard(TENANCY.invite),
        body: t.Object({
          email: t.String({ maxLength: 254, pattern: INVITE_EMAIL_PATTERN, error: INVITE_EMAIL_ISSUE }),
          role: t.Optional(Role),
        }),
      },
    )
    .post(
      routePattern(TENANCY.resendInvitation),
      async ({ auth, org, params }) => {
        const inv = await deps.database.write(async (tx) => {
          const i = await renewInvitation(tx, org.id, params.id, userActor(auth.user));
          return { ...i, link: await mailInvitation(deps, tx, auth.user.email, org, i) };
        });
        return { id: inv.id, link: inv.link, email: inv.email, role: inv.role, expiresAt: iso(inv.expiresAt) };
      },
      routeGuard(TENANCY.resendInvitation),
    )
    .delete(
      routePattern(TENANCY.revokeInvitation),
      async ({ auth, org, params, body, request }) => {
        await requireConfirmation(request, body, async () => {
          const i = (await listInvitations(deps.database, org.id)).find((x) => x.id === params.id);
          if (!i) throw notFound("No such pending invitation.");
          return confirmations.revokeInvitation(i.email);
        });
        await deps.database.write((tx) => revokeInvitation(tx, org.id, params.id, userActor(auth.user)));
        return { revoked: params.id };
      },
      routeGuard(TENANCY.revokeInvitation),
    );
}

/** Accepting an invitation: any signed-in person it was sent to. */
function acceptInvitationRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia().use(guards).post(
    routePattern(TENANCY.acceptInvitation),
    async ({ auth, params }) => {
      const r = await deps.database.write(async (tx) => {
        const a = await acceptInvitation(tx, params.id, auth.user);
        await setActiveOrganization(tx, auth.id, a.organizationId);
        return a;
      });
      const org = await findMembership(deps.database, auth.user.id, r.organizationId);
      return { organization: org ? membershipView(org) : null };
    },
    routeGuard(TENANCY.acceptInvitation),
  );
}

/** Platform administration (open to platform admins whatever their organization's state). */
function platformAdminRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(TENANCY.adminOrgs),
      async () => ({
        organizations: (await listAllOrganizations(deps.database)).map((o) => ({
          id: o.id,
          slug: o.slug,
          name: o.name,
          status: o.status,
          createdAt: iso(o.createdAt),
          statusChangedAt: iso(o.statusChangedAt),
          members: o.members,
        })),
      }),
      routeGuard(TENANCY.adminOrgs),
    )
    .post(
      routePattern(TENANCY.adminOrgOperation),
      async ({ auth, params }) => {
        if (!(APPROVAL_OPERATIONS as readonly string[]).includes(params.operation)) throw notFound("No such operation.");
        const org = await deps.database.write((tx) =>
          changeApproval(tx, params.id, params.operation as ApprovalOperation, userActor(auth.user)),
        );
        return {
          organization: { id: org.id, slug: org.slug, name: org.name, status: org.status, statusChangedAt: iso(org.statusChangedAt) },
        };
      },
      routeGuard(TENANCY.adminOrgOperation),
    )
    .get(routePattern(TENANCY.adminUsers), async () => ({ users: await listAdminUsers(deps.database) }), routeGuard(TENANCY.adminUsers))
    .use(adminUserRoutes(deps, guards))
    .get(
      routePattern(TENANCY.securityEvents),
      async ({ query }) => {
        const limit = intParam(query, "limit", 1, 500, 100);
        const rows = await listSecurityEvents(deps.database, limit, intParam(query, "before", 1, Number.MAX_SAFE_INTEGER));
        return {
          // every column picked by name: a column added to the table does not reach the answer by itself
          events: rows.map((e) => ({
            id: e.id,
            kind: e.kind,
            userId: e.userId,
            email: e.email,
            ip: e.ip,
            userAgent: e.userAgent,
            detail: e.detail,
            createdAt: iso(e.createdAt),
          })),
          nextBefore: rows.length >= limit ? rows.at(-1)!.createdAt : null,
        };
      },
      routeGuard(TENANCY.securityEvents),
    );
}
