/**
 * One vocabulary for what a rule is and what the hook does with it (docs/design.md "What blocks a commit", "One
 * vocabulary"): a rule's severity is for the agent's review (`blocking` or `advisory`, the rule's own word), and,
 * separately, whether `talentd check` blocks a commit on its detector's findings — "blocks", "advises (why)" or
 * "off (why)". The guidance, the talent sheet, the Settings tab, the policy page and the hook's output all say it
 * with these words. Imports nothing (the client uses it too).
 */

export type HookEffect = "block" | "advise" | "off";

/** Why a rule's findings do not block, in the words every channel uses. */
export const HOOK_WHY = {
  unmeasured: "its detector is advisory until measured",
  advisoryRule: "an advisory rule",
  projectAdvises: "the project advises it",
  projectOff: "off in this project",
  policy: "locked by policy",
} as const;

/** What decides a rule's hook behaviour: its severity, its detector's earned blocking, the project's choice, the lock. */
export interface HookFacts {
  shipped: "blocking" | "advisory";
  earned: boolean;
  choice?: HookEffect | null;
  lock?: HookEffect | null;
}

/** The effective behaviour: the lock, else the project's choice, else block where earned. */
export function hookEffect(f: HookFacts): HookEffect {
  return f.lock ?? f.choice ?? (f.earned ? "block" : "advise");
}

/** Why the hook does not block on the rule (null: it blocks). */
export function hookWhy(f: HookFacts): string | null {
  const effect = hookEffect(f);
  if (effect === "block") return null;
  if (f.lock) return HOOK_WHY.policy;
  if (f.choice === "off") return HOOK_WHY.projectOff;
  if (f.choice === "advise") return HOOK_WHY.projectAdvises;
  return f.shipped === "advisory" ? HOOK_WHY.advisoryRule : HOOK_WHY.unmeasured;
}

/** "blocks", "advises (why)", "off in this project" or "off (locked by policy)": what the hook does with the rule's findings. */
export function hookSays(f: HookFacts): string {
  const effect = hookEffect(f);
  const why = hookWhy(f);
  if (effect === "block") return f.lock ? `blocks (${HOOK_WHY.policy})` : "blocks";
  if (effect === "off") return f.lock ? `off (${HOOK_WHY.policy})` : HOOK_WHY.projectOff;
  return `advises (${why})`;
}
