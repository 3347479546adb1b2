/**
 * Reading a frozen resolution: its items as served (versions, digests, file manifests) and the
 * rules and conformance tests of each pinned definition, parsed from the stored bytes — never
 * from the live catalog, so a resolution audits the same forever.
 */
import type { Detector } from "../catalog/detect";
import type { ConformanceTest, TalentRule } from "../catalog/format";
import { mapSkillFrontMatter } from "../catalog/skillFormat";
import { parseFrontMatterYaml, splitFrontMatter } from "../catalog/validate";
import { getBlob, getBlobs } from "../db/blobs";
import type { Database } from "../db/client";
import { notFound } from "../http/errors";
import { digestOf } from "../lib/crypto";
import { kept, keptEach } from "../lib/kept";
import { attach } from "../signing/jws";
import type { TalentKind } from "../selection/service";
import { manifestItemsJson, resolutionManifestJson } from "./attestation";

export interface PinnedItem {
  talentId: string;
  kind: TalentKind;
  version: string;
  digest: string;
  definitionDigest: string;
  files: Record<string, string>;
  /** The digest of the map `files` (the blob holding it): its `filesDigest` in the signed manifest. */
  filesDigest: string;
  position: number;
  /** The expertise of a private item (its version is `version`), else null. */
  expertiseId: string | null;
}

export interface PinnedResolution {
  id: string;
  projectId: string;
  language: string | null;
  tokens: number;
  createdAt: number;
  catalogDigest: string;
  /** Its signed manifest whole (a compact JWS), frozen before migration sigstore; read it with attestationOf. */
  attestation: string | null;
  /** Its manifest's detached JWS and the `iss` it was signed with (attestationOf), or null (signing off). */
  signature: string | null;
  issuer: string | null;
  /** The claims its manifest signed over the answer's other fields and the playbook's rules (JSON text), null before they existed. */
  claims: string | null;
  items: PinnedItem[];
}

/**
 * A resolution's signed manifest as a compact JWS, or null when it was not signed: stored whole
 * before migration sigstore, since then the signature alone, its payload written again from the row
 * and its items as attestation.ts wrote it when signing (the same bytes, so the signature holds).
 */
export function attestationOf(res: PinnedResolution): string | null {
  if (res.attestation) return res.attestation;
  if (!res.signature) return null;
  const itemsJson = manifestItemsJson(
    res.items.map((i) => ({
      id: i.talentId,
      kind: i.kind,
      version: i.version,
      digest: i.digest,
      definitionDigest: i.definitionDigest,
      filesDigest: i.filesDigest,
    })),
  );
  const manifest = { iss: res.issuer ?? "", resolutionId: res.id, projectId: res.projectId, createdAt: res.createdAt };
  return attach(
    res.signature,
    resolutionManifestJson({ ...manifest, catalogDigest: res.catalogDigest, itemsJson, claimsJson: res.claims }),
  );
}

/**
 * The items of resolutions read recently. A resolution's items (its designation's: written with
 * it, or by an earlier resolution of the same designation) are committed no later than it and
 * never change, so once its row is found (read every time: deletion and the project check stay
 * exact) the cached items are its items. Measured: reading the 10 item rows
 * was about 70 µs of each pinned read under load (docs/performance.md).
 */
const itemCaches = keptEach<Database, string, readonly PinnedItem[]>("A resolution's items by resolution id", {
  clock: "immutable",
  limit: 1_000,
  per: "database",
});

/** A resolution of the project with its items in served order; 404 for unknown or another project's. */
export async function loadResolution(database: Database, projectId: string, resolutionId: string): Promise<PinnedResolution> {
  const r = await database.get<Omit<PinnedResolution, "items">>(
    "SELECT id, project_id AS projectId, language, tokens, created_at AS createdAt, catalog_digest AS catalogDigest, attestation, " +
      "signature, issuer, claims FROM resolutions WHERE id = ?",
    [resolutionId],
  );
  if (!r || r.projectId !== projectId) throw notFound(`No resolution ${resolutionId} in this project.`);
  const cache = itemCaches.of(database);
  let items = cache.get(resolutionId);
  if (!items) {
    const rows = await database.all<Omit<PinnedItem, "files" | "filesDigest"> & { files: string }>(
      `SELECT talent_id AS talentId, kind, version, digest, definition_digest AS definitionDigest, files, position, expertise_id AS expertiseId
       FROM resolution_items WHERE resolution_id = ? ORDER BY position`,
      [resolutionId],
    );
    // `files`: the map itself (rows written before 2026-11-23), or the digest of the blob that holds it (prepare.ts manifestOf)
    const column = rows.map((x) => JSON.parse(x.files) as Record<string, string> | string);
    const manifests = await getBlobs(database, [...new Set(column.filter((f): f is string => typeof f === "string"))]);
    items = Object.freeze(
      rows.map((x, i) => {
        const f = column[i]!;
        if (typeof f === "string" && !manifests.has(f))
          throw new Error(`resolution ${resolutionId}: the blob ${f} of its pinned files is missing`);
        const files = typeof f === "string" ? (JSON.parse(manifests.get(f)!) as Record<string, string>) : f;
        const filesDigest = typeof f === "string" ? f : digestOf(JSON.stringify(f)); // the map's blob digest (prepare.ts manifestOf)
        return Object.freeze({ ...x, files: Object.freeze(files), filesDigest });
      }),
    );
    cache.set(resolutionId, items);
  }
  return { ...r, items: items as PinnedItem[] };
}

