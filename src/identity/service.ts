/** Accounts: sign-up, sign-in (rate limited), password change, first-admin setup tokens. */
import { and, eq, isNull, gt } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { Database } from "../db/client";
import { passwordResets, setupTokens, users } from "../db/schema";
import { AppError } from "../http/errors";
import { base62, sha256Hex } from "../lib/crypto";
import { listMemberships } from "../auth/memberships";
import { passwordCheckAttempt, signInAttempt, signUpAttempt, type AuthLimiters } from "./limits";
import { hashPassword, verifyPassword } from "./passwords";
import { recordSecurityEvent } from "./security";
import { createSession, dropUserSessions, deleteSessionByToken } from "../auth/sessions";
import { findUserByEmail, insertUser, normalizeEmail } from "./users";
import { ssoEnforcedFor } from "./sso";
import { queueEmailVerification, type MailDeps } from "./emailVerification";

/** 403 when the e-mail's domain enforces its organization's SSO (password sign-in and sign-up refused). */
async function refuseWhenSsoEnforced(database: Database, email: string, meta: ClientMeta, kind: string): Promise<void> {
  const domain = await ssoEnforcedFor(database, email);
  if (!domain) return;
  await recordSecurityEvent(database, { kind, email, ...meta, detail: { method: "password", reason: `SSO is enforced for ${domain}` } });
  throw new AppError(
    "forbidden",
    `Accounts at ${domain} sign in through their organization's single sign-on, not with a password: enter your e-mail on the sign-in page and continue without a password.`,
    { ssoUrl: `/api/auth/sso/${domain}` },
  );
}

export interface ClientMeta {
  ip: string | null;
  userAgent: string | null;
}

/** A dummy hash so an unknown e-mail costs as much as a wrong password (no timing oracle). */
let dummyHash: Promise<string> | undefined;

/**
 * Creates an account and its first session, and mails a link that verifies the address
 * (emailVerification.ts). 409 when the e-mail is taken; 429 past the address's sign-up limit.
 */
export async function signUp(
  database: Database,
  limiters: AuthLimiters,
  input: { email: string; password: string; name?: string },
  meta: ClientMeta,
  mail: MailDeps,
) {
  await signUpAttempt(limiters, meta.ip);
  const email = normalizeEmail(input.email);
  await refuseWhenSsoEnforced(database, email, meta, "sign_up.refused");
  const taken = () => new AppError("conflict", "An account with this e-mail exists; sign in instead.", { field: "email" });
  if (await findUserByEmail(database, email)) throw taken(); // before the ~70 ms hash
  const passwordHash = await hashPassword(input.password);
  const result = await database.write(async (tx) => {
    // decided again inside the transaction: a concurrent sign-up may have taken it meanwhile
    if ((await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1)).length > 0) throw taken();
    const userId = await insertUser(tx, { email, passwordHash, name: input.name?.trim() ?? "" });
    await queueEmailVerification(tx, mail, { id: userId, email });
    const session = await createSession(tx, userId, { ...meta, userAgent: meta.userAgent });
    return { userId, session };
  });
  await recordSecurityEvent(database, { kind: "sign_up", userId: result.userId, email, ...meta });
  return { user: { id: result.userId, email, name: input.name?.trim() ?? "", role: "user" as const }, session: result.session };
}

/**
 * Signs in with e-mail and password: the attempt is taken from the limits (limits.ts) before
 * the password is checked, 429 past them; a new session every time (the old one of this
 * browser is ended).
 */
export async function signIn(
  database: Database,
  limiters: AuthLimiters,
  input: { email: string; password: string },
  meta: ClientMeta,
  previousToken: string | null,
) {
  const email = normalizeEmail(input.email);
  let attempt;
  try {
    attempt = await signInAttempt(limiters, email, meta.ip);
  } catch (e) {
    await recordSecurityEvent(database, {
      kind: "sign_in.rate_limited",
      email,
      ...meta,
      detail: { scope: (e as { scope?: string }).scope },
    });
    throw e;
  }
  await refuseWhenSsoEnforced(database, email, meta, "sign_in.failure");
  const user = await findUserByEmail(database, email);
  const ok = user?.passwordHash
    ? await verifyPassword(input.password, user.passwordHash)
    : (await verifyPassword(input.password, await (dummyHash ??= hashPassword("not-a-real-password"))), false);
  if (!user || !ok) {
    await recordSecurityEvent(database, { kind: "sign_in.failure", userId: user?.id ?? null, email, ...meta });
    throw new AppError("invalid_credentials");
  }
  if (user.disabledAt !== null) {
    await recordSecurityEvent(database, {
      kind: "sign_in.failure",
      userId: user.id,
      email,
      ...meta,
      detail: { reason: "account_disabled" },
    });
    throw new AppError("account_disabled");
  }
  attempt.succeeded();
  const orgs = await listMemberships(database, user.id);
  const session = await database.write(async (tx) => {
    if (previousToken) await deleteSessionByToken(tx, previousToken);
    return createSession(tx, user.id, { ...meta, activeOrganizationId: orgs[0]?.id ?? null });
  });
  await recordSecurityEvent(database, { kind: "sign_in.success", userId: user.id, email, ...meta });
  return { user: { id: user.id, email: user.email, name: user.name, role: user.role }, session, organizations: orgs };
}

