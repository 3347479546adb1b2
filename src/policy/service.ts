/**
 * An organization's talent policy (docs/design.md "Organization policy"; docs/api.md
 * "Organization policy"): `requiredTalents` are installed and active in every project of the
 * organization, new ones included, with their prerequisites; `allowedTalents`, when set, are
 * the only other talents a project may install. The refusals of the selection routes are
 * `selection/policyRules.ts`'s. `commitPolicy` is the one place a policy change is written.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Catalog } from "../catalog/catalog";
import { conflictPairs, requiresClosure, type Lookup } from "../catalog/graph";
import type { Database, Tx } from "../db/client";
import { installedTalents, orgPolicies, projects, users } from "../db/schema";
import { listServableExpertises } from "../expertises/servable";
import { AppError, validationFailed, type Issue } from "../http/errors";
import { installTalents, unknownTalents, type TalentKind } from "../selection/service";
import { record, type AuditActor } from "../audit/record";
import { isExpertiseRef } from "../selection/sources";
import { readHookLocksField } from "./hookLocks";
import { closestIds, unknownIdSentence } from "../lib/suggest";
import type { HookChoice } from "./hookRules";

/** Most ids each list of a policy names. */
export const POLICY_MAX = 200;

/** What a caller asks a policy to be. */
export interface PolicyInput {
  requiredTalents: string[];
  /** null: no allow-list (any talent may be installed). */
  allowedTalents: string[] | null;
  /** The locked hook rules (rule id → choice); undefined: as they are. */
  hookRules?: Record<string, HookChoice>;
}

/** A policy as read: the input, who saved it last and when (null: never saved). */
export interface PolicyView extends PolicyInput {
  hookRules: Record<string, HookChoice>;
  setBy: { id: string; name: string } | null;
  updatedAt: number | null;
}

/** The required talents with every prerequisite, as installable items (required ones first). */
export type RequiredItems = { id: string; kind: TalentKind }[];

const isId = (x: unknown): x is string => typeof x === "string" && x !== "" && x.length <= 200;

/** A list field of the body: an array of ids, or (from a form) text with one id per line or comma. */
function readList(v: unknown, path: string, issues: Issue[]): string[] | null {
  // (a form's empty field among its check boxes is no id: blank entries are dropped)
  const list = typeof v === "string" ? v.split(/[\s,]+/).filter(Boolean) : Array.isArray(v) ? v.filter((x) => x !== "") : v;
  if (!Array.isArray(list) || list.length > POLICY_MAX || !list.every(isId)) {
    issues.push({ path, message: `must be an array of talent ids (at most ${POLICY_MAX}, each 1 to 200 characters)` });
    return null;
  }
  return [...new Set(list)];
}

/**
 * The policy a PUT body asks for: `requiredTalents` (required; an array, or a form's text) and
 * `allowedTalents` (absent, null or, from a form, blank: no allow-list), `hookRules` (absent: the locks stay).
 * The page's picker also sends `allowedMode`: "any" (no allow-list, whatever is ticked) or "only" (the ticked ones,
 * none ticked included).
 */
export function readPolicyBody(body: Record<string, unknown>): PolicyInput {
  const issues: Issue[] = [];
  const required = readList(body.requiredTalents, "requiredTalents", issues);
  const rawAllowed = body.allowedTalents;
  const mode = body.allowedMode === "" ? undefined : body.allowedMode;
  if (mode !== undefined && mode !== "any" && mode !== "only")
    issues.push({ path: "allowedMode", message: 'must be "any" (any talent may be installed) or "only" (the ticked ones)' });
  const blank = rawAllowed === undefined || rawAllowed === null || (typeof rawAllowed === "string" && rawAllowed.trim() === "");
  const noList = mode === "any" || (mode !== "only" && blank);
  const allowed = noList ? null : readList(rawAllowed ?? [], "allowedTalents", issues);
  const hookRules = readHookLocksField(body.hookRules, issues);
  if (issues.length > 0) throw validationFailed(issues);
  return { requiredTalents: required!, allowedTalents: allowed, ...(hookRules ? { hookRules } : {}) };
}

