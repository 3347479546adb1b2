/**
 * Organizations (tenants): creation, approval by platform admins, members and roles,
 * invitations. Plain functions over the database; routes do the HTTP.
 */
import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { invitations, members, organizations, users, type MemberRole, type OrgStatus } from "../db/schema";
import { AppError, notFound } from "../http/errors";
import type { OrgMembership } from "../auth/memberships";
import { newId } from "../lib/ids";
import { record, userActor, type AuditActor } from "../audit/record";
import type { CoreDeps } from "../deps";
import { setActiveOrganization } from "../auth/sessions";

export { findMembership, listMemberships, membershipView, type OrgMembership } from "../auth/memberships";

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A slug from a display name: lower-case words joined by `-`, at most 40 characters. */
export function slugify(name: string): string {
  const s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return s || "org";
}

/** Creates an organization with its creator as owner. New ones wait for approval unless `approved`. */
export async function createOrganization(
  tx: Tx,
  input: { name: string; slug: string; creatorId: string; approved: boolean; actor?: AuditActor },
): Promise<OrgMembership> {
  const taken = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, input.slug)).limit(1);
  if (taken.length > 0) throw new AppError("conflict", `The slug "${input.slug}" is taken; choose another.`, { field: "slug" });
  const now = Date.now();
  const id = newId("org");
  const status: OrgStatus = input.approved ? "approved" : "pending";
  await tx.insert(organizations).values({
    id,
    slug: input.slug,
    name: input.name,
    status,
    createdBy: input.creatorId,
    statusChangedAt: input.approved ? now : null,
    statusChangedBy: input.approved ? "auto" : null,
    createdAt: now,
    updatedAt: now,
  });
  await tx.insert(members).values({ organizationId: id, userId: input.creatorId, role: "owner", createdAt: now });
  if (input.actor) {
    await record(tx, {
      organizationId: id,
      actor: input.actor,
      action: "organization.created",
      object: { kind: "organization", id },
      after: { name: input.name, slug: input.slug, status },
    });
  }
  return { id, slug: input.slug, name: input.name, status, role: "owner" };
}

// ---- approval (platform admin) -------------------------------------------------------------

export const APPROVAL_OPERATIONS = ["approve", "reject", "suspend", "reactivate"] as const;
export type ApprovalOperation = (typeof APPROVAL_OPERATIONS)[number];

/**
 * The approval state machine (docs/api.md):
 * pending → approved (approve) | rejected (reject); approved → suspended (suspend);
 * suspended → approved (reactivate); rejected → approved (approve).
 */
export const APPROVAL_MOVES: Record<ApprovalOperation, Partial<Record<OrgStatus, OrgStatus>>> = {
  approve: { pending: "approved", rejected: "approved" },
  reject: { pending: "rejected" },
  suspend: { approved: "suspended" },
  reactivate: { suspended: "approved" },
};

/** Applies an approval operation or throws 409 invalid_transition naming the state. */
export async function changeApproval(tx: Tx, organizationId: string, op: ApprovalOperation, admin: AuditActor) {
  const adminId = admin.id;
  const rows = await tx.select().from(organizations).where(eq(organizations.id, organizationId)).limit(1);
  const org = rows[0];
  if (!org) throw notFound("No such organization.");
  const next = APPROVAL_MOVES[op][org.status];
  if (!next) {
    throw new AppError("invalid_transition", `Cannot ${op} an organization that is ${org.status}.`, {
      status: org.status,
      operation: op,
      allowed: APPROVAL_OPERATIONS.filter((o) => APPROVAL_MOVES[o][org.status]),
    });
  }
  const now = Date.now();
  await tx
    .update(organizations)
    .set({ status: next, statusChangedAt: now, statusChangedBy: adminId, updatedAt: now })
    .where(eq(organizations.id, organizationId));
  await record(tx, {
    organizationId,
    actor: admin,
    action: `organization.${op}`,
    object: { kind: "organization", id: organizationId },
    before: { status: org.status },
    after: { status: next },
  });
  return { ...org, status: next, statusChangedAt: now, statusChangedBy: adminId };
}

/** Every organization with its status and member count (platform admin). */
export async function listAllOrganizations(database: Database) {
  return database.db
    .select({
      id: organizations.id,
      slug: organizations.slug,
      name: organizations.name,
      status: organizations.status,
      createdAt: organizations.createdAt,
      statusChangedAt: organizations.statusChangedAt,
      members: sql<number>`(SELECT count(*) FROM members m WHERE m.organization_id = ${organizations.id})`,
      // who asked for it (its creator; null once their account is gone), in the same read
      requestedBy: { id: users.id, email: users.email, name: users.name },
    })
    .from(organizations)
    .leftJoin(users, eq(users.id, organizations.createdBy))
    .orderBy(desc(organizations.createdAt));
}