/** Changes a password: every session of the user ends; a fresh one is returned for this browser. */
export async function changePassword(
  database: Database,
  limiters: AuthLimiters,
  userId: string,
  current: string,
  next: string,
  meta: ClientMeta,
) {
  const attempt = await passwordCheckAttempt(limiters, userId);
  const user = (await database.db.select().from(users).where(eq(users.id, userId)).limit(1))[0];
  if (!user?.passwordHash || !(await verifyPassword(current, user.passwordHash)))
    throw new AppError("invalid_credentials", "The current password is wrong.");
  attempt.succeeded();
  const hash = await hashPassword(next);
  const session = await database.write(async (tx) => {
    await tx.update(users).set({ passwordHash: hash, updatedAt: Date.now() }).where(eq(users.id, userId));
    await dropUserSessions(tx, userId);
    // a reset link asked for before (perhaps by someone else) dies with the old password
    await tx
      .update(passwordResets)
      .set({ usedAt: Date.now() })
      .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
    return createSession(tx, userId, meta);
  });
  await recordSecurityEvent(database, { kind: "password_changed", userId, email: user.email, ...meta });
  return session;
}

// ---- first platform admin ----------------------------------------------------------------

export const SETUP_TOKEN_TTL_MS = 3600 * 1000;

/** True when some user holds the platform admin role. */
export async function hasPlatformAdmin(database: Database): Promise<boolean> {
  const r = await database.db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
  return r.length > 0;
}

/** When there is no admin yet: a single-use setup token valid 1 h (its raw value goes to the log). */
export async function issueSetupToken(database: Database): Promise<string | null> {
  if (await hasPlatformAdmin(database)) return null;
  const token = base62(randomBytes(24));
  const now = Date.now();
  await database.write((tx) =>
    tx.insert(setupTokens).values({ tokenHash: sha256Hex(token), expiresAt: now + SETUP_TOKEN_TTL_MS, createdAt: now }),
  );
  return token;
}

/** True when the token is unused, unexpired, and no admin exists yet. */
export async function setupTokenValid(database: Database, token: string): Promise<boolean> {
  if (await hasPlatformAdmin(database)) return false;
  const r = await database.db
    .select({ h: setupTokens.tokenHash })
    .from(setupTokens)
    .where(and(eq(setupTokens.tokenHash, sha256Hex(token)), isNull(setupTokens.usedAt), gt(setupTokens.expiresAt, Date.now())))
    .limit(1);
  return r.length > 0;
}

/** Uses the setup token to create the first platform admin, signed in. */
export async function completeSetup(
  database: Database,
  input: { token: string; email: string; password: string; name?: string },
  meta: ClientMeta,
) {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password); // outside the write: it holds the writer mutex
  const result = await database.write(async (tx) => {
    const admin = await tx.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
    // every unused link ends with this one (each replica of a PostgreSQL deployment logs its own): two
    // completions at once through two links take turns on these rows, and the second finds its link used
    const now = Date.now();
    const used = await tx
      .update(setupTokens)
      .set({ usedAt: now })
      .where(isNull(setupTokens.usedAt))
      .returning({ h: setupTokens.tokenHash, expiresAt: setupTokens.expiresAt });
    const mine = used.some((u) => u.h === sha256Hex(input.token) && u.expiresAt > now);
    if (admin.length > 0 || !mine) throw new AppError("forbidden", "This setup link is invalid, expired or already used.");
    const taken = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
    if (taken.length > 0) throw new AppError("conflict", "An account with this e-mail exists; use `talentd admin create` to promote it.");
    const userId = await insertUser(tx, { email, passwordHash, name: input.name, role: "admin", emailVerified: true });
    return { userId, session: await createSession(tx, userId, meta) };
  });
  await recordSecurityEvent(database, { kind: "setup.admin_created", userId: result.userId, email, ...meta });
  return result;
}
