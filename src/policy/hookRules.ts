/**
 * A project's hook rules (docs/design.md "What blocks a commit"): per rule with a detector, whether its
 * findings block a commit in `talentd check`, only advise, or are not looked for. Three things decide:
 * the rule's shipped severity, whether its detector earned blocking by its measured figure
 * (catalog/measured.ts), and the project's choice. An organization's lock (the policy's `hookRules`,
 * hookLocks.ts) wins over the choice: lock > choice > earned (`effectiveChoice`).
 */
import { and, eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { orgPolicies, projectHookRules, type HookChoice } from "../db/schema";
import { keptAll, keptGet } from "../db/versionMemo";
import { AppError, validationFailed, type Issue } from "../http/errors";
import { detectorSeverity, type Measured } from "../catalog/measured";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import { listInstalled } from "../selection/service";
import { listServableExpertises } from "../expertises/servable";
import { record, type AuditBy } from "../audit/record";
import { POLICY_PAGE } from "../selection/policyRules";

export type { HookChoice };
/** The organization's locks: the policy's `hookRules` (policy/hookLocks.ts reads and checks them). */
export type HookLocks = Readonly<Record<string, HookChoice>>;

/** What a locked rule's row of the hook rules names as its lock. */
export const LOCKED_BY = "policy";
export const HOOK_CHOICES: readonly HookChoice[] = ["block", "advise", "off"];
/** Most rules one PUT names (the shipped catalog has a few hundred rules with detectors). */
export const HOOK_RULES_MAX = 1000;

/** A rule with a detector, as the hook rules list it. */
export interface HookRule {
  rule: string;
  talent: string;
  /** The rule's own severity. */
  shipped: "blocking" | "advisory";
  /** Its detector earned blocking by its measured figure (`blocks: true`, validated). */
  earned: boolean;
  /** A rule of a talent whose roles include `security`: calibration never relaxes it. */
  security: boolean;
  title: string;
  /** Its detectors' figure measured on real history, when the catalog has it. */
  measured?: Measured;
}

/** What a rule's findings do: the organization's lock, else the project's choice, else block where earned, advise elsewhere. */
export function effectiveChoice(earned: boolean, choice: HookChoice | null, lock: HookChoice | null = null): HookChoice {
  return lock ?? choice ?? (earned ? "block" : "advise");
}

/** The rules with detectors of some talents, in talent then rule order. */
export function rulesOf(talents: readonly Talent[]): HookRule[] {
  const out: HookRule[] = [];
  for (const t of [...talents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const security = t.roles.includes("security");
    for (const r of t.rules) {
      if (!r.detect || r.detect.length === 0) continue;
      out.push({
        rule: r.id,
        talent: t.id,
        shipped: r.severity,
        earned: detectorSeverity(r) === "blocking",
        security,
        title: r.title,
        ...(r.measured ? { measured: r.measured } : {}),
      });
    }
  }
  return out;
}

/** The project's installed talents (catalog talents and published expertises): all of them, or only the enabled ones. */
export async function installedTalents(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  projectId: string,
  enabledOnly: boolean,
): Promise<Talent[]> {
  const rows = (await listInstalled(database, projectId)).filter((r) => !enabledOnly || r.enabled);
  const out: Talent[] = [];
  const expertises = rows.some((r) => r.kind === "expertise")
    ? new Map((await listServableExpertises(database, organizationId, catalog)).map((e) => [e.ref, e.talent]))
    : new Map<string, Talent>();
  for (const r of rows) {
    const t = r.kind === "expertise" ? expertises.get(r.talentId) : catalog.talents.get(r.talentId);
    if (t) out.push(t);
  }
  return out;
}

/** The project's choices by rule id (kept for the configuration epoch: the playbook reads them on every check). */
export async function readHookChoices(database: Database, projectId: string): Promise<ReadonlyMap<string, HookChoice>> {
  const rows = await keptAll<{ rule: string; choice: HookChoice }>(
    database,
    "SELECT rule_id AS rule, choice FROM project_hook_rules WHERE project_id = ?",
    [projectId],
  );
  return new Map(rows.map((r) => [r.rule, r.choice]));
}

/** Every rule with a detector of the project's enabled talents, with the project's choice and the organization's lock. */
export async function hookRuleLines(database: Database, catalog: Catalog, organizationId: string, projectId: string) {
  const [talents, choices, locks] = await Promise.all([
    installedTalents(database, catalog, organizationId, projectId, true),
    readHookChoices(database, projectId),
    readHookLocks(database, organizationId),
  ]);
  return rulesOf(talents).map((r) => {
    const choice = choices.get(r.rule) ?? null;
    const lock = Object.hasOwn(locks, r.rule) ? locks[r.rule]! : null;
    return { ...r, choice, lock, effective: effectiveChoice(r.earned, choice, lock) };
  });
}

/** The answer of GET (and PUT): every rule with a detector of the project's enabled talents. */
export async function hookRulesAnswer(database: Database, catalog: Catalog, organizationId: string, projectId: string) {
  const lines = await hookRuleLines(database, catalog, organizationId, projectId);
  return {
    rules: lines.map((r) => ({
      rule: r.rule,
      talent: r.talent,
      shipped: r.shipped,
      earned: r.earned,
      security: r.security,
      effective: r.effective,
      choice: r.choice,
      lockedBy: r.lock === null ? null : LOCKED_BY,
      lock: r.lock,
    })),
  };
}

/**
 * Reads `{rules: {"TS-005": "advise" | "block" | "off"}}`, or a form's fields `rules.TS-005` (the Settings tab's selects; an
 * empty one names no choice): 400 validation_failed on anything else.
 */
export function readHookRulesBody(body: unknown): Map<string, HookChoice> {
  const b = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  let rules = b?.rules;
  // a form: its hidden `rules` field (empty) and one select per rule it lets a person choose for
  if (b && (rules === "" || (rules === undefined && Object.keys(b).some((k) => k.startsWith("rules.")))))
    rules = Object.fromEntries(
      Object.entries(b).flatMap(([k, v]) => (k.startsWith("rules.") && v !== "" ? [[k.slice("rules.".length), v]] : [])),
    );
  if (rules === null || typeof rules !== "object" || Array.isArray(rules))
    throw validationFailed([{ path: "rules", message: 'rules is required: an object of rule ids to "block", "advise" or "off"' }]);
  const entries = Object.entries(rules as Record<string, unknown>);
  if (entries.length > HOOK_RULES_MAX)
    throw validationFailed([{ path: "rules", message: `rules names at most ${HOOK_RULES_MAX} rules (got ${entries.length})` }]);
  const out = new Map<string, HookChoice>();
  const issues: Issue[] = [];
  for (const [rule, v] of entries) {
    if (typeof v === "string" && (HOOK_CHOICES as string[]).includes(v)) out.set(rule, v as HookChoice);
    else issues.push({ path: `rules.${rule}`, message: `rules.${rule} must be "block", "advise" or "off"` });
  }
  if (issues.length > 0) throw validationFailed(issues);
  return out;
}

/**
 * Replaces the project's choices (one transaction, the caller's): rules named get their choice, the
 * others go back to their shipped behaviour — except a rule the organization locks, whose choice, when
 * not named, is kept as it is (it applies again once the lock is lifted). A rule id that no installed
 * talent's detector carries is refused, naming it; a locked rule named with another value than its
 * lock is 409 locked_by_policy. Each change is one audit-log entry. Returns how many rules changed.
 */
export async function saveHookRules(
  tx: Tx,
  projectId: string,
  choices: ReadonlyMap<string, HookChoice>,
  known: ReadonlySet<string>,
  audit: AuditBy,
): Promise<number> {
  const unknown = [...choices.keys()].filter((r) => !known.has(r));
  if (unknown.length > 0)
    throw validationFailed(
      unknown.map((r) => ({ path: `rules.${r}`, message: `rules.${r}: no detector of the project's installed talents carries rule ${r}` })),
    );
  // the locks as this transaction reads them: a lock saved meanwhile is the one applied
  const policy = await tx
    .select({ locks: orgPolicies.hookRules })
    .from(orgPolicies)
    .where(eq(orgPolicies.organizationId, audit.organizationId))
    .limit(1);
  const locks: HookLocks = policy[0]?.locks ?? {};
  refuseRelaxedLocks(choices, locks);
  const before = new Map(
    (
      await tx
        .select({ rule: projectHookRules.ruleId, choice: projectHookRules.choice })
        .from(projectHookRules)
        .where(eq(projectHookRules.projectId, projectId))
    ).map((r) => [r.rule, r.choice]),
  );
  const now = Date.now();
  let changed = 0;
  const note = (rule: string, from: HookChoice | null, to: HookChoice | null) =>
    record(tx, {
      ...audit,
      action: "project.hook_rule_changed",
      object: { kind: "project", id: projectId },
      before: { rule, choice: from },
      after: { rule, choice: to },
    });
  for (const [rule, from] of before) {
    if (choices.has(rule) || Object.hasOwn(locks, rule)) continue;
    await tx.delete(projectHookRules).where(and(eq(projectHookRules.projectId, projectId), eq(projectHookRules.ruleId, rule)));
    await note(rule, from, null);
    changed++;
  }
  for (const [rule, choice] of choices) {
    const from = before.get(rule) ?? null;
    if (from === choice) continue;
    await tx
      .insert(projectHookRules)
      .values({ projectId, ruleId: rule, choice, updatedBy: audit.actor.label, updatedAt: now })
      .onConflictDoUpdate({
        target: [projectHookRules.projectId, projectHookRules.ruleId],
        set: { choice, updatedBy: audit.actor.label, updatedAt: now },
      });
    await note(rule, from, choice);
    changed++;
  }
  return changed;
}

/** The rule ids a project may choose for: those with a detector in any installed talent (enabled or not). */
export async function knownHookRules(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  projectId: string,
): Promise<Set<string>> {
  return new Set(rulesOf(await installedTalents(database, catalog, organizationId, projectId, false)).map((r) => r.rule));
}

/** The organization's locks (kept for the configuration epoch: the playbook reads them on every check). */
export async function readHookLocks(database: Database, organizationId: string): Promise<HookLocks> {
  const row = await keptGet<{ locks: string }>(database, "SELECT hook_rules AS locks FROM org_policies WHERE organization_id = ?", [
    organizationId,
  ]);
  return row ? (JSON.parse(row.locks) as HookLocks) : {};
}

/** The locks of a project's organization, by the project's id. */
export async function readProjectHookLocks(database: Database, projectId: string): Promise<HookLocks> {
  const row = await keptGet<{ locks: string }>(
    database,
    "SELECT op.hook_rules AS locks FROM projects p JOIN org_policies op ON op.organization_id = p.organization_id WHERE p.id = ?",
    [projectId],
  );
  return row ? (JSON.parse(row.locks) as HookLocks) : {};
}

/** The sentence of a refused relaxation of a locked rule. */
export function lockedSentence(rule: string, lock: HookChoice): string {
  return `${rule} is locked to ${lock} by the organization's policy; an owner or admin changes it at ${POLICY_PAGE}`;
}

/** 409 locked_by_policy when a project names a locked rule with another value than the lock; nothing is written. */
export function refuseRelaxedLocks(choices: ReadonlyMap<string, HookChoice>, locks: HookLocks): void {
  const relaxed = [...choices].filter(([rule, v]) => Object.hasOwn(locks, rule) && locks[rule] !== v);
  if (relaxed.length === 0) return;
  const sentences = relaxed.map(([rule]) => lockedSentence(rule, locks[rule]!));
  throw new AppError("locked_by_policy", `${sentences.join(". ")}.`, {
    rules: relaxed.map(([rule]) => ({ rule, lock: locks[rule] })),
    policy: { page: POLICY_PAGE },
    issues: relaxed.map(([rule], i) => ({ path: `rules.${rule}`, message: sentences[i]! })),
  });
}

/**
 * The rules whose findings block a commit in the project now (the effective choice `block`), as
 * `talent rule` keys: the rules with a detector of its enabled talents. What the Activity tab and the
 * home feed call a blocking finding (docs/design.md "Blocking findings in the activity").
 */
export async function blockingRules(database: Database, catalog: Catalog, organizationId: string, projectId: string): Promise<Set<string>> {
  const [talents, choices, locks] = await Promise.all([
    installedTalents(database, catalog, organizationId, projectId, true),
    readHookChoices(database, projectId),
    readHookLocks(database, organizationId),
  ]);
  const out = new Set<string>();
  for (const r of rulesOf(talents))
    if (effectiveChoice(r.earned, choices.get(r.rule) ?? null, locks[r.rule] ?? null) === "block") out.add(`${r.talent} ${r.rule}`);
  return out;
}
