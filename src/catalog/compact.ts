/** The compact form: the block prepare-task serves for a talent (docs/talent-format.md). */
import type { TalentRule } from "./format";

/** The heading of the rule lines in the compact form (a section an agent can ask for by name). */
export const RULES_HEADING = "Rules";

/** Renders title, summary, rule lines and body; pointers stay inside the body. */
export function renderCompact(t: {
  title: string;
  summary: string;
  rules: Pick<TalentRule, "id" | "severity" | "title">[];
  body: string;
}): string {
  const parts = [`# ${t.title}`, t.summary];
  if (t.rules.length > 0) {
    parts.push("", `## ${RULES_HEADING}`, ...t.rules.map((r) => `- [${r.id}] (${r.severity}) ${r.title}`));
  }
  if (t.body) parts.push("", t.body);
  return parts.join("\n") + "\n";
}
