/** Projects of an organization: create, list, read, delete (the database cascades the rest). */
import { and, eq, getTableColumns, gt, isNull, ne, sql } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { keptAll, keptGet } from "../db/versionMemo";
import { apiKeys, keyTombstones, oauthTokens, projects } from "../db/schema";
import { AppError, notFound } from "../http/errors";
import { newId } from "../lib/ids";
import { touchAll } from "../journal/dayMemo";
import { record, userActor, type AuditActor } from "../audit/record";
import type { CatalogDeps } from "../catalog/state";
import { installSavedRequired, policyLookup } from "../policy/service";

/** A project as the API shows it (selection_rev is internal: the selection cache's counter). */
export type Project = Omit<typeof projects.$inferSelect, "selectionRev">;
const { selectionRev: _internal, ...projectColumns } = getTableColumns(projects);

/**
 * 409 conflict naming `name` when another project of the organization has this name (the same letters,
 * whatever their case and the spaces around them); decided inside the write's transaction.
 */
async function refuseTakenName(tx: Tx, organizationId: string, name: string, exceptId?: string): Promise<void> {
  const same = and(eq(projects.organizationId, organizationId), sql`lower(trim(${projects.name})) = lower(trim(${name}))`);
  const taken = await tx
    .select({ id: projects.id })
    .from(projects)
    .where(exceptId ? and(same, ne(projects.id, exceptId)) : same)
    .limit(1);
  if (taken.length > 0)
    throw new AppError("conflict", `A project named “${name.trim()}” already exists in this organization: choose another name.`, {
      field: "name",
    });
}

/** Creates a project in an organization: 409 when the name is taken there. */
export async function createProject(
  tx: Tx,
  input: { organizationId: string; name: string; description: string; createdBy: string; repository?: string | null },
  actor: AuditActor,
): Promise<Project> {
  await refuseTakenName(tx, input.organizationId, input.name);
  const now = Date.now();
  const row: Project = {
    id: newId("prj"),
    ...input,
    repository: input.repository ?? null,
    contextBudget: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx.insert(projects).values(row);
  await record(tx, {
    organizationId: input.organizationId,
    actor,
    action: "project.created",
    object: { kind: "project", id: row.id },
    after: { name: row.name, description: row.description, repository: row.repository },
  });
  return row;
}

/**
 * The project columns as plain SQL for the prepared reader: every /web project route reads a
 * project, and a drizzle query through the pooled client costs ~250 µs against ~15 µs
 * (docs/performance.md).
 */
const PROJECT_SELECT = `SELECT id, organization_id AS organizationId, name, description, created_by AS createdBy,
  created_at AS createdAt, updated_at AS updatedAt, repository, context_budget AS contextBudget FROM projects`;

/** Projects of an organization, newest first. */
export async function listProjects(database: Database, organizationId: string): Promise<readonly Project[]> {
  return keptAll<Project>(database, LIST_SQL, [organizationId]);
}

/** The organization's projects, newest first: read once per data version (kept rows are shared, never changed). */
const LIST_SQL = `${PROJECT_SELECT} WHERE organization_id = ? ORDER BY created_at DESC`;

/** A project of the organization, or 404 (another organization's project is hidden the same way). */
export async function getProject(database: Database | Tx, organizationId: string, projectId: string): Promise<Project> {
  const row =
    "db" in database
      ? await keptGet<Project>(database, `${PROJECT_SELECT} WHERE id = ? AND organization_id = ?`, [projectId, organizationId])
      : (
          await database
            .select(projectColumns)
            .from(projects)
            .where(and(eq(projects.id, projectId), eq(projects.organizationId, organizationId)))
            .limit(1)
        )[0];
  if (!row) throw notFound("No such project.");
  return row;
}

export { CONTEXT_BUDGET_LIMITS, DEFAULT_CONTEXT_BUDGET } from "../resolution/budget";

/**
 * Changes a project's name, description, repository or context budget (undefined: unchanged;
 * repository or budget null: none, the default).
 */
export async function updateProject(
  tx: Tx,
  organizationId: string,
  projectId: string,
  change: { name?: string; description?: string; repository?: string | null; contextBudget?: number | null },
  actor: AuditActor,
): Promise<Project> {
  const current = await getProject(tx, organizationId, projectId);
  if (change.name !== undefined && change.name !== current.name) await refuseTakenName(tx, organizationId, change.name, projectId);
  const set = {
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.repository !== undefined ? { repository: change.repository } : {}),
    ...(change.contextBudget !== undefined ? { contextBudget: change.contextBudget } : {}),
    updatedAt: Date.now(),
  };
  await tx
    .update(projects)
    .set(set)
    .where(and(eq(projects.id, projectId), eq(projects.organizationId, organizationId)));
  // the settings that changed, before and after (one entry; none when nothing did)
  const keys = (["name", "description", "repository", "contextBudget"] as const).filter((k) => k in set && set[k] !== current[k]);
  if (keys.length > 0) {
    await record(tx, {
      organizationId,
      actor,
      action: "project.updated",
      object: { kind: "project", id: projectId },
      before: Object.fromEntries(keys.map((k) => [k, current[k]])),
      after: Object.fromEntries(keys.map((k) => [k, set[k]])),
    });
  }
  return { ...current, ...set };
}

