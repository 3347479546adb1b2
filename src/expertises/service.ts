/**
 * Private expertises of an organization (docs/api-expertises.md): authoring of the working
 * version under an optimistic revision, trigger confirmation, publication into immutable
 * versions, the lifecycle, soft deletion, and the owner/admin views. Plain functions over the
 * database; every write runs inside the caller's `database.write` transaction.
 */
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Catalog } from "../catalog/catalog";
import type { Triggers } from "../catalog/format";
import { isSkillMdText, mapSkillFrontMatter } from "../catalog/skillFormat";
import { parseFrontMatterYaml, splitFrontMatter } from "../catalog/validate";
import type { Database, Tx } from "../db/client";
import { getBlobs, putBlob } from "../db/blobs";
import { expertises, expertiseVersions, users, type ExpertiseStatus } from "../db/schema";
import { AppError, notFound, validationFailed, type Issue } from "../http/errors";
import { newId } from "../lib/ids";
import { allowedOperations, nextStatus, type LifecycleOperation } from "./lifecycle";
import type { CreateInput, ListFilter, PatchInput } from "./model";
import { refOf, verifyExpertise } from "./verify";
import { declaredVersion, digestsOf, effectiveTriggers, latestDeclaredVersions, sameAsVersion } from "./working";
import { iso } from "../lib/time";

export type ExpertiseRow = typeof expertises.$inferSelect;
type Db = Database | Tx;
const drizzleOf = (d: Db) => ("db" in d ? d.db : d);

/** The organization an expertise belongs to, as the guard resolved it. */
export interface OrgRef {
  id: string;
  slug: string;
}

const NOT_FOUND = "No such expertise.";
export const expertiseNotFound = () => notFound(NOT_FOUND);

/** One expertise of the organization, not deleted; 404 otherwise (another organization's included). */
export async function findExpertise(d: Db, organizationId: string, id: string): Promise<ExpertiseRow> {
  const rows = await drizzleOf(d)
    .select()
    .from(expertises)
    .where(and(eq(expertises.id, id), eq(expertises.organizationId, organizationId), isNull(expertises.deletedAt)))
    .limit(1);
  if (!rows[0]) throw expertiseNotFound();
  return rows[0];
}

/** 409 expertise_revision_conflict carrying the server's working version. */
function revisionConflict(row: ExpertiseRow, expected: number): AppError {
  return new AppError(
    "expertise_revision_conflict",
    `The expertise is at revision ${row.revision}, not ${expected}: someone changed it since you read it. Compare with current and retry with expectedRevision ${row.revision}.`,
    {
      expectedRevision: expected,
      current: { revision: row.revision, content: row.workingContent, files: row.workingFiles, updatedAt: iso(row.updatedAt) },
    },
  );
}

