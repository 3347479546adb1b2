/**
 * Password reset: `POST /api/auth/password-reset` answers the same whether
 * an account exists or not; for an account a mail with a single-use, 30-minute link arrives
 * (real SMTP server, parsed with mailparser); using the link sets the password, ends every
 * other session and records security events; the token is refused the second time and after
 * expiry; only its hash is stored and the mail's body is removed from the outbox once sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MailDelivery } from "../../src/mail/delivery";
import { createLogger } from "../../src/lib/log";
import { sha256Hex } from "../../src/lib/crypto";
import { AUTH_LIMITS, createAuthLimiters } from "../../src/identity/limits";
import { requestPasswordReset, resetRequestsSettled } from "../../src/identity/passwordReset";
import type { Database } from "../../src/db/client";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { eventually } from "../proc";
import { linkIn, TestSmtp } from "../mail-support";
import { orgWithProject, signedUp, WebClient } from "../helpers";

let live: LiveEnv;
let smtp: TestSmtp;
let delivery: MailDelivery;
beforeAll(async () => {
  smtp = await TestSmtp.create();
  live = await liveEnv({ SMTP_URL: smtp.url });
  delivery = new MailDelivery({ database: live.env.database, config: live.env.config, log: createLogger("error", () => {}) });
  delivery.start();
});
afterAll(async () => {
  await delivery.stop();
  await smtp.stop();
  await live.close();
});

const api = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(live.base + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: live.base, ...headers },
    body: JSON.stringify(body),
  });

const rows = async (sql: string, args: (string | number)[] = []) =>
  (await live.env.database.client.execute({ sql, args })).rows as unknown as Record<string, any>[];

/** The reset mails `email` received, once there are `n` (a signed-up account also got its verification mail). */
async function resetMails(email: string, n = 1) {
  const until = Date.now() + 15_000;
  const reset = () => smtp.to(email).filter((m) => m.subject === "Reset your talentd password");
  while (reset().length < n) {
    if (Date.now() > until) throw new Error(`no reset mail for ${email} (got ${reset().length})`);
    await Bun.sleep(20);
  }
  return reset();
}

/** Asks for a reset of `email` and returns the token from the mail that arrives. */
async function resetLink(email: string, nth = 1): Promise<{ link: string; token: string }> {
  const r = await api("/api/auth/password-reset", { email });
  expect(r.status).toBe(202);
  const mails = await resetMails(email, nth);
  const link = linkIn(mails[nth - 1]!, `${live.base}/reset-password?token=`);
  return { link, token: new URL(link).searchParams.get("token")! };
}

