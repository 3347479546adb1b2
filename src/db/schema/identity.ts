/** Users, sessions, external accounts, first-admin setup tokens, security events, password resets. */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./tenancy";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  name: text("name").notNull().default(""),
  passwordHash: text("password_hash"),
  /** `user` or `admin` (platform administrator). */
  role: text("role", { enum: ["user", "admin"] }).notNull().default("user"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("users_email_uq").on(t.email)]);

export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  tokenHash: text("token_hash").notNull(),
  activeOrganizationId: text("active_organization_id").references(() => organizations.id, { onDelete: "set null" }),
  expiresAt: integer("expires_at").notNull(),
  createdAt: integer("created_at").notNull(),
  lastSeenAt: integer("last_seen_at").notNull(),
  userAgent: text("user_agent"),
  ip: text("ip"),
}, (t) => [uniqueIndex("sessions_token_uq").on(t.tokenHash), index("sessions_user_idx").on(t.userId)]);

export const externalAccounts = sqliteTable("external_accounts", {
  provider: text("provider").notNull(),
  providerUserId: text("provider_user_id").notNull(),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("external_accounts_pk").on(t.provider, t.providerUserId)]);

export const setupTokens = sqliteTable("setup_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  createdAt: integer("created_at").notNull(),
});

export const securityEvents = sqliteTable("security_events", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  userId: text("user_id"),
  email: text("email"),
  ip: text("ip"),
  userAgent: text("user_agent"),
  detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("security_events_created_idx").on(t.createdAt)]);

/** Password-reset tokens (src/identity/passwordReset.ts): only the SHA-256 of the token, single use, short-lived. */
export const passwordResets = sqliteTable("password_resets", {
  tokenHash: text("token_hash").primaryKey(),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("password_resets_user_idx").on(t.userId)]);
