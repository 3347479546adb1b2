/**
 * A real SMTP server for the mail tests (`smtp-server` from npm) on a local port, and
 * `mailparser` to read what arrived. It can accept, refuse every recipient with a 5xx, or be
 * stopped and started again on the same port (an SMTP server that is down, then back).
 */
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./proc";

export type SmtpMode = "accept" | "reject";

export class TestSmtp {
  readonly received: ParsedMail[] = [];
  mode: SmtpMode = "accept";
  private server: SMTPServer | null = null;
  private waiters: (() => void)[] = [];

  private constructor(readonly port: number) {}

  /** A server on a free port, listening unless `listening` is false (an SMTP server that is down). */
  static async create(opts: { listening?: boolean; port?: number } = {}): Promise<TestSmtp> {
    const s = new TestSmtp(opts.port ?? (await freePort()));
    if (opts.listening !== false) await s.start();
    return s;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onRcptTo: (address, _session, cb) => {
        if (this.mode === "reject") {
          const e = Object.assign(new Error(`5.7.1 <${address.address}>: relay access denied`), { responseCode: 550 });
          return cb(e);
        }
        cb();
      },
      onData: (stream, _session, cb) => {
        simpleParser(stream)
          .then((m) => {
            this.received.push(m);
            for (const w of this.waiters.splice(0)) w();
            cb();
          })
          .catch(cb);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    server.on("error", () => {});
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Mails that arrived for `to`. */
  to(to: string): ParsedMail[] {
    return this.received.filter((m) => [m.to].flat().some((a) => a?.value.some((v) => v.address === to)));
  }

  /** Waits until `n` mails arrived for `to` (or throws after `ms`). */
  async waitFor(to: string, n = 1, ms = 15_000): Promise<ParsedMail[]> {
    const until = Date.now() + ms;
    while (this.to(to).length < n) {
      if (Date.now() > until) throw new Error(`no mail for ${to} within ${ms} ms (got ${this.to(to).length})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.to(to);
  }
}

/** The first http(s) link of a mail's text that starts with `prefix`. */
export function linkIn(mail: ParsedMail, prefix: string): string {
  const text = mail.text ?? "";
  const m = text.match(/https?:\/\/\S+/g)?.find((l) => l.startsWith(prefix));
  if (!m) throw new Error(`no link starting with ${prefix} in:\n${text}`);
  return m;
}
