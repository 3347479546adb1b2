/**
 * Web sessions (docs/api.md "Authentication"): a 160-bit random token in an httpOnly, SameSite=Lax cookie,
 * stored as SHA-256, 30-day sliding expiry, renewed at sign-in.
 */
import { and, eq, ne } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { Config } from "../config";
import { keptGet } from "../db/versionMemo";
import type { Database, Tx } from "../db/client";
import { sessions, users } from "../db/schema";
import { AppError } from "../http/errors";
import { base62, sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";

import { SESSION_COOKIE, sessionCookieName } from "../http/cookies";

export { SESSION_COOKIE, sessionCookieName };
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/** A session's expiry slides forward at most once per this interval (bounded writes). */
const SLIDE_EVERY_MS = 3600 * 1000;

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: "user" | "admin";
}

export interface SessionRecord {
  id: string;
  user: SessionUser;
  activeOrganizationId: string | null;
  expiresAt: number;
}

/** Creates a session inside `tx`; returns the raw token (only ever in the cookie). */
export async function createSession(
  tx: Tx,
  userId: string,
  meta: { userAgent?: string | null; ip?: string | null; activeOrganizationId?: string | null },
): Promise<{ token: string; id: string; expiresAt: number }> {
  // every way of signing in ends here: a disabled account gets no session, whichever way it came
  const user = (await tx.select({ disabledAt: users.disabledAt }).from(users).where(eq(users.id, userId)).limit(1))[0];
  if (user?.disabledAt != null) throw new AppError("account_disabled");
  const token = base62(randomBytes(20));
  const now = Date.now();
  const id = newId("ses");
  const expiresAt = now + SESSION_TTL_MS;
  await tx.insert(sessions).values({
    id,
    userId,
    tokenHash: sha256Hex(token),
    activeOrganizationId: meta.activeOrganizationId ?? null,
    expiresAt,
    createdAt: now,
    lastSeenAt: now,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
    ip: meta.ip ?? null,
  });
  return { token, id, expiresAt };
}

const SESSION_LOOKUP = `SELECT s.id AS id, s.expires_at AS expiresAt, s.last_seen_at AS lastSeenAt,
  s.active_organization_id AS activeOrganizationId, u.id AS userId, u.email AS email, u.name AS name, u.role AS role
FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND u.disabled_at IS NULL LIMIT 1`;

/** Looks a session up by raw token; null when unknown or expired. Slides the expiry. */
export async function findSession(database: Database, token: string): Promise<SessionRecord | null> {
  if (!/^[0-9A-Za-z]{20,64}$/.test(token)) return null;
  // kept for the current configuration epoch (db/versionMemo.ts): sign-out, a password change, an
  // expiry slide change the sessions table, which moves the epoch, so none of them is missed
  const row = await keptGet<{
    id: string;
    expiresAt: number;
    lastSeenAt: number;
    activeOrganizationId: string | null;
    userId: string;
    email: string;
    name: string;
    role: "user" | "admin";
  }>(database, SESSION_LOOKUP, [sha256Hex(token)]);

  const now = Date.now();
  if (!row || row.expiresAt <= now) return null;
  let expiresAt = row.expiresAt;
  if (now - row.lastSeenAt > SLIDE_EVERY_MS) {
    expiresAt = now + SESSION_TTL_MS;
    // on the writer thread, without an fsync of its own: a slide lost to a power cut only ends the session sooner
    await database.writeJob({
      statements: [{ sql: "UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?", args: [now, expiresAt, row.id] }],
      durable: false,
    });
  }
  return {
    id: row.id,
    activeOrganizationId: row.activeOrganizationId,
    expiresAt,
    user: { id: row.userId, email: row.email, name: row.name, role: row.role },
  };
}

/** Ends one session (sign-out). */
export async function deleteSessionByToken(tx: Tx, token: string): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token)));
}

/** Drops every session of a user (password change), except `keepId` if given. */
export async function dropUserSessions(tx: Tx, userId: string, keepId?: string): Promise<void> {
  await tx.delete(sessions).where(keepId ? and(eq(sessions.userId, userId), ne(sessions.id, keepId)) : eq(sessions.userId, userId));
}

/** Sets the organization a session acts in. */
export async function setActiveOrganization(tx: Tx, sessionId: string, organizationId: string | null): Promise<void> {
  await tx.update(sessions).set({ activeOrganizationId: organizationId }).where(eq(sessions.id, sessionId));
}

/** The Set-Cookie value for a session token (or its removal with `token = null`). */
export function sessionCookie(config: Config, token: string | null, expiresAt?: number): string {
  const name = sessionCookieName(config);
  const secure = config.baseUrl.startsWith("https:") ? "; Secure" : "";
  if (token === null) return `${name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
  const maxAge = Math.floor(((expiresAt ?? Date.now() + SESSION_TTL_MS) - Date.now()) / 1000);
  return `${name}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

/** Reads the session token from a Cookie header: the configured name only (sessionCookieName). */
export function sessionTokenFrom(config: Config, request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  const name = sessionCookieName(config);
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
