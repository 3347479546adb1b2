/** The compact form: the block prepare-task serves for a talent (docs/talent-format.md). */
import type { TalentRule } from "./format";

/** Renders title, summary, rule lines and body; pointers stay inside the body. */
export function renderCompact(t: { title: string; summary: string; rules: TalentRule[]; body: string }): string {
  const parts = [`# ${t.title}`, t.summary];
  if (t.rules.length > 0) {
    parts.push("", "## Rules", ...t.rules.map((r) => `- [${r.id}] (${r.severity}) ${r.title}`));
  }
  if (t.body) parts.push("", t.body);
  return parts.join("\n") + "\n";
}