/** Creates a draft. The content need not be valid yet; the slug must be free in the organization. */
export async function createExpertise(tx: Tx, input: CreateInput & { organizationId: string; userId: string }): Promise<ExpertiseRow> {
  const taken = await tx
    .select({ id: expertises.id, deletedAt: expertises.deletedAt })
    .from(expertises)
    .where(and(eq(expertises.organizationId, input.organizationId), eq(expertises.slug, input.slug)))
    .limit(1);
  if (taken[0]) {
    const why =
      taken[0].deletedAt !== null
        ? `The slug "${input.slug}" belonged to a deleted expertise and stays reserved (old resolutions still name it); choose another.`
        : `An expertise with the slug "${input.slug}" already exists in this organization.`;
    throw new AppError("conflict", why, { field: "slug" });
  }
  const now = Date.now();
  const row: ExpertiseRow = {
    id: newId("exp"),
    organizationId: input.organizationId,
    slug: input.slug,
    status: "draft",
    revision: 1,
    workingContent: input.content,
    workingFiles: input.files,
    triggers: null,
    triggersConfirmedAt: null,
    publishedVersion: 0,
    createdBy: input.userId,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await tx.insert(expertises).values(row);
  return row;
}

/**
 * A new working version. The revision check and increment are one conditional UPDATE
 * (`WHERE revision = expectedRevision`): of concurrent writers holding the same revision,
 * exactly one succeeds and the others get 409 with the server's version.
 * `files`, when sent, replaces the whole set of further files.
 */
export async function updateWorkingVersion(tx: Tx, organizationId: string, id: string, input: PatchInput): Promise<ExpertiseRow> {
  const set: Partial<typeof expertises.$inferInsert> = { updatedAt: Date.now() };
  if (input.content !== undefined) set.workingContent = input.content;
  if (input.files !== undefined) set.workingFiles = input.files;
  const updated = await tx
    .update(expertises)
    .set({ ...set, revision: sql`${expertises.revision} + 1` })
    .where(
      and(
        eq(expertises.id, id),
        eq(expertises.organizationId, organizationId),
        isNull(expertises.deletedAt),
        eq(expertises.revision, input.expectedRevision),
      ),
    )
    .returning();
  if (updated[0]) return updated[0];
  const current = await findExpertise(tx, organizationId, id); // 404 when it does not exist
  throw revisionConflict(current, input.expectedRevision);
}

/** Records the confirmed triggers (already normalized). Does not change the revision. */
export async function confirmTriggers(
  tx: Tx,
  organizationId: string,
  id: string,
  triggers: Triggers,
  expectedRevision?: number,
): Promise<ExpertiseRow> {
  const row = await findExpertise(tx, organizationId, id);
  if (expectedRevision !== undefined && expectedRevision !== row.revision) throw revisionConflict(row, expectedRevision);
  const now = Date.now();
  await tx.update(expertises).set({ triggers, triggersConfirmedAt: now, updatedAt: now }).where(eq(expertises.id, id));
  return { ...row, triggers, triggersConfirmedAt: now, updatedAt: now };
}

export interface PublishResult {
  row: ExpertiseRow;
  version: number;
  /** False when the working version and triggers equal the latest version: nothing was added. */
  created: boolean;
  /** The content check's findings the publisher acknowledged (acknowledgeContent), for the audit entry. */
  acknowledged: Issue[];
}

/**
 * Snapshots the working version (TALENT.md, files, triggers) into version N+1, after the validator
 * and the link checks pass (400 validation_failed with their findings) and there are triggers: the
 * confirmed ones, else those written in the front matter (409 invalid_transition, reason
 * triggers_not_confirmed, when neither). Publishing exactly what the latest version holds adds
 * nothing (idempotent, `created: false`). `serve`: the expertise is served at once (activated,
 * or reactivated), in the same transaction.
 */
export async function publishExpertise(
  tx: Tx,
  org: OrgRef,
  id: string,
  userId: string,
  catalog: Catalog | null,
  opts: { expectedRevision?: number; serve?: boolean; acknowledgeContent?: boolean } = {},
): Promise<PublishResult> {
  const row = await findExpertise(tx, org.id, id);
  if (opts.expectedRevision !== undefined && opts.expectedRevision !== row.revision) throw revisionConflict(row, opts.expectedRevision);
  if (!catalog) throw new AppError("not_ready", "The catalog is not loaded yet: publication checks links against it; retry in a moment.");
  const next = servedStatus(nextStatus(row.status, "publish"), opts.serve === true);
  const check = verifyExpertise({ orgSlug: org.slug, slug: row.slug, content: row.workingContent, files: row.workingFiles }, catalog);
  if (!check.valid) {
    throw validationFailed(
      check.issues,
      `The working version (revision ${row.revision}) cannot be published: ${check.issues.length} problem${check.issues.length === 1 ? "" : "s"} found by the talent validator.`,
    );
  }
  if (check.content.length > 0 && opts.acknowledgeContent !== true) {
    throw new AppError(
      "content_unacknowledged",
      `The content check found ${check.content.length} thing${check.content.length === 1 ? "" : "s"} in the working version that ` +
        "could steer an agent rather than its code: read them beside their lines, then publish with acknowledgeContent: true.",
      { findings: check.content },
    );
  }
  const acknowledged = check.content;
  const { triggers } = effectiveTriggers(row);
  if (!triggers) {
    throw new AppError(
      "invalid_transition",
      "Cannot publish: no triggers. Write them in the front matter (triggers: {files, keywords}), or ask for a proposal (POST " +
        "…/trigger-proposal) and confirm a set (PUT …/triggers).",
      { status: row.status, operation: "publish", reason: "triggers_not_confirmed", allowed: allowedOperations(row.status) },
    );
  }
  const digests = digestsOf(row.workingContent, row.workingFiles);
  const now = Date.now();
  if (row.publishedVersion > 0) {
    const latest = (
      await tx
        .select()
        .from(expertiseVersions)
        .where(and(eq(expertiseVersions.expertiseId, id), eq(expertiseVersions.version, row.publishedVersion)))
        .limit(1)
    )[0];
    if (sameAsVersion({ ...digests, triggers }, latest)) {
      if (next === row.status) return { row, version: row.publishedVersion, created: false, acknowledged };
      await tx.update(expertises).set({ status: next, updatedAt: now }).where(eq(expertises.id, id));
      return { row: { ...row, status: next, updatedAt: now }, version: row.publishedVersion, created: false, acknowledged };
    }
  }
  await putBlob(tx, row.workingContent);
  for (const path of Object.keys(row.workingFiles)) await putBlob(tx, row.workingFiles[path]!);
  const version = row.publishedVersion + 1;
  await tx.insert(expertiseVersions).values({
    expertiseId: id,
    version,
    contentDigest: digests.contentDigest,
    files: digests.files,
    triggers,
    publishedBy: userId,
    publishedAt: now,
  });
  await tx.update(expertises).set({ status: next, publishedVersion: version, updatedAt: now }).where(eq(expertises.id, id));
  return { row: { ...row, status: next, publishedVersion: version, updatedAt: now }, version, created: true, acknowledged };
}

/** The status after a publication that also serves: published → active, inactive → active (reactivated). */
function servedStatus(afterPublish: ExpertiseStatus, serve: boolean): ExpertiseStatus {
  return serve && (afterPublish === "published" || afterPublish === "inactive") ? "active" : afterPublish;
}

/** activate, deactivate, reactivate: the state machine of lifecycle.ts, or 409 invalid_transition. */
export async function changeLifecycle(
  tx: Tx,
  organizationId: string,
  id: string,
  op: Exclude<LifecycleOperation, "publish">,
): Promise<ExpertiseRow> {
  const row = await findExpertise(tx, organizationId, id);
  const next = nextStatus(row.status, op);
  const now = Date.now();
  await tx
    .update(expertises)
    .set({ status: next, updatedAt: now })
    .where(and(eq(expertises.id, id), eq(expertises.status, row.status)));
  return { ...row, status: next, updatedAt: now };
}

/** Soft delete: 404 everywhere afterwards, never served; published versions stay for pinned resolutions. */
export async function deleteExpertise(tx: Tx, organizationId: string, id: string): Promise<void> {
  await findExpertise(tx, organizationId, id);
  const now = Date.now();
  await tx.update(expertises).set({ deletedAt: now, updatedAt: now }).where(eq(expertises.id, id));
}

// ---- reads and views --------------------------------------------------------------------------

/** Title and summary of a TALENT.md (or SKILL.md) text, read leniently (null when unreadable). */
export function describeContent(content: string): { title: string | null; summary: string | null } {
  const split = splitFrontMatter(content);
  if (!split) return { title: null, summary: null };
  const parsed = parseFrontMatterYaml(split.yaml);
  if (!("value" in parsed) || !parsed.value || typeof parsed.value !== "object") return { title: null, summary: null };
  const fm = parsed.value as Record<string, unknown>;
  if (isSkillMdText(content)) {
    // a SKILL.md: title from metadata (else its name), summary = description
    const title = mapSkillFrontMatter(fm).fields.title ?? fm.name;
    return {
      title: typeof title === "string" ? title.trim() : null,
      summary: typeof fm.description === "string" ? fm.description.trim() : null,
    };
  }
  return {
    title: typeof fm.title === "string" ? fm.title.trim() : null,
    summary: typeof fm.summary === "string" ? fm.summary.trim() : null,
  };
}

export interface VersionView {
  version: number;
  publishedAt: string;
  publishedBy: { id: string; email: string | null } | null;
  contentDigest: string;
  files: Record<string, string>;
  triggers: Triggers;
}

/** Published versions of an expertise, oldest first. */
export async function listVersions(d: Db, expertiseId: string): Promise<VersionView[]> {
  const rows = await drizzleOf(d)
    .select({ v: expertiseVersions, email: users.email })
    .from(expertiseVersions)
    .leftJoin(users, eq(users.id, expertiseVersions.publishedBy))
    .where(eq(expertiseVersions.expertiseId, expertiseId))
    .orderBy(asc(expertiseVersions.version));
  return rows.map(({ v, email }) => ({
    version: v.version,
    publishedAt: iso(v.publishedAt)!,
    publishedBy: v.publishedBy ? { id: v.publishedBy, email: email ?? null } : null,
    contentDigest: v.contentDigest,
    files: v.files,
    triggers: v.triggers,
  }));
}

/** One published version with its bytes (owner/admin reading in the dashboard); 404 if unknown. */
export async function readVersion(database: Database, organizationId: string, id: string, version: number) {
  const row = await findExpertise(database, organizationId, id);
  const v = (await listVersions(database, id)).find((x) => x.version === version);
  if (!v) throw notFound(`The expertise has no version ${version} (latest: ${row.publishedVersion || "none"}).`);
  const blobs = await getBlobs(database, [v.contentDigest, ...Object.values(v.files)]);
  const files: Record<string, string> = {};
  for (const [p, d] of Object.entries(v.files)) files[p] = blobs.get(d) ?? "";
  return { ...v, content: blobs.get(v.contentDigest) ?? "", files, fileDigests: v.files };
}

/** The list item: no working content. */
export function summaryView(row: ExpertiseRow, orgSlug: string) {
  const { title, summary } = describeContent(row.workingContent);
  return {
    id: row.id,
    ref: refOf(orgSlug, row.slug),
    slug: row.slug,
    status: row.status,
    revision: row.revision,
    publishedVersion: row.publishedVersion,
    serving: row.status === "active" ? row.publishedVersion : null,
    title,
    summary,
    triggers: row.triggers,
    triggersConfirmedAt: iso(row.triggersConfirmedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The detail: working version, verification, versions, what can be done next. */
export async function detailView(d: Database, row: ExpertiseRow, orgSlug: string, catalog: Catalog | null) {
  const check = verifyExpertise({ orgSlug, slug: row.slug, content: row.workingContent, files: row.workingFiles }, catalog);
  const creator = row.createdBy
    ? ((await drizzleOf(d).select({ id: users.id, email: users.email }).from(users).where(eq(users.id, row.createdBy)).limit(1))[0] ?? null)
    : null;
  const triggers = effectiveTriggers(row);
  const versions = await listVersions(d, row.id);
  const texts = await getBlobs(
    d,
    versions.map((v) => v.contentDigest),
  );
  const latest = versions.at(-1);
  return {
    ...summaryView(row, orgSlug),
    working: { content: row.workingContent, files: row.workingFiles },
    declaredVersion: declaredVersion(row.workingContent),
    verification: {
      valid: check.valid,
      triggersConfirmed: triggers.from !== null,
      triggersFrom: triggers.from,
      publishable: check.valid && triggers.from !== null,
      issues: check.issues,
      content: check.content,
    },
    unpublishedChanges: !sameAsVersion({ ...digestsOf(row.workingContent, row.workingFiles), triggers: triggers.triggers }, latest),
    allowedOperations: allowedOperations(row.status),
    versions: versions.map((v) => ({ ...v, declaredVersion: declaredVersion(texts.get(v.contentDigest) ?? "") })),
    createdBy: creator,
  };
}

/** Lists the organization's expertises (not deleted), filtered, by slug. */
export async function listExpertises(database: Database, org: OrgRef, filter: ListFilter) {
  const conds = [eq(expertises.organizationId, org.id), isNull(expertises.deletedAt)];
  if (filter.statuses) conds.push(inArray(expertises.status, filter.statuses as ExpertiseStatus[]));
  const rows = await database.db
    .select()
    .from(expertises)
    .where(and(...conds))
    .orderBy(asc(expertises.slug));
  const text = filter.text?.toLowerCase();
  const trigger = filter.trigger;
  const items = rows
    .map((r) => summaryView(r, org.slug))
    .filter((v) => {
      if (text && ![v.slug, v.title ?? "", v.summary ?? ""].some((s) => s.toLowerCase().includes(text))) return false;
      if (trigger && !matchesTrigger(v.triggers, trigger)) return false;
      return true;
    });
  const declared = await latestDeclaredVersions(database, items);
  return items.map((v) => ({ ...v, publishedDeclaredVersion: declared.get(v.id) ?? null }));
}

/** A trigger filter value matches a confirmed keyword (case-insensitive), a glob (exactly), or a path a glob matches. */
export function matchesTrigger(triggers: Triggers | null, value: string): boolean {
  if (!triggers) return false;
  const lower = value.toLowerCase();
  if (triggers.keywords.some((k) => k === lower)) return true;
  if (triggers.files.includes(value)) return true;
  return triggers.files.some((g) => {
    try {
      return new Bun.Glob(g).match(value);
    } catch {
      return false;
    }
  });
}
