/**
 * A designation's items as prepare-task writes them (prepare.ts): each talent's pinned-files manifest, the items'
 * INSERT with every column but two written as literals, and the designation's id from its digest.
 */
import type { Talent } from "../catalog/format";
import { digestOf } from "../lib/crypto";
import { keptByIdentity } from "../lib/kept";

/**
 * A talent's pinned files (path → digest) as a content-addressed blob: its JSON, and what an
 * item stores in `files` — the blob's digest as a JSON string, 73 bytes instead of the map (the
 * same map for every resolution of that version was most of the bytes a resolution wrote:
 * docs/performance.md: prepare-task is bound by the commits' writes). `pinned.ts` reads both forms: rows
 * written before this hold the map itself.
 */
const manifests = keptByIdentity<Talent, { content: string; digest: string; column: string }>("A talent's manifest");
export function manifestOf(talent: Talent): { content: string; digest: string; column: string } {
  let m = manifests.get(talent);
  if (m === undefined) {
    const files: Record<string, string> = {};
    for (const f of talent.files.values()) files[f.path] = f.digest;
    const content = JSON.stringify(files);
    const digest = digestOf(content);
    m = { content, digest, column: JSON.stringify(digest) };
    manifests.set(talent, m);
  }
  return m;
}

/** An SQL string literal (quotes doubled), or NULL. */
const literal = (v: string | null): string => (v === null ? "NULL" : `'${v.replace(/'/g, "''")}'`);

/** An item's columns after its position, as SQL literals: fixed by the talent's version (kept per talent object). */
const itemTuples = keptByIdentity<Talent, Map<string, string>>("A talent's item tuples");
function itemTuple(d: { id: string; kind: string; version: string; expertiseId: string | null; talent: Talent }): string {
  let byItem = itemTuples.get(d.talent);
  if (!byItem) itemTuples.set(d.talent, (byItem = new Map()));
  const key = `${d.id}\n${d.kind}\n${d.version}\n${d.expertiseId ?? ""}`;
  let tuple = byItem.get(key);
  if (tuple === undefined) {
    tuple = [d.id, d.kind, d.version, d.talent.compactDigest, d.talent.digest, manifestOf(d.talent).column, d.expertiseId]
      .map(literal)
      .join(", ");
    byItem.set(key, tuple);
  }
  return tuple;
}

/**
 * The INSERT of a designation's items, one statement binding two arguments (the designation id
 * and the project id): every other column is fixed by the designated talents' versions and
 * written into the statement as literals, so a designation made again reuses the writer
 * thread's prepared statement. Binding arguments was most of the writer's work per prepare-task
 * (~0.65 µs each through libsql: 90 of them for ten items, ~60 of a job's ~130 µs; docs/performance.md).
 * ON CONFLICT DO NOTHING (SQLite's OR IGNORE, written so PostgreSQL reads it too): two calls
 * serving a new designation at once both write it; the rows are the same.
 */
export function itemsInsert(
  designated: { id: string; kind: string; version: string; expertiseId: string | null; talent: Talent }[],
): string {
  const columns = "designation_id, position, project_id, talent_id, kind, version, digest, definition_digest, files, expertise_id";
  const rows = designated.map((d, i) => `(?1, ${i}, ?2, ${itemTuple(d)})`).join(", ");
  return `INSERT INTO designation_items (${columns}) VALUES ${rows} ON CONFLICT DO NOTHING`;
}

/**
 * A project's designation of these items, in this order: `dsg_` + 32 hex characters of the
 * digest of the project and the items' columns. Resolutions that serve the same talents at the
 * same versions in the same order share it, so a prepare-task writes its items only the first
 * time (docs/performance.md: the items were ten of a call's eleven rows, most of its writer time and bytes).
 */
export function designationOf(projectId: string, itemsSql: string): string {
  return `dsg_${digestOf(`${projectId}\n${itemsSql}`).slice(7, 39)}`;
}
