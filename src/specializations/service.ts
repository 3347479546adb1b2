/**
 * Specializations (docs/api.md "Specializations"): built-in ones from the catalog's files
 * (catalog/specializations.ts; read-only) and custom ones of an organization (stored; owner
 * and admin write, members read). Applying one installs its talents plus their
 * requires-closure into a project as one atomic group, refused with the conflicting pairs
 * when any of them conflicts with the project's active selection or with another of them.
 */
import { and, eq } from "drizzle-orm";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import { conflictPairs, requiresClosure } from "../catalog/graph";
import { SPECIALIZATION_LIMITS, type BuiltInSpecialization } from "../catalog/specializations";
import type { Database, Tx } from "../db/client";
import { installedTalents, specializations } from "../db/schema";
import { listServableExpertises } from "../expertises/servable";
import { AppError, notFound, validationFailed, type Issue } from "../http/errors";
import { newId } from "../lib/ids";
import { iso } from "../lib/time";
import { record, type AuditActor } from "../audit/record";
import { installTalents, unknownTalents, type SelectionChange } from "../selection/service";
import { isExpertiseRef } from "../selection/sources";

export interface SpecializationView {
  id: string;
  name: string;
  description: string;
  talents: string[];
  builtIn: boolean;
  createdBy?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

const CUSTOM_ID = /^spc_[0-9A-HJKMNP-TV-Z]{26}$/;

function customView(r: typeof specializations.$inferSelect): SpecializationView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    talents: r.talentIds,
    builtIn: false,
    createdBy: r.createdBy,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
  };
}
const builtInView = (b: BuiltInSpecialization): SpecializationView => ({ ...b });

/** Built-ins first (by id), then the organization's own (by name). */
export async function listSpecializations(database: Database, catalog: Catalog, organizationId: string): Promise<SpecializationView[]> {
  // the catalog page reads this on every view: the prepared reader, not a drizzle query built per call
  const rows = await database.all<Omit<typeof specializations.$inferSelect, "talentIds"> & { talentIds: string }>(
    `SELECT id, organization_id AS organizationId, name, description, talent_ids AS talentIds, created_by AS createdBy, created_at AS createdAt, updated_at AS updatedAt
     FROM specializations WHERE organization_id = ? ORDER BY name, id`,
    [organizationId],
  );
  return [
    ...catalog.specializations.map(builtInView),
    ...rows.map((r) => customView({ ...r, talentIds: JSON.parse(r.talentIds) as string[] })),
  ];
}

/** One specialization visible to the organization: a built-in by id, or one of its own; 404 otherwise (another organization's looks unknown). */
export async function getSpecialization(
  db: Database | Tx,
  catalog: Catalog,
  organizationId: string,
  id: string,
): Promise<SpecializationView> {
  const builtIn = catalog.specializations.find((s) => s.id === id);
  if (builtIn) return builtInView(builtIn);
  if (CUSTOM_ID.test(id)) {
    const q = ("db" in db ? db.db : db)
      .select()
      .from(specializations)
      .where(and(eq(specializations.id, id), eq(specializations.organizationId, organizationId)))
      .limit(1);
    const row = (await q)[0];
    if (row) return customView(row);
  }
  throw notFound(`No specialization ${id}.`);
}

/** What a talent id of a specialization can be: a catalog talent or an active, published expertise of the organization. */
async function resolver(database: Database, catalog: Catalog, organizationId: string): Promise<(id: string) => Talent | undefined> {
  const expertises = new Map((await listServableExpertises(database, organizationId, catalog)).map((e) => [e.ref, e.talent]));
  return (id) => (isExpertiseRef(id) ? expertises.get(id) : catalog.get(id));
}

export interface SpecializationInput {
  name: string;
  description: string;
  talents: string[];
}

