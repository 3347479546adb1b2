/**
 * The outbox across a restart of talentd ("nothing is lost or sent twice across a
 * restart"), with real processes: `bun src/main.ts serve` with SMTP_URL pointing at a port
 * where no SMTP server listens yet. The invitation waits (pending, attempts recorded); the
 * server process is killed (SIGKILL: no shutdown code runs); the SMTP server (smtp-server)
 * comes up; talentd starts again on the same data and delivers the mail, exactly once.
 * A second case stops talentd gracefully (SIGTERM) right after a mail left: it is marked
 * sent, and the next start does not send it again.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, tempDir } from "../helpers";
import { freePort, waitReady, eventually } from "../proc";
import { TestSmtp } from "../mail-support";

const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function startServer(env: Record<string, string>) {
  const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve"], {
    cwd: env.DATA_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) out += dec.decode(chunk);
  })();
  cleanups.push(() => {
    proc.kill("SIGKILL");
  });
  return { proc, log: () => out };
}

/** A browser-like client over fetch that keeps the session cookie. */
function client(base: string) {
  let cookie = "";
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json", origin: base, cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = r.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0]!;
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
}

async function setup() {
  const smtp = await TestSmtp.create({ listening: false });
  cleanups.push(() => smtp.stop());
  const { dir, cleanup } = tempDir("talentd-mail-restart-");
  cleanups.push(cleanup);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    DATA_DIR: dir,
    SMTP_URL: smtp.url,
    MAIL_RETRY_BASE: "1s",
    AUTO_APPROVE_ORGS: "true",
    LOG_FORMAT: "json",
    ACCESS_LOG: "false",
  };
  return { smtp, env, base };
}

describe("the outbox across a restart of talentd (real processes, real SMTP server)", () => {
  test("SMTP down: the invitation waits with its attempts; talentd is killed (SIGKILL); SMTP comes up; the restarted talentd delivers it exactly once", async () => {
    const { smtp, env, base } = await setup();
    let server = startServer(env);
    await waitReady(base);
    const owner = client(base);
    expect((await owner("POST", "/api/auth/sign-up", { email: "owner@example.com", password: "correct horse battery" })).status).toBe(201);
    expect((await owner("POST", "/web/orgs", { name: "Restart Org" })).status).toBe(201);
    const inv = await owner("POST", "/web/orgs/current/invitations", { email: "survivor@example.com" });
    expect(inv.status).toBe(201);
    let waiting: any;
    expect(
      await eventually(async () => {
        waiting = (await owner("GET", "/web/orgs/current/mail")).body.mails[0];
        // pending between attempts (not `sending`: a claim cut by SIGKILL waits for its 2-minute lease)
        return waiting?.attempts >= 2 && waiting.status === "pending";
      }, 15_000),
    ).toBe(true);
    expect(waiting).toMatchObject({ to: "survivor@example.com", status: "pending" });
    expect(waiting.lastError).toMatch(/ECONNREFUSED|ECONNECTION|connect/i);
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    await smtp.start();
    server = startServer(env);
    await waitReady(base);
    const [mail] = await smtp.waitFor("survivor@example.com", 1, 20_000);
    expect(mail!.text).toContain(`${base}/accept-invitation/${inv.body.id}`);
    await Bun.sleep(2500); // time for a duplicate, if there were one
    expect(smtp.to("survivor@example.com")).toHaveLength(1);
    const sent = (await owner("GET", "/web/orgs/current/mail?status=sent")).body.mails;
    expect(sent).toHaveLength(1);
    expect(sent[0].attempts).toBeGreaterThanOrEqual(3);
    expect((await owner("GET", "/web/orgs/current/mail")).body.mails).toHaveLength(0);
    expect(server.log()).toContain("mail sent");
  }, 90_000);

  test("a graceful stop (SIGTERM) right after a mail went out: it is marked sent, and the next start sends nothing again", async () => {
    const { smtp, env, base } = await setup();
    await smtp.start();
    let server = startServer(env);
    await waitReady(base);
    const owner = client(base);
    await owner("POST", "/api/auth/sign-up", { email: "owner2@example.com", password: "correct horse battery" });
    await owner("POST", "/web/orgs", { name: "Graceful Org" });
    await owner("POST", "/web/orgs/current/invitations", { email: "once@example.com" });
    await smtp.waitFor("once@example.com");
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    server = startServer(env);
    await waitReady(base);
    await Bun.sleep(2000);
    expect(smtp.to("once@example.com")).toHaveLength(1);
    expect((await owner("GET", "/web/orgs/current/mail?status=sent")).body.mails.map((m: any) => [m.to, m.attempts])).toEqual([
      ["once@example.com", 1],
    ]);
  }, 90_000);
});
