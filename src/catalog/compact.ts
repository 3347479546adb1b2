/** The compact form: the block prepare-task serves for a talent (docs/talent-format.md). */
import type { TalentRule } from "./format";
import { HOOK_WHY } from "./hookWords";
import { detectorSeverity } from "./measured";

/** The heading of the rule lines in the compact form (a section an agent can ask for by name). */
export const RULES_HEADING = "Rules";

/** Renders title, summary, rule lines and body; pointers stay inside the body. */
export function renderCompact(t: {
  title: string;
  summary: string;
  rules: (Pick<TalentRule, "id" | "severity" | "title"> & Partial<Pick<TalentRule, "detect" | "blocks">>)[];
  body: string;
}): string {
  const parts = [`# ${t.title}`, t.summary];
  if (t.rules.length > 0) {
    parts.push("", `## ${RULES_HEADING}`, ...t.rules.map((r) => `- [${r.id}] (${severityWords(r)}) ${r.title}`));
  }
  if (t.body) parts.push("", t.body);
  return parts.join("\n") + "\n";
}

/**
 * A rule's severity for review and, when the hook does not block on a blocking rule's detector, why (catalog/hookWords.ts):
 * "blocking; hook advises: its detector is advisory until measured". The project's choices and the organization's locks
 * are not the talent's: the Settings tab and `talentd check` say those.
 */
function severityWords(r: Pick<TalentRule, "severity"> & Partial<Pick<TalentRule, "detect" | "blocks">>): string {
  if (r.severity !== "blocking" || !r.detect?.length || detectorSeverity(r) === "blocking") return r.severity;
  return `blocking; hook advises: ${HOOK_WHY.unmeasured}`;
}
