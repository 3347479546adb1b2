/**
 * Writing imported rule files as drafts (docs/design.md "Importing rule files"): every file of a
 * request becomes one draft expertise in one transaction — all or nothing. A draft is never
 * served: resolution serves active expertises only, and a person publishes and activates it.
 */
import { eq } from "drizzle-orm";
import { findMembership } from "../auth/memberships";
import { ROLE_RANK } from "../auth/session";
import type { KeyPrincipal } from "../auth/key";
import type { Database, Tx } from "../db/client";
import { expertises } from "../db/schema";
import { AppError } from "../http/errors";
import type { OrgMembership } from "../tenancy/service";
import { draftOf, type ImportFile } from "./imports";
import { freeSlugs, talentMdOf } from "./importText";
import { skippedLines, type SkippedLine } from "./importSkipped";
import { createExpertise, expertiseNotFound } from "./service";
import { pageOf } from "./views/list";
import { refOf, validateExpertise } from "./verify";

/** Who imports: an owner or admin of the organization, by session or through a key with the import scope. */
export interface Importer {
  org: OrgMembership;
  userId: string;
}

/**
 * The importer of a request the `orgOrKey` guard let through: a session's member who is not an
 * owner or admin is told the route does not exist (404, as every expertise route); a key whose
 * creator is not one (any more) gets 403 forbidden.
 */
export async function importerOf(
  database: Database,
  caller: { auth?: { user: { id: string } }; org?: OrgMembership; principal?: KeyPrincipal },
): Promise<Importer> {
  if (caller.principal) {
    const p = caller.principal;
    const org = await findMembership(database, p.userId, p.organizationId);
    if (!org || ROLE_RANK[org.role] < ROLE_RANK.admin) {
      throw new AppError("forbidden", "Importing rule files needs a key created by an owner or admin of the organization.");
    }
    return { org, userId: p.userId };
  }
  const org = caller.org!;
  if (ROLE_RANK[org.role] < ROLE_RANK.admin) throw expertiseNotFound();
  return { org, userId: caller.auth!.user.id };
}

/** One imported draft as the answer lists it. */
export interface ImportedView {
  id: string;
  ref: string;
  slug: string;
  path: string;
  format: string;
  title: string;
  status: "draft";
  rules: { id: string; severity: "advisory"; title: string }[];
  triggers: { files: string[]; keywords: string[] };
  /** The content check's findings on the text (shown on the draft; acknowledged before publication). */
  contentFindings: number;
  notes: string[];
  /** Each line of the file that became no rule and is not a heading or plain prose kept in the body, with why (importSkipped.ts). */
  skipped: SkippedLine[];
  /** The dashboard's editor of the draft. */
  editor: string;
}

/** Writes one draft per file (slugs made free in the organization), in the caller's transaction. */
export async function importDrafts(tx: Tx, importer: Importer, files: ImportFile[]): Promise<ImportedView[]> {
  const drafts = files.map(draftOf);
  const taken = await tx.select({ slug: expertises.slug }).from(expertises).where(eq(expertises.organizationId, importer.org.id));
  const slugs = freeSlugs(
    drafts.map((d) => d.slug),
    new Set(taken.map((t) => t.slug)),
  );
  const out: ImportedView[] = [];
  for (const [i, d] of drafts.entries()) {
    const slug = slugs[i]!;
    const content = talentMdOf(d, slug, files[i]!.content);
    const row = await createExpertise(tx, { slug, content, files: {}, organizationId: importer.org.id, userId: importer.userId });
    const check = validateExpertise({ orgSlug: importer.org.slug, slug, content, files: {} });
    out.push({
      id: row.id,
      ref: refOf(importer.org.slug, slug),
      slug,
      path: d.path,
      format: d.format,
      title: d.title,
      status: "draft",
      rules: d.rules.map((r) => ({ id: r.id, severity: r.severity, title: r.title })),
      triggers: d.triggers,
      contentFindings: check.content.length,
      notes: d.notes,
      skipped: skippedLines(files[i]!.content, slug),
      editor: pageOf(row.id),
    });
  }
  return out;
}
