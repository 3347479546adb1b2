/**
 * Every installed talent of an organization's projects, for insights (projects at fault) and
 * adoption (projects installed / active): one query, memoized by the organization's selection
 * fingerprint — each project's id and `selection_rev`, which triggers bump on every change to
 * its installed talents (migration 0002), so a new, deleted or changed selection reads afresh.
 */
import type { Database } from "../db/client";
import { keptGet } from "../db/versionMemo";
import { keptEach } from "../lib/kept";

export interface OrgSelectionRow {
  project_id: string;
  talent_id: string;
  kind: "talent" | "expertise";
  enabled: number;
  installed_by: string | null;
  installed_at: number;
  updated_at: number;
}

/** The organization's projects and their selection revisions, read once per data version. */
const FINGERPRINT = {
  sqlite:
    "SELECT group_concat(id || ':' || selection_rev, ',') AS fp " +
    "FROM (SELECT id, selection_rev FROM projects WHERE organization_id = ? ORDER BY id)",
  postgres: "SELECT string_agg(id || ':' || selection_rev, ',' ORDER BY id) AS fp FROM projects WHERE organization_id = ?",
};
const memos = keptEach<Database, string, { fingerprint: string; rows: OrgSelectionRow[] }>("An organization's installed rows", {
  clock: "configuration epoch",
  limit: 1_000,
  per: "database",
});

/** The installed rows of every project of the organization, by project and installation order. */
export async function orgSelections(
  database: Database,
  organizationId: string,
): Promise<{ fingerprint: string; rows: readonly OrgSelectionRow[] }> {
  const fingerprint = (await keptGet<{ fp: string | null }>(database, FINGERPRINT[database.dialect], [organizationId]))?.fp ?? "";
  const memo = memos.of(database);
  const hit = memo.get(organizationId);
  if (hit && hit.fingerprint === fingerprint) return hit;
  const rows = await database.all<OrgSelectionRow>(
    `SELECT it.project_id, it.talent_id, it.kind, it.enabled, it.installed_by, it.installed_at, it.updated_at
     FROM installed_talents it JOIN projects p ON p.id = it.project_id WHERE p.organization_id = ?
       ORDER BY it.project_id, it.installed_at, it.talent_id`,
    [organizationId],
  );
  const value = { fingerprint, rows };
  memo.set(organizationId, value);
  return value;
}
