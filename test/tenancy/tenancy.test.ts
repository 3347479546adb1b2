import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { APPROVAL_MOVES, APPROVAL_OPERATIONS } from "../../src/tenancy/service";
import { ORG_STATUSES } from "../../src/db/schema";
import { makePlatformAdmin, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
let admin: Awaited<ReturnType<typeof signedUp>>;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedUp(env);
  await makePlatformAdmin(env, admin.userId);
});
afterAll(() => env.close());

describe("organizations and approval (spec: Organization approval, C rule 1)", () => {
  test("a new organization is pending: its creator is owner, only GET /web/orgs/current/status answers", async () => {
    const c = await signedUp(env);
    const r = await c.post("/web/orgs", { name: "Acme Widgets" });
    expect(r.status).toBe(201);
    expect(r.body.organization).toMatchObject({ slug: "acme-widgets", status: "pending", role: "owner" });
    const status = await c.get("/web/orgs/current/status");
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ organization: { status: "pending" }, role: "owner", approved: false });
    for (const [method, path] of [
      ["GET", "/web/projects"],
      ["POST", "/web/projects"],
      ["GET", "/web/orgs/current/members"],
      ["GET", "/web/orgs/current/invitations"],
    ] as const) {
      const x = await c.json(method, path, method === "POST" ? { name: "p" } : undefined);
      expect(`${method} ${path} → ${x.status} ${x.body.error}`).toBe(`${method} ${path} → 403 organization_not_approved`);
    }
  });

  test("AUTO_APPROVE_ORGS=true approves new organizations", async () => {
    const e2 = await testEnv({ AUTO_APPROVE_ORGS: "true" });
    try {
      const c = await signedUp(e2);
      expect((await c.post("/web/orgs", { name: "Auto" })).body.organization.status).toBe("approved");
    } finally {
      e2.close();
    }
  });

  test("an organization created by a platform admin is approved", async () => {
    expect((await admin.post("/web/orgs", { name: "Admin Org" })).body.organization.status).toBe("approved");
  });

  test("mass assignment: status or role in the creation body change nothing", async () => {
    const c = await signedUp(env);
    const r = await c.post("/web/orgs", { name: "Sneaky", status: "approved", approval: "approved", role: "admin" });
    expect(r.body.organization.status).toBe("pending");
  });

  test("a taken slug → 409 conflict; a bad slug → 400", async () => {
    const c = await signedUp(env);
    await c.post("/web/orgs", { name: "Dup", slug: "dup-slug" });
    expect((await c.post("/web/orgs", { name: "Dup 2", slug: "dup-slug" })).status).toBe(409);
    expect((await c.post("/web/orgs", { name: "Bad", slug: "Bad Slug!" })).status).toBe(400);
    expect((await c.post("/web/orgs", { name: "" })).status).toBe(400);
    expect((await c.post("/web/orgs", { name: "Dup 3", slug: "dup-slug" })).body.error).toBe("conflict");
    for (const body of [{ name: "Bad", slug: "Bad Slug!" }, { name: "" }])
      expect((await c.post("/web/orgs", body)).body.error).toBe("validation_failed");
  });

  test("a user belongs to several organizations and switches without signing in again", async () => {
    const c = await signedUp(env);
    const a = (await c.post("/web/orgs", { name: "First" })).body.organization;
    const b = (await c.post("/web/orgs", { name: "Second" })).body.organization;
    expect((await c.get("/web/orgs/current/status")).body.organization.id).toBe(b.id);
    const sw = await c.post("/web/orgs/active", { organizationId: a.id });
    expect(sw.status).toBe(200);
    expect((await c.get("/web/orgs/current/status")).body.organization.id).toBe(a.id);
    expect((await c.get("/web/orgs")).body.organizations.map((o: { id: string }) => o.id).sort()).toEqual([a.id, b.id].sort());
    const other = await signedUp(env);
    const foreign = (await other.post("/web/orgs", { name: "Foreign" })).body.organization;
    expect((await c.post("/web/orgs/active", { organizationId: foreign.id })).status).toBe(404);
  });

  test("no active organization → 403 no_active_organization on business routes", async () => {
    const c = await signedUp(env);
    const r = await c.get("/web/projects");
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("no_active_organization");
  });
});

