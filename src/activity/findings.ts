/**
 * Detector findings reported by the talentd client after `talentd check` ran (`POST /api/findings`,
 * docs/api.md "Rule effectiveness"): counts per talent and rule, nothing else — no path, line or
 * code is accepted, so no part of a diff leaves the machine. Each count is added to its day's row of
 * rule_finding_days, split by the reporting client and by whether the rule's talent was served to
 * the task that produced the change (docs/design.md "Rule effectiveness").
 */
import type { Database } from "../db/client";
import { notFound, validationFailed, type Issue } from "../http/errors";
import { RULE_ID_PATTERN } from "../catalog/format";
import { DAY_MS } from "../journal/dayMemo";
import { isObject } from "../lib/json";

/** A task's resolution counts as "served to the task" for reports made within this time after it. */
export const TASK_WINDOW_MS = 12 * 3_600_000;
/** Talents a report may name, and rules per talent. */
export const FINDINGS_MAX_TALENTS = 100;
export const FINDINGS_MAX_RULES = 200;
/** The largest count of one rule in one report. */
export const FINDINGS_MAX_COUNT = 100_000;

/** A talent id: `slug` of the catalog or `@org/slug` of an expertise. */
const TALENT_ID = /^(?:@[a-z0-9]+(?:-[a-z0-9]+)*\/)?[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Rule ids as served (the catalog's pattern, and the looser one of older talents: `ABC-1`). */
const RULE_ID = /^[A-Z][A-Z0-9]{0,15}-\d{1,6}$/;

/** What a findings report says: counts by talent and rule, and optionally the task's resolution. */
export interface FindingsReport {
  resolutionId: string | null;
  counts: Map<string, Map<string, number>>;
}

/**
 * The report in a body, or 400 validation_failed: only `resolutionId` (a string) and `counts`
 * (`{talentId: {ruleId: n}}`, n a whole number ≥ 0) — any other field, anywhere, is refused.
 */
export function readFindings(body: unknown): FindingsReport {
  if (!isObject(body)) throw validationFailed([{ path: "", message: "the body must be a JSON object" }]);
  const issues: Issue[] = [];
  for (const k of Object.keys(body))
    if (k !== "resolutionId" && k !== "counts")
      issues.push({ path: k, message: `${k} is not a field: a report holds only resolutionId and counts` });
  const rid = body.resolutionId;
  if (rid !== undefined && rid !== null && (typeof rid !== "string" || rid.length === 0 || rid.length > 100))
    issues.push({ path: "resolutionId", message: "must be a resolution id" });
  const counts = new Map<string, Map<string, number>>();
  if (!isObject(body.counts)) issues.push({ path: "counts", message: "must be an object {talentId: {ruleId: count}}" });
  else {
    const talents = Object.entries(body.counts);
    if (talents.length > FINDINGS_MAX_TALENTS) issues.push({ path: "counts", message: `at most ${FINDINGS_MAX_TALENTS} talents` });
    for (const [talent, rules] of talents.slice(0, FINDINGS_MAX_TALENTS)) {
      if (!TALENT_ID.test(talent)) issues.push({ path: `counts.${talent.slice(0, 60)}`, message: "not a talent id" });
      else if (!isObject(rules)) issues.push({ path: `counts.${talent}`, message: "must be an object {ruleId: count}" });
      else {
        const entries = Object.entries(rules);
        if (entries.length > FINDINGS_MAX_RULES) issues.push({ path: `counts.${talent}`, message: `at most ${FINDINGS_MAX_RULES} rules` });
        const byRule = new Map<string, number>();
        for (const [rule, n] of entries.slice(0, FINDINGS_MAX_RULES)) {
          if (!RULE_ID.test(rule) && !RULE_ID_PATTERN.test(rule))
            issues.push({ path: `counts.${talent}.${rule.slice(0, 40)}`, message: "not a rule id" });
          else if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > FINDINGS_MAX_COUNT)
            issues.push({ path: `counts.${talent}.${rule}`, message: `must be a whole number from 0 to ${FINDINGS_MAX_COUNT}` });
          else byRule.set(rule, n);
        }
        counts.set(talent, byRule);
      }
    }
  }
  if (issues.length > 0) throw validationFailed(issues);
  return { resolutionId: typeof rid === "string" ? rid : null, counts };
}

/** Talents of the project's resolutions made for a task (not by a talentd client run) in [from, to], among `talents`. */
const TASK_TALENTS_SQL = (n: number) => `SELECT DISTINCT ri.talent_id AS talent_id
FROM resolutions r JOIN resolution_items ri ON ri.resolution_id = r.id
WHERE r.project_id = ? AND r.created_at >= ? AND r.created_at <= ? AND ri.talent_id IN (${Array(n).fill("?").join(", ")})
  AND NOT EXISTS (SELECT 1 FROM trace_events t WHERE t.resolution_id = r.id AND t.kind = 'prepare_task'
    AND lower(t.client) LIKE 'talentd-client/%')`;

/**
 * The talents, among `talents`, that were served to the task that produced the change: the named
 * resolution's (404 when the project has no such resolution), or, when none is named, those of
 * any resolution the project prepared for a task (an agent or person, not a talentd client's own
 * check, hook or CI run) within TASK_WINDOW_MS before the report.
 */
export async function servedToTask(
  database: Database,
  projectId: string,
  resolutionId: string | null,
  talents: string[],
  now: number,
): Promise<Set<string>> {
  if (talents.length === 0) return new Set();
  if (resolutionId !== null) {
    const r = await database.get("SELECT 1 AS found FROM resolutions WHERE id = ? AND project_id = ?", [resolutionId, projectId]);
    if (!r) throw notFound(`No resolution ${resolutionId} in this project.`);
    const rows = await database.all<{ talent_id: string }>(
      `SELECT talent_id FROM resolution_items WHERE resolution_id = ? AND talent_id IN (${talents.map(() => "?").join(", ")})`,
      [resolutionId, ...talents],
    );
    return new Set(rows.map((r) => r.talent_id));
  }
  const rows = await database.all<{ talent_id: string }>(TASK_TALENTS_SQL(talents.length), [
    projectId,
    now - TASK_WINDOW_MS,
    now,
    ...talents,
  ]);
  return new Set(rows.map((r) => r.talent_id));
}

/** Adds a report's counts to today's rows (one write, all or nothing); returns what was recorded. */
export async function recordFindings(
  database: Database,
  projectId: string,
  client: string | null,
  report: FindingsReport,
  now = Date.now(),
): Promise<{ rules: number; findings: number; served: string[]; notServed: string[] }> {
  const talents = [...report.counts.keys()];
  const served = await servedToTask(database, projectId, report.resolutionId, talents, now);
  const day = Math.floor(now / DAY_MS);
  const statements = [];
  let findings = 0;
  for (const [talent, rules] of report.counts) {
    for (const [rule, n] of rules) {
      findings += n;
      statements.push({
        sql:
          "INSERT INTO rule_finding_days (project_id, day, talent_id, rule_id, client, served, findings, reports) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (project_id, day, talent_id, rule_id, client, served) DO UPDATE " +
          "SET findings = rule_finding_days.findings + excluded.findings, reports = rule_finding_days.reports + 1",
        args: [projectId, day, talent, rule, client ?? "", served.has(talent) ? 1 : 0, n],
      });
    }
  }
  if (statements.length > 0) await database.writeJob({ statements });
  return {
    rules: statements.length,
    findings,
    served: talents.filter((t) => served.has(t)).sort(),
    notServed: talents.filter((t) => !served.has(t)).sort(),
  };
}

/** Rules of a report's blocking findings the trace names, at most. */
export const BLOCKING_LISTED = 20;

/** The report's findings on rules that block (`talent rule` keys), most first: `{talent, rule, findings}`, at most BLOCKING_LISTED. */
export function blockingOf(report: FindingsReport, blocking: ReadonlySet<string>): { talent: string; rule: string; findings: number }[] {
  const out: { talent: string; rule: string; findings: number }[] = [];
  for (const [talent, rules] of report.counts)
    for (const [rule, n] of rules) if (n > 0 && blocking.has(`${talent} ${rule}`)) out.push({ talent, rule, findings: n });
  return out.sort((a, b) => b.findings - a.findings).slice(0, BLOCKING_LISTED);
}
