/** The table of audited changes (test/audit/audit.test.ts): each performed through its real route, with the entry it must leave. */
import { expect } from "bun:test";
import { createKey, expertiseMd, joinedMember, makePlatformAdmin, signedUp, withKey, type TestEnv, type WebClient } from "../helpers";

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
  /** What the change needs first (its own entries are not counted). */
  setup?(ctx: AuditCtx): Promise<void>;
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
      return {
        action: "member.role_changed",
        object: { kind: "member", id: m.userId },
        before: { role: "member" },
        after: { role: "admin" },
      };
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
    name: "member left, by themselves (DELETE /web/orgs/current/members/:ownUserId): member.left with the leaver as actor",
    async setup(c) {
      c.ids.leaver = await joinedMember(c.env, c.owner);
    },
    async perform(c) {
      const m: Client = c.ids.leaver;
      await ok(m.del(`/web/orgs/current/members/${m.userId}`));
      return {
        action: "member.left",
        object: { kind: "member", id: m.userId },
        actor: { kind: "user", id: m.userId, label: m.email },
        before: { role: "member" },
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

const KEYS: AuditRow[] = [
  {
    name: "project key created (POST /web/projects/:id/keys): its name, tools and project, never its value",
    async perform(c) {
      const k = await createKey(c.owner, c.project.id, ["prepare_task", "install"]);
      c.ids.key = k;
      return {
        action: "key.created",
        object: { kind: "key", id: k.key.id },
        after: {
          projectId: c.project.id,
          name: "key prepare_task+install",
          tools: ["prepare_task", "install"],
          expiresAt: null,
          automation: false,
        },
      };
    },
  },
  {
    name: "automation key made (POST /web/projects/:id/token)",
    async perform(c) {
      const r = await ok(c.owner.post(`/web/projects/${c.project.id}/token`));
      c.ids.automation = r.key.id;
      return { action: "key.created", object: { kind: "key", id: r.key.id } };
    },
  },
  {
    name: "automation key rotated (POST /web/projects/:id/token again): one entry naming the key it replaced",
    async perform(c) {
      const r = await ok(c.owner.post(`/web/projects/${c.project.id}/token`));
      return { action: "automation_key.rotated", object: { kind: "key", id: r.key.id }, before: { keyIds: [c.ids.automation] } };
    },
  },
];

const SELECTION: AuditRow[] = [
  {
    name: "talents installed from the dashboard (POST /web/projects/:id/talents)",
    async perform(c) {
      await ok(c.owner.post(`/web/projects/${c.project.id}/talents`, { talents: ["javascript-base"] }));
      return { action: "talents.installed", object: { kind: "project", id: c.project.id }, after: { installed: ["javascript-base"] } };
    },
  },
  {
    name: "talents installed by a project key (PATCH /api/projects/current/talents): the key is the actor",
    async perform(c) {
      const r = await withKey(c.env, c.ids.key.value, "/api/projects/current/talents", {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talents: ["typescript-strict"] }),
      });
      expect(r.status).toBeLessThan(300);
      return {
        action: "talents.installed",
        object: { kind: "project", id: c.project.id },
        actor: { kind: "key", id: c.ids.key.key.id, label: "key prepare_task+install" },
        after: { installed: ["typescript-strict"] },
      };
    },
  },
  {
    name: "talent disabled (PATCH /web/projects/:id/talents/:talentId)",
    async perform(c) {
      await ok(c.owner.patch(`/web/projects/${c.project.id}/talents/typescript-strict`, { enabled: false }));
      return {
        action: "talent.disabled",
        object: { kind: "project", id: c.project.id },
        before: { talentId: "typescript-strict", enabled: true },
        after: { talentId: "typescript-strict", enabled: false },
      };
    },
  },
  {
    name: "talent enabled again (PATCH …/talents/:talentId)",
    async perform(c) {
      await ok(c.owner.patch(`/web/projects/${c.project.id}/talents/typescript-strict`, { enabled: true }));
      return {
        action: "talent.enabled",
        object: { kind: "project", id: c.project.id },
        after: { talentId: "typescript-strict", enabled: true },
      };
    },
  },
  {
    name: "talents disabled by a project key (PATCH /api/projects/current/talents with enabled: false)",
    async perform(c) {
      const r = await withKey(c.env, c.ids.key.value, "/api/projects/current/talents", {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talents: ["typescript-strict"], enabled: false }),
      });
      expect(r.status).toBeLessThan(300);
      return {
        action: "talents.disabled",
        object: { kind: "project", id: c.project.id },
        actor: { kind: "key", id: c.ids.key.key.id, label: "key prepare_task+install" },
        after: { disabled: ["typescript-strict"] },
      };
    },
  },
  {
    name: "talent uninstalled (DELETE /web/projects/:id/talents/:talentId)",
    async perform(c) {
      await ok(c.owner.del(`/web/projects/${c.project.id}/talents/typescript-strict`));
      return {
        action: "talent.uninstalled",
        object: { kind: "project", id: c.project.id },
        before: { talentId: "typescript-strict", enabled: false },
      };
    },
  },
  {
    name: "specialization applied (POST /web/projects/:id/apply-specialization): one entry, not one per talent",
    async perform(c) {
      const r = await ok(c.owner.post(`/web/projects/${c.project.id}/apply-specialization`, { specializationId: "typescript-service" }));
      return {
        action: "specialization.applied",
        object: { kind: "specialization", id: "typescript-service" },
        after: { projectId: c.project.id, installed: r.installed },
      };
    },
  },
  {
    name: "project key revoked (DELETE /web/projects/:id/keys/:keyId)",
    async perform(c) {
      await ok(c.owner.del(`/web/projects/${c.project.id}/keys/${c.ids.key.key.id}`));
      return { action: "key.revoked", object: { kind: "key", id: c.ids.key.key.id }, after: { status: "revoked" } };
    },
  },
];

