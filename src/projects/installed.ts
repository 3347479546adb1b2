/**
 * A project's installed talents as people see them: each with its state and dependencies, and the counts (GET …/installed, the project
 * page).
 */
import { keptByIdentity } from "../lib/kept";
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { listServableExpertises } from "../expertises/servable";
import { withItems } from "../selection/sources";
import { listInstalled, type InstalledRow } from "../selection/service";
import { readProjectPolicy } from "../selection/policyRules";

export interface InstalledTalentView {
  id: string;
  kind: "talent" | "expertise";
  state: "active" | "disabled";
  servable: boolean;
  title: string | null;
  summary: string | null;
  version: string | null;
  requires: string[];
  missingDependencies: string[];
  disabledDependencies: string[];
  installedAt: string;
  /** The organization's policy requires it: the dashboard shows a lock and offers neither disable nor uninstall. */
  requiredByPolicy: boolean;
}

/** What the overview says of the organization's policy: its required talents and who set it (null: no policy). */
type PolicyNote = { requiredTalents: readonly string[]; setBy: string | null } | null;

export type InstalledOverview = ReturnType<typeof overviewOf>;

/**
 * The overview, kept while its inputs are the same objects: the selection's rows (listInstalled
 * hands back the same frozen array while the selection is unchanged), the catalog, and the
 * servable expertises' versions when the project installs any. A page view of an unchanged
 * selection then reuses the overview (and the views keyed by it) instead of rebuilding 50
 * entries. Callers must not mutate it.
 */
export async function installedOverview(
  deps: { database: Database; catalog: Catalog },
  project: { id: string; organizationId: string },
): Promise<InstalledOverview> {
  const rows = await listInstalled(deps.database, project.id);
  const expertises = rows.some((r) => r.kind === "expertise")
    ? await listServableExpertises(deps.database, project.organizationId, deps.catalog)
    : [];
  const rules = await readProjectPolicy(deps.database, project.id);
  const policy: PolicyNote = rules && rules.required.length > 0 ? { requiredTalents: rules.required, setBy: rules.setBy } : null;
  // the policy's part of the key: what it requires and who set it
  const expertiseKey = `${expertises.map((e) => `${e.ref}@${e.version}`).join(",")}|${JSON.stringify(policy)}`;
  const hit = overviews.get(rows);
  if (hit && hit.catalog === deps.catalog && hit.expertiseKey === expertiseKey) return hit.overview;
  const overview = overviewOf(withItems(rows, expertises, deps.catalog), policy);
  overviews.set(rows, { catalog: deps.catalog, expertiseKey, overview });
  return overview;
}

const overviews = keptByIdentity<readonly InstalledRow[], { catalog: Catalog; expertiseKey: string; overview: InstalledOverview }>(
  "Installed overview of a project's rows",
);

function overviewOf(all: ReturnType<typeof withItems>, policy: PolicyNote) {
  const required = new Set(policy?.requiredTalents ?? []);
  const installedIds = new Map(all.map((x) => [x.row.talentId, x.row.enabled]));
  const talents: InstalledTalentView[] = all.map(({ row, item }) => {
    const requires = item?.talent.requires ?? [];
    return {
      id: row.talentId,
      kind: row.kind,
      state: row.enabled ? "active" : "disabled",
      servable: item !== null,
      title: item?.talent.title ?? null,
      summary: item?.talent.summary ?? null,
      version: item?.version ?? null,
      requires,
      missingDependencies: requires.filter((r) => !installedIds.has(r)),
      disabledDependencies: requires.filter((r) => installedIds.get(r) === false),
      installedAt: iso(row.installedAt)!,
      requiredByPolicy: required.has(row.talentId),
    };
  });
  const missing = new Set(talents.flatMap((x) => (x.state === "active" ? x.missingDependencies : [])));
  return {
    talents,
    missing: [...missing].sort(),
    counts: {
      installed: talents.length,
      active: talents.filter((x) => x.state === "active").length,
      disabled: talents.filter((x) => x.state === "disabled").length,
      missing: missing.size,
    },
    policy,
  };
}
