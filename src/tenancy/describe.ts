/**
 * The descriptors of the organizations' routes (`/web/orgs…`, members, invitations, code hosting:
 * routes.ts, codeHostingRoutes.ts) and of platform administration (`/web/admin/organizations`, users,
 * security events: routes.ts, adminUserRoutes.ts), docs/api.md "Organizations", "Members and invitations" and "Platform administration":
 * each route's OpenAPI row, answer and view (http/route.ts), collected by app.ts.
 */
import type { ViewDeps } from "../deps";
import type { RouteDescriptor } from "../http/route";
import type { AdminPlace, OrgPlace } from "../ui/places";
import { a, B, I, int, n, o, obj, open, S, str } from "../http/schema";
import { Membership } from "../identity/routes/describe";
import { tenancyViews } from "./views/fragments";

/** An organization's names and approval status (the approval's and the platform administrators' answers). */
const orgNames = { id: S, slug: S, name: S, status: S };
/** The answer of a change that made an organization the active one. */
const Organization = o({ organization: Membership });
const ROLE = str({ enum: ["owner", "admin", "member"] });
const Removed = o({ removed: S });
const Invitation = o({ id: S, link: S, email: S, role: S, expiresAt: S });
const CodeHosting = o({ codeHosting: n(o({ provider: S, url: S, defaultBranch: S })) });
const AdminUser = o({ id: S, email: S, name: S, role: S, disabled: B, disabledAt: n(S), createdAt: S });