/**
 * Deletes a project; foreign keys cascade to its selection, keys, resolutions, reports and
 * traces. Its active keys and live OAuth access tokens leave a tombstone so the guard can answer
 * 404 (project gone) instead of 401.
 */
async function deleteProject(tx: Tx, organizationId: string, projectId: string, actor: AuditActor): Promise<void> {
  const gone = await getProject(tx, organizationId, projectId);
  const live = await tx
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt)));
  const now = Date.now();
  // live OAuth access tokens too: the same 404 for them as for a key (refresh tokens go: a
  // refresh for a deleted project is refused by the token endpoint)
  const tokens = await tx
    .select()
    .from(oauthTokens)
    .where(
      and(
        eq(oauthTokens.projectId, projectId),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, now),
      ),
    );
  const held = [
    ...tokens.map((t) => ({ keyHash: t.tokenHash, keyId: t.id, createdBy: t.userId, expiresAt: t.expiresAt })),
    ...live.map((k) => ({ keyHash: k.keyHash, keyId: k.id, createdBy: k.createdBy, expiresAt: k.expiresAt })),
  ];
  for (const h of held) await tx.insert(keyTombstones).values({ ...h, projectId, organizationId, deletedAt: now });
  await tx.delete(projects).where(eq(projects.id, projectId));
  await record(tx, {
    organizationId,
    actor,
    action: "project.deleted",
    object: { kind: "project", id: projectId },
    before: { name: gone.name },
  });
}

/**
 * Deletes a project (deleteProject) in its own write, then drops what was kept of its activity:
 * its resolutions went with it, so the memoized days of insights and adoption are stale. The
 * write that changes the data says so, not the route that asked for it.
 */
export async function removeProject(database: Database, organizationId: string, projectId: string, actor: AuditActor): Promise<void> {
  await database.write((tx) => deleteProject(tx, organizationId, projectId, actor));
  touchAll();
}

/**
 * Creates a project of the organization with its required talents (the organization's policy), in one transaction:
 * `POST /web/projects` and the new-project form without JavaScript (pages/newProject.tsx).
 */
export async function createOrgProject(
  deps: CatalogDeps,
  organizationId: string,
  user: { id: string; email: string },
  input: { name: string; description: string; repository: string | null },
): Promise<Project> {
  const lookup = await policyLookup(deps.database, deps.state.catalog!, organizationId);
  return deps.database.write(async (tx) => {
    const created = await createProject(tx, { organizationId, ...input, createdBy: user.id }, userActor(user));
    await installSavedRequired(tx, organizationId, created.id, lookup, `policy:${user.id}`);
    return created;
  });
}
