/**
 * A project's hook rules (docs/design.md "What blocks a commit"): per rule with a detector, whether its
 * findings block a commit in `talentd check`, only advise, or are not looked for. Three things decide:
 * the rule's shipped severity, whether its detector earned blocking by its measured figure
 * (catalog/measured.ts), and the project's choice, which wins. An organization's lock would win over
 * the choice (`lockedBy`, null until there is one): `effectiveChoice` takes it already.
 */
import { and, eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { projectHookRules, type HookChoice } from "../db/schema";
import { keptAll } from "../db/versionMemo";
import { validationFailed, type Issue } from "../http/errors";
import { detectorSeverity } from "../catalog/measured";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import { listInstalled } from "../selection/service";
import { listServableExpertises } from "../expertises/servable";
import { record, type AuditBy } from "../audit/record";

export type { HookChoice };
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
}

/** What a rule's findings do: the organization's lock, else the project's choice, else block where earned, advise elsewhere. */
export function effectiveChoice(earned: boolean, choice: HookChoice | null, lock: HookChoice | null = null): HookChoice {
  return lock ?? choice ?? (earned ? "block" : "advise");
}

/** The severity a detector's findings are served with; null: the detector is not served ("off"). */
export function servedSeverity(effective: HookChoice): "blocking" | "advisory" | null {
  return effective === "off" ? null : effective === "block" ? "blocking" : "advisory";
}

/** The rules with detectors of some talents, in talent then rule order. */
export function rulesOf(talents: readonly Talent[]): HookRule[] {
  const out: HookRule[] = [];
  for (const t of [...talents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const security = t.roles.includes("security");
    for (const r of t.rules) {
      if (!r.detect || r.detect.length === 0) continue;
      out.push({ rule: r.id, talent: t.id, shipped: r.severity, earned: detectorSeverity(r) === "blocking", security });
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

/** The answer of GET (and PUT): every rule with a detector of the project's enabled talents. */
export async function hookRulesAnswer(database: Database, catalog: Catalog, organizationId: string, projectId: string) {
  const [talents, choices] = await Promise.all([
    installedTalents(database, catalog, organizationId, projectId, true),
    readHookChoices(database, projectId),
  ]);
  return {
    rules: rulesOf(talents).map((r) => {
      const choice = choices.get(r.rule) ?? null;
      return {
        rule: r.rule,
        talent: r.talent,
        shipped: r.shipped,
        earned: r.earned,
        security: r.security,
        effective: effectiveChoice(r.earned, choice),
        choice,
        lockedBy: null,
      };
    }),
  };
}

/** Reads `{rules: {"TS-005": "advise" | "block" | "off"}}`: 400 validation_failed on anything else. */
export function readHookRulesBody(body: unknown): Map<string, HookChoice> {
  const rules = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>).rules : undefined;
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
 * others go back to their shipped behaviour. A rule id that no installed talent's detector carries is
 * refused, naming it. Each change is one audit-log entry. Returns how many rules changed.
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
    if (choices.has(rule)) continue;
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

/**
 * The rules whose findings block a commit in the project now (the effective choice `block`), as
 * `talent rule` keys: the rules with a detector of its enabled talents. What the Activity tab and the
 * home feed call a blocking finding (docs/design.md "Blocking findings in the activity").
 */
export async function blockingRules(database: Database, catalog: Catalog, organizationId: string, projectId: string): Promise<Set<string>> {
  const [talents, choices] = await Promise.all([
    installedTalents(database, catalog, organizationId, projectId, true),
    readHookChoices(database, projectId),
  ]);
  const out = new Set<string>();
  for (const r of rulesOf(talents))
    if (effectiveChoice(r.earned, choices.get(r.rule) ?? null) === "block") out.add(`${r.talent} ${r.rule}`);
  return out;
}