const X = "/web/orgs/current/expertises";

const EXPERTISES: AuditRow[] = [
  {
    name: "expertise created (POST /web/orgs/current/expertises)",
    async perform(c) {
      const r = await ok(c.owner.post(X, { slug: "ledger", content: expertiseMd("ledger", "Use the ledger.") }));
      c.ids.expertise = r.id;
      return {
        action: "expertise.created",
        object: { kind: "expertise", id: r.id },
        after: { slug: "ledger", status: "draft", revision: 1 },
      };
    },
  },
  {
    name: "expertise working version written (PATCH …/expertises/:id): the revision before and after",
    async perform(c) {
      await ok(
        c.owner.patch(`${X}/${c.ids.expertise}`, { expectedRevision: 1, content: expertiseMd("ledger", "Use the ledger, always.") }),
      );
      return {
        action: "expertise.updated",
        object: { kind: "expertise", id: c.ids.expertise },
        before: { revision: 1 },
        after: { revision: 2 },
      };
    },
  },
  {
    name: "expertise triggers confirmed (PUT …/expertises/:id/triggers)",
    async perform(c) {
      await ok(c.owner.put(`${X}/${c.ids.expertise}/triggers`, { files: ["src/payments/**"], keywords: ["payment"] }));
      return { action: "expertise.triggers_confirmed", object: { kind: "expertise", id: c.ids.expertise }, before: { triggers: null } };
    },
  },
  {
    name: "expertise published (POST …/expertises/:id/publish)",
    async perform(c) {
      await ok(c.owner.post(`${X}/${c.ids.expertise}/publish`));
      return {
        action: "expertise.published",
        object: { kind: "expertise", id: c.ids.expertise },
        before: { status: "draft", publishedVersion: 0 },
        after: { status: "published", publishedVersion: 1 },
      };
    },
  },
  ...(["activate", "deactivate", "reactivate"] as const).map(
    (op, i): AuditRow => ({
      name: `expertise lifecycle move: ${op} (POST …/expertises/:id/${op})`,
      async perform(c) {
        await ok(c.owner.post(`${X}/${c.ids.expertise}/${op}`));
        const statuses = ["published", "active", "inactive", "active"];
        return {
          action: `expertise.${op}d`,
          object: { kind: "expertise", id: c.ids.expertise },
          before: { status: statuses[i] },
          after: { status: statuses[i + 1] },
        };
      },
    }),
  ),
  {
    name: "expertise deleted (DELETE …/expertises/:id)",
    async perform(c) {
      await ok(c.owner.del(`${X}/${c.ids.expertise}`));
      return {
        action: "expertise.deleted",
        object: { kind: "expertise", id: c.ids.expertise },
        before: { slug: "ledger", status: "active" },
      };
    },
  },
];

