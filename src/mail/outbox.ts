/**
 * The mail outbox (docs/operations.md "Mail"): a durable queue in the `mail_outbox` table. A mail is queued
 * inside the transaction of what it announces (an invitation, a reset request), so it exists
 * exactly when that change does. Without SMTP_URL the mail is written to the log instead
 * (status `logged`), so the operator of an air-gapped install can still hand a link over.
 *
 * States: pending → sending (claimed, `claimed_at` is the lease) → sent; a failed attempt goes
 * back to pending with a later `next_attempt_at`, or to failed (after MAIL_MAX_ATTEMPTS, or at
 * once on a permanent 5xx answer). An organization's owner/admins see its pending and failed
 * mails and may retry them. See docs/operations.md "Mail" for the delivery guarantees.
 */
import { and, asc, desc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Config } from "../config";
import type { Database, Tx } from "../db/client";
import { mailOutbox, type MailStatus } from "../db/schema";
import { AppError, notFound } from "../http/errors";
import { newId } from "../lib/ids";
import type { Logger } from "../lib/log";
import { mailQueued } from "./signal";

export type MailKind = "invitation" | "password_reset" | "email_verification" | "other";

export interface Mail {
  kind: MailKind;
  to: string;
  subject: string;
  /** The plain-text body (always sent). */
  text: string;
  /** The HTML alternative. */
  html?: string;
  /** The organization the mail belongs to: its admins see it if it fails. */
  organizationId?: string | null;
  /** Holds a secret (a reset token): never listed, body removed once sent or failed. */
  sensitive?: boolean;
}

/** A row as the delivery loop reads it. */
export type OutboxMail = typeof mailOutbox.$inferSelect;

/** Queues a mail inside the caller's transaction (or writes it to the log without SMTP). Returns its id. */
export async function queueMail(tx: Tx, deps: { config: Config; log: Logger }, mail: Mail): Promise<string> {
  const id = newId("mail");
  const now = Date.now();
  const smtp = deps.config.smtpUrl !== undefined;
  await tx.insert(mailOutbox).values({
    id,
    organizationId: mail.organizationId ?? null,
    kind: mail.kind,
    to: mail.to,
    subject: mail.subject,
    body: mail.text,
    html: mail.html ?? null,
    sensitive: mail.sensitive ?? false,
    status: smtp ? "pending" : "logged",
    nextAttemptAt: now,
    createdAt: now,
  });
  if (smtp) {
    deps.log.info("mail queued", { mailId: id, kind: mail.kind, to: mail.to });
    mailQueued();
  } else {
    deps.log.info("mail written to this log (no SMTP_URL configured)", {
      mailId: id,
      kind: mail.kind,
      to: mail.to,
      subject: mail.subject,
      body: mail.text,
    });
  }
  return id;
}

/**
 * Claims the next due mail for sending: a pending mail whose time has come, or one left
 * `sending` past its lease (its process died mid-send). One IMMEDIATE transaction, so two
 * loops never claim the same mail. The attempt is counted here, before the send.
 */
export async function claimNextMail(database: Database, now: number, leaseMs: number): Promise<OutboxMail | null> {
  return database.write(async (tx) => {
    const due = or(
      and(eq(mailOutbox.status, "pending"), lte(mailOutbox.nextAttemptAt, now)),
      and(eq(mailOutbox.status, "sending"), lte(mailOutbox.claimedAt, now - leaseMs)),
    );
    const next = (
      await tx
        .select({ id: mailOutbox.id })
        .from(mailOutbox)
        .where(due)
        .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.createdAt))
        .limit(1)
    )[0];
    if (!next) return null;
    const rows = await tx
      .update(mailOutbox)
      .set({ status: "sending", claimedAt: now, attempts: sql`${mailOutbox.attempts} + 1` })
      .where(and(eq(mailOutbox.id, next.id), due))
      .returning();
    return rows[0] ?? null;
  });
}

/** What a sensitive mail keeps of its body once it left the queue. */
const SCRUBBED = "(removed: this mail held a secret)";

/** Marks a claimed mail sent: the SMTP server accepted it. */
export async function markSent(database: Database, id: string, now: number): Promise<void> {
  await database.write((tx) =>
    tx
      .update(mailOutbox)
      .set({
        status: "sent",
        sentAt: now,
        claimedAt: null,
        error: null,
        body: sql`CASE WHEN ${mailOutbox.sensitive} = 1 THEN ${SCRUBBED} ELSE ${mailOutbox.body} END`,
        html: sql`CASE WHEN ${mailOutbox.sensitive} = 1 THEN NULL ELSE ${mailOutbox.html} END`,
      })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, "sending"))),
  );
}

