/** The web-session side of the guards: session lookup, CSRF, active organization. */
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { MemberRole } from "../db/schema";
import { checkSameOrigin } from "../http/csrf";
import { AppError } from "../http/errors";
import { findSession, sessionTokenFrom, type SessionRecord } from "./sessions";
import { findMembership, type OrgMembership } from "./memberships";

/** The session of a request, or null (pages that also serve visitors who are not signed in). */
export async function optionalSession(deps: { config: Config; database: Database }, request: Request): Promise<SessionRecord | null> {
  const token = sessionTokenFrom(deps.config, request);
  return token ? findSession(deps.database, token) : null;
}

/** The session of a request; 401 unauthenticated without one. CSRF-checked for non-GET. */
export async function requireSession(deps: { config: Config; database: Database }, request: Request): Promise<SessionRecord> {
  const session = await optionalSession(deps, request);
  if (!session) throw new AppError("unauthenticated");
  checkSameOrigin(deps.config, request, true);
  return session;
}

/** The session's active organization with the caller's role, or null (none, or no longer a member). */
export async function activeOrganization(database: Database, session: SessionRecord): Promise<OrgMembership | null> {
  if (!session.activeOrganizationId) return null;
  return (await findMembership(database, session.user.id, session.activeOrganizationId)) ?? null;
}

/** Rank of roles for "at least" checks. */
export const ROLE_RANK: Record<MemberRole, number> = { member: 1, admin: 2, owner: 3 };

/**
 * The active organization for a business route: it must exist, be approved (docs/design.md "Organizations and their data", rule 1),
 * and the caller must hold at least `minRole`.
 */
export async function requireOrg(database: Database, session: SessionRecord, minRole: MemberRole): Promise<OrgMembership> {
  const org = await activeOrganization(database, session);
  if (!org) throw new AppError("no_active_organization");
  if (org.status !== "approved") {
    throw new AppError("organization_not_approved", `The organization "${org.name}" is ${org.status}: only its status is available.`, {
      status: org.status,
    });
  }
  if (ROLE_RANK[org.role] < ROLE_RANK[minRole]) throw new AppError("forbidden", `This needs the ${minRole} role or higher.`);
  return org;
}
