/**
 * Mail delivery through the outbox (docs/operations.md "Mail") against a real SMTP server
 * (`smtp-server` on a local port, what arrived read with `mailparser`): the invitation
 * arrives with its link; with the server down the mail waits (pending, attempts recorded) and
 * arrives once the server is back; a 5xx refusal or too many failures end in `failed`, listed
 * for the organization's admins (never for a member) with a retry; a claim left by a dead
 * process is taken again after its lease; without SMTP_URL the mail goes to the log.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MailDelivery, POLL_MS } from "../../src/mail/delivery";
import { retryDelay } from "../../src/mail/outbox";
import { createLogger } from "../../src/lib/log";
import { joinedMember, orgWithProject, signedUp, testEnv, type TestEnv } from "../helpers";
import { eventually } from "../proc";
import { linkIn, TestSmtp } from "../mail-support";

const envs: TestEnv[] = [];
const deliveries: MailDelivery[] = [];
const smtps: TestSmtp[] = [];
afterEach(async () => {
  for (const d of deliveries.splice(0)) await d.stop();
  for (const s of smtps.splice(0)) await s.stop();
  // each test's database closed after it: on PostgreSQL each holds a pool of connections, and the test cluster takes 50
  for (const e of envs.splice(0)) e.close();
});

async function setup(opts: { listening?: boolean; env?: Record<string, string> } = {}) {
  const smtp = await TestSmtp.create({ listening: opts.listening });
  smtps.push(smtp);
  const env = await testEnv({ SMTP_URL: smtp.url, MAIL_RETRY_BASE: "1s", ...opts.env });
  envs.push(env);
  const delivery = new MailDelivery({ database: env.database, config: env.config, log: createLogger("debug", (l) => env.logs.push(l)) });
  deliveries.push(delivery);
  delivery.start();
  return { smtp, env, delivery };
}

const outbox = async (env: TestEnv, to: string) =>
  (await env.database.client.execute({ sql: "SELECT * FROM mail_outbox WHERE to_address = ? ORDER BY created_at", args: [to] }))
    .rows as unknown as Record<string, any>[];

describe("mail delivery over SMTP (smtp-server + mailparser)", () => {
  test("an invitation arrives with the full accept link from BASE_URL, text and HTML, sent once and marked sent", async () => {
    const { smtp, env } = await setup();
    const { owner, org } = await orgWithProject(env, "Mail Org");
    const queuedAt = Date.now();
    const inv = (await owner.post("/web/orgs/current/invitations", { email: "new.person@example.com", role: "admin" })).body;
    const [mail] = await smtp.waitFor("new.person@example.com");
    // the loop was woken by the queued mail, not by its once-a-minute look at the table
    expect(Date.now() - queuedAt).toBeLessThan(10_000);
    expect(mail!.subject).toBe("Join Mail Org on talentd");
    expect(mail!.from?.text).toBe(`talentd@localhost`);
    const link = linkIn(mail!, "http://localhost:8787/");
    expect(link).toBe(`http://localhost:8787/accept-invitation/${inv.id}`);
    expect(mail!.text).toContain(`${owner.email} invites you`);
    expect(mail!.text).toContain("as admin");
    expect(mail!.html || "").toContain(`href="${link}"`);
    expect(mail!.messageId).toMatch(/^<mail_[0-9A-Za-z]+@localhost>$/);
    expect(await eventually(async () => (await outbox(env, "new.person@example.com"))[0]?.status === "sent", 5000)).toBe(true);
    const [row] = await outbox(env, "new.person@example.com");
    expect(row!.attempts).toBe(1);
    expect(row!.organization_id).toBe(org.id);
    expect(row!.kind).toBe("invitation");
    expect(mail!.messageId).toBe(`<${row!.id}@localhost>`);
    await Bun.sleep(300);
    expect(smtp.to("new.person@example.com")).toHaveLength(1);
  }, 30_000);

  test("SMTP server down: the mail waits as pending with its attempts and last error, then arrives once the server is back", async () => {
    const { smtp, env } = await setup({ listening: false });
    const { owner } = await orgWithProject(env);
    await owner.post("/web/orgs/current/invitations", { email: "waiting@example.com" });
    // an attempt counts when it is claimed ("sending"); the refused one leaves the mail pending
    const waiting = async () => {
      const [r] = await outbox(env, "waiting@example.com");
      return Number(r?.attempts) >= 1 && r?.status !== "sending";
    };
    expect(await eventually(waiting, 10_000)).toBe(true);
    const [row] = await outbox(env, "waiting@example.com");
    expect(row!.status).toBe("pending");
    expect(String(row!.error)).toMatch(/ECONNREFUSED|ECONNECTION|connect/i);
    expect(Number(row!.next_attempt_at)).toBeGreaterThan(Date.now() - 1000);
    // the admins see it waiting
    const listed = (await owner.get("/web/orgs/current/mail")).body;
    expect(listed.mails).toHaveLength(1);
    expect(listed.mails[0]).toMatchObject({ to: "waiting@example.com", status: "pending", kind: "invitation" });
    expect(listed.mails[0].lastError).toBeTruthy();
    expect(listed.mails[0].attempts).toBeGreaterThanOrEqual(1);
    await smtp.start();
    await smtp.waitFor("waiting@example.com", 1, 20_000);
    expect(await eventually(async () => (await outbox(env, "waiting@example.com"))[0]?.status === "sent", 5000)).toBe(true);
    await Bun.sleep(300);
    expect(smtp.to("waiting@example.com")).toHaveLength(1);
    expect((await owner.get("/web/orgs/current/mail")).body.mails).toHaveLength(0);
  }, 40_000);

  test("a 5xx refusal is permanent: failed at once, listed for the owner and admins (not a member: 403 forbidden), and a retry sends it", async () => {
    const { smtp, env } = await setup();
    const { owner } = await orgWithProject(env);
    const member = await joinedMember(env, owner);
    const admin = await joinedMember(env, owner);
    const adminId = (await admin.get("/api/auth/session")).body.user.id;
    expect((await owner.patch(`/web/orgs/current/members/${adminId}`, { role: "admin" })).status).toBe(200);
    await smtp.waitFor(member.email, 2); // the sign-up's verification mail, then the invitation
    await smtp.waitFor(admin.email, 2);
    smtp.mode = "reject";
    await owner.post("/web/orgs/current/invitations", { email: "refused@example.com" });
    expect(await eventually(async () => (await outbox(env, "refused@example.com"))[0]?.status === "failed", 10_000)).toBe(true);
    const [row] = await outbox(env, "refused@example.com");
    expect(row!.attempts).toBe(1);
    expect(String(row!.error)).toContain("550");
    for (const who of [owner, admin]) {
      const r = await who.get("/web/orgs/current/mail");
      expect(r.status).toBe(200);
      const m = r.body.mails.find((x: any) => x.to === "refused@example.com");
      expect(m).toMatchObject({ status: "failed", attempts: 1, kind: "invitation", subject: expect.stringContaining("Join") });
      expect(m.lastError).toContain("550");
      expect(JSON.stringify(r.body)).not.toContain("accept-invitation"); // no bodies
    }
    const forMember = await member.get("/web/orgs/current/mail");
    expect(forMember.status).toBe(403);
    expect(forMember.body.error).toBe("forbidden");
    expect((await member.post(`/web/orgs/current/mail/${row!.id}/retry`)).status).toBe(403);
    // failed only (the members' own invitations were delivered before the server turned to refusing)
    expect((await owner.get("/web/orgs/current/mail?status=failed")).body.mails.map((m: any) => m.to)).toEqual(["refused@example.com"]);
    smtp.mode = "accept";
    const retried = await owner.post(`/web/orgs/current/mail/${row!.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.mail).toMatchObject({ id: row!.id, status: "pending", attempts: 0 });
    await smtp.waitFor("refused@example.com");
    expect(await eventually(async () => (await outbox(env, "refused@example.com"))[0]?.status === "sent", 5000)).toBe(true);
    // a sent mail cannot be retried: 409
    const again = await owner.post(`/web/orgs/current/mail/${row!.id}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("invalid_transition");
  }, 40_000);

  test("a mail that keeps failing (server down) ends failed after MAIL_MAX_ATTEMPTS, with backoff between attempts", async () => {
    const { env } = await setup({ listening: false, env: { MAIL_MAX_ATTEMPTS: "2", METRICS_TOKEN: "metrics-token-0123456789" } });
    const { owner } = await orgWithProject(env);
    const started = Date.now();
    await owner.post("/web/orgs/current/invitations", { email: "never@example.com" });
    expect(await eventually(async () => (await outbox(env, "never@example.com"))[0]?.status === "failed", 15_000)).toBe(true);
    const [row] = await outbox(env, "never@example.com");
    expect(row!.attempts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // the second attempt waited MAIL_RETRY_BASE
    expect((await owner.get("/web/orgs/current/mail")).body.mails[0]).toMatchObject({ status: "failed", attempts: 2 });
    const metrics = await (await env.request("/metrics", { headers: { authorization: "Bearer metrics-token-0123456789" } })).text();
    expect(metrics).toContain('talentd_mail_outbox{status="failed"} 2'); // the invitation, and the owner's own verification mail
    expect(metrics).toContain('talentd_mail_outbox{status="pending"} 0');
  }, 30_000);

  test("a claim left by a process that died mid-send is taken again after its lease and sent once; a live claim is left alone", async () => {
    const smtp = await TestSmtp.create();
    smtps.push(smtp);
    const env = await testEnv({ SMTP_URL: smtp.url });
    envs.push(env);
    const { owner, org } = await orgWithProject(env);
    const now = Date.now();
    const insert = (id: string, to: string, claimedAt: number) =>
      env.database.client.execute({
        sql: "INSERT INTO mail_outbox (id, organization_id, kind, to_address, subject, body, status, attempts, next_attempt_at, claimed_at, created_at) VALUES (?, ?, 'invitation', ?, 'Stuck', 'stuck body', 'sending', 1, ?, ?, ?)",
        args: [id, org.id, to, now, claimedAt, now],
      });
    await insert("mail_stale", "stale@example.com", now - 5000);
    await insert("mail_live", "live@example.com", now);
    const delivery = new MailDelivery({ database: env.database, config: env.config, log: createLogger("error", () => {}), leaseMs: 2000 });
    deliveries.push(delivery);
    delivery.start();
    await smtp.waitFor("stale@example.com");
    expect(smtp.to("live@example.com")).toHaveLength(0); // its lease (2 s) still runs
    await smtp.waitFor("live@example.com", 1, 10_000); // …then it is taken again too
    await Bun.sleep(300);
    expect(smtp.to("stale@example.com")).toHaveLength(1);
    expect(smtp.to("live@example.com")).toHaveLength(1);
    const rows = (
      await env.database.client.execute("SELECT id, status, attempts FROM mail_outbox WHERE id IN ('mail_stale', 'mail_live') ORDER BY id")
    ).rows;
    expect(rows.map((r) => [r.id, r.status, r.attempts])).toEqual([
      ["mail_live", "sent", 2],
      ["mail_stale", "sent", 2],
    ]);
    void owner;
  }, 30_000);

  test("a graceful stop waits for the mail in flight, which is marked sent, not sent again by the next start", async () => {
    const { smtp, env, delivery } = await setup();
    const { owner } = await orgWithProject(env);
    await owner.post("/web/orgs/current/invitations", { email: "inflight@example.com" });
    await delivery.stop(); // right after queueing: either sent and marked, or never claimed
    const [row] = await outbox(env, "inflight@example.com");
    expect(["sent", "pending"]).toContain(row!.status as string);
    const next = new MailDelivery({ database: env.database, config: env.config, log: createLogger("error", () => {}) });
    deliveries.push(next);
    next.start();
    await smtp.waitFor("inflight@example.com");
    await Bun.sleep(500);
    expect(smtp.to("inflight@example.com")).toHaveLength(1);
    expect((await outbox(env, "inflight@example.com"))[0]!.status).toBe("sent");
  }, 30_000);
});

describe("backoff", () => {
  test("the wait after the n-th failure doubles from MAIL_RETRY_BASE and stops at one hour; the loop polls every minute", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, 30_000) / 1000)).toEqual([30, 60, 120, 240, 480, 960, 1920]);
    expect(retryDelay(8, 30_000)).toBe(3_600_000);
    expect(retryDelay(40, 30_000)).toBe(3_600_000);
    expect(POLL_MS).toBe(60_000);
  });
});

describe("without SMTP_URL", () => {
  test("the invitation goes to the log with its link and the outbox row is `logged`, never listed as waiting", async () => {
    const env = await testEnv();
    envs.push(env);
    const { owner } = await orgWithProject(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: "offline@example.com" })).body;
    const [row] = await outbox(env, "offline@example.com");
    expect(row!.status).toBe("logged");
    expect(String(row!.body)).toContain(`http://localhost:8787/accept-invitation/${inv.id}`);
    expect(env.logs.some((l) => l.includes("no SMTP_URL") && l.includes(`/accept-invitation/${inv.id}`))).toBe(true);
    const listed = (await owner.get("/web/orgs/current/mail")).body;
    expect(listed).toEqual({ mails: [], smtp: false });
    expect((await owner.post(`/web/orgs/current/mail/${row!.id}/retry`)).status).toBe(409);
  });
  test("GET /web/orgs/current/mail failure paths: 401 signed out, 400 validation_failed on a bad status, 403 without an organization", async () => {
    const env = await testEnv();
    envs.push(env);
    const anon = await env.request("/web/orgs/current/mail");
    expect(anon.status).toBe(401);
    const { owner } = await orgWithProject(env);
    const bad = await owner.get("/web/orgs/current/mail?status=lost");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_failed");
    expect(bad.body.issues[0].path).toBe("status");
    const lonely = await signedUp(env);
    expect((await lonely.get("/web/orgs/current/mail")).status).toBe(403);
    expect((await owner.post("/web/orgs/current/mail/mail_nope/retry")).status).toBe(404);
    expect((await env.request("/web/orgs/current/mail/mail_nope/retry", { method: "POST" })).status).toBe(401);
    // the page: signed out → /login; without an organization → the error page; a member → the 404 page (mail.browser.test.ts)
    const signedOut = await env.request("/org/mail", { headers: { accept: "text/html" } });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe("/login?next=%2Forg%2Fmail");
    const noOrg = await lonely.call("GET", "/org/mail", undefined, { accept: "text/html" });
    expect(noOrg.status).toBe(403);
    expect(noOrg.headers.get("content-type")).toContain("text/html");
    const ownPage = await owner.call("GET", "/org/mail", undefined, { accept: "text/html" });
    expect(ownPage.status).toBe(200);
    const own = await ownPage.text();
    expect(own).toContain("No SMTP server is configured");
    // one coherent thing: without SMTP nothing was delivered, so the page never says every mail was
    expect(own).not.toContain("was delivered");
    // CSRF: a cross-site POST with the owner's cookie is refused
    const cross = await owner.call("POST", "/web/orgs/current/mail/mail_nope/retry", undefined, { origin: "http://evil.example" });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as any).error).toBe("csrf_rejected");
  });
});
