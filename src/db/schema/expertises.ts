/** Private talents of an organization: working version, revisions, published versions. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { organizations } from "./tenancy";

export const EXPERTISE_STATUSES = ["draft", "published", "active", "inactive"] as const;
export type ExpertiseStatus = (typeof EXPERTISE_STATUSES)[number];

export const expertises = sqliteTable(
  "expertises",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    status: text("status", { enum: EXPERTISE_STATUSES }).notNull().default("draft"),
    /** Optimistic-concurrency counter of the working version. */
    revision: integer("revision").notNull().default(1),
    workingContent: text("working_content").notNull(),
    workingFiles: text("working_files", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** Confirmed triggers; null until confirmed. */
    triggers: text("triggers", { mode: "json" }).$type<{ files: string[]; keywords: string[] }>(),
    triggersConfirmedAt: integer("triggers_confirmed_at"),
    /** Latest published version number (0 = never published). */
    publishedVersion: integer("published_version").notNull().default(0),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [uniqueIndex("expertises_org_slug_uq").on(t.organizationId, t.slug)],
);

export const expertiseVersions = sqliteTable(
  "expertise_versions",
  {
    expertiseId: text("expertise_id")
      .notNull()
      .references(() => expertises.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    /** Digest of TALENT.md in content_blobs. */
    contentDigest: text("content_digest").notNull(),
    /** Relative path → digest in content_blobs. */
    files: text("files", { mode: "json" }).$type<Record<string, string>>().notNull(),
    triggers: text("triggers", { mode: "json" }).$type<{ files: string[]; keywords: string[] }>().notNull(),
    publishedBy: text("published_by"),
    publishedAt: integer("published_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.expertiseId, t.version] }), index("expertise_versions_exp_idx").on(t.expertiseId)],
);
