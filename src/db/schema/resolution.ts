/** Content-addressed blobs, frozen resolutions, validation reports. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

/** Served bytes, addressed by `sha256:<hex>`, so a resolution reads the same forever. */
export const contentBlobs = sqliteTable("content_blobs", {
  digest: text("digest").primaryKey(),
  content: text("content").notNull(),
  size: integer("size").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const resolutions = sqliteTable(
  "resolutions",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    language: text("language"),
    tokens: integer("tokens").notNull(),
    catalogDigest: text("catalog_digest").notNull(),
    authorType: text("author_type", { enum: ["key", "user", "token"] }).notNull(),
    authorId: text("author_id").notNull(),
    via: text("via", { enum: ["api", "web", "mcp"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    /**
     * What was served, as a designation of this project (designation_items): resolutions that
     * served the same talents at the same versions in the same order share it (migration 0009;
     * before it, each resolution had its own, with the resolution's id as its id).
     */
    designationId: text("designation_id").notNull().default(""),
    /** The signed manifest whole (a compact JWS) of a resolution frozen before migration sigstore; null otherwise. */
    attestation: text("attestation"),
    /**
     * Since migration sigstore, the signature alone: the detached JWS (`<protected header>..<signature>`) of
     * its manifest, rebuilt from this row and its items on read (src/resolution/pinned.ts attestationOf);
     * `attestation` is then null. Null when signing was off.
     */
    signature: text("signature"),
    /** The `iss` of the signed manifest (the base URL when it was signed), with `signature`. */
    issuer: text("issuer"),
    /**
     * The `claims` its manifest signed (src/signing/claims.ts: digests of the answer's other fields and
     * of the playbook's rules), as JSON text, written into the manifest again on read; null for a
     * resolution signed before claims existed (its manifest had none) or not signed (migration 0026).
     */
    claims: text("claims"),
  },
  (t) => [
    // a project's resolutions in a time window, with their ids, from the index alone (activity; migration 0005)
    index("resolutions_project_idx").on(t.projectId, t.createdAt, t.id),
  ],
);

/**
 * One served talent of a designation, with the version and digests of what was served. A
 * resolution's items are its designation's: the view `resolution_items` (resolution_id,
 * position, talent_id, kind, version, digest, definition_digest, files, expertise_id) joins
 * them, for every reader (migration 0009). A designation's items are written once, by the
 * first resolution that serves it, and never change.
 */
export const designationItems = sqliteTable(
  "designation_items",
  {
    /** `dsg_` + the digest of the project and the items (src/resolution/prepare.ts), or, for a resolution older than 0009, its own id. */
    designationId: text("designation_id").notNull(),
    position: integer("position").notNull(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    talentId: text("talent_id").notNull(),
    kind: text("kind", { enum: ["talent", "expertise"] }).notNull(),
    version: text("version").notNull(),
    /** Digest of the compact form served (blob). */
    digest: text("digest").notNull(),
    /** Digest of the full talent definition (TALENT.md) pinned for the playbook. */
    definitionDigest: text("definition_digest").notNull(),
    /**
     * The files pinned (relative path → digest): since 2026-11-23 the digest of the content blob
     * holding that map (a JSON string, the same blob for every resolution of the version), before
     * that the map itself; src/resolution/pinned.ts reads both.
     */
    files: text("files", { mode: "json" }).$type<Record<string, string> | string>().notNull(),
    expertiseId: text("expertise_id"),
  },
  (t) => [
    primaryKey({ columns: [t.designationId, t.position] }),
    uniqueIndex("designation_items_talent_uq").on(t.designationId, t.talentId),
    index("designation_items_project_idx").on(t.projectId),
  ],
);

export const reports = sqliteTable(
  "reports",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    resolutionId: text("resolution_id")
      .notNull()
      .references(() => resolutions.id, { onDelete: "cascade" }),
    submissionId: text("submission_id").notNull(),
    /** sha256 of the canonical payload, to tell a replay from a conflict. */
    payloadDigest: text("payload_digest").notNull(),
    /** The first response, returned again on replay. */
    response: text("response", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    authorType: text("author_type").notNull(),
    authorId: text("author_id").notNull(),
    createdAt: integer("created_at").notNull(),
    /**
     * The receipt's detached JWS (`<protected header>..<signature>`), its payload rebuilt from this row and
     * its results on replay (src/resolution/reports.ts); `response` holds no attestation. Null when signing was off
     * (before migration sigstore the whole receipt was in `response`).
     */
    signature: text("signature"),
    /** The `iss` of the signed receipt, with `signature`. */
    issuer: text("issuer"),
  },
  (t) => [
    uniqueIndex("reports_submission_uq").on(t.projectId, t.submissionId),
    index("reports_resolution_idx").on(t.resolutionId),
    // a project's reports in a time window (activity summaries; migration 0005)
    index("reports_project_created_idx").on(t.projectId, t.createdAt),
  ],
);

export const reportResults = sqliteTable(
  "report_results",
  {
    reportId: text("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    talentId: text("talent_id").notNull(),
    kind: text("kind", { enum: ["talent", "expertise"] }).notNull(),
    verdict: text("verdict", { enum: ["pass", "fail", "not_applicable"] }).notNull(),
    evidence: text("evidence", { mode: "json" }).$type<string[]>().notNull(),
    missing: text("missing", { mode: "json" }).$type<string[]>().notNull(),
    note: text("note"),
    /** The result's place in its report, from 0: a replay answers the results in the order they were recorded. */
    position: integer("position").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.talentId] })],
);
