/** Organizations (tenants), members, invitations, SSO connections, the mail outbox. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";

export const ORG_STATUSES = ["pending", "approved", "rejected", "suspended"] as const;
export type OrgStatus = (typeof ORG_STATUSES)[number];

export const organizations = sqliteTable("organizations", {
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
}, (t) => [uniqueIndex("organizations_slug_uq").on(t.slug)]);

export const MEMBER_ROLES = ["owner", "admin", "member"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const members = sqliteTable("members", {
  organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  role: text("role", { enum: MEMBER_ROLES }).notNull().default("member"),
  createdAt: integer("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index("members_user_idx").on(t.userId)]);

export const invitations = sqliteTable("invitations", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
  email: text("email").notNull(),
  role: text("role", { enum: MEMBER_ROLES }).notNull().default("member"),
  status: text("status", { enum: ["pending", "accepted", "revoked"] }).notNull().default("pending"),
  invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
  expiresAt: integer("expires_at").notNull(),
  acceptedAt: integer("accepted_at"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("invitations_org_idx").on(t.organizationId)]);

/**
 * An organization's single sign-on (DESIGN §13): one connection per organization, OIDC or
 * SAML. `config` holds the protocol settings, the OIDC client secret among them (never
 * answered by any route). The e-mail domains routed to it are in `sso_domains`.
 */
export const ssoConnections = sqliteTable("sso_connections", {
  organizationId: text("organization_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  protocol: text("protocol", { enum: ["oidc", "saml"] }).notNull(),
  config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** Password (and external provider) sign-in refused for the connection's domains. */
  enforce: integer("enforce", { mode: "boolean" }).notNull().default(false),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  testedAt: integer("tested_at"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** An e-mail domain routed to one organization's SSO; the primary key makes a domain belong to one organization at most. */
export const ssoDomains = sqliteTable("sso_domains", {
  domain: text("domain").primaryKey(),
  organizationId: text("organization_id").notNull().references(() => ssoConnections.organizationId, { onDelete: "cascade" }),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("sso_domains_org_idx").on(t.organizationId)]);

/**
 * Single-use, expiring records of the SSO protocols, kept in the database so they survive a
 * restart: `saml_request` (an AuthnRequest id this server sent: a Response's InResponseTo
 * must name one), `saml_assertion` (an assertion id already consumed: a replay is refused
 * until it would have expired anyway).
 */
export const ssoNonces = sqliteTable("sso_nonces", {
  kind: text("kind", { enum: ["saml_request", "saml_assertion"] }).notNull(),
  id: text("id").notNull(),
  organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
  value: text("value").notNull().default(""),
  expiresAt: integer("expires_at").notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.id] }), index("sso_nonces_expires_idx").on(t.expiresAt)]);

export const mailOutbox = sqliteTable("mail_outbox", {
  id: text("id").primaryKey(),
  to: text("to_address").notNull(),
  subject: text("subject").notNull(),
  body: text("body").notNull(),
  createdAt: integer("created_at").notNull(),
  sentAt: integer("sent_at"),
  error: text("error"),
});