/** Reads a create (all fields) or update (`partial`) body; 400 with every problem. */
export function readSpecialization(body: unknown, partial: boolean): Partial<SpecializationInput> {
  const b = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  const out: Partial<SpecializationInput> = {};
  if (b.name !== undefined || !partial) {
    if (typeof b.name !== "string" || b.name.trim() === "" || b.name.trim().length > SPECIALIZATION_LIMITS.name)
      issues.push({ path: "name", message: `must be text of 1 to ${SPECIALIZATION_LIMITS.name} characters` });
    else out.name = b.name.trim();
  }
  if (b.description !== undefined || !partial) {
    const d = b.description ?? "";
    if (typeof d !== "string" || d.length > SPECIALIZATION_LIMITS.description)
      issues.push({ path: "description", message: `must be text of at most ${SPECIALIZATION_LIMITS.description} characters` });
    else out.description = d.trim();
  }
  if (b.talents !== undefined || !partial) {
    const t = b.talents;
    if (
      !Array.isArray(t) ||
      t.length === 0 ||
      t.length > SPECIALIZATION_LIMITS.talents ||
      t.some((x) => typeof x !== "string" || x === "" || x.length > 200)
    ) {
      issues.push({ path: "talents", message: `must be a list of 1 to ${SPECIALIZATION_LIMITS.talents} talent ids` });
    } else out.talents = [...new Set(t as string[])];
  }
  if (partial && Object.keys(out).length === 0 && issues.length === 0)
    issues.push({ path: "", message: "send at least one of name, description, talents" });
  if (issues.length > 0) throw validationFailed(issues);
  return out;
}

/** Every id must be known (400 unknown_talents), and the closure must hold no conflict (400 validation_failed with the pairs). */
async function checkTalents(database: Database, catalog: Catalog, organizationId: string, ids: string[]): Promise<void> {
  const lookup = await resolver(database, catalog, organizationId);
  const unknown = ids.filter((id) => !lookup(id));
  if (unknown.length > 0) throw unknownTalents(unknown, "not in the catalog (nor an active published expertise of this organization)");
  const closure = requiresClosure(ids, lookup);
  const pairs = conflictPairs(closure.ids, lookup);
  if (pairs.length > 0) {
    throw validationFailed(
      pairs.map((p) => ({ path: "talents", message: `"${p.a}" and "${p.b}" conflict (with their prerequisites)` })),
      "A specialization cannot hold conflicting talents: it could never be applied.",
    );
  }
}

const builtInIsReadOnly = (id: string) =>
  new AppError("forbidden", `The built-in specialization ${id} is read-only: duplicate it to make one of your own.`);

export async function createSpecialization(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  actor: AuditActor,
  input: SpecializationInput,
): Promise<SpecializationView> {
  await checkTalents(database, catalog, organizationId, input.talents);
  const now = Date.now();
  const row = {
    id: newId("spc"),
    organizationId,
    name: input.name,
    description: input.description,
    talentIds: input.talents,
    createdBy: actor.id,
    createdAt: now,
    updatedAt: now,
  };
  await database.write(async (tx) => {
    await tx.insert(specializations).values(row);
    await record(tx, {
      organizationId,
      actor,
      action: "specialization.created",
      object: { kind: "specialization", id: row.id },
      after: { name: row.name, description: row.description, talents: row.talentIds },
    });
  });
  return customView(row);
}

export async function updateSpecialization(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  id: string,
  input: Partial<SpecializationInput>,
  actor: AuditActor,
): Promise<SpecializationView> {
  const current = await getSpecialization(database, catalog, organizationId, id);
  if (current.builtIn) throw builtInIsReadOnly(id);
  if (input.talents) await checkTalents(database, catalog, organizationId, input.talents);
  const set = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.talents ? { talentIds: input.talents } : {}),
    updatedAt: Date.now(),
  };
  await database.write(async (tx) => {
    const r = await tx
      .update(specializations)
      .set(set)
      .where(and(eq(specializations.id, id), eq(specializations.organizationId, organizationId)))
      .returning({ id: specializations.id });
    if (r.length === 0) throw notFound(`No specialization ${id}.`); // deleted meanwhile
    const was = { name: current.name, description: current.description, talents: current.talents };
    const now = { name: set.name ?? was.name, description: set.description ?? was.description, talents: set.talentIds ?? was.talents };
    const keys = (["name", "description", "talents"] as const).filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k]));
    if (keys.length > 0) {
      await record(tx, {
        organizationId,
        actor,
        action: "specialization.updated",
        object: { kind: "specialization", id },
        before: Object.fromEntries(keys.map((k) => [k, was[k]])),
        after: Object.fromEntries(keys.map((k) => [k, now[k]])),
      });
    }
  });
  return getSpecialization(database, catalog, organizationId, id);
}