const SSO_BODY = {
  type: "oidc",
  domains: ["audited.example"],
  oidc: { issuer: "https://idp.example", clientId: "c", clientSecret: "s3cret" },
};

const SSO: AuditRow[] = [
  {
    name: "SSO configured (POST /web/orgs/current/sso): type, domains and enforcement, never the secret",
    async perform(c) {
      await ok(c.owner.post("/web/orgs/current/sso", SSO_BODY));
      return {
        action: "sso.configured",
        object: { kind: "sso", id: c.org.id },
        before: null,
        after: { type: "oidc", domains: ["audited.example"], enforce: false },
      };
    },
  },
  {
    name: "SSO domain approved by a platform administrator (POST /web/admin/sso-domains/:orgId/:domain/approve): recorded in the organization's log",
    async perform(c) {
      const admin = await signedUp(c.env);
      await makePlatformAdmin(c.env, admin.userId);
      await ok(admin.post(`/web/admin/sso-domains/${c.org.id}/audited.example/approve`));
      return {
        action: "sso.domain_verified",
        object: { kind: "sso_domain", id: "audited.example" },
        actor: { kind: "user", id: admin.userId, label: admin.email },
        after: { verifiedBy: "admin" },
      };
    },
  },
  {
    name: "SSO enterprise-managed authorization turned on (POST /web/orgs/current/sso/enterprise)",
    async perform(c) {
      await ok(c.owner.post("/web/orgs/current/sso/enterprise", { enabled: true }));
      return {
        action: "sso.enterprise_grant_changed",
        object: { kind: "sso", id: c.org.id },
        before: { enterpriseGrant: false },
        after: { enterpriseGrant: true },
      };
    },
  },
  {
    name: "SSO changed (POST /web/orgs/current/sso again): before and after",
    async perform(c) {
      await ok(c.owner.post("/web/orgs/current/sso", { ...SSO_BODY, enforce: true }));
      return {
        action: "sso.configured",
        object: { kind: "sso", id: c.org.id },
        before: { type: "oidc", domains: ["audited.example"], enforce: false },
        after: { type: "oidc", domains: ["audited.example"], enforce: true },
      };
    },
  },
  {
    name: "SSO removed (DELETE /web/orgs/current/sso)",
    async perform(c) {
      await ok(c.owner.del("/web/orgs/current/sso"));
      return {
        action: "sso.deleted",
        object: { kind: "sso", id: c.org.id },
        before: { type: "oidc", domains: ["audited.example"], enforce: true },
      };
    },
  },
];

