/** Organizations (tenants), members, invitations, SSO connections, the mail outbox. */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";

export const ORG_STATUSES = ["pending", "approved", "rejected", "suspended"] as const;
export type OrgStatus = (typeof ORG_STATUSES)[number];

export const organizations = sqliteTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    status: text("status", { enum: ORG_STATUSES }).notNull().default("pending"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    statusChangedAt: integer("status_changed_at"),
    statusChangedBy: text("status_changed_by"),
    /** Code-hosting settings (provider, org/owner, default branch); shape documented in docs/api.md. */
    codeHosting: text("code_hosting", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("organizations_slug_uq").on(t.slug)],
);

export const MEMBER_ROLES = ["owner", "admin", "member"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const members = sqliteTable(
  "members",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: MEMBER_ROLES }).notNull().default("member"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index("members_user_idx").on(t.userId)],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: MEMBER_ROLES }).notNull().default("member"),
    status: text("status", { enum: ["pending", "accepted", "revoked"] })
      .notNull()
      .default("pending"),
    invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: integer("expires_at").notNull(),
    acceptedAt: integer("accepted_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("invitations_org_idx").on(t.organizationId)],
);

/**
 * An organization's single sign-on (docs/operations.md "Organization single sign-on"): one connection per organization, OIDC or
 * SAML. `config` holds the protocol settings, the OIDC client secret among them (never
 * answered by any route). The e-mail domains routed to it are in `sso_domains`.
 */
export const ssoConnections = sqliteTable("sso_connections", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  protocol: text("protocol", { enum: ["oidc", "saml"] }).notNull(),
  config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** Password (and external provider) sign-in refused for the connection's domains. */
  enforce: integer("enforce", { mode: "boolean" }).notNull().default(false),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  /** Enterprise-managed authorization: the OIDC IdP's ID-JAGs are accepted at the token endpoint (src/oauth/jwtBearer.ts). */
  enterpriseGrant: integer("enterprise_grant", { mode: "boolean" }).notNull().default(false),
  testedAt: integer("tested_at"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * An e-mail domain an organization claims for its SSO. A claim routes sign-in only once it is
 * verified (a DNS TXT record holding `token`, or a platform administrator's approval:
 * src/identity/ssoDomains.ts); several organizations may hold a pending claim on one domain,
 * and the partial unique index lets only one of them hold it verified.
 */
export const ssoDomains = sqliteTable(
  "sso_domains",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => ssoConnections.organizationId, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    /** The value the DNS TXT record `_talentd-challenge.<domain>` must hold (`talentd-verification=<token>`). */
    token: text("token").notNull().default(""),
    verifiedAt: integer("verified_at"),
    /** `dns` or `admin:<user id>`. */
    verifiedBy: text("verified_by"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.domain] }),
    uniqueIndex("sso_domains_verified_uq").on(t.domain).where(sql`${t.verifiedAt} IS NOT NULL`),
    index("sso_domains_domain_idx").on(t.domain),
  ],
);

/**
 * Single-use, expiring records of the SSO protocols, kept in the database so they survive a
 * restart: `saml_request` (an AuthnRequest id this server sent: a Response's InResponseTo
 * must name one), `saml_assertion` (an assertion id already consumed: a replay is refused
 * until it would have expired anyway), `id_jag` (an ID-JAG's `iss|jti` already exchanged at the token endpoint).
 */
export const ssoNonces = sqliteTable(
  "sso_nonces",
  {
    kind: text("kind", { enum: ["saml_request", "saml_assertion", "id_jag"] }).notNull(),
    id: text("id").notNull(),
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    value: text("value").notNull().default(""),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.id] }), index("sso_nonces_expires_idx").on(t.expiresAt)],
);

export const MAIL_STATUSES = ["pending", "sending", "sent", "failed", "logged"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * The mail outbox, a durable queue (src/mail): a mail is queued inside the transaction of what
 * it announces, claimed (`sending`, with `claimed_at` as the lease) before it is handed to the
 * SMTP server, and marked `sent` right after the server accepted it. `logged`: no SMTP was
 * configured, the mail went to the log only. `sensitive` mails (password reset) lose their
 * bodies once sent or failed, and are never listed.
 */
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: text("id").primaryKey(),
    /** The organization the mail belongs to (its admins see it when it fails); null for a person's own mail. */
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    /** invitation, password_reset, … */
    kind: text("kind").notNull().default("other"),
    to: text("to_address").notNull(),
    subject: text("subject").notNull(),
    /** The plain-text body. */
    body: text("body").notNull(),
    html: text("html"),
    sensitive: integer("sensitive", { mode: "boolean" }).notNull().default(false),
    status: text("status", { enum: MAIL_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull().default(0),
    claimedAt: integer("claimed_at"),
    createdAt: integer("created_at").notNull(),
    sentAt: integer("sent_at"),
    /** The last delivery error. */
    error: text("error"),
  },
  (t) => [index("mail_outbox_due_idx").on(t.status, t.nextAttemptAt), index("mail_outbox_org_idx").on(t.organizationId, t.status)],
);

/**
 * An organization's talent policy (docs/design.md "Organization policy"): the talents every
 * project has installed and active (public ids and `@org/slug` expertises), and, when not null,
 * the only talents a project may install besides them; `hookRules`, the rules whose hook behaviour
 * it locks in every project (docs/design.md "What blocks a commit"). One row per organization at
 * most; no row is no policy.
 */
export const orgPolicies = sqliteTable("org_policies", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  requiredTalents: text("required_talents", { mode: "json" }).$type<string[]>().notNull(),
  allowedTalents: text("allowed_talents", { mode: "json" }).$type<string[] | null>(),
  hookRules: text("hook_rules", { mode: "json" }).$type<Record<string, "block" | "advise" | "off">>().notNull().default({}),
  updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
  updatedAt: integer("updated_at").notNull(),
});
