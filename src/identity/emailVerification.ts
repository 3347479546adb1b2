/**
 * E-mail verification: sign-up mails a single-use link (256 random bits; only its SHA-256 is
 * stored) to the address given, valid 48 hours. Opening it shows a confirmation button (a mail
 * scanner that fetches links confirms nothing); confirming marks the account's address
 * verified. Until then the account signs in with its password but is never linked to an SSO
 * identity or given a membership through SSO (linking.ts): an unverified address may belong to
 * someone else.
 */
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { Config } from "../config";
import type { Database, Tx } from "../db/client";
import { emailVerifications, users } from "../db/schema";
import { AppError } from "../http/errors";
import { base62, sha256Hex } from "../lib/crypto";
import type { Logger } from "../lib/log";
import { queueMail } from "../mail/outbox";
import { emailVerificationMail } from "../mail/templates";
import { rateLimited } from "./limits";

export const VERIFY_TTL_MS = 48 * 3600_000;
const TOKEN_PATTERN = /^[0-9A-Za-z]{20,80}$/;

/** What queuing a verification mail needs from the app. */
export interface MailDeps {
  config: Config;
  log: Logger;
}

/** Stores a verification token for the user's address and queues its mail, inside `tx`. */
export async function queueEmailVerification(tx: Tx, deps: MailDeps, user: { id: string; email: string }): Promise<void> {
  const token = base62(randomBytes(32));
  const now = Date.now();
  await tx
    .insert(emailVerifications)
    .values({ tokenHash: sha256Hex(token), userId: user.id, email: user.email, expiresAt: now + VERIFY_TTL_MS, createdAt: now });
  const link = `${deps.config.baseUrl}/verify-email?token=${token}`;
  await queueMail(tx, deps, emailVerificationMail({ to: user.email, link, hours: VERIFY_TTL_MS / 3600_000 }));
}

/** The verification token's row while it is unused and unexpired at `now`. */
const unusedToken = (token: string, now: number) =>
  and(eq(emailVerifications.tokenHash, sha256Hex(token)), isNull(emailVerifications.usedAt), gt(emailVerifications.expiresAt, now));

/** True when the token is unused, unexpired and still names its account's address. */
export async function verificationTokenValid(database: Database, token: string): Promise<boolean> {
  if (!TOKEN_PATTERN.test(token)) return false;
  const r = await database.db
    .select({ u: emailVerifications.userId })
    .from(emailVerifications)
    .innerJoin(users, and(eq(users.id, emailVerifications.userId), eq(users.email, emailVerifications.email)))
    .where(unusedToken(token, Date.now()))
    .limit(1);
  return r.length > 0;
}

/**
 * Uses a verification token: marks it used and the account's address verified, in one
 * transaction. An unknown, used or expired token, or one sent to an address the account no
 * longer has → 410 verification_link_invalid.
 */
export async function confirmEmail(database: Database, token: string): Promise<{ userId: string; email: string }> {
  const now = Date.now();
  const done = TOKEN_PATTERN.test(token)
    ? await database.write(async (tx) => {
        const used = (
          await tx
            .update(emailVerifications)
            .set({ usedAt: now })
            .where(unusedToken(token, now))
            .returning({ userId: emailVerifications.userId, email: emailVerifications.email })
        )[0];
        if (!used) return null;
        const user = (
          await tx.select({ email: users.email, verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, used.userId)).limit(1)
        )[0];
        if (!user || user.email !== used.email) return null;
        if (user.verifiedAt === null) await tx.update(users).set({ emailVerifiedAt: now, updatedAt: now }).where(eq(users.id, used.userId));
        return { userId: used.userId, email: used.email };
      })
    : null;
  if (!done) throw new AppError("verification_link_invalid");
  return done;
}

/** At most this many verification mails per account and hour (a person who lost one asks again). */
export const RESENDS_PER_HOUR = 5;

/**
 * Mails a new verification link to a signed-in account whose address is not verified yet.
 * Returns false when it already is (nothing sent); 429 past RESENDS_PER_HOUR.
 */
export async function resendEmailVerification(database: Database, deps: MailDeps, userId: string): Promise<boolean> {
  return database.write(async (tx) => {
    const user = (await tx.select({ email: users.email, v: users.emailVerifiedAt }).from(users).where(eq(users.id, userId)).limit(1))[0];
    if (!user || user.v !== null) return false;
    const recent =
      (
        await tx
          .select({ n: count() })
          .from(emailVerifications)
          .where(and(eq(emailVerifications.userId, userId), gt(emailVerifications.createdAt, Date.now() - 3600_000)))
      )[0]?.n ?? 0;
    if (recent >= RESENDS_PER_HOUR) throw rateLimited("Too many verification mails for this account", 3600);
    await queueEmailVerification(tx, deps, { id: userId, email: user.email });
    return true;
  });
}