describe("POST /api/auth/password-reset", () => {
  test("the answer is the same for an account and for an unknown e-mail (no account enumeration); only the account gets a mail", async () => {
    const user = await signedUp(live.env, "known.reset@example.com");
    const known = await api("/api/auth/password-reset", { email: user.email });
    const unknown = await api("/api/auth/password-reset", { email: "nobody.here@example.com" });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(await known.text()).toBe(await unknown.text());
    const [mail] = await resetMails(user.email);
    expect(mail!.subject).toBe("Reset your talentd password");
    expect(mail!.text).toContain("30 minutes");
    expect(mail!.html || "").toContain(`${live.base}/reset-password?token=`);
    await resetRequestsSettled();
    await Bun.sleep(300);
    expect(smtp.to("nobody.here@example.com")).toHaveLength(0);
    expect(await rows("SELECT 1 FROM mail_outbox WHERE to_address = 'nobody.here@example.com'")).toHaveLength(0);
    const events = await rows(
      "SELECT kind, email, detail FROM security_events WHERE kind = 'password_reset.requested' ORDER BY created_at",
    );
    expect(events.map((e) => e.email)).toEqual(expect.arrayContaining([user.email, "nobody.here@example.com"]));
  });

  test("only the token's hash is stored, and the sent mail's body is removed from the outbox; a reset mail is never listed to an organization", async () => {
    const { owner } = await orgWithProject(live.env);
    const { token } = await resetLink(owner.email);
    expect(await rows("SELECT 1 FROM password_resets WHERE token_hash = ?", [sha256Hex(token)])).toHaveLength(1);
    expect(
      await eventually(
        async () =>
          (await rows("SELECT status FROM mail_outbox WHERE to_address = ? AND kind = 'password_reset'", [owner.email]))[0]?.status ===
          "sent",
        5000,
      ),
    ).toBe(true);
    const dump =
      JSON.stringify(await rows("SELECT * FROM mail_outbox")) +
      JSON.stringify(await rows("SELECT * FROM password_resets")) +
      JSON.stringify(await rows("SELECT * FROM security_events"));
    expect(dump).not.toContain(token);
    expect((await owner.get("/web/orgs/current/mail?status=sent")).body.mails.some((m: any) => m.kind === "password_reset")).toBe(false);
  });

  test("using the link sets the password, ends every other session, signs this browser in, records the event; the second use is refused (410)", async () => {
    const user = await signedUp(live.env);
    const other = new WebClient(live.env);
    expect((await other.post("/api/auth/sign-in", { email: user.email, password: "correct horse battery" })).status).toBe(200);
    const { token } = await resetLink(user.email);
    const done = await api("/api/auth/password-reset/confirm", { token, password: "a brand new password" });
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ reset: true, otherSessionsEnded: true, user: { email: user.email } });
    expect(done.headers.get("set-cookie")).toMatch(/^talentd_session=[0-9A-Za-z]+;/);
    // the sessions opened before are gone
    expect((await user.get("/api/auth/session")).status).toBe(401);
    expect((await other.get("/api/auth/session")).status).toBe(401);
    // the old password no longer works, the new one does
    expect((await api("/api/auth/sign-in", { email: user.email, password: "correct horse battery" })).status).toBe(401);
    expect((await api("/api/auth/sign-in", { email: user.email, password: "a brand new password" })).status).toBe(200);
    const again = await api("/api/auth/password-reset/confirm", { token, password: "yet another password" });
    expect(again.status).toBe(410);
    expect(await again.json()).toMatchObject({ error: "reset_link_invalid" });
    const kinds = (await rows("SELECT kind FROM security_events WHERE user_id = ? OR kind = 'password_reset.refused'", [user.userId])).map(
      (r) => r.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(["password_reset.requested", "password_reset.completed", "password_reset.refused"]));
  });

  test("an expired token is refused (410), and using one link kills the user's other outstanding links", async () => {
    const user = await signedUp(live.env);
    const first = await resetLink(user.email, 1);
    const second = await resetLink(user.email, 2);
    await live.env.database.client.execute({
      sql: "UPDATE password_resets SET expires_at = ? WHERE token_hash = ?",
      args: [Date.now() - 1, sha256Hex(first.token)],
    });
    expect((await api("/api/auth/password-reset/confirm", { token: first.token, password: "a brand new password" })).status).toBe(410);
    const third = await resetLink(user.email, 3);
    expect((await api("/api/auth/password-reset/confirm", { token: third.token, password: "a brand new password" })).status).toBe(200);
    expect((await api("/api/auth/password-reset/confirm", { token: second.token, password: "another new password" })).status).toBe(410);
  });

  test("changing the password (signed in) kills a reset link asked for before", async () => {
    const user = await signedUp(live.env);
    const { token } = await resetLink(user.email);
    expect(
      (await user.post("/api/auth/change-password", { currentPassword: "correct horse battery", newPassword: "changed on purpose" }))
        .status,
    ).toBe(200);
    expect((await api("/api/auth/password-reset/confirm", { token, password: "an attacker's password" })).status).toBe(410);
    expect((await api("/api/auth/sign-in", { email: user.email, password: "changed on purpose" })).status).toBe(200);
  });

  test(`at most ${AUTH_LIMITS.resetEmail.limit} reset mails per e-mail in 15 min: further requests get the same answer and no mail`, async () => {
    const user = await signedUp(live.env);
    const answers = new Set<string>();
    for (let i = 0; i < AUTH_LIMITS.resetEmail.limit + 2; i++) {
      const r = await live.env.request("/api/auth/password-reset", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: user.email }),
      });
      expect(r.status).toBe(202);
      answers.add(await r.text());
    }
    expect(answers.size).toBe(1);
    await resetRequestsSettled();
    expect(await rows("SELECT 1 FROM mail_outbox WHERE to_address = ? AND kind = 'password_reset'", [user.email])).toHaveLength(
      AUTH_LIMITS.resetEmail.limit,
    );
  });

  test("equal-time rule: the request path does the same database work — none — for an account and for an unknown e-mail; the token, mail and event follow the answer", async () => {
    const user = await signedUp(live.env);
    const unknownEmail = `nobody.${Date.now()}@example.com`;
    const { config, log } = { config: live.env.config, log: createLogger("error", () => {}) };
    /** Runs one request with a database that records every member the request path touches. */
    const touched = async (email: string) => {
      const used: string[] = [];
      const database = new Proxy(live.env.database, {
        get: (target, key) => (used.push(String(key)), Reflect.get(target, key)),
      }) as Database;
      await requestPasswordReset({ database, config, log, authLimiters: createAuthLimiters() }, email, {
        ip: "192.0.2.7",
        userAgent: "test",
      });
      return [...used];
    };
    const forAccount = await touched(user.email);
    const forUnknown = await touched(unknownEmail);
    expect(forAccount).toEqual(forUnknown);
    expect(forAccount).toEqual([]);
    // nothing of the account's is written when the answer is given; all of it once the work behind it is done
    expect(await rows("SELECT 1 FROM password_resets WHERE user_id = ?", [user.userId])).toHaveLength(0);
    await resetRequestsSettled();
    expect(await rows("SELECT 1 FROM password_resets WHERE user_id = ?", [user.userId])).toHaveLength(1);
    expect(await rows("SELECT 1 FROM mail_outbox WHERE to_address = ? AND kind = 'password_reset'", [user.email])).toHaveLength(1);
    expect(await rows("SELECT 1 FROM mail_outbox WHERE to_address = ?", [unknownEmail])).toHaveLength(0);
    const events = await rows("SELECT email, detail FROM security_events WHERE kind = 'password_reset.requested' AND email IN (?, ?)", [
      user.email,
      unknownEmail,
    ]);
    expect(events.map((e) => [e.email, JSON.parse(e.detail).account]).sort()).toEqual(
      [
        [unknownEmail, false],
        [user.email, true],
      ].sort(),
    );
  });

  test("failure paths: 400 validation_failed (bad e-mail, short password, no token), 410 for an unknown token, 403 csrf_rejected cross-site", async () => {
    const bad = await api("/api/auth/password-reset", { email: "not-an-address" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "validation_failed", issues: [{ path: "email" }] });
    const short = await api("/api/auth/password-reset/confirm", { token: "x".repeat(43), password: "short" });
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ error: "validation_failed", issues: [{ path: "password" }] });
    const none = await api("/api/auth/password-reset/confirm", { password: "long enough password" });
    expect(none.status).toBe(400);
    expect(((await none.json()) as any).issues[0].path).toBe("token");
    expect((await api("/api/auth/password-reset/confirm", { token: "unknown-token", password: "long enough password" })).status).toBe(410);
    for (const path of ["/api/auth/password-reset", "/api/auth/password-reset/confirm"]) {
      const cross = await api(
        path,
        { email: "a@example.com", token: "t", password: "long enough password" },
        { origin: "http://evil.example" },
      );
      expect(cross.status).toBe(403);
      expect(((await cross.json()) as any).error).toBe("csrf_rejected");
    }
  });
});