const SETTINGS: AuditRow[] = [
  {
    name: "project created (POST /web/projects)",
    async perform(c) {
      const r = await ok(c.owner.post("/web/projects", { name: "Second", description: "d" }));
      c.ids.second = r.project.id;
      return {
        action: "project.created",
        object: { kind: "project", id: r.project.id },
        after: { name: "Second", description: "d", repository: null },
      };
    },
  },
  {
    name: "project settings changed (PATCH /web/projects/:id): only what changed, before and after",
    async perform(c) {
      await ok(c.owner.patch(`/web/projects/${c.ids.second}`, { name: "Second", contextBudget: 4000 }));
      return {
        action: "project.updated",
        object: { kind: "project", id: c.ids.second },
        before: { contextBudget: null },
        after: { contextBudget: 4000 },
      };
    },
  },
  {
    name: "project relevance set (PUT /web/projects/:id/relevance)",
    async perform(c) {
      const settings = { languages: ["typescript"], roles: ["backend"], paths: ["src/**"], exclude: [] };
      await ok(c.owner.put(`/web/projects/${c.ids.second}/relevance`, settings));
      return {
        action: "project.relevance_changed",
        object: { kind: "project", id: c.ids.second },
        before: { relevance: "derived" },
        after: { relevance: settings },
      };
    },
  },
  {
    name: "project relevance reset (DELETE /web/projects/:id/relevance)",
    async perform(c) {
      await ok(c.owner.del(`/web/projects/${c.ids.second}/relevance`));
      return { action: "project.relevance_changed", object: { kind: "project", id: c.ids.second }, after: { relevance: "derived" } };
    },
  },
  {
    name: "project deleted (DELETE /web/projects/:id)",
    async perform(c) {
      await ok(c.owner.del(`/web/projects/${c.ids.second}`));
      return { action: "project.deleted", object: { kind: "project", id: c.ids.second }, before: { name: "Second" } };
    },
  },
  {
    name: "code hosting set (PUT /web/orgs/current/code-hosting)",
    async perform(c) {
      const r = await ok(c.owner.put("/web/orgs/current/code-hosting", { provider: "github", url: "https://github.com/acme/audited" }));
      return {
        action: "code_hosting.set",
        object: { kind: "organization", id: c.org.id },
        before: null,
        after: { codeHosting: r.codeHosting },
      };
    },
  },
  {
    name: "code hosting cleared (DELETE /web/orgs/current/code-hosting)",
    async perform(c) {
      await ok(c.owner.del("/web/orgs/current/code-hosting"));
      return { action: "code_hosting.cleared", object: { kind: "organization", id: c.org.id }, after: null };
    },
  },
  {
    name: "mail retried (POST /web/orgs/current/mail/:id/retry)",
    async perform(c) {
      const mails = (await ok(c.owner.get("/web/orgs/current/mail"))).mails;
      const m = mails[0];
      await ok(c.owner.post(`/web/orgs/current/mail/${m.id}/retry`));
      return { action: "mail.retried", object: { kind: "mail", id: m.id } };
    },
  },
  {
    name: "organization policy changed (PUT /web/orgs/current/policy): the lists before and after, one entry for every project it installs into",
    async perform(c) {
      await ok(c.owner.put("/web/orgs/current/policy", { requiredTalents: ["typescript-strict"], allowedTalents: null }));
      return {
        action: "policy.changed",
        object: { kind: "policy", id: c.org.id },
        // the policy's hook rule locks are part of it: none locked here
        before: { requiredTalents: [], allowedTalents: null, hookRules: {} },
        after: { requiredTalents: ["typescript-strict"], allowedTalents: null, hookRules: {} },
      };
    },
  },
];

const SPECIALIZATIONS: AuditRow[] = [
  {
    name: "specialization created (POST /web/specializations)",
    async perform(c) {
      const r = await ok(c.owner.post("/web/specializations", { name: "Our stack", description: "d", talents: ["typescript-strict"] }));
      c.ids.spec = r.specialization.id;
      return {
        action: "specialization.created",
        object: { kind: "specialization", id: r.specialization.id },
        after: { name: "Our stack", description: "d", talents: ["typescript-strict"] },
      };
    },
  },
  {
    name: "specialization changed (PATCH /web/specializations/:id): only what changed",
    async perform(c) {
      await ok(c.owner.patch(`/web/specializations/${c.ids.spec}`, { name: "Our stack", talents: ["typescript-strict", "sql-base"] }));
      return {
        action: "specialization.updated",
        object: { kind: "specialization", id: c.ids.spec },
        before: { talents: ["typescript-strict"] },
        after: { talents: ["typescript-strict", "sql-base"] },
      };
    },
  },
  {
    name: "specialization duplicated (POST /web/specializations/:id/duplicate): the copy's creation",
    async perform(c) {
      const r = await ok(c.owner.post(`/web/specializations/${c.ids.spec}/duplicate`));
      return {
        action: "specialization.created",
        object: { kind: "specialization", id: r.specialization.id },
        after: { name: "Our stack (copy)", description: "d", talents: ["typescript-strict", "sql-base"] },
      };
    },
  },
  {
    name: "specialization deleted (DELETE /web/specializations/:id)",
    async perform(c) {
      await ok(c.owner.del(`/web/specializations/${c.ids.spec}`));
      return { action: "specialization.deleted", object: { kind: "specialization", id: c.ids.spec }, before: { name: "Our stack" } };
    },
  },
];

/** Every row, in the order they run (a row may use what an earlier one left in `ids`). */
export const AUDIT_ROWS: AuditRow[] = [...TENANCY, ...KEYS, ...SELECTION, ...EXPERTISES, ...SSO, ...SETTINGS, ...SPECIALIZATIONS];
