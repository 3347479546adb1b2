/**
 * The expertise writes that the organization's audit log records (src/audit/): each calls the
 * service in the caller's transaction and appends its entry there, so the write and its entry
 * commit together. Routes and pages call these, never the bare writes.
 */
import type { Catalog } from "../catalog/catalog";
import type { CatalogDeps } from "../catalog/state";
import { validationFailed } from "../http/errors";
import type { Triggers } from "../catalog/format";
import type { Tx } from "../db/client";
import { record, userActor, type AuditActor } from "../audit/record";
import type { LifecycleOperation } from "./lifecycle";
import { parseTriggersBody, type CreateInput, type PatchInput } from "./model";
import { normalizeTriggers } from "./triggers";
import {
  changeLifecycle,
  confirmTriggers,
  createExpertise,
  deleteExpertise,
  findExpertise,
  publishExpertise,
  updateWorkingVersion,
  type ExpertiseRow,
  type OrgRef,
  type PublishResult,
} from "./service";

/** One entry about an expertise of `row`'s organization. */
function recordExpertise(
  tx: Tx,
  row: ExpertiseRow,
  actor: AuditActor,
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  return record(tx, { organizationId: row.organizationId, actor, action, object: { kind: "expertise", id: row.id }, before, after });
}

/** Creates a draft (expertise.created). */
export async function createAudited(tx: Tx, input: CreateInput & { organizationId: string }, actor: AuditActor): Promise<ExpertiseRow> {
  const row = await createExpertise(tx, { ...input, userId: actor.id });
  await recordExpertise(tx, row, actor, "expertise.created", null, { slug: row.slug, status: row.status, revision: row.revision });
  return row;
}

/** A new working version (expertise.updated: the revision before and after). */
export async function updateAudited(
  tx: Tx,
  organizationId: string,
  id: string,
  input: PatchInput,
  actor: AuditActor,
): Promise<ExpertiseRow> {
  const row = await updateWorkingVersion(tx, organizationId, id, input);
  await recordExpertise(tx, row, actor, "expertise.updated", { revision: row.revision - 1 }, { revision: row.revision });
  return row;
}

/** Confirms the triggers (expertise.triggers_confirmed, with the previous set). */
export async function confirmTriggersAudited(
  tx: Tx,
  organizationId: string,
  id: string,
  triggers: Triggers,
  expectedRevision: number | undefined,
  actor: AuditActor,
): Promise<ExpertiseRow> {
  const before = await findExpertise(tx, organizationId, id);
  const row = await confirmTriggers(tx, organizationId, id, triggers, expectedRevision);
  await recordExpertise(tx, row, actor, "expertise.triggers_confirmed", { triggers: before.triggers }, { triggers });
  return row;
}

/** The most acknowledged content findings one audit entry names (their count is always there). */
const ACKNOWLEDGED_NAMED = 20;

/**
 * Publishes (expertise.published), recorded when a version was added or the status moved; findings of the
 * content check the publisher acknowledged are in the entry (`acknowledgedContent`: their count and the first ones).
 */
export async function publishAudited(
  tx: Tx,
  org: OrgRef,
  id: string,
  actor: AuditActor,
  catalog: Catalog | null,
  opts: Parameters<typeof publishExpertise>[5],
): Promise<PublishResult> {
  const before = await findExpertise(tx, org.id, id);
  const r = await publishExpertise(tx, org, id, actor.id, catalog, opts);
  if (r.created || r.row.status !== before.status) {
    await recordExpertise(
      tx,
      r.row,
      actor,
      "expertise.published",
      { status: before.status, publishedVersion: before.publishedVersion },
      {
        status: r.row.status,
        publishedVersion: r.version,
        ...(r.acknowledged.length > 0 && {
          acknowledgedContent: {
            count: r.acknowledged.length,
            findings: r.acknowledged.slice(0, ACKNOWLEDGED_NAMED).map((f) => `${f.path}: ${f.message}`),
          },
        }),
      },
    );
  }
  return r;
}

/** activate, deactivate, reactivate (expertise.activated, …): the status before and after. */
export async function lifecycleAudited(
  tx: Tx,
  organizationId: string,
  id: string,
  op: Exclude<LifecycleOperation, "publish">,
  actor: AuditActor,
): Promise<ExpertiseRow> {
  const before = await findExpertise(tx, organizationId, id);
  const row = await changeLifecycle(tx, organizationId, id, op);
  await recordExpertise(tx, row, actor, `expertise.${op}d`, { status: before.status }, { status: row.status });
  return row;
}

/** Soft delete (expertise.deleted: its slug and status before). */
export async function deleteAudited(tx: Tx, organizationId: string, id: string, actor: AuditActor): Promise<void> {
  const before = await findExpertise(tx, organizationId, id);
  await deleteExpertise(tx, organizationId, id);
  await recordExpertise(tx, before, actor, "expertise.deleted", { slug: before.slug, status: before.status }, null);
}

/**
 * Confirms an expertise's triggers from a body (JSON, or a form's text with one per line): 400 validation_failed with
 * an issue per bad line (`files[2]`), 409 expertise_revision_conflict for a stale `expectedRevision`. Returns the row.
 * `PUT …/:id/triggers` and the expertise page's trigger form without JavaScript (pages.tsx).
 */
export async function confirmTriggersOfBody(
  db: CatalogDeps["database"],
  organizationId: string,
  id: string,
  body: unknown,
  form: boolean,
  user: { id: string; email: string },
) {
  const input = parseTriggersBody(body, form);
  const { triggers, issues } = normalizeTriggers(input);
  if (issues.length > 0) throw validationFailed(issues);
  return db.write((tx) => confirmTriggersAudited(tx, organizationId, id, triggers, input.expectedRevision, userActor(user)));
}
