/**
 * The key route's install (`PATCH /api/projects/:id/talents`, `svc_install_talents`): what an agent installs is a
 * usable selection. The named ids come with their requires-closure as one atomic group; a group whose closure holds
 * a conflict, or that conflicts with an active talent of the project, is refused whole (409 selection_conflict naming
 * both sides). It only installs: nothing disabled is enabled, nothing removed.
 */
import { eq } from "drizzle-orm";
import { conflictPairs, requiresClosure, type Lookup } from "../catalog/graph";
import { installedTalents } from "../db/schema";
import { listServableExpertises } from "../expertises/servable";
import { AppError } from "../http/errors";
import type { AuditActor } from "../audit/record";
import { installTalents, unknownTalents, type SelectionChange } from "../selection/service";
import { installable, isExpertiseRef, type SourceDeps } from "../selection/sources";

/** The answer of a group install: `installed` (every id it added), the `prerequisites` among them, and what was there already. */
export interface GroupInstall {
  /** Every id this call added, named ones first, then the prerequisites that came along. */
  installed: string[];
  /** The ids of `installed` that were not named: the requires-closure of the named ones. */
  prerequisites: string[];
  /** Ids of the group (named or required) that were installed already, left as they were (a disabled one stays disabled). */
  alreadyInstalled: string[];
  change: SelectionChange;
}

/** How the group's graph reads an id: the catalog, or the organization's servable expertises (read only when the group names one). */
async function lookupFor(deps: SourceDeps, organizationId: string, ids: string[]): Promise<Lookup> {
  const expertises = ids.some(isExpertiseRef)
    ? new Map((await listServableExpertises(deps.database, organizationId, deps.catalog)).map((e) => [e.ref, e.talent]))
    : new Map();
  return (id) => (isExpertiseRef(id) ? expertises.get(id) : deps.catalog.get(id));
}

/**
 * Installs `ids` with their requires-closure, all or nothing: an unknown id (named or required) → 400 unknown_talents;
 * a conflict inside the closure that the install would create (one side not yet installed), or between a talent it adds
 * and an active one → 409 selection_conflict with the pairs. Decided inside the write transaction against the
 * selection as it is then.
 */
export async function installWithPrerequisites(
  deps: SourceDeps,
  organizationId: string,
  projectId: string,
  ids: string[],
  by: string,
  actor: AuditActor,
): Promise<GroupInstall> {
  const known = await installable(deps, organizationId, ids);
  // the project's installed expertises are read too when one is installed: a conflict is declared on either side
  const installedRefs = (
    await deps.database.db.select({ id: installedTalents.talentId }).from(installedTalents).where(eq(installedTalents.projectId, projectId))
  ).map((r) => r.id);
  const lookup = await lookupFor(deps, organizationId, [...ids, ...installedRefs]);
  const closure = requiresClosure(
    known.map((k) => k.id),
    lookup,
  );
  if (closure.missing.length > 0)
    throw unknownTalents(closure.missing, "required by the talents named but not in the catalog (nor an active published expertise)");
  const named = new Set(ids);
  const change = await deps.database.write(async (tx) => {
    const rows = await tx
      .select({ id: installedTalents.talentId, enabled: installedTalents.enabled })
      .from(installedTalents)
      .where(eq(installedTalents.projectId, projectId));
    const present = new Set(rows.map((r) => r.id));
    const incoming = closure.ids.filter((id) => !present.has(id));
    const pairs = conflictPairs(incoming, lookup, closure.ids);
    if (pairs.length > 0) {
      throw new AppError(
        "selection_conflict",
        `These talents conflict within the group (with its prerequisites): ${pairs.map((p) => `${p.a} × ${p.b}`).join(", ")}. ` +
          "Nothing was installed.",
        { pairs },
      );
    }
    const active = rows.filter((r) => r.enabled && !closure.ids.includes(r.id)).map((r) => r.id);
    const clashes = conflictPairs(incoming, lookup, active);
    if (clashes.length > 0) throw activeConflict(clashes, new Set(incoming));
    const kind = (id: string) => (isExpertiseRef(id) ? ("expertise" as const) : ("talent" as const));
    return installTalents(
      tx,
      projectId,
      closure.ids.map((id) => ({ id, kind: kind(id) })),
      by,
      { organizationId, actor },
    );
  });
  return {
    installed: change.entered,
    prerequisites: change.entered.filter((id) => !named.has(id)),
    alreadyInstalled: change.unchanged,
    change,
  };
}

/**
 * 409 selection_conflict for talents that would become active beside an active talent they conflict with: one
 * sentence per pair naming both sides and what to do (a project follows one of the two; this route only installs).
 */
function activeConflict(pairs: { a: string; b: string }[], incoming: ReadonlySet<string>): AppError {
  const sentences = pairs.map(({ a, b }) => {
    const [fresh, there] = incoming.has(a) ? [a, b] : [b, a];
    return `${fresh} conflicts with ${there}, which is active in this project: a project follows one of them.`;
  });
  const there = [...new Set(pairs.map(({ a, b }) => (incoming.has(a) ? b : a)))];
  return new AppError(
    "selection_conflict",
    `${sentences.join(" ")} To switch, a member disables ${there.join(" and ")} in the project's dashboard first. Nothing was installed.`,
    { pairs },
  );
}
