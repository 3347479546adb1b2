/**
 * A project's selection (docs/api.md "Selection in the dashboard"): not installed → installed and active
 * (install) ⇄ installed and disabled (toggle), → not installed (uninstall). A list install is
 * atomic. Installing never changes an existing resolution (resolutions pin their own bytes).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { installedTalents } from "../db/schema";
import { keptEach } from "../lib/kept";
import { AppError, notFound, validationFailed } from "../http/errors";
import { closestIds, unknownIdSentence } from "../lib/suggest";
import { record, type AuditBy } from "../audit/record";
import { refuseNotAllowed, refuseRequired } from "./policyRules";

export type TalentKind = "talent" | "expertise";

export interface InstalledRow {
  talentId: string;
  kind: TalentKind;
  enabled: boolean;
  installedAt: number;
  updatedAt: number;
  installedBy: string | null;
}

/** What a change did to the set of active talents (for the trace journal). */
export interface SelectionChange {
  entered: string[];
  left: string[];
  /** Ids that were already installed (install is idempotent and never re-enables). */
  unchanged: string[];
}

/** Most ids one install (or disable) names. */
export const INSTALL_MAX = 200;

/**
 * The ids an install body names, for the web and the key route alike: `{talent}` (one id) or
 * `{talents}` (1–200 ids), exactly one of them; an id is 1–200 characters.
 */
export function readInstallIds(body: Record<string, unknown>): string[] {
  if ((body.talent === undefined) === (body.talents === undefined)) {
    throw validationFailed([{ path: "", message: "give exactly one of talent (an id) or talents (an array of ids)" }]);
  }
  const isId = (x: unknown) => typeof x === "string" && x !== "" && x.length <= 200;
  /** Why one id is refused: too long is said as such. */
  const idProblem = (x: unknown) =>
    typeof x === "string" && x.length > 200 ? "id too long (at most 200 characters)" : "must be a talent id (1 to 200 characters)";
  if (body.talent !== undefined) {
    if (!isId(body.talent)) throw validationFailed([{ path: "talent", message: idProblem(body.talent) }]);
    return [body.talent as string];
  }
  const v = body.talents;
  if (!Array.isArray(v) || v.length === 0 || v.length > INSTALL_MAX) {
    throw validationFailed([{ path: "talents", message: `must be a non-empty array of talent ids (at most ${INSTALL_MAX})` }]);
  }
  const bad = v.findIndex((x) => !isId(x));
  if (bad >= 0) throw validationFailed([{ path: `talents[${bad}]`, message: idProblem(v[bad]) }]);
  return v as string[];
}