// ---- members ---------------------------------------------------------------------------------

/** Members of an organization with their e-mail, oldest first. */
export async function listMembers(database: Database, organizationId: string) {
  return database.db
    .select({ userId: users.id, email: users.email, name: users.name, role: members.role, joinedAt: members.createdAt })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(eq(members.organizationId, organizationId))
    .orderBy(asc(members.createdAt));
}

/** The membership of a user in an organization, as a where clause. */
const theMember = (organizationId: string, userId: string) => and(eq(members.organizationId, organizationId), eq(members.userId, userId));

/** A member's row; 404 when the user is not a member. */
async function memberRow(tx: Tx, organizationId: string, userId: string) {
  const target = (await tx.select().from(members).where(theMember(organizationId, userId)).limit(1))[0];
  if (!target) throw notFound("No such member.");
  return target;
}

async function ownerCount(tx: Tx, organizationId: string): Promise<number> {
  const r = await tx
    .select({ n: count() })
    .from(members)
    .where(and(eq(members.organizationId, organizationId), eq(members.role, "owner")));
  return r[0]?.n ?? 0;
}

/**
 * Changes a member's role. Admins manage members and admins; only an owner grants or takes
 * the owner role; the last owner cannot be demoted (409 last_owner).
 */
export async function changeMemberRole(
  tx: Tx,
  organizationId: string,
  actor: AuditActor & { role: MemberRole },
  userId: string,
  role: MemberRole,
) {
  const actorRole = actor.role;
  const target = await memberRow(tx, organizationId, userId);
  if ((target.role === "owner" || role === "owner") && actorRole !== "owner") {
    throw new AppError("forbidden", "Only an owner can grant or take the owner role.");
  }
  if (target.role === "owner" && role !== "owner" && (await ownerCount(tx, organizationId)) <= 1) {
    throw new AppError("last_owner", "The last owner cannot be demoted; make someone else owner first.");
  }
  await tx.update(members).set({ role }).where(theMember(organizationId, userId));
  if (target.role !== role) {
    await record(tx, {
      organizationId,
      actor,
      action: "member.role_changed",
      object: { kind: "member", id: userId },
      before: { role: target.role },
      after: { role },
    });
  }
  return { userId, role };
}

/**
 * Removes a member (or lets a member leave). Effective at once: sessions and keys are
 * re-evaluated on every call, so the next one is refused.
 */
export async function removeMember(tx: Tx, organizationId: string, actor: AuditActor & { role: MemberRole }, userId: string) {
  const target = await memberRow(tx, organizationId, userId);
  const self = actor.id === userId;
  if (!self && actor.role === "member") throw new AppError("forbidden", "Only an owner or admin can remove members.");
  if (!self && target.role === "owner" && actor.role !== "owner") throw new AppError("forbidden", "Only an owner can remove an owner.");
  if (target.role === "owner" && (await ownerCount(tx, organizationId)) <= 1) {
    throw new AppError("last_owner", "The last owner cannot be removed; make someone else owner first.");
  }
  await tx.delete(members).where(theMember(organizationId, userId));
  await record(tx, {
    organizationId,
    actor,
    action: self ? "member.left" : "member.removed",
    object: { kind: "member", id: userId },
    before: { role: target.role },
  });
}

// ---- invitations -----------------------------------------------------------------------------

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * Creates a pending invitation; returns it. The caller queues the mail in the same transaction. An
 * address has at most one pending invitation: inviting it again revokes the pending one (its link
 * stops working; the audit log records both), so the latest role and link are the ones that count.
 */
export async function createInvitation(
  tx: Tx,
  input: { organizationId: string; email: string; role: MemberRole; actor: AuditActor & { role: MemberRole } },
) {
  if (input.role === "owner" && input.actor.role !== "owner") throw new AppError("forbidden", "Only an owner can invite an owner.");
  const existing = await tx
    .select({ userId: users.id })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.organizationId, input.organizationId), eq(users.email, input.email)))
    .limit(1);
  if (existing.length > 0) throw new AppError("conflict", `${input.email} is already a member.`, { field: "email" });
  const pending = await tx
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        eq(invitations.organizationId, input.organizationId),
        eq(invitations.status, "pending"),
        sql`lower(${invitations.email}) = lower(${input.email})`,
      ),
    );
  for (const old of pending) await revokeInvitation(tx, input.organizationId, old.id, input.actor);
  const now = Date.now();
  const id = newId("inv");
  const row = {
    id,
    organizationId: input.organizationId,
    email: input.email,
    role: input.role,
    status: "pending" as const,
    invitedBy: input.actor.id,
    expiresAt: now + INVITATION_TTL_MS,
    createdAt: now,
  };
  await tx.insert(invitations).values(row);
  await record(tx, {
    organizationId: input.organizationId,
    actor: input.actor,
    action: "invitation.created",
    object: { kind: "invitation", id },
    after: { email: input.email, role: input.role },
  });
  return row;
}

