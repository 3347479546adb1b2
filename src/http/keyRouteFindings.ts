/**
 * The findings report's key route (docs/api.md "Rule effectiveness"): what `talentd check` sends
 * after it ran — counts per talent and rule, never a path, line or code. Its descriptor sits beside
 * the others' (http/keyRoutes.ts lists it); the handler is src/activity/findingsRoutes.ts.
 */
import type { KeyRoute } from "./keyRoute";
import { a, I, int, map, n, o, obj, S, str } from "./schema";

export const FINDINGS_ROUTE = {
  method: "POST",
  path: "/api/findings",
  scope: "validate",
  kind: "report_findings",
  summary: "Report detector findings of a talentd check run as counts per talent and rule",
  body: {
    ...obj({ resolutionId: str(), counts: map(map(int(0, 100_000))) }, ["counts"]),
    additionalProperties: false,
  },
  ok: 201,
  errors: [400, 404],
  answer: o({ rules: I, findings: I, served: a(S), notServed: a(S), resolutionId: n(S) }),
} satisfies KeyRoute;
