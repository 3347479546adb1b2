/**
 * What the Activity tab shows of an action's outcome without expanding it (docs/design.md "The
 * Activity tab leads with the outcome"): the fail verdicts a call recorded, with their evidence
 * (`file:line`) or missing elements, read from the reports the page's record_validation calls name;
 * and the findings a call reported on rules that block a commit (its trace detail's `blocking`).
 */
import type { Database } from "../db/client";
import { keptRead } from "../db/versionMemo";
import type { TraceEvent } from "../journal/journal";
import type { ActivityRow } from "./activityRows";

export interface FailingVerdict {
  talentId: string;
  evidence: string[];
  missing: string[];
}

export interface BlockingFinding {
  talent: string;
  rule: string;
  findings: number;
}

/** An action's outcome: its fail verdicts, its blocking findings, and whether it is a fail. */
export interface RowOutcome {
  fails: FailingVerdict[];
  blocking: BlockingFinding[];
  fail: boolean;
}

const FAILS_SQL = (n: number) => `SELECT r.submission_id AS sid, rr.talent_id AS talent, rr.evidence, rr.missing
FROM reports r JOIN report_results rr ON rr.report_id = r.id
WHERE r.project_id = ? AND r.submission_id IN (${Array(n).fill("?").join(", ")}) AND rr.verdict = 'fail'
ORDER BY r.created_at, r.id, rr.position`;

const failCount = (e: TraceEvent): number => {
  const s = e.detail?.summary as Record<string, unknown> | undefined;
  return typeof s?.fail === "number" ? s.fail : 0;
};

/** The fail verdicts of the page's reports, by submission id (one read, kept per data version). */
export async function failingVerdicts(database: Database, projectId: string, events: TraceEvent[]): Promise<Map<string, FailingVerdict[]>> {
  const ids = [
    ...new Set(
      events
        .filter((e) => e.kind === "record_validation" && failCount(e) > 0 && typeof e.detail?.submissionId === "string")
        .map((e) => e.detail!.submissionId as string),
    ),
  ];
  const out = new Map<string, FailingVerdict[]>();
  if (ids.length === 0) return out;
  const sql = FAILS_SQL(ids.length);
  const rows = await keptRead(database, sql, [projectId, ...ids], () =>
    database.all<{ sid: string; talent: string; evidence: string; missing: string }>(sql, [projectId, ...ids]),
  );
  for (const r of rows) {
    const list = out.get(r.sid) ?? [];
    list.push({ talentId: r.talent, evidence: JSON.parse(r.evidence) as string[], missing: JSON.parse(r.missing) as string[] });
    out.set(r.sid, list);
  }
  return out;
}

const blockingOf = (e: TraceEvent): BlockingFinding[] =>
  e.kind === "report_findings" && Array.isArray(e.detail?.blocking) ? (e.detail.blocking as BlockingFinding[]) : [];

/** The outcome of one action (row): every fail verdict and blocking finding of its calls. */
export function outcomeOf(row: ActivityRow, verdicts: ReadonlyMap<string, FailingVerdict[]>): RowOutcome {
  const fails: FailingVerdict[] = [];
  const blocking: BlockingFinding[] = [];
  let fail = false;
  const seen = new Set<string>(); // a replayed report names the same submission
  for (const s of row.steps) {
    if (s.kind === "record_validation" && failCount(s) > 0) {
      fail = true;
      const sid = s.detail?.submissionId;
      if (typeof sid === "string" && !seen.has(sid)) {
        seen.add(sid);
        fails.push(...(verdicts.get(sid) ?? []));
      }
    }
    const b = blockingOf(s);
    if (b.length > 0) {
      fail = true;
      blocking.push(...b);
    }
  }
  return { fails, blocking, fail };
}

/** E-mail of the user who authorized each OAuth token among the events (token id → e-mail). */
export async function tokenEmails(db: Database, events: TraceEvent[]): Promise<Map<string, string>> {
  const ids = [...new Set(events.filter((e) => e.authorType === "token").map((e) => e.authorId))];
  if (ids.length === 0) return new Map();
  const marks = ids.map(() => "?").join(", ");
  const rows = await db.all<{ id: string; email: string }>(
    `SELECT t.id AS id, u.email AS email FROM oauth_tokens t JOIN users u ON u.id = t.user_id WHERE t.id IN (${marks})`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r.email]));
}
