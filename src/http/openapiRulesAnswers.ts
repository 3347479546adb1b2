/** The declared success answers of the rule-effectiveness routes (src/activity/ruleEffect.ts), a part of ANSWERS (openapiAnswers.ts). */
import { a, I, n, o, S, type Schema } from "./schema";

const Verdicts = o({ pass: I, fail: I, not_applicable: I });
const Split = o({ served: I, notServed: I });
const Talent = o({
  talentId: S,
  href: S,
  served: I,
  audited: I,
  verdicts: Verdicts,
  findings: Split,
  rules: I,
  byClient: a(o({ client: n(S), name: S, served: I, audited: I })),
});
const Rule = o({
  talentId: S,
  ruleId: S,
  title: n(S),
  severity: n(S),
  href: S,
  served: I,
  audited: I,
  failVerdicts: I,
  findings: o({ served: I, notServed: I, total: I }),
  reports: I,
  byClient: a(o({ client: n(S), name: S, served: I, notServed: I })),
});
const Rules = o({
  window: o({ days: I, from: S, to: S, retentionDays: I }),
  totals: o({ served: I, audited: I, verdicts: Verdicts, findings: Split }),
  failingAfterServed: a(Rule),
  failingTalents: a(Talent),
  servedNeverAudited: a(Talent),
  neverServed: a(Rule),
  talents: a(Talent),
  rules: a(Rule),
});

/** The rules routes' answers, by `METHOD /path` (with `?format=csv`, the same rows as CSV). */
export const RULES_ANSWERS: Record<string, Schema> = {
  "GET /web/projects/{id}/rules": o({ projectId: S, ...(Rules.properties as Record<string, Schema>) }),
  "GET /web/orgs/current/rules": o({ organizationId: S, ...(Rules.properties as Record<string, Schema>) }),
};