/** Pending invitations of an organization. */
export async function listInvitations(database: Database, organizationId: string) {
  return database.db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), eq(invitations.status, "pending")))
    .orderBy(desc(invitations.createdAt));
}

/** Revokes a pending invitation of the organization (404 for another organization's). */
export async function revokeInvitation(tx: Tx, organizationId: string, id: string, actor: AuditActor): Promise<void> {
  const r = await tx
    .update(invitations)
    .set({ status: "revoked" })
    .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId), eq(invitations.status, "pending")))
    .returning({ id: invitations.id, email: invitations.email, role: invitations.role });
  if (r.length === 0) throw notFound("No such pending invitation.");
  await record(tx, {
    organizationId,
    actor,
    action: "invitation.revoked",
    object: { kind: "invitation", id },
    before: { email: r[0]!.email, role: r[0]!.role, status: "pending" },
    after: { status: "revoked" },
  });
}

/**
 * Renews a pending invitation of the organization (expired or not) for another
 * INVITATION_TTL_MS and returns it; the caller queues the mail again in the same transaction.
 * The link stays the same, so a link already handed over keeps working. 404 for an unknown,
 * accepted, revoked or another organization's invitation.
 */
export async function renewInvitation(tx: Tx, organizationId: string, id: string, actor: AuditActor) {
  const r = await tx
    .update(invitations)
    .set({ expiresAt: Date.now() + INVITATION_TTL_MS })
    .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId), eq(invitations.status, "pending")))
    .returning();
  if (r.length === 0) throw notFound("No such pending invitation.");
  await record(tx, {
    organizationId,
    actor,
    action: "invitation.renewed",
    object: { kind: "invitation", id },
    after: { email: r[0]!.email, expiresAt: new Date(r[0]!.expiresAt).toISOString() },
  });
  return r[0]!;
}

/** The signed-in invitee accepts: becomes a member with the invited role. */
export async function acceptInvitation(tx: Tx, id: string, user: { id: string; email: string }) {
  const inv = (await tx.select().from(invitations).where(eq(invitations.id, id)).limit(1))[0];
  if (!inv || inv.status === "revoked") throw notFound("No such invitation.");
  if (inv.email !== user.email)
    throw new AppError("forbidden", "This invitation was sent to another e-mail address; sign in with that one.");
  if (inv.status === "accepted") throw new AppError("invalid_transition", "This invitation was already accepted.", { status: "accepted" });
  if (inv.expiresAt <= Date.now()) throw new AppError("invitation_expired", "This invitation has expired; ask for a new one.");
  const already = await tx
    .select()
    .from(members)
    .where(and(eq(members.organizationId, inv.organizationId), eq(members.userId, user.id)))
    .limit(1);
  if (already.length === 0) {
    await tx.insert(members).values({ organizationId: inv.organizationId, userId: user.id, role: inv.role, createdAt: Date.now() });
  }
  await record(tx, {
    organizationId: inv.organizationId,
    actor: { kind: "user", id: user.id, label: user.email },
    action: "invitation.accepted",
    object: { kind: "invitation", id },
    before: { status: "pending" },
    after: { status: "accepted", userId: user.id, role: already.length === 0 ? inv.role : already[0]!.role },
  });
  await tx.update(invitations).set({ status: "accepted", acceptedAt: Date.now() }).where(eq(invitations.id, id));
  // the address is not marked verified: the inviter holds the same link (docs/design.md "An invitation link never vouches for an address")
  return { organizationId: inv.organizationId, role: inv.role };
}

/**
 * Creates an organization whose owner is the signed-in person and makes it their active one (`slug`: the name's when
 * absent; 400 for a bad one, 409 for a taken one naming the field): `POST /web/orgs` and `/org/new`'s form without
 * JavaScript (pages/org.tsx).
 */
export async function createOwnOrganization(
  deps: CoreDeps,
  session: { id: string; user: { id: string; email: string; role: string } },
  input: { name: string; slug?: string },
) {
  const slug = input.slug ?? slugify(input.name);
  if (!SLUG_PATTERN.test(slug) || slug.length > 40)
    throw new AppError("validation_failed", "slug: lower-case letters and digits separated by -, at most 40 characters", {
      issues: [{ path: "slug", message: "invalid slug" }],
    });
  const approved = deps.config.autoApproveOrgs || session.user.role === "admin";
  return deps.database.write(async (tx) => {
    const o = await createOrganization(tx, {
      name: input.name.trim(),
      slug,
      creatorId: session.user.id,
      approved,
      actor: userActor(session.user),
    });
    await setActiveOrganization(tx, session.id, o.id);
    return o;
  });
}
