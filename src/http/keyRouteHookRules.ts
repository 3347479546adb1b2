/**
 * The hook rules' key routes (docs/api.md "Hook rules"): what a project chose its detectors' findings do
 * in `talentd check` (block, advise, off). Read with the scope the playbook's detectors need, written with
 * `install`. Their descriptors sit beside the others' (http/keyRoutes.ts lists them); the handlers are
 * src/projects/routes/hookRules.ts, and the web routes' descriptors src/projects/describe.ts.
 */
import type { KeyRoute } from "./keyRoute";
import { a, B, I, map, n, o, obj, S, str } from "./schema";

/** One rule with a detector of the project's enabled talents. */
export const HookRuleRow = o({
  rule: S,
  talent: S,
  shipped: S,
  earned: B,
  security: B,
  effective: S,
  choice: n(S),
  lockedBy: n(S),
  lock: n(S),
});

/** The body of both PUTs (key and web). */
export const HOOK_RULES_BODY = obj({ rules: map(str({ enum: ["block", "advise", "off"] })) }, ["rules"]);

export const HOOK_RULES_READ = {
  method: "GET",
  path: "/api/hook-rules",
  scope: "validate",
  kind: "hook_rules",
  summary: "The project's hook rules: per rule with a detector, its shipped severity, whether it earned blocking, the project's choice",
  answer: o({ rules: a(HookRuleRow) }),
} satisfies KeyRoute;

export const HOOK_RULES_WRITE = {
  method: "PUT",
  path: "/api/hook-rules",
  scope: "install",
  kind: "hook_rules_set",
  summary:
    "Replace the project's hook rules ({rules: {RULE-ID: block | advise | off}}); rules not named go back to their shipped behaviour",
  body: HOOK_RULES_BODY,
  errors: [400, 409],
  answer: o({ rules: a(HookRuleRow), changed: I }),
} satisfies KeyRoute;
