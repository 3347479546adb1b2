/**
 * Platform administrators manage accounts (docs/api.md "Platform administration"): disable and
 * enable (a disabled account cannot sign in and its sessions and OAuth tokens end), promote to and
 * demote from platform administrator, remove. The platform keeps one enabled administrator
 * (409 last_platform_admin) and every organization keeps an owner (409 last_owner naming it).
 * Each change is a security event, committed with it.
 */
import { and, count, eq, isNull, ne } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { members, oauthCodes, oauthTokens, organizations, users } from "../db/schema";
import { AppError, notFound } from "../http/errors";
import { iso } from "../lib/time";
import { dropUserSessions } from "../auth/sessions";
import { recordSecurityEvent } from "../identity/security";

/** What the admin routes answer of a user. */
export interface AdminUserView {
  id: string;
  email: string;
  name: string;
  role: "user" | "admin";
  disabled: boolean;
  disabledAt: string | null;
  createdAt: string;
}

/** A change asked of a user: either or both of these. */
export interface UserChange {
  disabled?: boolean;
  role?: "user" | "admin";
}

/** The administrator making the change, and where from (the security event's fields). */
export interface AdminActor {
  id: string;
  email: string;
  ip: string | null;
  userAgent: string | null;
}

type UserRow = typeof users.$inferSelect;

const view = (u: UserRow): AdminUserView => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  disabled: u.disabledAt !== null,
  disabledAt: u.disabledAt === null ? null : iso(u.disabledAt),
  createdAt: iso(u.createdAt),
});

/** Every user, newest first (the admin list and page). */
export async function listAdminUsers(database: Database): Promise<AdminUserView[]> {
  const rows = await database.db.select().from(users);
  return rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map(view);
}

async function userOf(tx: Tx, userId: string): Promise<UserRow> {
  const u = (await tx.select().from(users).where(eq(users.id, userId)).limit(1))[0];
  if (!u) throw notFound("No such user.");
  return u;
}

/** 409 last_platform_admin when `u` is the only enabled platform administrator. */
async function keepOneAdmin(tx: Tx, u: UserRow, what: string): Promise<void> {
  if (u.role !== "admin" || u.disabledAt !== null) return;
  const others = await tx
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), isNull(users.disabledAt), ne(users.id, u.id)));
  if ((others[0]?.n ?? 0) === 0) {
    throw new AppError(
      "last_platform_admin",
      `${u.email} is the last enabled platform administrator and cannot be ${what}; promote someone else first.`,
    );
  }
}

const event = (tx: Tx, kind: string, u: UserRow, actor: AdminActor) =>
  recordSecurityEvent(tx, {
    kind,
    userId: u.id,
    email: u.email,
    ip: actor.ip,
    userAgent: actor.userAgent,
    detail: { by: actor.id, byEmail: actor.email },
  });

/**
 * Applies `change` to a user inside `tx`: a disable ends the user's sessions, OAuth tokens and
 * unused authorization codes at once. Changes to what the user already is are no-ops (no event).
 */
export async function changeUser(tx: Tx, userId: string, change: UserChange, actor: AdminActor): Promise<AdminUserView> {
  const u = await userOf(tx, userId);
  if (change.disabled === true && u.disabledAt === null) await keepOneAdmin(tx, u, "disabled");
  if (change.role === "user" && u.role === "admin") await keepOneAdmin(tx, u, "demoted");
  const now = Date.now();
  const next: UserRow = { ...u };
  if (change.disabled !== undefined && change.disabled !== (u.disabledAt !== null)) {
    next.disabledAt = change.disabled ? now : null;
    if (change.disabled) {
      await dropUserSessions(tx, u.id);
      await tx
        .update(oauthTokens)
        .set({ revokedAt: now })
        .where(and(eq(oauthTokens.userId, u.id), isNull(oauthTokens.revokedAt)));
      await tx.delete(oauthCodes).where(eq(oauthCodes.userId, u.id));
    }
    await event(tx, change.disabled ? "user.disabled" : "user.enabled", u, actor);
  }
  if (change.role !== undefined && change.role !== u.role) {
    next.role = change.role;
    await event(tx, change.role === "admin" ? "user.promoted" : "user.demoted", u, actor);
  }
  if (next.disabledAt !== u.disabledAt || next.role !== u.role) {
    await tx.update(users).set({ disabledAt: next.disabledAt, role: next.role, updatedAt: now }).where(eq(users.id, u.id));
  }
  return view(next);
}

/**
 * Removes a user inside `tx`: their sessions, keys, OAuth tokens and memberships go with the
 * row (the foreign keys cascade). Refused with 409 last_owner, naming each organization where
 * they are the only owner, and 409 last_platform_admin.
 */
export async function removeUser(tx: Tx, userId: string, actor: AdminActor): Promise<{ removed: string }> {
  const u = await userOf(tx, userId);
  await keepOneAdmin(tx, u, "removed");
  const owned = await tx
    .select({ id: organizations.id, slug: organizations.slug, name: organizations.name })
    .from(members)
    .innerJoin(organizations, eq(organizations.id, members.organizationId))
    .where(and(eq(members.userId, u.id), eq(members.role, "owner")));
  const alone: { id: string; slug: string; name: string }[] = [];
  for (const o of owned) {
    const owners = await tx
      .select({ n: count() })
      .from(members)
      .where(and(eq(members.organizationId, o.id), eq(members.role, "owner")));
    if ((owners[0]?.n ?? 0) <= 1) alone.push(o);
  }
  if (alone.length > 0) {
    const names = alone.map((o) => `${o.name} (${o.slug})`).join(", ");
    throw new AppError("last_owner", `${u.email} is the last owner of ${names}: make someone else owner there first.`, {
      organizations: alone,
    });
  }
  await event(tx, "user.removed", u, actor);
  await tx.delete(users).where(eq(users.id, u.id));
  return { removed: u.id };
}
