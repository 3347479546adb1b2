/**
 * Which account an identity vouched for by someone else (an external provider, an
 * organization's SSO) may open, and the consent that links it to an existing account.
 *
 * The rules, in order:
 *   1. An identity already linked to an account signs into that account, except that a
 *      platform administrator never signs in through an organization's SSO.
 *   2. No account has the e-mail: a new, verified account is created and linked.
 *   3. An account has the e-mail but its address was never verified (anyone could have typed
 *      it at sign-up): the identity is the address's real holder, so the account is reclaimed:
 *      its password, sessions, reset links, pending links and other identities are dropped,
 *      then it is linked and verified.
 *   4. A verified account has the e-mail: nothing is linked yet. A pending link is stored and
 *      the person signs in the way they usually do and confirms it at `/account/link`.
 * Membership gained through SSO follows the link, never the e-mail alone.
 */
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { Config } from "../config";
import type { Tx } from "../db/client";
import { externalAccounts, members, organizations, passwordResets, pendingLinks, users } from "../db/schema";
import { base62, sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import { dropUserSessions } from "../auth/sessions";

/** How long a pending link waits for the account holder's confirmation. */
export const PENDING_LINK_TTL_MS = 15 * 60_000;
/** The cookie that carries a pending link's token from the refused sign-in to `/account/link`. */
export const LINK_COOKIE = "talentd_link";
const TOKEN_PATTERN = /^[0-9A-Za-z]{20,80}$/;

/** What the rules decided for one identity (inside the sign-in's transaction). */
export type AccountChoice =
  | { kind: "account"; userId: string; created: boolean; linked: boolean; reclaimed: boolean }
  | { kind: "consent"; userId: string; token: string }
  | { kind: "admin" }
  | { kind: "no_email" };

/** The identity's facts the rules need (the protocol's checks already passed). */
export interface VouchedIdentity {
  provider: string;
  subject: string;
  /** Normalized and verified by the provider; null when it shared none or an unverified one. */
  email: string | null;
  name?: string | null;
  /** The SSO organization vouching, when the identity comes from one. */
  organizationId?: string;
}

/** Applies the rules above for `identity` inside `tx` (see the module's comment). */
export async function chooseAccount(tx: Tx, identity: VouchedIdentity): Promise<AccountChoice> {
  const sso = identity.organizationId !== undefined;
  const link = (
    await tx
      .select({ userId: externalAccounts.userId })
      .from(externalAccounts)
      .where(and(eq(externalAccounts.provider, identity.provider), eq(externalAccounts.providerUserId, identity.subject)))
      .limit(1)
  )[0];
  if (link) {
    const user = (await tx.select({ role: users.role }).from(users).where(eq(users.id, link.userId)).limit(1))[0];
    if (sso && user?.role === "admin") return { kind: "admin" };
    return { kind: "account", userId: link.userId, created: false, linked: false, reclaimed: false };
  }
  if (!identity.email) return { kind: "no_email" };
  const now = Date.now();
  const existing = (
    await tx
      .select({ id: users.id, role: users.role, verifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.email, identity.email))
      .limit(1)
  )[0];
  if (existing && sso && existing.role === "admin") return { kind: "admin" };
  if (existing && existing.verifiedAt !== null) {
    const token = base62(randomBytes(32));
    await tx.delete(pendingLinks).where(lt(pendingLinks.expiresAt, now));
    await tx.insert(pendingLinks).values({
      tokenHash: sha256Hex(token),
      provider: identity.provider,
      providerUserId: identity.subject,
      userId: existing.id,
      organizationId: identity.organizationId ?? null,
      expiresAt: now + PENDING_LINK_TTL_MS,
      createdAt: now,
    });
    return { kind: "consent", userId: existing.id, token };
  }
  let userId: string;
  if (existing) {
    userId = existing.id;
    await reclaim(tx, userId, now);
  } else {
    userId = newId("usr");
    await tx.insert(users).values({
      id: userId,
      email: identity.email,
      name: (identity.name ?? "").slice(0, 100),
      passwordHash: null,
      role: "user",
      emailVerifiedAt: now,
      createdAt: now,
      updatedAt: now,
    });
  }
  await tx.insert(externalAccounts).values({ provider: identity.provider, providerUserId: identity.subject, userId, createdAt: now });
  return { kind: "account", userId, created: !existing, linked: true, reclaimed: existing !== undefined };
}

/** An unverified account taken back by the address's holder: whoever created it loses every way in. */
async function reclaim(tx: Tx, userId: string, now: number): Promise<void> {
  await tx.update(users).set({ passwordHash: null, emailVerifiedAt: now, updatedAt: now }).where(eq(users.id, userId));
  await dropUserSessions(tx, userId);
  await tx
    .update(passwordResets)
    .set({ usedAt: now })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
  await tx.delete(pendingLinks).where(eq(pendingLinks.userId, userId));
  await tx.delete(externalAccounts).where(eq(externalAccounts.userId, userId));
}

/** Makes the user a member of the SSO organization (as `member`) unless they already are. */
export async function joinThroughSso(tx: Tx, organizationId: string, userId: string): Promise<void> {
  const member = await tx
    .select({ u: members.userId })
    .from(members)
    .where(and(eq(members.organizationId, organizationId), eq(members.userId, userId)))
    .limit(1);
  if (member.length === 0) await tx.insert(members).values({ organizationId, userId, role: "member", createdAt: Date.now() });
}

/** A pending link as `/account/link` shows it. */
export interface PendingLink {
  provider: string;
  userId: string;
  organization: { id: string; name: string } | null;
  expiresAt: number;
}

/** The unexpired pending link of this token, or null. */
export async function readPendingLink(tx: Tx | { select: Tx["select"] }, token: string | null): Promise<PendingLink | null> {
  if (!token || !TOKEN_PATTERN.test(token)) return null;
  const row = (
    await tx
      .select({
        provider: pendingLinks.provider,
        userId: pendingLinks.userId,
        orgId: pendingLinks.organizationId,
        orgName: organizations.name,
        expiresAt: pendingLinks.expiresAt,
      })
      .from(pendingLinks)
      .leftJoin(organizations, eq(organizations.id, pendingLinks.organizationId))
      .where(and(eq(pendingLinks.tokenHash, sha256Hex(token)), gt(pendingLinks.expiresAt, Date.now())))
      .limit(1)
  )[0];
  if (!row) return null;
  return {
    provider: row.provider,
    userId: row.userId,
    organization: row.orgId ? { id: row.orgId, name: row.orgName ?? "" } : null,
    expiresAt: row.expiresAt,
  };
}

/**
 * The account holder, signed in, confirms the pending link: the identity is linked, the address
 * counts as verified (the provider vouched for it and the holder proved the account), and an SSO
 * organization is joined. Single use. Null when the token is unknown, expired, or another
 * account's.
 */
export async function confirmPendingLink(tx: Tx, token: string | null, userId: string): Promise<PendingLink | null> {
  if (!token || !TOKEN_PATTERN.test(token)) return null;
  const row = (
    await tx
      .delete(pendingLinks)
      .where(and(eq(pendingLinks.tokenHash, sha256Hex(token)), eq(pendingLinks.userId, userId), gt(pendingLinks.expiresAt, Date.now())))
      .returning()
  )[0];
  if (!row) return null;
  const now = Date.now();
  await tx
    .insert(externalAccounts)
    .values({ provider: row.provider, providerUserId: row.providerUserId, userId, createdAt: now })
    .onConflictDoNothing();
  await tx
    .update(users)
    .set({ emailVerifiedAt: now, updatedAt: now })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)));
  if (row.organizationId) await joinThroughSso(tx, row.organizationId, userId);
  const org = row.organizationId
    ? (await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, row.organizationId)).limit(1))[0]
    : undefined;
  return {
    provider: row.provider,
    userId,
    organization: row.organizationId ? { id: row.organizationId, name: org?.name ?? "" } : null,
    expiresAt: row.expiresAt,
  };
}

/**
 * Drops a pending link (the person said no): only the one bound to `userId`, the signed-in account
 * — a token alone cancels nobody else's. True when one was dropped.
 */
export async function cancelPendingLink(tx: Tx, token: string | null, userId: string): Promise<boolean> {
  if (!token || !TOKEN_PATTERN.test(token)) return false;
  const gone = await tx
    .delete(pendingLinks)
    .where(and(eq(pendingLinks.tokenHash, sha256Hex(token)), eq(pendingLinks.userId, userId)))
    .returning({ userId: pendingLinks.userId });
  return gone.length > 0;
}

/** The Set-Cookie value that carries (or, with null, clears) a pending link's token. */
export function linkCookie(config: Config, token: string | null): string {
  const secure = config.baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${LINK_COOKIE}=${token ?? ""}; Path=/account/link; HttpOnly; SameSite=Lax; Max-Age=${token ? PENDING_LINK_TTL_MS / 1000 : 0}${secure}`;
}
