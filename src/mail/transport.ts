/**
 * The SMTP side, through nodemailer (no hand-written SMTP): one connection per mail (no pool
 * to go stale while the queue is idle), bounded timeouts so a hung server cannot hold a mail
 * past its lease, and a Message-ID made of the mail's id, so a mail sent twice in the crash
 * window (docs/operations.md) carries the same Message-ID both times.
 */
import type { Transporter } from "nodemailer";
import { onFirstUse } from "../lib/onFirstUse";
import type { Config } from "../config";
import type { OutboxMail } from "./outbox";

/** Sends one mail; resolves once the SMTP server accepted it, rejects with `SendError` otherwise. */
export interface MailTransport {
  send(mail: OutboxMail): Promise<void>;
  close(): void;
}

/** A refused or failed delivery; `permanent` for a 5xx answer (RFC 5321 §4.2.1: do not repeat as is). */
export class SendError extends Error {
  override name = "SendError";
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Timeouts of one delivery (ms); the lease of a claimed mail is well above their sum. */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as const;

/** nodemailer, loaded with the first mail sent (~20 MiB and ~70 ms at start-up otherwise). */
const nodemailer = onFirstUse(async () => (await import("nodemailer")).default);

/** The transport for SMTP_URL (nodemailer's, made with the first mail). */
export function smtpTransport(config: Config & { smtpUrl: string }): MailTransport {
  let transporter: Promise<Transporter> | null = null;
  const open = () =>
    (transporter ??= nodemailer().then((n) =>
      n.createTransport({
        url: config.smtpUrl,
        ...SMTP_TIMEOUTS,
        // the mail's content is ours, but never let a field name a local file or a URL to fetch
        disableFileAccess: true,
        disableUrlAccess: true,
      }),
    ));
  const host = new URL(config.baseUrl).hostname;
  return {
    async send(mail) {
      try {
        await (await open()).sendMail({
          from: config.mailFrom,
          to: mail.to,
          subject: mail.subject,
          text: mail.body,
          ...(mail.html ? { html: mail.html } : {}),
          messageId: `<${mail.id}@${host}>`,
          headers: { "auto-submitted": "auto-generated" },
        });
      } catch (e) {
        const err = e as { message?: string; responseCode?: number; code?: string; response?: string };
        const code = err.responseCode;
        const said = err.response ?? err.message ?? "";
        const text =
          code !== undefined && said.startsWith(String(code))
            ? `SMTP ${said}`
            : [code ? `SMTP ${code}` : err.code, said].filter(Boolean).join(": ");
        throw new SendError(text || String(e), code !== undefined && code >= 500 && code < 600);
      }
    },
    close() {
      void transporter?.then((t) => t.close());
    },
  };
}
