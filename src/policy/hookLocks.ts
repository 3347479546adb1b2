/**
 * The organization's locks on hook rules (docs/design.md "What blocks a commit", "The organization locks a rule"):
 * the policy's `hookRules`, a rule id → `block` | `advise` | `off` that every project of the organization takes
 * whatever its own choice (lock > project choice > earned). A lock names a rule some shipped talent or active
 * expertise of the organization has a detector for. A project's PUT (or a calibration's) that names a locked rule
 * with another value is refused 409 `locked_by_policy`.
 */
import { closestIds } from "../lib/suggest";
import type { Catalog } from "../catalog/catalog";
import type { Talent } from "../catalog/format";
import type { Database } from "../db/client";
import { listServableExpertises } from "../expertises/servable";
import { validationFailed, type Issue } from "../http/errors";
import { HOOK_CHOICES, HOOK_RULES_MAX, rulesOf, type HookChoice, type HookLocks } from "./hookRules";

const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/**
 * The body's `hookRules`: absent → undefined (the locks stay as they are); an object of rule ids to a choice, or,
 * from a form, text with one `RULE-ID choice` per line. 400 validation_failed (issues `hookRules.<ID>`) otherwise.
 */
export function readHookLocksField(raw: unknown, issues: Issue[]): Record<string, HookChoice> | undefined {
  if (raw === undefined) return undefined;
  let entries: [string, unknown][];
  if (typeof raw === "string") {
    entries = [];
    for (const line of raw
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean)) {
      const [rule, choice, ...rest] = line.split(/[\s=:]+/);
      if (!rule || rest.length > 0) {
        issues.push({ path: "hookRules", message: `hookRules: "${line.slice(0, 60)}" is not a rule id and a choice (TS-005 block)` });
        continue;
      }
      entries.push([rule, choice ?? ""]);
    }
  } else if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) entries = Object.entries(raw as Record<string, unknown>);
  else {
    issues.push({ path: "hookRules", message: 'hookRules must be an object of rule ids to "block", "advise" or "off"' });
    return undefined;
  }
  if (entries.length > HOOK_RULES_MAX) {
    issues.push({ path: "hookRules", message: `hookRules names at most ${HOOK_RULES_MAX} rules (got ${entries.length})` });
    return undefined;
  }
  const out: Record<string, HookChoice> = {};
  for (const [rule, v] of entries) {
    if (!RULE_ID.test(rule))
      issues.push({ path: `hookRules.${rule.slice(0, 100)}`, message: `hookRules: "${rule.slice(0, 100)}" is not a rule id` });
    else if (typeof v === "string" && (HOOK_CHOICES as string[]).includes(v)) out[rule] = v as HookChoice;
    else issues.push({ path: `hookRules.${rule}`, message: `hookRules.${rule} must be "block", "advise" or "off"` });
  }
  return out;
}

/** Every rule with a detector the organization's projects may install: the catalog's and its servable expertises'. */
export async function organizationDetectorRules(database: Database, catalog: Catalog, organizationId: string): Promise<Set<string>> {
  const talents: Talent[] = [...catalog.talents.values()];
  for (const e of await listServableExpertises(database, organizationId, catalog)) talents.push(e.talent);
  return new Set(rulesOf(talents).map((r) => r.rule));
}

/** 400 validation_failed naming each locked rule no detector of a shipped talent or active expertise carries. */
export async function checkLockedRules(database: Database, catalog: Catalog, organizationId: string, locks: HookLocks): Promise<void> {
  const ids = Object.keys(locks);
  if (ids.length === 0) return;
  const known = await organizationDetectorRules(database, catalog, organizationId);
  const unknown = ids.filter((r) => !known.has(r));
  if (unknown.length > 0)
    throw validationFailed(
      unknown.map((r) => {
        // the closest rule ids that have a detector (docs/design.md "Did you mean")
        const suggestions = closestIds(r, known);
        const hint = suggestions.length > 0 ? ` — did you mean ${suggestions.map((x) => `"${x}"`).join(" or ")}?` : "";
        return {
          path: `hookRules.${r}`,
          message: `hookRules.${r}: no detector of a shipped talent or active expertise of this organization carries rule ${r}${hint}`,
          suggestions,
        };
      }),
    );
}
