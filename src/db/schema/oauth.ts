/** The built-in OAuth 2.1 authorization server for MCP: clients, codes, tokens. */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { projects } from "./projects";

export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
  metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  createdAt: integer("created_at").notNull(),
  /**
   * Set at registration and at every token issued to it; a client unused for CLIENT_IDLE_MS is
   * deleted (null: registered before this column, read as created_at).
   */
  lastUsedAt: integer("last_used_at"),
  /** sha256 of the client secret of a confidential registration (client_secret_basic or _post); null for a public client. */
  secretHash: text("secret_hash"),
});

/** The client, user and project a code or a token is granted to (deleted with any of them): new columns for each table. */
const grantedTo = () => ({
  clientId: text("client_id")
    .notNull()
    .references(() => oauthClients.id, { onDelete: "cascade" }),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  projectId: text("project_id")
    .notNull()
    .references(() => projects.id, { onDelete: "cascade" }),
});

export const oauthCodes = sqliteTable("oauth_codes", {
  codeHash: text("code_hash").primaryKey(),
  ...grantedTo(),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  resource: text("resource").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  createdAt: integer("created_at").notNull(),
});

export const oauthTokens = sqliteTable(
  "oauth_tokens",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    tokenHash: text("token_hash").notNull(),
    /** All tokens descending from one authorization code; reuse of a rotated refresh token revokes the family. */
    familyId: text("family_id").notNull(),
    ...grantedTo(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    resource: text("resource").notNull(),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
    rotatedAt: integer("rotated_at"),
    lastUsedAt: integer("last_used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("oauth_tokens_hash_uq").on(t.tokenHash), index("oauth_tokens_family_idx").on(t.familyId)],
);
