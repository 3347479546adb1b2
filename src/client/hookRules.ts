/**
 * The project's hook rules applied to a playbook's detectors (docs/design.md "What blocks a commit"): the playbook
 * serves the detectors as the resolution pinned them (the signature proves them) and, beside them, the project's
 * choice per rule; here each chosen rule's detectors block, only advise, or are left out ("off").
 */
import type { ServedObligation } from "./check";

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
