/** Projects, their selection of talents, API keys, specializations and relevance settings. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { organizations } from "./tenancy";

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** The repository's path under the organization's code hosting URL (evidence links), or null. */
    repository: text("repository"),
    /**
     * Bumped by triggers on every change to the project's installed talents (migration
     * 0002_selection_rev), whoever makes it: lets the selection be cached exactly
     * (src/selection/service.ts listInstalled).
     */
    selectionRev: integer("selection_rev").notNull().default(0),
    /** Most tokens of compact forms a prepare-task serves (the rest is listed by id); null: DEFAULT_CONTEXT_BUDGET. */
    contextBudget: integer("context_budget"),
  },
  (t) => [index("projects_org_idx").on(t.organizationId)],
);

export const KEY_SCOPES = [
  "prepare_task",
  "validate",
  "record_validation",
  "deepen",
  "doctor",
  "catalog",
  "discover",
  "install",
  "import",
] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
/** The scopes an OAuth client may ask for: every key scope but `import` (it writes expertise drafts: project keys only). */
export const OAUTH_SCOPES: readonly KeyScope[] = KEY_SCOPES.filter((s) => s !== "import");

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tools: text("tools", { mode: "json" }).$type<KeyScope[]>().notNull(),
    /** sha256 hex of the raw value; the value itself is never stored. */
    keyHash: text("key_hash").notNull(),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    lastUsedAt: integer("last_used_at"),
    createdAt: integer("created_at").notNull(),
    /** The project's automation key for hooks and CI (POST /web/projects/:id/token): at most one active per project. */
    automation: integer("automation", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.keyHash), index("api_keys_project_idx").on(t.projectId)],
);

/** A talent (public id) or expertise (`@org/slug`) in a project's selection. */
export const installedTalents = sqliteTable(
  "installed_talents",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    talentId: text("talent_id").notNull(),
    kind: text("kind", { enum: ["talent", "expertise"] }).notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    installedBy: text("installed_by"),
    installedAt: integer("installed_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.talentId] })],
);

export const specializations = sqliteTable(
  "specializations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    talentIds: text("talent_ids", { mode: "json" }).$type<string[]>().notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("specializations_org_idx").on(t.organizationId)],
);

export const projectRelevance = sqliteTable("project_relevance", {
  projectId: text("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * What remains of a project's active keys when the project is deleted (the keys themselves
 * cascade away): lets the key guard answer 404 "project gone" as the spec orders, instead of
 * a 401 that would send the caller hunting for a key problem.
 */
export const keyTombstones = sqliteTable("key_tombstones", {
  keyHash: text("key_hash").primaryKey(),
  keyId: text("key_id").notNull(),
  projectId: text("project_id").notNull(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  createdBy: text("created_by").notNull(),
  expiresAt: integer("expires_at"),
  deletedAt: integer("deleted_at").notNull(),
});