describe("platform admin: the approval state machine", () => {
  const expected = (op: (typeof APPROVAL_OPERATIONS)[number], from: string) =>
    APPROVAL_MOVES[op][from as keyof (typeof APPROVAL_MOVES)[typeof op]];
  for (const from of ORG_STATUSES) {
    for (const op of APPROVAL_OPERATIONS) {
      const to = expected(op, from);
      test(`${op} from ${from} → ${to ? `200 ${to}` : "409 invalid_transition"}`, async () => {
        const c = await signedUp(env);
        const org = (await c.post("/web/orgs", { name: `SM ${from} ${op}` })).body.organization;
        await env.database.client.execute({ sql: "UPDATE organizations SET status = ? WHERE id = ?", args: [from, org.id] });
        const r = await admin.post(`/web/admin/organizations/${org.id}/${op}`);
        if (to) {
          expect(r.status).toBe(200);
          expect(r.body.organization.status).toBe(to);
        } else {
          expect(r.status).toBe(409);
          expect(r.body).toMatchObject({ error: "invalid_transition", status: from, operation: op });
        }
      });
    }
  }
  test("the documented table: pending→approved|rejected, approved→suspended, suspended→approved, rejected→approved", () => {
    expect(APPROVAL_MOVES).toEqual({
      approve: { pending: "approved", rejected: "approved" },
      reject: { pending: "rejected" },
      suspend: { approved: "suspended" },
      reactivate: { suspended: "approved" },
    });
  });
  test("unknown operation or organization → 404", async () => {
    expect((await admin.post("/web/admin/organizations/org_nope/approve")).status).toBe(404);
    const c = await signedUp(env);
    const org = (await c.post("/web/orgs", { name: "Op" })).body.organization;
    expect((await admin.post(`/web/admin/organizations/${org.id}/destroy`)).status).toBe(404);
  });
  test("approval opens the business routes; suspension closes them again", async () => {
    const c = await signedUp(env);
    const org = (await c.post("/web/orgs", { name: "Lifecycle" })).body.organization;
    expect((await c.get("/web/projects")).status).toBe(403);
    await admin.post(`/web/admin/organizations/${org.id}/approve`);
    expect((await c.get("/web/projects")).status).toBe(200);
    await admin.post(`/web/admin/organizations/${org.id}/suspend`);
    expect((await c.get("/web/projects")).body.error).toBe("organization_not_approved");
  });
  test("admin lists: organizations, users, security events; non-admins → 403 on each", async () => {
    const c = await signedUp(env);
    await c.post("/web/orgs", { name: "Plain" });
    for (const path of ["/web/admin/organizations", "/web/admin/users", "/web/admin/security-events"]) {
      const ok = await admin.get(path);
      expect(ok.status).toBe(200);
      const no = await c.get(path);
      expect(`${path} ${no.status} ${no.body.error}`).toBe(`${path} 403 forbidden`);
    }
    const orgs = (await admin.get("/web/admin/organizations")).body.organizations;
    expect(orgs[0]).toHaveProperty("members");
    const evs = (await admin.get("/web/admin/security-events?limit=2")).body;
    expect(evs.events).toHaveLength(2);
    expect(evs.nextBefore).toBeNumber();
    const users = (await admin.get("/web/admin/users")).body.users;
    expect(users[0]).not.toHaveProperty("passwordHash");
  });
  test("security-events paging never skips events that share a millisecond across a page boundary", async () => {
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const t = 1_000_000_000_000; // far older than any real event: these come last
    for (const [i, at] of [t + 5, t + 5, t + 5, t + 5, t + 5, t + 1, t].entries()) {
      await env.database.client.execute({
        sql: "INSERT INTO security_events (id, kind, created_at) VALUES (?, 'test.paging', ?)",
        args: [`sev_paging_${i}`, at],
      });
    }
    const seen: string[] = [];
    let before: number | null = t + 6;
    while (before !== null) {
      const page: { events: { id: string }[]; nextBefore: number | null } = (
        await admin.get(`/web/admin/security-events?limit=2&before=${before}`)
      ).body;
      seen.push(...page.events.map((e: { id: string }) => e.id));
      before = page.nextBefore;
    }
    expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `sev_paging_${i}`));
  });

  test("admin routes stay open to a platform admin whose own active organization is pending", async () => {
    const a2 = await signedUp(env);
    await a2.post("/web/orgs", { name: "Pending Admin Org" }); // pending: created before promotion
    await makePlatformAdmin(env, a2.userId);
    expect((await a2.get("/web/admin/organizations")).status).toBe(200);
  });
});

