import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithProject, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ORIGIN = "http://localhost:8787";
const form = (fields: Record<string, string>, cookie?: string) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...(cookie ? { cookie } : {}) },
  body: new URLSearchParams(fields).toString(),
});

describe("/accept-invitation/:id, the page an invitation mail links to", () => {
  test("a new person creates the account with the invited address and joins in one step; the invitation does not verify the address (the verification mail does)", async () => {
    const { owner, org } = await orgWithProject(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: "newcomer@example.com", role: "admin" })).body;
    const pageRes = await env.request(`/accept-invitation/${inv.id}`);
    expect(pageRes.status).toBe(200);
    const html = await pageRes.text();
    expect(html).toContain(org.name);
    expect(html).toContain("Create account and join");
    expect(pageRes.headers.get("x-frame-options")).toBe("DENY");
    const r = await env.request(
      `/accept-invitation/${inv.id}/sign-up`,
      form({ email: "newcomer@example.com", password: "a good password" }),
    );
    expect(r.status).toBe(200);
    const welcome = await r.text();
    expect(welcome).toContain(`Welcome to ${org.name}`);
    expect(welcome).toContain("To verify newcomer@example.com, open the link we mailed to it.");
    const c = new WebClient(env);
    c.cookie = /talentd_session=[^;]+/.exec(r.headers.get("set-cookie")!)![0];
    expect((await c.get("/web/orgs/current/status")).body).toMatchObject({ organization: { id: org.id }, role: "admin" });
    expect((await env.request(`/accept-invitation/${inv.id}`)).status).toBe(409); // already accepted
    const me = (await c.get("/api/auth/session")).body.user.id;
    const verified = await env.database.client.execute({ sql: "SELECT email_verified_at AS v FROM users WHERE id = ?", args: [me] });
    expect(verified.rows[0]!.v).toBeNull();
    const mail = await env.database.client.execute({
      sql: "SELECT count(*) AS n FROM mail_outbox WHERE to_address = 'newcomer@example.com' AND kind = 'email_verification'",
      args: [],
    });
    expect(Number(mail.rows[0]!.n)).toBe(1);
  });

  test("signed in as the invitee: an Accept button that joins (the address stays unverified); another address or a short password is refused", async () => {
    const { owner, org } = await orgWithProject(env);
    const invitee = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: invitee.email })).body;
    expect(await (await env.request(`/accept-invitation/${inv.id}`, { headers: { cookie: invitee.cookie! } })).text()).toContain(
      "Accept and join",
    );
    const stranger = await signedUp(env);
    expect(await (await env.request(`/accept-invitation/${inv.id}`, { headers: { cookie: stranger.cookie! } })).text()).toContain(
      "but this invitation is for",
    );
    expect((await env.request(`/accept-invitation/${inv.id}`, form({}, stranger.cookie!))).status).toBe(403);
    expect(
      (await env.request(`/accept-invitation/${inv.id}/sign-up`, form({ email: "other@example.com", password: "a good password" }))).status,
    ).toBe(403);
    expect((await env.request(`/accept-invitation/${inv.id}/sign-up`, form({ email: invitee.email, password: "short" }))).status).toBe(400);
    expect(
      (await env.request(`/accept-invitation/${inv.id}/sign-up`, form({ email: invitee.email, password: "a good password" }))).status,
    ).toBe(409); // account exists
    const foreign = await env.request(`/accept-invitation/${inv.id}`, {
      ...form({}, invitee.cookie!),
      headers: { ...form({}, invitee.cookie!).headers, origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    const ok = await env.request(`/accept-invitation/${inv.id}`, form({}, invitee.cookie!));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain(`Welcome to ${org.name}`);
    expect((await invitee.get("/web/orgs/current/status")).body.organization.id).toBe(org.id);
    // accepting signed in leaves an unverified address unverified: the inviter holds the same link
    const verified = await env.database.client.execute({
      sql: "SELECT email_verified_at AS v FROM users WHERE id = ?",
      args: [invitee.userId],
    });
    expect(verified.rows[0]!.v).toBeNull();
  });

  test("without a session, accepting sends the person to /login and back", async () => {
    const { owner } = await orgWithProject(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: "someone@example.com" })).body;
    const r = await env.request(`/accept-invitation/${inv.id}`, form({}));
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`/login?next=${encodeURIComponent(`/accept-invitation/${inv.id}`)}`);
  });

  test("unknown, withdrawn or expired invitations get a page saying so (404, 404, 410)", async () => {
    const { owner } = await orgWithProject(env);
    expect((await env.request("/accept-invitation/inv_nope")).status).toBe(404);
    const a = (await owner.post("/web/orgs/current/invitations", { email: "gone@example.com" })).body;
    await owner.del(`/web/orgs/current/invitations/${a.id}`);
    expect((await env.request(`/accept-invitation/${a.id}`)).status).toBe(404);
    const b = (await owner.post("/web/orgs/current/invitations", { email: "late@example.com" })).body;
    await env.database.client.execute({ sql: "UPDATE invitations SET expires_at = 1 WHERE id = ?", args: [b.id] });
    expect((await env.request(`/accept-invitation/${b.id}`)).status).toBe(410);
    expect((await env.request(`/accept-invitation/${b.id}/sign-up`, form({ password: "a good password" }))).status).toBe(410);
  });
});