/** 400 unknown_talents listing every id that cannot be installed. */
export function unknownTalents(
  ids: string[],
  why = "not in the catalog (nor an active expertise of this organization)",
  known?: Iterable<string>,
): AppError {
  const message = `Unknown talent${ids.length > 1 ? "s" : ""} ${ids.join(", ")}: ${why}.`;
  if (!known) return new AppError("unknown_talents", `${message} Nothing was changed.`, { ids });
  // with the ids it knows: the closest of each unknown one (docs/design.md "Did you mean")
  const all = [...known];
  const suggestions: Record<string, string[]> = {};
  for (const id of ids) suggestions[id] = closestIds(id, all);
  if (ids.every((id) => suggestions[id]!.length === 0))
    return new AppError("unknown_talents", `${message} Nothing was changed.`, { ids, suggestions });
  const head = capitalized(ids.map((id) => unknownIdSentence("talent", id, suggestions[id]!)).join("; "));
  const text = head.endsWith("?") ? `${head} ${capitalized(why)}.` : `${head}: ${why}.`;
  return new AppError("unknown_talents", `${text} Nothing was changed.`, { ids, suggestions });
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const INSTALLED_SQL = `SELECT talent_id AS talentId, kind, enabled, installed_at AS installedAt, updated_at AS updatedAt,
  installed_by AS installedBy
FROM installed_talents WHERE project_id = ? ORDER BY installed_at, talent_id`;

/** A project's installed rows, valid while the configuration epoch or, failing that, the project's selection_rev is unchanged. */
interface CachedSelection {
  version: number;
  rev: number;
  rows: readonly InstalledRow[];
}
const selectionCaches = keptEach<Database, string, CachedSelection>("A project's installed rows", {
  clock: "configuration epoch",
  limit: 1_000,
  per: "database",
});

async function readInstalled(database: Database, projectId: string): Promise<InstalledRow[]> {
  const rows = await database.all<Omit<InstalledRow, "enabled"> & { enabled: number | boolean }>(INSTALLED_SQL, [projectId]);
  return rows.map((r) =>
    Object.freeze({
      talentId: r.talentId,
      kind: r.kind,
      enabled: Boolean(r.enabled),
      installedAt: r.installedAt,
      updatedAt: r.updatedAt,
      installedBy: r.installedBy,
    }),
  );
}

/**
 * Every installed talent of a project, oldest first (read on every prepare-task, designable and
 * doctor call). Cached exactly: while no configuration changed (Database.configEpoch: the
 * service's own resolutions and trace events leave it alone) the rows are reused as they are;
 * after a change, one indexed read of projects.selection_rev, which triggers
 * bump on every change to installed_talents by any connection or process (migration
 * 0002_selection_rev), tells whether they still hold. Measured: the 50-row read cost about 200
 * µs of each prepare-task under load (docs/performance.md). The rows are frozen.
 */
export async function listInstalled(database: Database, projectId: string): Promise<readonly InstalledRow[]> {
  const version = database.configEpoch(); // read before anything: a label is never newer than its rows
  if (version === null) return readInstalled(database, projectId);
  const cache = selectionCaches.of(database);
  const hit = cache.get(projectId);
  if (hit && hit.version === version) return hit.rows;
  const rev = (await database.get<{ rev: number }>("SELECT selection_rev AS rev FROM projects WHERE id = ?", [projectId]))?.rev;
  if (rev === undefined) {
    cache.delete(projectId);
    return [];
  }
  if (hit && hit.rev === rev) {
    hit.version = version;
    return hit.rows;
  }
  const rows = Object.freeze(await readInstalled(database, projectId));
  cache.delete(projectId); // a fresh age: the entry read again is the newest
  cache.set(projectId, { version, rev, rows });
  return rows;
}

/**
 * Installs talents, all or nothing (the caller has checked every id exists). New ones start
 * active; ones already installed are left as they are (a disabled one stays disabled:
 * disabling and enabling are the dashboard's). A new one outside the organization's allow-list
 * → 409 not_allowed_by_policy; `byPolicy` (the policy's own install of its required talents)
 * skips that check.
 */
export async function installTalents(
  tx: Tx,
  projectId: string,
  items: { id: string; kind: TalentKind }[],
  by: string,
  audit: AuditBy | null,
  byPolicy = false,
): Promise<SelectionChange> {
  const ids = [...new Set(items.map((i) => i.id))];
  const existing = new Set(
    (
      await tx
        .select({ id: installedTalents.talentId })
        .from(installedTalents)
        .where(and(eq(installedTalents.projectId, projectId), inArray(installedTalents.talentId, ids)))
    ).map((r) => r.id),
  );
  const now = Date.now();
  const seen = new Set<string>(existing);
  const fresh = items.filter((i) => !seen.has(i.id) && seen.add(i.id));
  if (!byPolicy)
    await refuseNotAllowed(
      tx,
      projectId,
      fresh.map((i) => i.id),
    );
  const rows = fresh.map((i) => ({
    projectId,
    talentId: i.id,
    kind: i.kind,
    enabled: true,
    installedBy: by,
    installedAt: now,
    updatedAt: now,
  }));
  if (rows.length > 0) await tx.insert(installedTalents).values(rows);
  if (rows.length > 0 && audit)
    await recordSelection(tx, projectId, audit, "talents.installed", null, { installed: rows.map((r) => r.talentId) });
  return { entered: rows.map((r) => r.talentId), left: [], unchanged: ids.filter((id) => existing.has(id)) };
}

/** Toggles one installed talent; 404 when it is not installed, 409 required_by_policy when disabling a required one. */
export async function setEnabled(tx: Tx, projectId: string, talentId: string, enabled: boolean, audit: AuditBy): Promise<SelectionChange> {
  const row = (
    await tx
      .select()
      .from(installedTalents)
      .where(and(eq(installedTalents.projectId, projectId), eq(installedTalents.talentId, talentId)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`${talentId} is not installed in this project.`);
  if (!enabled) await refuseRequired(tx, projectId, [talentId], "disabled");
  if (row.enabled === enabled) return { entered: [], left: [], unchanged: [talentId] };
  await tx
    .update(installedTalents)
    .set({ enabled, updatedAt: Date.now() })
    .where(and(eq(installedTalents.projectId, projectId), eq(installedTalents.talentId, talentId)));
  await recordSelection(
    tx,
    projectId,
    audit,
    enabled ? "talent.enabled" : "talent.disabled",
    { talentId, enabled: !enabled },
    { talentId, enabled },
  );
  return enabled ? { entered: [talentId], left: [], unchanged: [] } : { entered: [], left: [talentId], unchanged: [] };
}

/** Disables installed talents, all or nothing: an id that is not installed → 400 unknown_talents. */
export async function disableTalents(tx: Tx, projectId: string, ids: string[], audit: AuditBy): Promise<SelectionChange> {
  const unique = [...new Set(ids)];
  const rows = await tx
    .select({ id: installedTalents.talentId, enabled: installedTalents.enabled })
    .from(installedTalents)
    .where(and(eq(installedTalents.projectId, projectId), inArray(installedTalents.talentId, unique)));
  const found = new Map(rows.map((r) => [r.id, r.enabled]));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) throw unknownTalents(missing, "not installed in this project, so it cannot be disabled");
  await refuseRequired(tx, projectId, unique, "disabled");
  const toDisable = unique.filter((id) => found.get(id) === true);
  if (toDisable.length > 0) {
    await tx
      .update(installedTalents)
      .set({ enabled: false, updatedAt: Date.now() })
      .where(and(eq(installedTalents.projectId, projectId), inArray(installedTalents.talentId, toDisable)));
    await recordSelection(tx, projectId, audit, "talents.disabled", null, { disabled: toDisable });
  }
  return { entered: [], left: toDisable, unchanged: unique.filter((id) => !toDisable.includes(id)) };
}

/** Uninstalls one talent; 404 when it is not installed, 409 required_by_policy when the policy requires it. */
export async function uninstall(tx: Tx, projectId: string, talentId: string, audit: AuditBy): Promise<SelectionChange> {
  await refuseRequired(tx, projectId, [talentId], "uninstalled");
  const r = await tx
    .delete(installedTalents)
    .where(and(eq(installedTalents.projectId, projectId), eq(installedTalents.talentId, talentId)))
    .returning({ enabled: installedTalents.enabled });
  if (r.length === 0) throw notFound(`${talentId} is not installed in this project.`);
  await recordSelection(tx, projectId, audit, "talent.uninstalled", { talentId, enabled: r[0]!.enabled }, null);
  return { entered: [], left: r[0]!.enabled ? [talentId] : [], unchanged: [] };
}

/** One entry for one change of a project's selection: the project is its object. */
function recordSelection(
  tx: Tx,
  projectId: string,
  audit: AuditBy,
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  return record(tx, { ...audit, action, object: { kind: "project", id: projectId }, before, after });
}
