/**
 * Housekeeping: rows that can never be used again are deleted, so a long-running service's
 * tables do not grow without bound. Expired sessions; OAuth codes and tokens a day after
 * their expiry (until then a reused code or refresh token is still recognised and revokes its
 * family); OAuth clients idle for 30 days, or never given a token within OAUTH_UNUSED_CLIENT_DAYS;
 * setup tokens a day after expiry; SAML request and assertion ids once expired; pending invitations 30 days after expiry;
 * rate-limit windows once expired (PostgreSQL). Trace
 * events, security events and organizations' audit-log entries past EVENT_RETENTION_DAYS (default 90), in batches of their own
 * transactions so no write waits long behind them.
 * Runs an hour after start, then hourly.
 */
import { and, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { activityPurged } from "../db/activityPurged";
import type { Database, Tx } from "../db/client";
import {
  invitations,
  mailOutbox,
  oauthCodes,
  oauthTokens,
  passwordResets,
  rateCounters,
  sessions,
  setupTokens,
  ssoNonces,
} from "../db/schema";
import { orderedId } from "../lib/ids";
import type { Logger } from "../lib/log";
import { storageFailureOf } from "../db/storage";
import { purgeIdleClients, UNUSED_CLIENT_MS } from "../oauth/clients";

const DAY = 24 * 3600 * 1000;
export const HOUSEKEEPING_EVERY_MS = 3600 * 1000;

/**
 * Deletes what has expired; returns how many rows of each kind went. `unusedClientMs`: how long an OAuth
 * client that never got a token is kept (OAUTH_UNUSED_CLIENT_DAYS).
 */
export async function purgeExpired(
  database: Database,
  now = Date.now(),
  unusedClientMs = UNUSED_CLIENT_MS,
): Promise<Record<string, number>> {
  return database.write(async (tx) => {
    const sessionsGone = await tx.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ id: sessions.id });
    const codesGone = await tx
      .delete(oauthCodes)
      .where(lt(oauthCodes.expiresAt, now - DAY))
      .returning({ h: oauthCodes.codeHash });
    const tokensGone = await tx
      .delete(oauthTokens)
      .where(lt(oauthTokens.expiresAt, now - DAY))
      .returning({ id: oauthTokens.id });
    const setupGone = await tx
      .delete(setupTokens)
      .where(lt(setupTokens.expiresAt, now - DAY))
      .returning({ h: setupTokens.tokenHash });
    const invitationsGone = await tx
      .delete(invitations)
      .where(and(eq(invitations.status, "pending"), lt(invitations.expiresAt, now - 30 * DAY)))
      .returning({ id: invitations.id });
    const resetsGone = await tx
      .delete(passwordResets)
      .where(lt(passwordResets.expiresAt, now - DAY))
      .returning({ h: passwordResets.tokenHash });
    const mailsGone = await tx
      .delete(mailOutbox)
      .where(
        or(
          and(inArray(mailOutbox.status, ["sent", "logged"]), lt(mailOutbox.createdAt, now - 30 * DAY)),
          and(eq(mailOutbox.status, "failed"), lt(mailOutbox.createdAt, now - 90 * DAY)),
        ),
      )
      .returning({ id: mailOutbox.id });
    const ssoGone = await tx.delete(ssoNonces).where(lt(ssoNonces.expiresAt, now)).returning({ id: ssoNonces.id });
    const clientsGone = await purgeIdleClients(tx, now, unusedClientMs);
    // the rate-limit windows counted on PostgreSQL (identity/sharedLimits.ts); none on SQLite
    const countersGone = await tx.delete(rateCounters).where(lt(rateCounters.expiresAt, now)).returning({ k: rateCounters.key });
    return {
      ssoNonces: ssoGone.length,
      sessions: sessionsGone.length,
      oauthCodes: codesGone.length,
      oauthTokens: tokensGone.length,
      setupTokens: setupGone.length,
      invitations: invitationsGone.length,
      passwordResets: resetsGone.length,
      mails: mailsGone.length,
      oauthClients: clientsGone,
      rateCounters: countersGone.length,
    };
  });
}

/** Rows deleted per transaction by the retention purge: a batch holds the writer only a few milliseconds. */
export const RETENTION_BATCH = 2000;

/**
 * Deletes trace events, security events and audit-log entries older than `days` (none when `days` is 0),
 * with the counts kept from the events (trace hours, reported findings' days, served and audited per
 * client), by batches of RETENTION_BATCH rows, each its own transaction. Trace ids begin with their
 * arrival time (`trc_` + ordered id), so the cut is a primary-key range; security events and
 * audit entries go by their time's index. Returns the counts.
 */
