/** A project's installed talents as people see them: each with its state and dependencies, and the counts (GET …/installed, the project page). */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { installedWithItems } from "../resolution/sources";

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
}

export async function installedOverview(deps: { database: Database; catalog: Catalog }, project: { id: string; organizationId: string }) {
  const all = await installedWithItems(deps, project);
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
    };
  });
  const missing = new Set(talents.flatMap((x) => (x.state === "active" ? x.missingDependencies : [])));
  return {
    talents,
    missing: [...missing].sort(),
    counts: { installed: talents.length, active: talents.filter((x) => x.state === "active").length, disabled: talents.filter((x) => x.state === "disabled").length, missing: missing.size },
  };
}