export interface PinnedDefinition {
  title: string;
  summary: string;
  rules: TalentRule[];
  tests: ConformanceTest[];
  mainFile: string;
  /** `triggers.files` as served: the files a detector without its own `files` applies to. */
  triggerFiles: string[];
}

const DEFINITION_CACHE_MAX = 5000;
const definitions = kept<string, PinnedDefinition>("Parsed definition by digest", { clock: "immutable", limit: DEFINITION_CACHE_MAX });

/** The rules and tests of a pinned item, parsed from its stored main file (cached: immutable). */
export async function pinnedDefinition(database: Database, item: PinnedItem): Promise<PinnedDefinition> {
  const cached = definitions.get(item.definitionDigest);
  if (cached) return cached;
  const mainFile =
    item.files["TALENT.md"] === item.definitionDigest
      ? "TALENT.md"
      : item.files["SKILL.md"] === item.definitionDigest
        ? "SKILL.md"
        : "TALENT.md";
  const text = await getBlob(database, item.definitionDigest);
  if (text === undefined) throw new Error(`blob ${item.definitionDigest} of ${item.talentId} is missing`);
  return definitionOfText(item.definitionDigest, text, mainFile, item.talentId);
}

/**
 * A definition parsed from its main file's text (cached by its digest, with pinnedDefinition's):
 * prepare-task reads the talent it is about to pin this way, so the claims it signs over the
 * playbook's rules come from the very parse the playbook serves.
 */
export function definitionOfText(definitionDigest: string, text: string, mainFile: string, talentId: string): PinnedDefinition {
  const cached = definitions.get(definitionDigest);
  if (cached) return cached;
  const split = splitFrontMatter(text);
  const parsed = split ? parseFrontMatterYaml(split.yaml) : { error: "no front matter" };
  const fm = ("value" in parsed && parsed.value && typeof parsed.value === "object" ? parsed.value : {}) as Record<string, unknown>;
  // a SKILL.md carries its talent fields in metadata (catalog/skillFormat.ts), read as the validator reads them
  const fields = (mainFile === "SKILL.md" ? mapSkillFrontMatter(fm).fields : fm) as Record<string, unknown>;
  const def: PinnedDefinition = {
    // trimmed as the validator trims them, so a folded YAML scalar reads as in the catalog
    title: String(fields.title ?? fm.name ?? talentId).trim(),
    summary: String(fm.summary ?? fm.description ?? "").trim(),
    rules: Array.isArray(fields.rules)
      ? (fields.rules as TalentRule[]).map((r) => ({
          id: r.id,
          severity: r.severity,
          title: String(r.title).trim(),
          check: String(r.check).trim(),
          // validated when the talent was loaded or published; read back as written
          ...(Array.isArray(r.detect) && r.detect.length > 0 ? { detect: r.detect.map(pinnedDetector) } : {}),
          ...(r.blocks === true ? { blocks: true as const } : {}),
        }))
      : [],
    tests: Array.isArray(fields.tests)
      ? (fields.tests as ConformanceTest[]).map((t) => ({ rule: t.rule, pass: String(t.pass), fail: String(t.fail) }))
      : [],
    mainFile,
    triggerFiles: readTriggerFiles(fields.triggers),
  };
  definitions.set(definitionDigest, def);
  return def;
}

function pinnedDetector(d: Detector): Detector {
  return {
    pattern: String(d.pattern),
    ...(d.flags ? { flags: String(d.flags) } : {}),
    ...(Array.isArray(d.files) ? { files: d.files.map(String) } : {}),
    ...(Array.isArray(d.scan) ? { scan: d.scan.map(String) } : {}),
    ...(typeof d.unless === "string" ? { unless: d.unless } : {}),
  };
}

function readTriggerFiles(triggers: unknown): string[] {
  const files = triggers && typeof triggers === "object" ? (triggers as { files?: unknown }).files : undefined;
  return Array.isArray(files) ? files.map(String) : [];
}

const servedTriggers = kept<string, string[]>("An expertise version's trigger files", { clock: "immutable", limit: DEFINITION_CACHE_MAX });

/**
 * The `triggers.files` a pinned item was served with: a public talent's from its TALENT.md; an
 * expertise's are the triggers confirmed when that version was published (the version row is
 * immutable and outlives a deactivation or a deletion, which are soft), else its TALENT.md's.
 * A detector without its own `files` applies to these.
 */
export async function pinnedTriggerFiles(database: Database, item: PinnedItem, def: PinnedDefinition): Promise<string[]> {
  if (item.kind !== "expertise" || !item.expertiseId) return def.triggerFiles;
  const key = `${item.expertiseId}@${item.version}`;
  const known = servedTriggers.get(key);
  if (known) return known;
  const row = await database.get<{ triggers: string }>("SELECT triggers FROM expertise_versions WHERE expertise_id = ? AND version = ?", [
    item.expertiseId,
    Number(item.version),
  ]);
  const files = row ? ((JSON.parse(row.triggers) as { files?: string[] }).files ?? []) : def.triggerFiles;
  servedTriggers.set(key, files);
  return files;
}
