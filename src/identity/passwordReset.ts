/**
 * Password reset by mail (docs/operations.md "Mail"): a person who forgot their password asks for a link at
 * `/reset-password` or `POST /api/auth/password-reset`; the answer is the same whether an
 * account exists or not (no account enumeration). For an account, a single-use token
 * (256 random bits; only its SHA-256 is stored) goes out in a mail through the outbox, valid
 * 30 minutes. Using it sets the password, ends every session of the user (a new one is
 * opened for the browser that used it), kills the user's other reset links, and records a
 * security event; a used, expired or unknown token gets one answer: 410 reset_link_invalid.
 */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { Config } from "../config";
import type { Database } from "../db/client";
import { passwordResets, users } from "../db/schema";
import { AppError } from "../http/errors";
import { base62, sha256Hex } from "../lib/crypto";
import type { Logger } from "../lib/log";
import { queueMail } from "../mail/outbox";
import { passwordResetMail } from "../mail/templates";
import { resetRequestAttempt, type AuthLimiters } from "./limits";
import { hashPassword } from "./passwords";
import { recordSecurityEvent } from "./security";
import type { ClientMeta } from "./service";
import { createSession, dropUserSessions } from "../auth/sessions";
import { findUserByEmail, normalizeEmail } from "./users";

export const RESET_TTL_MS = 30 * 60_000;
const TOKEN_PATTERN = /^[0-9A-Za-z]{20,80}$/;

/** The sentence every reset request gets, account or not. */
export const RESET_REQUESTED =
  "If an account exists for this e-mail, a link to choose a new password is on its way. It works once, within 30 minutes.";

type ResetDeps = { database: Database; config: Config; log: Logger; authLimiters: AuthLimiters };

/** The account-dependent halves of reset requests answered already and not yet done. */
const pendingResets = new Set<Promise<void>>();

/**
 * A reset request: 429 past the address's limit (limits.ts); otherwise answered at once, the
 * same way whether an account has this e-mail or not — the request path touches no table. The
 * account-dependent work (the lookup; for an account within the e-mail's limit, the token and
 * its mail in one transaction; the security event every request gets) runs after the answer
 * (resetRequestsSettled), so its cost cannot tell an account from an unknown e-mail
 * (`bun run bench reset`).
 */
export async function requestPasswordReset(deps: ResetDeps, rawEmail: string, meta: ClientMeta): Promise<void> {
  const email = normalizeEmail(rawEmail);
  const allowed = await resetRequestAttempt(deps.authLimiters, email, meta.ip);
  const job = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => fulfilResetRequest(deps, email, allowed.mail, meta))
    .catch((e) => deps.log.error("password reset request failed", { error: String(e) }))
    .finally(() => pendingResets.delete(job));
  pendingResets.add(job);
}

/** Resolves once every reset request answered so far has done its account-dependent work (tests, shutdown). */
export async function resetRequestsSettled(): Promise<void> {
  while (pendingResets.size > 0) await Promise.all([...pendingResets]);
}

/** The account-dependent half of a reset request, off the request path. */
async function fulfilResetRequest(deps: ResetDeps, email: string, mailAllowed: boolean, meta: ClientMeta): Promise<void> {
  const user = await findUserByEmail(deps.database, email);
  const mailed = user !== undefined && user !== null && mailAllowed;
  await deps.database.write(async (tx) => {
    if (mailed) {
      const token = base62(randomBytes(32));
      const now = Date.now();
      await tx
        .insert(passwordResets)
        .values({ tokenHash: sha256Hex(token), userId: user.id, expiresAt: now + RESET_TTL_MS, createdAt: now });
      const link = `${deps.config.baseUrl}/reset-password?token=${token}`;
      await queueMail(tx, deps, passwordResetMail({ to: user.email, link, minutes: RESET_TTL_MS / 60_000 }));
    }
    await recordSecurityEvent(tx, {
      kind: "password_reset.requested",
      userId: user?.id ?? null,
      email,
      ...meta,
      detail: { account: Boolean(user), mailed, ...(user && !mailAllowed ? { reason: "too many reset mails for this e-mail" } : {}) },
    });
  });
}

/** True when `token` is a reset token that is unused and unexpired (the page shows the form). */
export async function resetTokenValid(database: Database, token: string): Promise<boolean> {
  if (!TOKEN_PATTERN.test(token)) return false;
  const r = await database.db
    .select({ u: passwordResets.userId })
    .from(passwordResets)
    .where(and(eq(passwordResets.tokenHash, sha256Hex(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, Date.now())))
    .limit(1);
  return r.length > 0;
}

/**
 * Uses a reset token to set `password` (already validated): one transaction marks the token
 * used (only if unused and unexpired), kills the user's other reset links, sets the password,
 * drops every session of the user, opens one for this browser and records the event.
 */
export async function resetPassword(database: Database, token: string, password: string, meta: ClientMeta) {
  const hash = await hashPassword(password); // outside the write: it holds the writer mutex
  const now = Date.now();
  const done = TOKEN_PATTERN.test(token)
    ? await database.write(async (tx) => {
        const used = await tx
          .update(passwordResets)
          .set({ usedAt: now })
          .where(and(eq(passwordResets.tokenHash, sha256Hex(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)))
          .returning({ userId: passwordResets.userId });
        if (!used[0]) return null;
        const userId = used[0].userId;
        await tx
          .update(passwordResets)
          .set({ usedAt: now })
          .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
        const user = (
          await tx
            .update(users)
            .set({ passwordHash: hash, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now})`, updatedAt: now })
            .where(eq(users.id, userId))
            .returning({ id: users.id, email: users.email, name: users.name, role: users.role })
        )[0]!;
        await dropUserSessions(tx, userId);
        const session = await createSession(tx, userId, meta);
        await recordSecurityEvent(tx, {
          kind: "password_reset.completed",
          userId,
          email: user.email,
          ...meta,
          detail: { sessionsEnded: true },
        });
        return { user, session };
      })
    : null;
  if (!done) {
    await recordSecurityEvent(database, { kind: "password_reset.refused", ...meta, detail: { reason: "invalid, expired or used token" } });
    throw new AppError("reset_link_invalid");
  }
  return done;
}
