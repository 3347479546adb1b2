/**
 * What the working version says of itself beside its confirmed state: the triggers it declares in
 * its front matter (taken as confirmed when none were confirmed by hand), the version it declares
 * (`version: 1.0.0`, shown as written), and whether it differs from the latest published version
 * (what decides if "Publish" is still the thing to do).
 */
import { inArray } from "drizzle-orm";
import type { Triggers } from "../catalog/format";
import type { Database } from "../db/client";
import { getBlobs } from "../db/blobs";
import { expertiseVersions } from "../db/schema";
import { parseFrontMatterYaml, splitFrontMatter } from "../catalog/validate";
import { isSkillMdText, mapSkillFrontMatter } from "../catalog/skillFormat";
import { digestOf } from "../lib/crypto";
import { declaredTriggers } from "./triggers";

/** Where an expertise's triggers come from: confirmed by hand, written in the front matter, or nowhere yet. */
export type TriggerSource = "confirmed" | "front matter" | null;

/** The triggers publication uses: the ones confirmed by hand, else the ones written in the front matter. */
export function effectiveTriggers(row: { triggers: Triggers | null; triggersConfirmedAt: number | null; workingContent: string }): {
  triggers: Triggers | null;
  from: TriggerSource;
} {
  if (row.triggers && row.triggersConfirmedAt !== null) return { triggers: row.triggers, from: "confirmed" };
  const declared = declaredTriggers(row.workingContent);
  return declared ? { triggers: declared, from: "front matter" } : { triggers: null, from: null };
}

/** The `version` a TALENT.md (or a SKILL.md's metadata) declares, as written; null when none can be read. */
export function declaredVersion(content: string): string | null {
  const split = splitFrontMatter(content);
  if (!split) return null;
  const parsed = parseFrontMatterYaml(split.yaml);
  if (!("value" in parsed) || !parsed.value || typeof parsed.value !== "object") return null;
  let fm = parsed.value as Record<string, unknown>;
  if (isSkillMdText(content)) fm = { version: fm.version, ...mapSkillFrontMatter(fm).fields };
  const v = fm.version;
  return typeof v === "string" || typeof v === "number" ? String(v).trim() || null : null;
}

/** The digests publication compares: the TALENT.md's and each further file's, by sorted path. */
export function digestsOf(content: string, files: Record<string, string>): { contentDigest: string; files: Record<string, string> } {
  const fileDigests: Record<string, string> = {};
  for (const path of Object.keys(files).sort()) fileDigests[path] = digestOf(files[path]!);
  return { contentDigest: digestOf(content), files: fileDigests };
}

/** True when the working version and its triggers are what a published version holds (publishing would add nothing). */
export function sameAsVersion(
  working: { contentDigest: string; files: Record<string, string>; triggers: Triggers | null },
  version: { contentDigest: string; files: Record<string, string>; triggers: Triggers } | undefined,
): boolean {
  if (!version || !working.triggers) return false;
  const sorted = Object.fromEntries(Object.entries(version.files).sort(([a], [b]) => (a < b ? -1 : 1)));
  return (
    version.contentDigest === working.contentDigest &&
    JSON.stringify(sorted) === JSON.stringify(working.files) &&
    JSON.stringify(version.triggers) === JSON.stringify(working.triggers)
  );
}

/** The version each expertise's latest published version declares (`1.0.0`), by expertise id: one query and one blob read. */
export async function latestDeclaredVersions(
  database: Database,
  items: { id: string; publishedVersion: number }[],
): Promise<Map<string, string>> {
  const published = items.filter((i) => i.publishedVersion > 0);
  if (published.length === 0) return new Map();
  const latest = new Map(published.map((i) => [i.id, i.publishedVersion]));
  const rows = await database.db
    .select({ id: expertiseVersions.expertiseId, version: expertiseVersions.version, digest: expertiseVersions.contentDigest })
    .from(expertiseVersions)
    .where(inArray(expertiseVersions.expertiseId, [...latest.keys()]));
  const wanted = rows.filter((r) => latest.get(r.id) === r.version);
  const texts = await getBlobs(database, [...new Set(wanted.map((r) => r.digest))]);
  const out = new Map<string, string>();
  for (const r of wanted) {
    const v = declaredVersion(texts.get(r.digest) ?? "");
    if (v) out.set(r.id, v);
  }
  return out;
}