/** The organization's policy; an organization that never saved one has none required and no allow-list. */
export async function readPolicy(database: Database, organizationId: string): Promise<PolicyView> {
  const row = (
    await database.db
      .select({
        required: orgPolicies.requiredTalents,
        allowed: orgPolicies.allowedTalents,
        hookRules: orgPolicies.hookRules,
        updatedAt: orgPolicies.updatedAt,
        userId: users.id,
        name: users.name,
        email: users.email,
      })
      .from(orgPolicies)
      .leftJoin(users, eq(users.id, orgPolicies.updatedBy))
      .where(eq(orgPolicies.organizationId, organizationId))
      .limit(1)
  )[0];
  if (!row) return { requiredTalents: [], allowedTalents: null, hookRules: {}, setBy: null, updatedAt: null };
  return {
    requiredTalents: row.required,
    allowedTalents: row.allowed ?? null,
    hookRules: row.hookRules ?? {},
    setBy: row.userId ? { id: row.userId, name: row.name || row.email || row.userId } : null,
    updatedAt: row.updatedAt,
  };
}

/** How the policy's graph reads an id: the catalog, or the organization's servable expertises; `known`, every id it knows. */
async function lookupFor(database: Database, catalog: Catalog, organizationId: string): Promise<{ lookup: Lookup; known: string[] }> {
  const expertises = new Map((await listServableExpertises(database, organizationId, catalog)).map((e) => [e.ref, e.talent]));
  const lookup: Lookup = (id) => (isExpertiseRef(id) ? expertises.get(id) : catalog.get(id));
  return { lookup, known: [...catalog.talents.keys(), ...expertises.keys()] };
}

/** Why an id of a policy's list is unknown. */
const UNKNOWN_WHY = "not in the catalog (nor an active published expertise of this organization)";

/**
 * Checks a policy against the catalog and the organization's expertises and returns the items
 * its required talents bring (their requires-closure): an unknown id in either list → 400
 * unknown_talents, its `issues` naming the list of each (a prerequisite not in the catalog: no
 * list); required talents that conflict with each other (prerequisites included) → 409
 * selection_conflict naming `field` requiredTalents. The form's pages put each under its field.
 */
export async function requiredItemsOf(database: Database, catalog: Catalog, organizationId: string, policy: PolicyInput) {
  const { lookup, known } = await lookupFor(database, catalog, organizationId);
  const lists = { requiredTalents: policy.requiredTalents, allowedTalents: policy.allowedTalents ?? [] };
  // one issue per unknown id, with the known ids closest to it (docs/design.md "Did you mean")
  const issues = Object.entries(lists).flatMap(([path, ids]) =>
    ids
      .filter((id) => !lookup(id))
      .map((id) => {
        const suggestions = closestIds(id, known);
        return { path, message: `${unknownIdSentence("talent", id, suggestions)} (${UNKNOWN_WHY})`, id, suggestions };
      }),
  );
  if (issues.length > 0) {
    const e = unknownTalents([...new Set(issues.map((i) => i.id))], UNKNOWN_WHY, known);
    throw new AppError(e.code, e.message, { ...e.details, issues });
  }
  const closure = requiresClosure(policy.requiredTalents, lookup);
  if (closure.missing.length > 0) throw unknownTalents(closure.missing, "required by the policy's talents but not in the catalog");
  const pairs = conflictPairs(closure.ids, lookup);
  if (pairs.length > 0) {
    throw new AppError(
      "selection_conflict",
      `The required talents conflict (with their prerequisites): ${pairs.map((p) => `${p.a} × ${p.b}`).join(", ")}. ` +
        "The policy was not saved.",
      { pairs, field: "requiredTalents" },
    );
  }
  return closure.ids.map((id) => ({ id, kind: isExpertiseRef(id) ? ("expertise" as const) : ("talent" as const) }));
}

/** Installs the required items into one project and enables the disabled ones among them; returns the ids that entered. */
export async function installRequired(tx: Tx, projectId: string, items: RequiredItems, by: string): Promise<string[]> {
  if (items.length === 0) return [];
  const change = await installTalents(tx, projectId, items, by, null, true);
  const ids = items.map((i) => i.id);
  const disabled = await tx
    .update(installedTalents)
    .set({ enabled: true, updatedAt: Date.now() })
    .where(and(eq(installedTalents.projectId, projectId), inArray(installedTalents.talentId, ids), eq(installedTalents.enabled, false)))
    .returning({ id: installedTalents.talentId });
  return [...change.entered, ...disabled.map((r) => r.id)];
}

/**
 * Writes an organization's policy and, in the same transaction, installs its required talents
 * with their prerequisites (enabling the disabled ones) in every project of the organization, and
 * records the change in the organization's audit log (one entry: the lists and locks before and after;
 * the installs it brings are part of it). A policy input without `hookRules` keeps the locks. Returns, per project, the
 * talents that entered its active selection.
 */
