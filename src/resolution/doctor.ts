/**
 * Doctor (`svc_doctor`; docs/api.md "The agent loop"): what is wrong with the current selection — prerequisites that are
 * missing, conflicts among active talents, disabled dependencies of active talents, installed
 * talents that can no longer be served, talents the organization's policy requires that are not installed, disabled
 * or not servable (`requiredByPolicy`), and (for owners and admins) broken catalog entries.
 */
import type { Catalog } from "../catalog/catalog";
import { formatFinding, type Talent } from "../catalog/format";
import { digestOf } from "../lib/crypto";
import type { Database } from "../db/client";
import { conflictsAmong } from "./designation";
import { installedWithItems } from "../selection/sources";
import { installPrerequisites, type Voice } from "./wording";
import { readProjectPolicy } from "../selection/policyRules";

/**
 * The digest a lock file pins for a talent: sha256 over every file of it (path and content
 * digest, one line each, sorted by path), so an edit to any file — not only TALENT.md — shows.
 */
export function contentDigest(talent: Talent): string {
  const lines = [...talent.files.values()].map((f) => `${f.path} ${f.digest}`).sort();
  return digestOf(lines.join("\n"));
}

export async function doctor(
  deps: { database: Database; catalog: Catalog },
  project: { id: string; organizationId: string },
  opts: { admin: boolean; selection?: boolean; voice?: Voice },
) {
  const [all, policy] = await Promise.all([installedWithItems(deps, project), readProjectPolicy(deps.database, project.id)]);
  return diagnose(all, deps.catalog, project, { ...opts, required: policy?.required ?? [] });
}

/** The required talents a selection lacks: not installed, disabled, or installed but no longer servable. */
export function requiredProblems(all: Awaited<ReturnType<typeof installedWithItems>>, required: readonly string[]) {
  const byId = new Map(all.map((x) => [x.row.talentId, x]));
  return required.flatMap((id) => {
    const x = byId.get(id);
    const problem = !x ? ("missing" as const) : !x.row.enabled ? ("disabled" as const) : !x.item ? ("unservable" as const) : null;
    return problem ? [{ id, problem }] : [];
  });
}

/** Doctor's judgement of a selection whose items are already resolved (insights judges a whole organization this way). */
export function diagnose(
  all: Awaited<ReturnType<typeof installedWithItems>>,
  catalog: Catalog,
  project: { id: string; organizationId: string },
  opts: { admin: boolean; selection?: boolean; voice?: Voice; required?: readonly string[] },
) {
  const deps = { catalog };
  const requiredByPolicy = requiredProblems(all, opts.required ?? []);
  const installed = new Map(all.map((x) => [x.row.talentId, x]));
  const active = all.filter((x) => x.row.enabled && x.item).map((x) => x.item!);
  const missing = new Map<string, Set<string>>();
  const disabled = new Map<string, Set<string>>();
  for (const item of active) {
    for (const r of item.talent.requires) {
      const dep = installed.get(r);
      if (!dep) (missing.get(r) ?? missing.set(r, new Set()).get(r)!).add(item.id);
      else if (!dep.row.enabled) (disabled.get(r) ?? disabled.set(r, new Set()).get(r)!).add(item.id);
    }
  }
  const conflicts = conflictsAmong(active);
  const unservable = all
    .filter((x) => !x.item)
    .map((x) => ({
      id: x.row.talentId,
      kind: x.row.kind,
      reason: x.row.kind === "expertise" ? "no longer an active published expertise" : "no longer in the catalog",
    }));
  const missingPrerequisites = [...missing.entries()].map(([id, by]) => ({
    id,
    requiredBy: [...by],
    inCatalog: deps.catalog.get(id) !== undefined,
  }));
  const disabledDependencies = [...disabled.entries()].map(([id, by]) => ({ id, requiredBy: [...by] }));
  const healthy =
    missingPrerequisites.length === 0 &&
    conflicts.length === 0 &&
    disabledDependencies.length === 0 &&
    unservable.length === 0 &&
    requiredByPolicy.length === 0;
  return {
    healthy,
    selection: { installed: all.length, active: active.length, disabled: all.filter((x) => !x.row.enabled).length },
    // what a task can designate right now, public talents and private expertises alike (ids only: the compact list)
    designable: active.map((i) => i.id),
    missingPrerequisites,
    conflicts,
    disabledDependencies,
    unservable,
    requiredByPolicy,
    // include=selection: what `talentd lock` pins (every installed talent, sorted by id)
    ...(opts.selection
      ? {
          projectId: project.id,
          talents: all
            .map(({ row, item }) => ({
              id: row.talentId,
              kind: row.kind,
              state: row.enabled ? ("active" as const) : ("disabled" as const),
              version: item?.version ?? null,
              digest: item ? contentDigest(item.talent) : null,
            }))
            .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
        }
      : {}),
    ...(opts.admin
      ? { brokenCatalogEntries: deps.catalog.broken.map((b) => ({ folder: b.folder, problems: b.findings.map(formatFinding) })) }
      : {}),
    advice: healthy
      ? "The selection is consistent."
      : [
          missingPrerequisites.length
            ? installPrerequisites(
                opts.voice,
                missingPrerequisites.map((m) => m.id),
              )
            : "",
          disabledDependencies.length
            ? `Enable ${disabledDependencies.map((d) => d.id).join(", ")} in the dashboard: active talents build on them.`
            : "",
          conflicts.length
            ? `Conflicting talents are both active (${conflicts.map((c) => `${c.a} × ${c.b}`).join(", ")}): disable one of each pair in the dashboard.`
            : "",
          unservable.length ? `Uninstall what can no longer be served (${unservable.map((u) => u.id).join(", ")}).` : "",
          requiredByPolicy.length
            ? `The organization's policy requires ${requiredByPolicy.map((r) => `${r.id} (${r.problem})`).join(", ")}: ` +
              "an owner or admin saves the policy again (/org/policy) to install and enable them."
            : "",
        ]
          .filter(Boolean)
          .join(" "),
  };
}