export async function deleteSpecialization(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  id: string,
  actor: AuditActor,
): Promise<void> {
  const current = await getSpecialization(database, catalog, organizationId, id);
  if (current.builtIn) throw builtInIsReadOnly(id);
  await database.write(async (tx) => {
    const gone = await tx
      .delete(specializations)
      .where(and(eq(specializations.id, id), eq(specializations.organizationId, organizationId)))
      .returning({ id: specializations.id });
    if (gone.length === 0) return; // deleted meanwhile: nothing to record
    await record(tx, {
      organizationId,
      actor,
      action: "specialization.deleted",
      object: { kind: "specialization", id },
      before: { name: current.name },
    });
  });
}

/** A custom copy of any visible specialization ("<name> (copy)", or `name`). */
export async function duplicateSpecialization(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  id: string,
  actor: AuditActor,
  name?: string,
): Promise<SpecializationView> {
  const source = await getSpecialization(database, catalog, organizationId, id);
  const copyName = (name ?? `${source.name} (copy)`).slice(0, SPECIALIZATION_LIMITS.name);
  return createSpecialization(database, catalog, organizationId, actor, {
    name: copyName,
    description: source.description,
    talents: source.talents,
  });
}

/**
 * Installs a specialization's talents and their requires-closure into a project, all or
 * nothing. Decided inside the write transaction against the selection as it is then: a
 * conflict of any of them with an active talent of the project (or with one another) → 409
 * selection_conflict with the pairs, nothing installed. Already installed talents stay as
 * they are (a disabled one stays disabled).
 */
export async function applySpecialization(
  database: Database,
  catalog: Catalog,
  project: { id: string; organizationId: string },
  specializationId: string,
  by: string,
  actor: AuditActor,
): Promise<{ specialization: SpecializationView; requested: string[]; change: SelectionChange }> {
  const spec = await getSpecialization(database, catalog, project.organizationId, specializationId);
  const lookup = await resolver(database, catalog, project.organizationId);
  const closure = requiresClosure(spec.talents, lookup);
  if (closure.missing.length > 0)
    throw unknownTalents(closure.missing, "no longer in the catalog (nor an active published expertise of this organization)");
  const change = await database.write(async (tx) => {
    const rows = await tx
      .select({ id: installedTalents.talentId, enabled: installedTalents.enabled })
      .from(installedTalents)
      .where(eq(installedTalents.projectId, project.id));
    const installed = new Set(rows.map((r) => r.id));
    const active = rows.filter((r) => r.enabled).map((r) => r.id);
    const incoming = closure.ids.filter((id) => !installed.has(id));
    const pairs = [...conflictPairs(incoming, lookup), ...conflictPairs(incoming, lookup, active)];
    const unique = [...new Map(pairs.map((p) => [`${p.a}\n${p.b}`, p])).values()];
    if (unique.length > 0) {
      throw new AppError(
        "selection_conflict",
        `Applying ${spec.name} would make conflicting talents active together: ${unique.map((p) => `${p.a} × ${p.b}`).join(", ")}. Nothing was installed.`,
        { pairs: unique },
      );
    }
    const change = await installTalents(
      tx,
      project.id,
      closure.ids.map((id) => ({ id, kind: isExpertiseRef(id) ? ("expertise" as const) : ("talent" as const) })),
      by,
      null, // one entry for the whole application, below
    );
    if (change.entered.length > 0) {
      await record(tx, {
        organizationId: project.organizationId,
        actor,
        action: "specialization.applied",
        object: { kind: "specialization", id: spec.id },
        after: { projectId: project.id, installed: change.entered },
      });
    }
    return change;
  });
  return { specialization: spec, requested: closure.ids, change };
}
