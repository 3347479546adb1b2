/** The compact form's rule lines: what prepare-task serves of a talent's rules (docs/talent-format.md). */
import type { TalentRule } from "./formatBase";
import { HOOK_WHY } from "./hookWords";
import { detectorSeverity } from "./measured";

/** The heading of the rule lines in the compact form (a section an agent can ask for by name). */
export const RULES_HEADING = "Rules";

/** What the compact form needs of a rule. */
export type CompactRule = Pick<TalentRule, "id" | "severity" | "title"> & Partial<Pick<TalentRule, "detect" | "blocks">>;

/** The rules' part of the compact form: a blank line, `## Rules` and one line per rule; nothing without rules. */
export function compactRuleLines(rules: readonly CompactRule[]): string[] {
  if (rules.length === 0) return [];
  return ["", `## ${RULES_HEADING}`, ...rules.map((r) => `- [${r.id}] (${severityWords(r)}) ${r.title}`)];
}

/**
 * A rule's severity for review and, when the hook does not block on a blocking rule's detector, why (catalog/hookWords.ts):
 * "blocking; hook advises: its detector is advisory until measured". The project's choices and the organization's locks
 * are not the talent's: the Settings tab and `talentd check` say those.
 */
function severityWords(r: CompactRule): string {
  if (r.severity !== "blocking" || !r.detect?.length || detectorSeverity(r) === "blocking") return r.severity;
  return `blocking; hook advises: ${HOOK_WHY.unmeasured}`;
}