export async function purgeOldEvents(
  database: Database,
  days: number,
  now = Date.now(),
): Promise<{ traceEvents: number; securityEvents: number; auditEntries: number }> {
  const gone = { traceEvents: 0, securityEvents: 0, auditEntries: 0 };
  if (days <= 0) return gone;
  const cutoff = now - days * DAY;
  const batch = sql.raw(String(RETENTION_BATCH));
  const firstTrace = `trc_${orderedId(cutoff, 0)}`;
  const batches: [keyof typeof gone, SQL][] = [
    ["traceEvents", sql`DELETE FROM trace_events WHERE id IN (SELECT id FROM trace_events WHERE id < ${firstTrace} LIMIT ${batch})`],
    [
      "securityEvents",
      sql`DELETE FROM security_events WHERE id IN (SELECT id FROM security_events WHERE created_at < ${cutoff} LIMIT ${batch})`,
    ],
    // the audit log is append-only (its trigger refuses an UPDATE): this purge is its one DELETE
    ["auditEntries", sql`DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries WHERE at < ${cutoff} LIMIT ${batch})`],
  ];
  // the events' kept hourly counts (migration 0010) go with them, uncounted: whole hours before the cut
  const cutHour = Math.floor(cutoff / 3_600_000);
  // the rows by their physical address: these tables' keys are four columns long (rowid on SQLite, ctid on PostgreSQL)
  const row = sql.raw(database.dialect === "sqlite" ? "rowid" : "ctid");
  const hours = sql`DELETE FROM trace_hours WHERE ${row} IN (SELECT ${row} FROM trace_hours WHERE hour < ${cutHour} LIMIT ${batch})`;
  // the reported findings' days (rule effectiveness) go with the events too: whole days before the cut
  const cutDay = Math.floor(cutoff / DAY);
  const findingDays = sql`DELETE FROM rule_finding_days WHERE ${row} IN
    (SELECT ${row} FROM rule_finding_days WHERE day < ${cutDay} LIMIT ${batch})`;
  // and the served and audited counts per client, counted from the events' clients: whole days before the cut
  const clientDays = sql`DELETE FROM talent_client_days WHERE ${row} IN
    (SELECT ${row} FROM talent_client_days WHERE day < ${cutDay} LIMIT ${batch})`;
  let traces = 0; // trace events and hours deleted: the activity memos forget them, even if a later batch fails
  try {
    for (const [kind, statement] of [...batches, [null, hours] as const, [null, findingDays] as const, [null, clientDays] as const]) {
      for (;;) {
        const n = await database.write((tx) => deleted(database, tx, statement));
        if (kind) gone[kind] += n;
        if (kind === "traceEvents" || kind === null) traces += n;
        if (n < RETENTION_BATCH) break;
      }
    }
  } finally {
    if (traces > 0) activityPurged(database);
  }
  return gone;
}

/** Runs a DELETE in `tx` and returns how many rows it deleted (PostgreSQL's driver does not say: the rows are counted). */
async function deleted(database: Database, tx: Tx, statement: SQL): Promise<number> {
  if (database.dialect === "sqlite") return Number(((await tx.run(statement)) as { rowsAffected?: number }).rowsAffected ?? 0);
  const pgTx = tx as unknown as { execute(s: SQL): Promise<{ n: number }[]> };
  return Number((await pgTx.execute(sql`WITH gone AS (${statement} RETURNING 1) SELECT count(*) AS n FROM gone`))[0]?.n ?? 0);
}

/** Starts the hourly purge (`opts`: the settings it reads, e.g. the Config); returns a function that stops it (its promise ends with a run already begun). */
export function startHousekeeping(
  database: Database,
  log: Logger,
  opts: { everyMs?: number; eventRetentionDays?: number; oauthUnusedClientDays?: number } = {},
): () => Promise<void> {
  const everyMs = opts.everyMs ?? HOUSEKEEPING_EVERY_MS;
  const run = async () => {
    try {
      const unusedClientMs = (opts.oauthUnusedClientDays ?? 1) * DAY;
      const gone = {
        ...(await purgeExpired(database, Date.now(), unusedClientMs)),
        ...(await purgeOldEvents(database, opts.eventRetentionDays ?? 90)),
      };
      if (Object.values(gone).some((n) => n > 0)) log.info("housekeeping", gone);
      else log.debug("housekeeping: nothing to delete");
    } catch (e) {
      if (!storageFailureOf(e)) log.warn("housekeeping failed; will retry", { error: String(e) }); // a full disk: told by the storage state
    }
  };
  // the next run is timed from the end of the last: runs never overlap, however slow the database
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout>;
  const next = () => {
    timer = setTimeout(() => {
      current = run().finally(() => stopped || next());
    }, everyMs);
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
    return current; // a run already begun finishes; none starts after
  };
}