export async function commitPolicy(
  tx: Tx,
  organizationId: string,
  policy: PolicyInput & { items: RequiredItems },
  actor: AuditActor,
): Promise<{ projectId: string; entered: string[] }[]> {
  const by = actor.id;
  const before = await policyRowIn(tx, organizationId);
  const hookRules = policy.hookRules ?? before.hookRules;
  const after = { requiredTalents: policy.requiredTalents, allowedTalents: policy.allowedTalents, hookRules };
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    await record(tx, { organizationId, actor, action: "policy.changed", object: { kind: "policy", id: organizationId }, before, after });
  }
  const row = {
    requiredTalents: policy.requiredTalents,
    allowedTalents: policy.allowedTalents,
    hookRules,
    updatedBy: by,
    updatedAt: Date.now(),
  };
  await tx
    .insert(orgPolicies)
    .values({ organizationId, ...row })
    .onConflictDoUpdate({ target: orgPolicies.organizationId, set: row });
  const ids = (await tx.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, organizationId))).map((p) => p.id);
  const out: { projectId: string; entered: string[] }[] = [];
  for (const projectId of ids) out.push({ projectId, entered: await installRequired(tx, projectId, policy.items, `policy:${by}`) });
  return out;
}

/** The organization's policy as its transaction reads it (the lists and the locks), or the empty policy. */
async function policyRowIn(tx: Tx, organizationId: string) {
  const rows = await tx
    .select({ requiredTalents: orgPolicies.requiredTalents, allowedTalents: orgPolicies.allowedTalents, hookRules: orgPolicies.hookRules })
    .from(orgPolicies)
    .where(eq(orgPolicies.organizationId, organizationId))
    .limit(1);
  return rows[0] ?? { requiredTalents: [] as string[], allowedTalents: null, hookRules: {} as Record<string, HookChoice> };
}

/**
 * Sets or lifts one lock (`choice` null: lift) in the transaction that reads the policy, so two changes at once both
 * land; the lists and the projects' selections are left as they are. Audited as `policy.changed` like any save. Lifting
 * a rule that is not locked → 400 validation_failed (issue `rule`), nothing written.
 */
export async function commitLock(tx: Tx, organizationId: string, change: { rule: string; choice: HookChoice | null }, actor: AuditActor) {
  const before = await policyRowIn(tx, organizationId);
  const hookRules: Record<string, HookChoice> = { ...before.hookRules };
  if (change.choice === null) {
    if (!Object.hasOwn(hookRules, change.rule))
      throw validationFailed([{ path: "rule", message: `${change.rule} is not locked by the organization's policy` }]);
    delete hookRules[change.rule];
  } else hookRules[change.rule] = change.choice;
  const after = { ...before, hookRules };
  if (JSON.stringify(before.hookRules) === JSON.stringify(hookRules)) return;
  await record(tx, { organizationId, actor, action: "policy.changed", object: { kind: "policy", id: organizationId }, before, after });
  const values = { ...after, updatedBy: actor.id, updatedAt: Date.now() };
  await tx
    .insert(orgPolicies)
    .values({ organizationId, ...values })
    .onConflictDoUpdate({ target: orgPolicies.organizationId, set: { hookRules, updatedBy: actor.id, updatedAt: values.updatedAt } });
}

/** How a new project's required talents are read: the catalog and the organization's servable expertises, read before its transaction. */
export async function policyLookup(database: Database, catalog: Catalog, organizationId: string): Promise<Lookup> {
  return (await lookupFor(database, catalog, organizationId)).lookup;
}

/**
 * Installs the policy's required talents, as saved when this transaction reads it, with their
 * prerequisites into a new project (so a policy saved while the project was being created is
 * the one applied). A required talent the lookup no longer knows is skipped: doctor reports it.
 */
export async function installSavedRequired(tx: Tx, organizationId: string, projectId: string, lookup: Lookup, by: string) {
  const row = (
    await tx
      .select({ required: orgPolicies.requiredTalents })
      .from(orgPolicies)
      .where(eq(orgPolicies.organizationId, organizationId))
      .limit(1)
  )[0];
  if (!row || row.required.length === 0) return [];
  const known = row.required.filter((id) => lookup(id));
  const items = requiresClosure(known, lookup).ids.map((id) => ({
    id,
    kind: isExpertiseRef(id) ? ("expertise" as const) : ("talent" as const),
  }));
  return installRequired(tx, projectId, items, by);
}
