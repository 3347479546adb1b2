/**
 * Outgoing mail. Until SMTP is configured every mail is written to the outbox table and the
 * log, so an operator of an air-gapped install can still hand an invitation link over.
 */
import type { Tx } from "../db/client";
import { mailOutbox } from "../db/schema";
import { newId } from "../lib/ids";
import type { Logger } from "../lib/log";

export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** Queues a mail inside the caller's transaction and logs it. */
export async function queueMail(tx: Tx, log: Logger, mail: Mail): Promise<string> {
  const id = newId("mail");
  await tx.insert(mailOutbox).values({ id, to: mail.to, subject: mail.subject, body: mail.body, createdAt: Date.now() });
  log.info("mail queued (no SMTP configured: delivered to the outbox and this log)", { mailId: id, to: mail.to, subject: mail.subject, body: mail.body });
  return id;
}
