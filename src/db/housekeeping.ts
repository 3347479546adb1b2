/**
 * Housekeeping: rows that can never be used again are deleted, so a long-running service's
 * tables do not grow without bound. Expired sessions; OAuth codes and tokens a day after
 * their expiry (until then a reused code or refresh token is still recognised and revokes its
 * family); setup tokens a day after expiry; pending invitations 30 days after expiry.
 * Runs an hour after start, then hourly.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "./client";
import { invitations, oauthCodes, oauthTokens, sessions, setupTokens } from "./schema";
import type { Logger } from "../lib/log";

const DAY = 24 * 3600 * 1000;
export const HOUSEKEEPING_EVERY_MS = 3600 * 1000;

/** Deletes what has expired; returns how many rows of each kind went. */
export async function purgeExpired(database: Database, now = Date.now()): Promise<Record<string, number>> {
  return database.write(async (tx) => {
    const sessionsGone = await tx.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ id: sessions.id });
    const codesGone = await tx.delete(oauthCodes).where(lt(oauthCodes.expiresAt, now - DAY)).returning({ h: oauthCodes.codeHash });
    const tokensGone = await tx.delete(oauthTokens).where(lt(oauthTokens.expiresAt, now - DAY)).returning({ id: oauthTokens.id });
    const setupGone = await tx.delete(setupTokens).where(lt(setupTokens.expiresAt, now - DAY)).returning({ h: setupTokens.tokenHash });
    const invitationsGone = await tx
      .delete(invitations)
      .where(and(eq(invitations.status, "pending"), lt(invitations.expiresAt, now - 30 * DAY)))
      .returning({ id: invitations.id });
    return {
      sessions: sessionsGone.length,
      oauthCodes: codesGone.length,
      oauthTokens: tokensGone.length,
      setupTokens: setupGone.length,
      invitations: invitationsGone.length,
    };
  });
}

/** Starts the hourly purge; returns a function that stops it. */
export function startHousekeeping(database: Database, log: Logger, everyMs = HOUSEKEEPING_EVERY_MS): () => void {
  const run = async () => {
    try {
      const gone = await purgeExpired(database);
      if (Object.values(gone).some((n) => n > 0)) log.info("housekeeping", gone);
    } catch (e) {
      log.warn("housekeeping failed; will retry", { error: String(e) });
    }
  };
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