/** The wait after the `attempts`-th failure: base, doubled each time, at most an hour. */
export function retryDelay(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/**
 * Records a failed attempt: back to pending with the next attempt time, or failed for good
 * when `permanent` (a 5xx answer) or after `maxAttempts`. Returns the new status.
 */
export async function markAttemptFailed(
  database: Database,
  mail: Pick<OutboxMail, "id" | "attempts">,
  error: string,
  opts: { now: number; permanent: boolean; maxAttempts: number; retryBaseMs: number },
): Promise<"pending" | "failed"> {
  const failed = opts.permanent || mail.attempts >= opts.maxAttempts;
  await database.write((tx) =>
    tx
      .update(mailOutbox)
      .set(
        failed
          ? {
              status: "failed",
              claimedAt: null,
              error: error.slice(0, 1000),
              body: sql`CASE WHEN ${mailOutbox.sensitive} = 1 THEN ${SCRUBBED} ELSE ${mailOutbox.body} END`,
              html: sql`CASE WHEN ${mailOutbox.sensitive} = 1 THEN NULL ELSE ${mailOutbox.html} END`,
            }
          : {
              status: "pending",
              claimedAt: null,
              error: error.slice(0, 1000),
              nextAttemptAt: opts.now + retryDelay(mail.attempts, opts.retryBaseMs),
            },
      )
      .where(and(eq(mailOutbox.id, mail.id), eq(mailOutbox.status, "sending"))),
  );
  return failed ? "failed" : "pending";
}

/** When the loop next has something to do: the earliest pending attempt or lease end; null when idle. */
export async function nextDueAt(database: Database, leaseMs: number): Promise<number | null> {
  const r = await database.db
    .select({
      pending: sql<number | null>`min(CASE WHEN ${mailOutbox.status} = 'pending' THEN ${mailOutbox.nextAttemptAt} END)`,
      lease: sql<number | null>`min(CASE WHEN ${mailOutbox.status} = 'sending' THEN ${mailOutbox.claimedAt} END)`,
    })
    .from(mailOutbox)
    .where(inArray(mailOutbox.status, ["pending", "sending"]));
  const { pending, lease } = r[0] ?? { pending: null, lease: null };
  const times = [pending, lease === null ? null : lease + leaseMs].filter((t): t is number => t !== null && t !== undefined);
  return times.length > 0 ? Math.min(...times.map(Number)) : null;
}

/** What an organization's admins see of a mail: never its body (a link in it may be a secret). */
export interface MailView {
  id: string;
  kind: string;
  to: string;
  subject: string;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
  sentAt: number | null;
}

const VIEW = {
  id: mailOutbox.id,
  kind: mailOutbox.kind,
  to: mailOutbox.to,
  subject: mailOutbox.subject,
  status: mailOutbox.status,
  attempts: mailOutbox.attempts,
  lastError: mailOutbox.error,
  nextAttemptAt: mailOutbox.nextAttemptAt,
  createdAt: mailOutbox.createdAt,
  sentAt: mailOutbox.sentAt,
};

const toView = (r: MailView): MailView => ({ ...r, nextAttemptAt: r.status === "pending" ? r.nextAttemptAt : null });

export const UNDELIVERED: MailStatus[] = ["pending", "sending", "failed"];

/** An organization's mails in `statuses` (default: not delivered yet), newest first; sensitive mails never. */
export async function listOrgMail(
  database: Database,
  organizationId: string,
  statuses: MailStatus[] = UNDELIVERED,
  limit = 200,
): Promise<MailView[]> {
  const rows = await database.db
    .select(VIEW)
    .from(mailOutbox)
    .where(and(eq(mailOutbox.organizationId, organizationId), inArray(mailOutbox.status, statuses), eq(mailOutbox.sensitive, false)))
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(limit);
  return rows.map(toView);
}

/**
 * Mails that belong to no organization (password resets), not delivered yet, newest first: what
 * platform administrators see of them (/admin/mail) — the address, subject, attempts and last
 * error, never the body (a reset link is a secret).
 */
export async function listUnownedMail(database: Database, statuses: MailStatus[] = UNDELIVERED, limit = 200): Promise<MailView[]> {
  const rows = await database.db
    .select(VIEW)
    .from(mailOutbox)
    .where(and(isNull(mailOutbox.organizationId), inArray(mailOutbox.status, statuses)))
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(limit);
  return rows.map(toView);
}

/**
 * An admin's retry: a failed or pending mail of the organization goes (back) to pending, due
 * now, with a fresh count of attempts. 404 for another organization's or a sensitive mail;
 * 409 for one that is being sent or was sent.
 */
export async function retryMail(tx: Tx, organizationId: string, id: string, now = Date.now()): Promise<MailView> {
  const row = (
    await tx
      .select(VIEW)
      .from(mailOutbox)
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.organizationId, organizationId), eq(mailOutbox.sensitive, false)))
      .limit(1)
  )[0];
  if (!row) throw notFound("No such mail in this organization.");
  if (row.status === "sent" || row.status === "sending" || row.status === "logged") {
    const why =
      row.status === "sent"
        ? "was already sent"
        : row.status === "sending"
          ? "is being sent right now"
          : "was written to the log (no SMTP is configured)";
    throw new AppError("invalid_transition", `This mail ${why}; there is nothing to retry.`, { status: row.status });
  }
  const updated = await tx
    .update(mailOutbox)
    .set({ status: "pending", attempts: 0, nextAttemptAt: now })
    .where(eq(mailOutbox.id, id))
    .returning(VIEW);
  mailQueued();
  return toView(updated[0]!);
}