/** Organizations, members, invitations, code hosting; the platform administrators' organizations, users and security events. */
export const TENANCY = {
  orgs: {
    method: "GET",
    path: "/web/orgs",
    summary: "The user's organizations",
    access: "session",
    answer: o({ organizations: a(Membership), activeOrganizationId: n(S) }),
  },
  createOrg: {
    method: "POST",
    path: "/web/orgs",
    summary: "Create an organization (pending approval)",
    access: "session",
    body: obj({ name: str({ maxLength: 100 }), slug: str({ maxLength: 40 }) }, ["name"]),
    ok: 201,
    errors: [400, 409],
    answer: Organization,
    view: (deps) => tenancyViews(deps).created,
  },
  status: {
    method: "GET",
    path: "/web/orgs/current/status",
    summary: "Approval status of the active organization (always open)",
    access: "session",
    answer: o({ organization: n(o(orgNames)), role: n(S), approved: B }),
    view: (deps) => tenancyViews(deps).status,
  },
  setActive: {
    method: "POST",
    path: "/web/orgs/active",
    summary: "Switch the active organization",
    access: "session",
    body: obj({ organizationId: str() }, ["organizationId"]),
    errors: [400, 404],
    answer: Organization,
    view: (deps) => tenancyViews(deps).switched,
  },
  members: {
    method: "GET",
    path: "/web/orgs/current/members",
    summary: "Members and roles",
    access: "member",
    answer: o({ members: a(o({ userId: S, email: S, name: S, role: S, joinedAt: S })) }),
    view: (deps) => tenancyViews(deps).members,
  },
  changeRole: {
    method: "PATCH",
    path: "/web/orgs/current/members/{userId}",
    summary: "Change a member's role",
    access: "admin",
    body: obj({ role: ROLE }, ["role"]),
    errors: [400, 404, 409],
    answer: o({ userId: S, role: S }),
    view: (deps) => tenancyViews(deps).roleChanged,
  },
  removeMember: {
    method: "DELETE",
    path: "/web/orgs/current/members/{userId}",
    summary: "Remove a member",
    access: "admin",
    admits: "member",
    errors: [404, 409],
    answer: Removed,
    view: (deps) => tenancyViews(deps).memberRemoved,
  },
  invitations: {
    method: "GET",
    path: "/web/orgs/current/invitations",
    summary: "Pending invitations",
    access: "admin",
    answer: o({
      invitations: a(o({ id: S, email: S, role: S, status: S, expiresAt: S, createdAt: S, link: S })),
    }),
    view: (deps) => tenancyViews(deps).invitations,
  },
  invite: {
    method: "POST",
    path: "/web/orgs/current/invitations",
    summary: "Invite by e-mail",
    access: "admin",
    body: obj({ email: str(), role: ROLE }, ["email"]),
    ok: 201,
    errors: [400, 409],
    answer: Invitation,
    view: (deps) => tenancyViews(deps).invited,
  },
  revokeInvitation: {
    method: "DELETE",
    path: "/web/orgs/current/invitations/{id}",
    summary: "Revoke an invitation",
    access: "admin",
    errors: [404],
    answer: o({ revoked: S }),
    view: (deps) => tenancyViews(deps).revoked,
  },
  resendInvitation: {
    method: "POST",
    path: "/web/orgs/current/invitations/{id}/resend",
    summary: "Send a pending invitation again, valid 7 more days (same link)",
    access: "admin",
    errors: [404],
    answer: Invitation,
    view: (deps) => tenancyViews(deps).resent,
  },
  acceptInvitation: {
    method: "POST",
    path: "/web/invitations/{id}/accept",
    summary: "Accept an invitation (the invitee)",
    access: "session",
    errors: [403, 404, 409, 410],
    answer: o({ organization: n(Membership) }),
  },
  codeHosting: {
    method: "GET",
    path: "/web/orgs/current/code-hosting",
    summary: "Code hosting settings",
    access: "member",
    answer: CodeHosting,
    view: (deps) => tenancyViews(deps).codeHosting,
  },
  setCodeHosting: {
    method: "PUT",
    path: "/web/orgs/current/code-hosting",
    summary: "Set code hosting (evidence links)",
    access: "admin",
    body: obj({ provider: str({ enum: ["github", "gitlab", "bitbucket", "other"] }), url: str(), defaultBranch: str() }, [
      "provider",
      "url",
    ]),
    errors: [400],
    answer: CodeHosting,
    view: (deps) => tenancyViews(deps).codeHostingSaved,
  },
  clearCodeHosting: {
    method: "DELETE",
    path: "/web/orgs/current/code-hosting",
    summary: "Clear code hosting",
    access: "admin",
    answer: CodeHosting,
    view: (deps) => tenancyViews(deps).codeHostingCleared,
  },
  adminOrgs: {
    method: "GET",
    path: "/web/admin/organizations",
    summary: "Organizations and their status",
    access: "platform",
    answer: o({
      organizations: a(o({ ...orgNames, createdAt: S, statusChangedAt: n(S), members: I })),
    }),
    view: (deps) => tenancyViews(deps).organizations,
  },
  adminOrgOperation: {
    method: "POST",
    path: "/web/admin/organizations/{id}/{operation}",
    summary: "Approve, reject, suspend or reactivate",
    access: "platform",
    errors: [404, 409],
    answer: o({ organization: o({ ...orgNames, statusChangedAt: n(S) }) }),
    view: (deps) => tenancyViews(deps).organizationMoved,
  },
  adminUsers: { method: "GET", path: "/web/admin/users", summary: "Users", access: "platform", answer: o({ users: a(AdminUser) }) },
  adminUpdateUser: {
    method: "PATCH",
    path: "/web/admin/users/{id}",
    summary: "Disable, enable, promote or demote a user (409 last_platform_admin)",
    access: "platform",
    body: obj({ disabled: { type: "boolean" }, role: str({ enum: ["user", "admin"] }) }, []),
    errors: [400, 404, 409],
    answer: o({ user: AdminUser }),
    view: (deps) => tenancyViews(deps).userChanged,
  },
  adminDeleteUser: {
    method: "DELETE",
    path: "/web/admin/users/{id}",
    summary: "Remove a user (409 last_owner naming the organizations, 409 last_platform_admin)",
    access: "platform",
    errors: [404, 409],
    answer: Removed,
    view: (deps) => tenancyViews(deps).userRemoved,
  },
  securityEvents: {
    method: "GET",
    path: "/web/admin/security-events",
    summary: "Security events, newest first",
    access: "platform",
    query: [
      { name: "limit", schema: int(1, 500) },
      { name: "before", schema: { type: "integer" } },
    ],
    errors: [400],
    answer: o({
      events: a(o({ id: S, kind: S, userId: n(S), email: n(S), ip: n(S), userAgent: n(S), detail: n(open), createdAt: S })),
      nextBefore: n(I),
    }),
  },
} satisfies Record<string, RouteDescriptor<ViewDeps>>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const TENANCY_ROUTES: RouteDescriptor<ViewDeps>[] = Object.values(TENANCY);

/** The navigation entry of the organization's members (pages/org.tsx). */
export const TENANCY_PLACES: OrgPlace[] = [
  { href: "/org#members", label: "Members", title: "Members", text: "", admin: false, header: false },
];

/** The navigation entries of the platform administration's pages (pages/admin.tsx). */
export const ADMIN_PLACES: AdminPlace[] = [
  { href: "/admin", label: "Organizations" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/security-events", label: "Security events" },
  { href: "/admin/mail", label: "Mail" },
];
