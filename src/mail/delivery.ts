/**
 * The delivery loop (started by `serve` when SMTP_URL is set, stopped at shutdown): claims
 * each due mail of the outbox, sends it, records the outcome, then sleeps until the next
 * mail is due, a mail is queued (signal.ts), or a minute has passed (mails queued by another
 * process sharing the database).
 *
 * Delivery is at least once (docs/operations.md): a mail is claimed (`sending`) in one
 * transaction, handed to the SMTP server, and marked `sent` in the next write after the
 * server's 250. Only a crash between those two, a few milliseconds, sends it again (after the
 * lease), with the same Message-ID. A graceful stop waits for the mail in flight.
 */
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { Logger } from "../lib/log";
import { claimNextMail, markAttemptFailed, markSent, nextDueAt } from "./outbox";
import { onMailQueued } from "./signal";
import { SendError, smtpTransport, type MailTransport } from "./transport";
import { storageFailureOf } from "../db/storage";

/** A claimed mail not marked sent or failed within this time is claimed again (its sender died). */
export const LEASE_MS = 2 * 60_000;
/** The loop looks at the table at least this often, for mails queued by another process. */
export const POLL_MS = 60_000;

export interface DeliveryOptions {
  database: Database;
  config: Config;
  log: Logger;
  /** Default: nodemailer over SMTP_URL. */
  transport?: MailTransport;
  leaseMs?: number;
  pollMs?: number;
}

export class MailDelivery {
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly transport: MailTransport;
  private stopping = false;
  private running: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly opts: DeliveryOptions) {
    this.leaseMs = opts.leaseMs ?? LEASE_MS;
    this.pollMs = opts.pollMs ?? POLL_MS;
    if (opts.transport) this.transport = opts.transport;
    else if (opts.config.smtpUrl !== undefined) this.transport = smtpTransport({ ...opts.config, smtpUrl: opts.config.smtpUrl });
    else throw new Error("MailDelivery needs SMTP_URL or a transport");
  }

  /** Starts the loop (idempotent). */
  start(): void {
    if (this.running) return;
    this.unsubscribe = onMailQueued(() => this.wake());
    this.running = this.loop();
  }

  /** Makes a sleeping loop look at the queue now. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops after the mail in flight (if any) is sent and recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.wake();
    await this.running;
    this.running = null;
    this.transport.close();
  }

  /** Sends every mail due now; returns how many were attempted. */
  async drain(): Promise<number> {
    let n = 0;
    while (!this.stopping) {
      const mail = await claimNextMail(this.opts.database, Date.now(), this.leaseMs);
      if (!mail) break;
      n++;
      const { log, config } = this.opts;
      try {
        await this.transport.send(mail);
      } catch (e) {
        const permanent = e instanceof SendError && e.permanent;
        const message = e instanceof Error ? e.message : String(e);
        const status = await markAttemptFailed(this.opts.database, mail, message, {
          now: Date.now(),
          permanent,
          maxAttempts: config.mailMaxAttempts,
          retryBaseMs: config.mailRetryBaseMs,
        });
        (status === "failed" ? log.error : log.warn).call(
          log,
          status === "failed" ? "mail failed for good" : "mail delivery failed; will retry",
          {
            mailId: mail.id,
            kind: mail.kind,
            to: mail.to,
            attempts: mail.attempts,
            error: message,
          },
        );
        continue;
      }
      await markSent(this.opts.database, mail.id, Date.now());
      log.info("mail sent", { mailId: mail.id, kind: mail.kind, to: mail.to, attempts: mail.attempts });
    }
    return n;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      let delay = this.pollMs;
      try {
        await this.drain();
        const due = await nextDueAt(this.opts.database, this.leaseMs);
        if (due !== null) delay = Math.min(delay, Math.max(0, due - Date.now()));
      } catch (e) {
        // a full disk is told by the storage state, once per interval (src/db/storage.ts)
        if (!storageFailureOf(e)) this.opts.log.warn("mail delivery loop: database error; trying again shortly", { error: String(e) });
        delay = Math.min(delay, 5000);
      }
      if (this.stopping || this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wakeUp = done;
      });
      this.wakeUp = null;
    }
  }
}
