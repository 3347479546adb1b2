/**
 * What the agent loop may serve of an organization's expertises: active, not deleted ones at
 * their latest published version, and any published version by number (pinned reads).
 *
 * A version is immutable: its TALENT.md and files live in the content-addressed blob store and
 * the Talent built from them is cached in memory by (expertise, version, digests). The served
 * Talent is the validator's, with two fields set from the version: `version` is the version
 * number as a string, and `triggers` are the triggers confirmed when it was published.
 * Returned objects are shared by the cache: callers must not mutate them.
 */
import type { Catalog } from "../catalog/catalog";
import type { Talent, Triggers } from "../catalog/format";
import type { Database } from "../db/client";
import { getBlobs } from "../db/blobs";
import { keptAll } from "../db/versionMemo";
import { kept, keptByIdentity } from "../lib/kept";
import { refOf, validateExpertise } from "./verify";
import { declaredVersion } from "./working";

export interface ServableExpertise {
  expertiseId: string;
  /** `@org-slug/slug` */
  ref: string;
  version: number;
  /** id === ref, kind "expertise", uri "talent://" + ref, version String(version). */
  talent: Talent;
  /** The version its author wrote in the front matter (`version: 1.0.0`), or null: pages say both (versionLabel). */
  declaredVersion: string | null;
}

interface VersionRow {
  expertise_id: string;
  slug: string;
  org_slug: string;
  version: number;
  content_digest: string;
  files: string;
  triggers: string;
}

/** A version's Talent and the version its author declared. */
interface BuiltVersion {
  talent: Talent;
  declared: string | null;
}

const cache = kept<string, BuiltVersion | null>("An expertise version's Talent and declared version (null: no longer validates)", {
  clock: "immutable",
  limit: 1000,
  order: "used",
});

/** Builds (or reuses) the Talent of a stored version; undefined if its bytes no longer validate. */
async function talentOfVersion(database: Database, row: VersionRow): Promise<BuiltVersion | undefined> {
  const files = JSON.parse(row.files) as Record<string, string>;
  const fileKeys = Object.entries(files)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([p, d]) => `${p}=${d}`)
    .join(",");
  const key = `${row.expertise_id}@${row.version}|${row.org_slug}/${row.slug}|${row.content_digest}|${fileKeys}`;
  if (cache.has(key)) {
    // get refreshes its place (least recently used goes first); null is kept too (bytes that no longer validate)
    const hit = cache.get(key)!;
    return hit ?? undefined;
  }
  const blobs = await getBlobs(database, [row.content_digest, ...Object.values(files)]);
  const content = blobs.get(row.content_digest);
  const fileTexts: Record<string, string> = {};
  let complete = content !== undefined;
  for (const [p, d] of Object.entries(files)) {
    const text = blobs.get(d);
    if (text === undefined) complete = false;
    else fileTexts[p] = text;
  }
  let built: BuiltVersion | null = null;
  if (complete) {
    const r = validateExpertise({ orgSlug: row.org_slug, slug: row.slug, content: content!, files: fileTexts });
    if (r.talent) {
      const triggers = JSON.parse(row.triggers) as Triggers;
      const talent = {
        ...r.talent,
        version: String(row.version),
        triggers: { files: [...triggers.files], keywords: [...triggers.keywords] },
      };
      built = { talent, declared: declaredVersion(content!) };
    }
  }
  if (!complete) return undefined; // not cached: a blob is missing (should never happen)
  cache.set(key, built);
  return built ?? undefined;
}

const SELECT = `SELECT e.id AS expertise_id, e.slug AS slug, o.slug AS org_slug, v.version AS version,
  v.content_digest AS content_digest, v.files AS files, v.triggers AS triggers
  FROM expertises e
  JOIN organizations o ON o.id = e.organization_id
  JOIN expertise_versions v ON v.expertise_id = e.id`;

async function toServable(database: Database, rows: readonly VersionRow[]): Promise<ServableExpertise[]> {
  const out: ServableExpertise[] = [];
  for (const row of rows) {
    const built = await talentOfVersion(database, row);
    if (built)
      out.push({
        expertiseId: row.expertise_id,
        ref: refOf(row.org_slug, row.slug),
        version: Number(row.version),
        talent: built.talent,
        declaredVersion: built.declared,
      });
  }
  return out;
}

/** Active, not deleted expertises of an organization, each at its latest published version, by slug. */
export async function listServableExpertises(
  database: Database,
  organizationId: string,
  _catalog: Catalog,
): Promise<readonly ServableExpertise[]> {
  // rows kept for the data version, and what they serve kept by the rows (versions are frozen, blobs content-addressed)
  const rows = await keptAll<VersionRow>(database, SERVABLE_SQL, [organizationId]);
  const hit = servableOf.get(rows);
  if (hit) return hit;
  const out = await toServable(database, rows);
  servableOf.set(rows, out);
  return out;
}

const SERVABLE_SQL = `${SELECT} AND v.version = e.published_version
     WHERE e.organization_id = ? AND e.status = 'active' AND e.deleted_at IS NULL
     ORDER BY e.slug`;
const servableOf = keptByIdentity<readonly VersionRow[], readonly ServableExpertise[]>("Servable expertises of an organization");

/** One by ref (`@org/slug`) within the organization, or undefined if unknown/not active/deleted/never published. */
export async function getServableExpertise(
  database: Database,
  organizationId: string,
  ref: string,
  _catalog: Catalog,
): Promise<ServableExpertise | undefined> {
  const m = /^@([^/]+)\/([^/]+)$/.exec(ref);
  if (!m) return undefined;
  const rows = await database.all<VersionRow>(
    `${SELECT} AND v.version = e.published_version
     WHERE e.organization_id = ? AND o.slug = ? AND e.slug = ? AND e.status = 'active' AND e.deleted_at IS NULL`,
    [organizationId, m[1]!, m[2]!],
  );
  return (await toServable(database, rows))[0];
}

/**
 * A published version by number, whatever the expertise's state now (inactive and deleted
 * expertises included: resolutions that pinned it still audit against it), or undefined.
 */
export async function getExpertiseVersion(
  database: Database,
  expertiseId: string,
  version: number,
  _catalog: Catalog,
): Promise<ServableExpertise | undefined> {
  if (!Number.isSafeInteger(version) || version < 1) return undefined;
  const rows = await database.all<VersionRow>(`${SELECT} AND v.version = ? WHERE e.id = ?`, [version, expertiseId]);
  return (await toServable(database, rows))[0];
}
