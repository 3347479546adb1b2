/**
 * The authoring form's answer to a taken slug (docs/design.md "Authoring an expertise with a form"): the organization's
 * expertise that holds the slug, offered beside the slug field, and "Save as a new version", which writes the form as a
 * new working (draft) version of that expertise through the YAML editor's own write (`parsePatch`, `updateAudited`, the
 * revision check). Nothing is published: that stays the explicit publish step.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { expertises } from "../db/schema";
import { validationFailed } from "../http/errors";
import type { AuditActor } from "../audit/record";
import { talentMdOfFields, type AuthoringFields } from "./authoring";
import { updateAudited } from "./audited";
import { parsePatch } from "./model";
import { findExpertise } from "./service";

/** The expertise a slug belongs to, when it is not deleted: what the refused form offers to save a version of. */
export interface TakenSlug {
  id: string;
  slug: string;
  revision: number;
}

/** The organization's live expertise with this slug, or null (none, or a deleted one: its slug stays reserved, with no offer). */
export async function takenBy(database: Database, organizationId: string, slug: string): Promise<TakenSlug | null> {
  const rows = await database.db
    .select({ id: expertises.id, slug: expertises.slug, revision: expertises.revision })
    .from(expertises)
    .where(and(eq(expertises.organizationId, organizationId), eq(expertises.slug, slug), isNull(expertises.deletedAt)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Writes the form as a new working version of expertise `id` of the organization (404 when it is not one of its
 * expertises): the slug typed must still be that expertise's (400 under the slug otherwise); `expectedRevision` is the
 * revision the offer was made at (409 expertise_revision_conflict when someone saved since). What the form does not
 * show is kept from the working version, as an edit by the form keeps it.
 */
export async function saveAsNewVersion(
  database: Database,
  organizationId: string,
  target: { id: string; slug: string; expectedRevision: unknown },
  fields: AuthoringFields,
  actor: AuditActor,
) {
  const row = await findExpertise(database, organizationId, target.id);
  if (row.slug !== target.slug) {
    const message =
      `"Save as a new version" writes to the expertise "${row.slug}", but the slug is now "${target.slug}": ` +
      "set it back, or create a new draft.";
    throw validationFailed([{ path: "slug", message }]);
  }
  const input = parsePatch({ expectedRevision: target.expectedRevision, content: talentMdOfFields(fields, row.slug, row.workingContent) });
  return database.write((tx) => updateAudited(tx, organizationId, row.id, input, actor));
}