describe("members and invitations", () => {
  async function approvedOrg() {
    const owner = await signedUp(env);
    const org = (await owner.post("/web/orgs", { name: `Team ${Math.random()}` })).body.organization;
    await admin.post(`/web/admin/organizations/${org.id}/approve`);
    return { owner, org };
  }

  test("invite → link /accept-invitation/:id and a mail in the outbox; the invitee accepts and becomes a member", async () => {
    const { owner, org } = await approvedOrg();
    const invitee = await signedUp(env);
    const inv = await owner.post("/web/orgs/current/invitations", { email: invitee.email, role: "admin" });
    expect(inv.status).toBe(201);
    expect(inv.body.link).toBe(`http://localhost:8787/accept-invitation/${inv.body.id}`);
    const mail = (
      await env.database.client.execute({
        sql: "SELECT body FROM mail_outbox WHERE to_address = ? AND kind = 'invitation' ORDER BY created_at",
        args: [invitee.email],
      })
    ).rows[0]!;
    expect(String(mail.body)).toContain(inv.body.link);
    const stranger = await signedUp(env);
    expect((await stranger.post(`/web/invitations/${inv.body.id}/accept`)).status).toBe(403);
    const acc = await invitee.post(`/web/invitations/${inv.body.id}/accept`);
    expect(acc.status).toBe(200);
    expect(acc.body.organization).toMatchObject({ id: org.id, role: "admin" });
    expect((await invitee.post(`/web/invitations/${inv.body.id}/accept`)).status).toBe(409);
    const members = (await owner.get("/web/orgs/current/members")).body.members;
    expect(members.map((m: { email: string }) => m.email)).toContain(invitee.email);
  });

  test("an expired invitation → 410 invitation_expired; a revoked one → 404", async () => {
    const { owner } = await approvedOrg();
    const invitee = await signedUp(env);
    const a = (await owner.post("/web/orgs/current/invitations", { email: invitee.email })).body;
    await env.database.client.execute({ sql: "UPDATE invitations SET expires_at = 1 WHERE id = ?", args: [a.id] });
    expect((await invitee.post(`/web/invitations/${a.id}/accept`)).status).toBe(410);
    expect((await invitee.post(`/web/invitations/${a.id}/accept`)).body.error).toBe("invitation_expired");
    const b = (await owner.post("/web/orgs/current/invitations", { email: invitee.email })).body;
    expect((await owner.del(`/web/orgs/current/invitations/${b.id}`)).status).toBe(200);
    expect((await invitee.post(`/web/invitations/${b.id}/accept`)).status).toBe(404);
  });

  test("inviting an address again replaces its pending invitation: one pending row, the first link 404, the latest role counts, the audit log has both", async () => {
    const { owner, org } = await approvedOrg();
    const invitee = await signedUp(env);
    const first = (await owner.post("/web/orgs/current/invitations", { email: invitee.email, role: "member" })).body;
    const again = await owner.post("/web/orgs/current/invitations", { email: invitee.email.toUpperCase(), role: "admin" });
    expect(again.status).toBe(201);
    const pending = (await owner.get("/web/orgs/current/invitations")).body.invitations.filter(
      (i: { email: string }) => i.email.toLowerCase() === invitee.email.toLowerCase(),
    );
    expect(pending.map((i: { id: string }) => i.id)).toEqual([again.body.id]);
    expect((await invitee.post(`/web/invitations/${first.id}/accept`)).status).toBe(404);
    const acc = await invitee.post(`/web/invitations/${again.body.id}/accept`);
    expect(acc.body.organization).toMatchObject({ id: org.id, role: "admin" });
    const actions = (
      await env.database.client.execute({
        sql: "SELECT action, object_id FROM audit_entries WHERE organization_id = ? AND object_kind = 'invitation' ORDER BY at, id",
        args: [org.id],
      })
    ).rows.map((r) => `${r.action} ${r.object_id}`);
    expect(actions).toEqual([
      `invitation.created ${first.id}`,
      `invitation.revoked ${first.id}`,
      `invitation.created ${again.body.id}`,
      `invitation.accepted ${again.body.id}`,
    ]);
  });

  test("a plain member cannot invite (403); an admin cannot invite an owner (403); a bad e-mail → 400", async () => {
    const { owner } = await approvedOrg();
    const m = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: m.email, role: "member" })).body;
    await m.post(`/web/invitations/${inv.id}/accept`);
    expect((await m.post("/web/orgs/current/invitations", { email: "x@example.com" })).status).toBe(403);
    expect((await m.post("/web/orgs/current/invitations", { email: "x@example.com" })).body.error).toBe("forbidden");
    await owner.patch(`/web/orgs/current/members/${m.userId}`, { role: "admin" });
    expect((await m.post("/web/orgs/current/invitations", { email: "y@example.com", role: "owner" })).status).toBe(403);
    expect((await m.post("/web/orgs/current/invitations", { email: "y@example.com", role: "owner" })).body.error).toBe("forbidden");
    expect((await m.post("/web/orgs/current/invitations", { email: "not-an-email" })).status).toBe(400);
    expect((await m.post("/web/orgs/current/invitations", { email: "not-an-email" })).body.error).toBe("validation_failed");
  });

  test("the last owner cannot be demoted or removed (409 last_owner); with two owners one can go", async () => {
    const { owner } = await approvedOrg();
    const demote = await owner.patch(`/web/orgs/current/members/${owner.userId}`, { role: "member" });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toBe("last_owner");
    expect((await owner.del(`/web/orgs/current/members/${owner.userId}`)).body.error).toBe("last_owner");
    const second = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: second.email, role: "owner" })).body;
    await second.post(`/web/invitations/${inv.id}/accept`);
    expect((await owner.patch(`/web/orgs/current/members/${owner.userId}`, { role: "member" })).status).toBe(200);
  });

  test("a bad role → 400; an unknown member → 404", async () => {
    const { owner } = await approvedOrg();
    expect((await owner.patch(`/web/orgs/current/members/${owner.userId}`, { role: "emperor" })).status).toBe(400);
    expect((await owner.patch("/web/orgs/current/members/usr_nobody", { role: "member" })).status).toBe(404);
  });

  test("POST /web/orgs/current/invitations/:id/resend: the same link, valid 7 more days (an expired one too), the mail queued again; then the invitee can accept", async () => {
    const { owner } = await approvedOrg();
    const invitee = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: invitee.email, role: "admin" })).body;
    await env.database.client.execute({ sql: "UPDATE invitations SET expires_at = 1 WHERE id = ?", args: [inv.id] });
    const before = Date.now();
    const r = await owner.post(`/web/orgs/current/invitations/${inv.id}/resend`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: inv.id, link: inv.link, email: invitee.email, role: "admin" });
    expect(Date.parse(r.body.expiresAt)).toBeGreaterThanOrEqual(before + 7 * 24 * 3600 * 1000);
    const mails = (
      await env.database.client.execute({
        sql: "SELECT body FROM mail_outbox WHERE to_address = ? AND kind = 'invitation' ORDER BY created_at",
        args: [invitee.email],
      })
    ).rows;
    expect(mails).toHaveLength(2);
    expect(String(mails[1]!.body)).toContain(inv.link);
    expect((await invitee.post(`/web/invitations/${inv.id}/accept`)).status).toBe(200);
  });

  test("resend refuses: a member (403 forbidden), signed out (401), an unknown, accepted or revoked invitation (404), a pending organization (403 organization_not_approved)", async () => {
    const { owner } = await approvedOrg();
    const m = await signedUp(env);
    const accepted = (await owner.post("/web/orgs/current/invitations", { email: m.email })).body;
    await m.post(`/web/invitations/${accepted.id}/accept`);
    const pending = (await owner.post("/web/orgs/current/invitations", { email: `p-${Date.now()}@example.com` })).body;
    const member = await m.post(`/web/orgs/current/invitations/${pending.id}/resend`);
    expect(`${member.status} ${member.body.error}`).toBe("403 forbidden");
    expect((await new WebClient(env).post(`/web/orgs/current/invitations/${pending.id}/resend`)).status).toBe(401);
    for (const id of ["inv_nope", accepted.id]) {
      const r = await owner.post(`/web/orgs/current/invitations/${id}/resend`);
      expect(`${id} ${r.status} ${r.body.error}`).toBe(`${id} 404 not_found`);
    }
    await owner.del(`/web/orgs/current/invitations/${pending.id}`);
    expect((await owner.post(`/web/orgs/current/invitations/${pending.id}/resend`)).status).toBe(404);
    const waiting = await signedUp(env);
    await waiting.post("/web/orgs", { name: `Waiting ${Math.random()}` });
    const refused = await waiting.post(`/web/orgs/current/invitations/${pending.id}/resend`);
    expect(`${refused.status} ${refused.body.error}`).toBe("403 organization_not_approved");
  });

  test("removing a member is immediate for their session", async () => {
    const { owner, org } = await approvedOrg();
    const m = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: m.email })).body;
    await m.post(`/web/invitations/${inv.id}/accept`);
    expect((await m.get("/web/projects")).status).toBe(200);
    expect((await owner.del(`/web/orgs/current/members/${m.userId}`)).status).toBe(200);
    const after = await m.get("/web/projects");
    expect(after.status).toBe(403);
    expect(after.body.error).toBe("no_active_organization");
    expect((await m.get("/web/orgs/current/status")).body.organization).toBeNull();
    expect(org.id).toBeTruthy();
  });
});
