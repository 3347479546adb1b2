/**
 * What a project can be served: its installed and enabled talents, public ones from the
 * catalog and private expertises of its organization at their latest published version.
 */
import type { AuditActor } from "../audit/record";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import type { Database } from "../db/client";
import { keptByIdentity } from "../lib/kept";
import { getServableExpertise, listServableExpertises, type ServableExpertise } from "../expertises/servable";
import { installTalents, listInstalled, unknownTalents, type InstalledRow, type SelectionChange, type TalentKind } from "./service";

/** A talent as it would be served now. */
export interface ServableItem {
  id: string;
  kind: TalentKind;
  talent: Talent;
  /** semver of a public talent; the published version number of an expertise. */
  version: string;
  expertiseId: string | null;
}

export interface SourceDeps {
  database: Database;
  catalog: Catalog;
}

/** The project a read is for, with its organization (whose expertises it may be served). */
export interface ProjectRef {
  id: string;
  organizationId: string;
}

/** True for an expertise reference `@org-slug/slug`. */
export function isExpertiseRef(id: string): boolean {
  return id.startsWith("@");
}

/** The project's installed rows with, for each, what would be served (null: gone or not servable). */
export async function installedWithItems(deps: SourceDeps, project: ProjectRef) {
  const rows = await listInstalled(deps.database, project.id);
  const needsExpertises = rows.some((r) => r.kind === "expertise");
  const expertises = needsExpertises ? await listServableExpertises(deps.database, project.organizationId, deps.catalog) : [];
  return withItems(rows, expertises, deps.catalog);
}

/** Installed rows with what each would serve, given the organization's servable expertises (pure: the installed overview and insights judge with lists read once). */
export function withItems(
  rows: readonly InstalledRow[],
  expertises: readonly ServableExpertise[],
  catalog: Catalog,
): { row: InstalledRow; item: ServableItem | null }[] {
  const byRef = new Map(expertises.map((e) => [e.ref, e]));
  return rows.map((row): { row: InstalledRow; item: ServableItem | null } => {
    if (row.kind === "expertise") {
      const e = byRef.get(row.talentId);
      return {
        row,
        item: e ? { id: e.ref, kind: "expertise", talent: e.talent, version: String(e.version), expertiseId: e.expertiseId } : null,
      };
    }
    const t = catalog.get(row.talentId);
    return { row, item: t ? { id: t.id, kind: "talent", talent: t, version: t.version, expertiseId: null } : null };
  });
}

/**
 * The active talents of a project (installed, enabled, servable), by id. Kept by the selection's
 * rows (listInstalled hands back the same frozen rows while the selection is unchanged) with the
 * catalog (and its generation: start-up's offload swaps talents for lazy twins) and the
 * organization's servable expertises it was built from: prepare-task asks for it
 * on every call (docs/performance.md), and building it looked up every installed talent each time.
 */
export async function activeItems(deps: SourceDeps, project: ProjectRef): Promise<ReadonlyMap<string, ServableItem>> {
  const rows = await listInstalled(deps.database, project.id);
  const kept = activeByRows.get(rows);
  // (asked once per rows: `some` over the frozen rows was a tenth of prepare-task's request-thread time)
  const hasExpertises = kept ? kept.hasExpertises : rows.some((r) => r.kind === "expertise");
  const expertises = hasExpertises ? await listServableExpertises(deps.database, project.organizationId, deps.catalog) : NO_EXPERTISES;
  if (kept && kept.catalog === deps.catalog && kept.generation === deps.catalog.generation && kept.expertises === expertises)
    return kept.active;
  const active = new Map<string, ServableItem>();
  for (const { row, item } of withItems(rows, expertises, deps.catalog)) if (row.enabled && item) active.set(item.id, item);
  activeByRows.set(rows, { catalog: deps.catalog, generation: deps.catalog.generation, hasExpertises, expertises, active });
  return active;
}
const NO_EXPERTISES: readonly ServableExpertise[] = Object.freeze([]);
const activeByRows = keptByIdentity<
  readonly InstalledRow[],
  {
    catalog: Catalog;
    generation: number;
    hasExpertises: boolean;
    expertises: readonly ServableExpertise[];
    active: ReadonlyMap<string, ServableItem>;
  }
>("Active items of a project's installed rows");

/**
 * The ids as installable ones, with their kind: a public id must be in the catalog; an expertise ref must
 * be an active, published expertise of the organization. One unknown id → 400 unknown_talents naming every unknown one.
 */
export async function installable(deps: SourceDeps, organizationId: string, ids: string[]) {
  const known: { id: string; kind: TalentKind }[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    if (isExpertiseRef(id)) {
      if (await getServableExpertise(deps.database, organizationId, id, deps.catalog)) known.push({ id, kind: "expertise" });
      else unknown.push(id);
    } else if (deps.catalog.get(id)) known.push({ id, kind: "talent" });
    else unknown.push(id);
  }
  if (unknown.length > 0) throw unknownTalents([...new Set(unknown)], undefined, deps.catalog.talents.keys());
  return known;
}

/**
 * Installs talents by id for the web and the key route alike: all or nothing (one unknown id →
 * 400 unknown_talents naming every unknown one, nothing written); new ones start active.
 */
export async function installByIds(
  deps: SourceDeps,
  organizationId: string,
  projectId: string,
  ids: string[],
  by: string,
  actor: AuditActor,
): Promise<SelectionChange> {
  const known = await installable(deps, organizationId, ids);
  return deps.database.write((tx) => installTalents(tx, projectId, known, by, { organizationId, actor }));
}
