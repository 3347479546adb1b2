/**
 * The declared success answers of the organization's governance routes (the audit log and its export, the
 * import of rule files), a part of ANSWERS (openapiAnswers.ts).
 */
import { a, I, n, o, open, S, Triggers, type Schema } from "./schema";

/** The governance routes' answers, by `METHOD /path`; an answer that is not JSON names its media type. */
export const GOVERNANCE_ANSWERS: Record<string, Schema | { media: string }> = {
  "GET /web/orgs/current/audit-log": o({
    entries: a(
      o({
        id: S,
        at: S,
        actor: o({ kind: S, id: S, label: S }),
        action: S,
        object: o({ kind: S, id: S }),
        before: n(open),
        after: n(open),
      }),
    ),
    nextCursor: n(S),
  }),
  "GET /web/orgs/current/audit-log/export": { media: "application/jsonl" },
  "POST /web/orgs/current/expertises/import": o({
    drafts: a(
      o({
        ...{ id: S, ref: S, slug: S, path: S, format: S, title: S, status: S, rules: a(o({ id: S, severity: S, title: S })) },
        ...{ triggers: Triggers, contentFindings: I, notes: a(S), skipped: a(o({ line: I, text: S, reason: S })), editor: S },
      }),
    ),
  }),
};
