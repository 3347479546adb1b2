/** Users, sessions, external accounts, first-admin setup tokens, security events, password resets. */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./tenancy";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull().default(""),
    passwordHash: text("password_hash"),
    /** `user` or `admin` (platform administrator). */
    role: text("role", { enum: ["user", "admin"] })
      .notNull()
      .default("user"),
    /**
     * When the person proved they hold the e-mail (a mailed link, an invitation or reset link,
     * a provider that vouched for it); null until then. An unverified account signs in but is
     * never linked to an SSO identity (src/identity/linking.ts).
     */
    emailVerifiedAt: integer("email_verified_at"),
    /** When a platform administrator disabled the account (no sign-in, sessions ended); null while enabled. */
    disabledAt: integer("disabled_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    activeOrganizationId: text("active_organization_id").references(() => organizations.id, { onDelete: "set null" }),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    userAgent: text("user_agent"),
    ip: text("ip"),
  },
  (t) => [uniqueIndex("sessions_token_uq").on(t.tokenHash), index("sessions_user_idx").on(t.userId)],
);

export const externalAccounts = sqliteTable(
  "external_accounts",
  {
    provider: text("provider").notNull(),
    providerUserId: text("provider_user_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("external_accounts_pk").on(t.provider, t.providerUserId)],
);

export const setupTokens = sqliteTable("setup_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  createdAt: integer("created_at").notNull(),
});

export const securityEvents = sqliteTable(
  "security_events",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    userId: text("user_id"),
    email: text("email"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("security_events_created_idx").on(t.createdAt)],
);

/** Password-reset tokens (src/identity/passwordReset.ts): only the SHA-256 of the token, single use, short-lived. */
export const passwordResets = sqliteTable(
  "password_resets",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("password_resets_user_idx").on(t.userId)],
);

/** E-mail verification links (src/identity/emailVerification.ts): only the SHA-256 of the token, single use. */
export const emailVerifications = sqliteTable(
  "email_verifications",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The address the link was sent to: a changed address is not verified by an old link. */
    email: text("email").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("email_verifications_user_idx").on(t.userId)],
);

/**
 * An identity a provider or an organization's SSO vouched for, waiting for the account holder's
 * consent before it is linked (src/identity/linking.ts): the person signs in another way and
 * confirms. Only the SHA-256 of the browser's token is stored; short-lived, single use.
 */
export const pendingLinks = sqliteTable(
  "pending_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    provider: text("provider").notNull(),
    providerUserId: text("provider_user_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The organization whose SSO vouched (joined on confirmation), or null for an external provider. */
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("pending_links_user_idx").on(t.userId)],
);