describe("the /reset-password page (HTML)", () => {
  test("GET /reset-password is the request form; /login links to it", async () => {
    const r = await fetch(`${live.base}/reset-password`);
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain('action="/reset-password"');
    expect(html).toContain('name="email"');
    expect(await (await fetch(`${live.base}/login`)).text()).toContain('href="/reset-password"');
  });
  test("an unknown token shows the problem on the page (410), never JSON", async () => {
    const r = await fetch(`${live.base}/reset-password?token=nope`);
    expect(r.status).toBe(410);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(await r.text()).toContain("invalid, expired or already used");
  });
  test("a short new password is refused on the page (400) with the form kept; a cross-site form post is refused", async () => {
    const user = await signedUp(live.env);
    const { token } = await resetLink(user.email);
    const form = (fields: Record<string, string>, origin = live.base) =>
      fetch(`${live.base}/reset-password/confirm`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin },
        body: new URLSearchParams(fields).toString(),
      });
    const short = await form({ token, password: "short" });
    expect(short.status).toBe(400);
    const html = await short.text();
    expect(html).toContain("at least 10");
    expect(html).toContain(`value="${token}"`);
    const cross = await form({ token, password: "long enough password" }, "http://evil.example");
    expect(cross.status).toBe(403);
    expect(cross.headers.get("content-type")).toContain("text/html");
    // the token survived both
    expect((await form({ token, password: "long enough password" })).status).toBe(200);
  });
});

describe("rate limit (last: it uses up this address's requests)", () => {
  test(`POST /api/auth/password-reset: ${AUTH_LIMITS.resetAddress.limit} requests per address in 15 min, then 429 with Retry-After`, async () => {
    // the address's limit (over the socket, so the server sees the address); the requests above took some of it
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMITS.resetAddress.limit + 1; i++)
      statuses.push((await api("/api/auth/password-reset", { email: `flood${i}@example.com` })).status);
    expect(statuses).toContain(429);
    const r = await api("/api/auth/password-reset", { email: "one.more@example.com" });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
