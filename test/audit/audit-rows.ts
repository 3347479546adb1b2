/** The table of audited changes (test/audit/audit.test.ts): each performed through its real route, with the entry it must leave. */
import { expect } from "bun:test";
import { signedUp, type TestEnv, type WebClient } from "../helpers";

type Client = WebClient & { email: string; userId: string };

export interface AuditCtx {
  env: TestEnv;
  owner: Client;
  org: { id: string; slug: string };
  project: { id: string };
  /** What a row leaves for the rows after it (a member, an invitation, a key). */
  ids: Record<string, any>;
}

export interface Expected {
  action: string;
  object: { kind: string; id: string };
  actor?: { kind: string; id: string; label: string };
  before?: unknown;
  after?: unknown;
}

export interface AuditRow {
  name: string;
  perform(ctx: AuditCtx): Promise<Expected>;
}

/** A call that must succeed; returns its body. */
async function ok(r: Promise<{ status: number; body: any }>): Promise<any> {
  const x = await r;
  expect(x.status).toBeLessThan(300);
  return x.body;
}

const TENANCY: AuditRow[] = [
  {
    name: "invitation created (POST /web/orgs/current/invitations)",
    async perform(c) {
      const invitee = await signedUp(c.env);
      const inv = await ok(c.owner.post("/web/orgs/current/invitations", { email: invitee.email, role: "member" }));
      c.ids.invitee = invitee;
      c.ids.invitation = inv.id;
      return { action: "invitation.created", object: { kind: "invitation", id: inv.id }, after: { email: invitee.email, role: "member" } };
    },
  },
  {
    name: "invitation renewed (POST …/invitations/:id/resend)",
    async perform(c) {
      await ok(c.owner.post(`/web/orgs/current/invitations/${c.ids.invitation}/resend`));
      return { action: "invitation.renewed", object: { kind: "invitation", id: c.ids.invitation } };
    },
  },
  {
    name: "invitation accepted, by the invitee (POST /web/invitations/:id/accept)",
    async perform(c) {
      const m: Client = c.ids.invitee;
      await ok(m.post(`/web/invitations/${c.ids.invitation}/accept`));
      return {
        action: "invitation.accepted",
        object: { kind: "invitation", id: c.ids.invitation },
        actor: { kind: "user", id: m.userId, label: m.email },
        after: { status: "accepted", userId: m.userId, role: "member" },
      };
    },
  },
  {
    name: "member's role changed (PATCH /web/orgs/current/members/:userId)",
    async perform(c) {
      const m: Client = c.ids.invitee;
      await ok(c.owner.patch(`/web/orgs/current/members/${m.userId}`, { role: "admin" }));
      return { action: "member.role_changed", object: { kind: "member", id: m.userId }, before: { role: "member" }, after: { role: "admin" } };
    },
  },
  {
    name: "a second invitation created (the one the next row revokes)",
    async perform(c) {
      const inv = await ok(c.owner.post("/web/orgs/current/invitations", { email: "later@example.com" }));
      c.ids.pending = inv.id;
      return { action: "invitation.created", object: { kind: "invitation", id: inv.id } };
    },
  },
  {
    name: "invitation revoked (DELETE /web/orgs/current/invitations/:id), its e-mail and role before",
    async perform(c) {
      await ok(c.owner.del(`/web/orgs/current/invitations/${c.ids.pending}`));
      return {
        action: "invitation.revoked",
        object: { kind: "invitation", id: c.ids.pending },
        before: { email: "later@example.com", role: "member", status: "pending" },
        after: { status: "revoked" },
      };
    },
  },
  {
    name: "member removed (DELETE /web/orgs/current/members/:userId)",
    async perform(c) {
      const m: Client = c.ids.invitee;
      await ok(c.owner.del(`/web/orgs/current/members/${m.userId}`));
      return { action: "member.removed", object: { kind: "member", id: m.userId }, before: { role: "admin" } };
    },
  },
];

/** Every row, in the order they run (a row may use what an earlier one left in `ids`). */
export const AUDIT_ROWS: AuditRow[] = [...TENANCY];
