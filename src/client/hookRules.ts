/**
 * The project's hook rules applied to a playbook's detectors (docs/design.md "What blocks a commit"): the playbook
 * serves the detectors as the resolution pinned them (the signature proves them) and, beside them, the project's
 * choice per rule; here each chosen rule's detectors block, only advise, or are left out ("off").
 */
import type { ServedObligation } from "./check";
import { hookWhy } from "../catalog/hookWords";

export type HookChoice = "block" | "advise" | "off";

/** A playbook's obligations with the project's choices applied to their detectors. */
export function withHookRules(obligations: ServedObligation[], choices: Record<string, HookChoice> | undefined): ServedObligation[] {
  if (!choices || Object.keys(choices).length === 0) return obligations;
  return obligations.map((o) => ({
    ...o,
    rules: o.rules.map((r) => {
      const choice = Object.hasOwn(choices, r.id) ? choices[r.id] : undefined;
      if (!r.detect || choice === undefined) return r;
      if (choice === "off") {
        const { detect: _off, ...rest } = r;
        return rest;
      }
      const severity = choice === "block" ? ("blocking" as const) : ("advisory" as const);
      return { ...r, detect: r.detect.map((d) => ({ ...d, severity })) };
    }),
  }));
}

/**
 * Why a finding of a rule blocking for review does not block the commit, in the hook's words ("its detector is
 * advisory until measured", "the project advises it", "locked by policy"), from the playbook as served (before the
 * hook rules are applied); null when the rule is advisory for review too.
 */
export function findingWhy(
  served: ServedObligation[],
  choices: Record<string, HookChoice> | undefined,
  locked: readonly string[] | undefined,
): (rule: string) => string | null {
  const facts = new Map<string, { shipped: "blocking" | "advisory"; earned: boolean }>();
  for (const o of served)
    for (const r of o.rules)
      if (r.detect && r.detect.length > 0)
        facts.set(r.id, { shipped: r.severity, earned: (r.detect[0]!.severity ?? r.severity) === "blocking" });
  return (rule) => {
    const f = facts.get(rule);
    if (!f || f.shipped !== "blocking") return null;
    const v = choices && Object.hasOwn(choices, rule) ? choices[rule]! : null;
    const isLocked = v !== null && (locked ?? []).includes(rule);
    return hookWhy({ ...f, choice: isLocked ? null : v, lock: isLocked ? v : null });
  };
}
