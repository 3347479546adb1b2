/**
 * Whether an agent's self-audit can be trusted, for an organization's insights (insights.ts;
 * docs/design.md "Self-audit against the hook"): of the `pass` verdicts recorded for a talent on
 * resolutions that have a findings report of the hook (`POST /api/findings` naming the resolution),
 * how many the hook contradicted — that report found findings on the talent's rules that block a
 * commit. The blocking rules are the ones the findings route judged when the report came
 * (`blockingRules`, policy/hookRules.ts, written into the report's trace as `detail.blocking`, as
 * the Activity tab shows them), so nothing here decides again what blocks. Per tool that recorded
 * the verdict (its `record_validation` call's client), and the contradicted passes one by one.
 */
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { clientName } from "../journal/clients";
import { foldWindow, type PeriodFold } from "../journal/dayMemo";
import type { Window } from "./summaries";
import { bothDialects } from "../db/sqlDialect";

/** Contradicted passes listed one by one (the newest); the counts hold every one. */
export const SELF_AUDIT_LISTED = 20;

type ProjectRef = { id: string; name: string };

/** A resolution of the organization's projects made in [?, ?). */
const IN_PERIOD = `r.project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND r.created_at >= ? AND r.created_at < ?`;
/** A successful findings report naming the resolution (trace_events_resolution_idx: resolution, kind, status). */
const FINDINGS_OF = (alias: string) => `${alias}.resolution_id = r.id AND ${alias}.kind = 'report_findings' AND ${alias}.status < 300`;

/**
 * A period's pass verdicts on resolutions with a findings report, each with the call that recorded
 * it (the `record_validation` trace naming the report's submission: its client and author).
 */
export const PASSES = bothDialects(
  (d) => `SELECT r.project_id, r.id AS resolution_id, rep.id AS report_id, rep.created_at, rr.talent_id,
  v.client, coalesce(v.author_name, rep.author_id) AS author
FROM resolutions r JOIN reports rep ON rep.resolution_id = r.id
JOIN report_results rr ON rr.report_id = rep.id AND rr.verdict = 'pass'
LEFT JOIN trace_events v ON v.id = (SELECT t.id FROM trace_events t WHERE t.resolution_id = r.id AND t.kind = 'record_validation'
  AND t.status < 300 AND ${d.jsonField("t.detail", ["submissionId"])} = rep.submission_id LIMIT 1)
WHERE ${IN_PERIOD} AND EXISTS (SELECT 1 FROM trace_events f WHERE ${FINDINGS_OF("f")})`,
);

/** The same resolutions' blocking findings, per talent and rule, summed over their findings reports. */
export const BLOCKING = bothDialects(
  (d) => `SELECT f.resolution_id, ${d.jsonField("b.value", ["talent"])} AS talent, ${d.jsonField("b.value", ["rule"])} AS rule,
  sum(${d.jsonNumber("b.value", ["findings"])}) AS findings
FROM resolutions r JOIN trace_events f ON ${FINDINGS_OF("f")}, ${d.jsonEach("f.detail", "b", ["blocking"], "json")}
WHERE ${IN_PERIOD} GROUP BY f.resolution_id, talent, rule`,
);

type PassRow = {
  project_id: string;
  resolution_id: string;
  report_id: string;
  created_at: number;
  talent_id: string;
  client: string | null;
  author: string;
};
type BlockingRow = { resolution_id: string; talent: string; rule: string; findings: number };

/** A contradicted pass. */
interface Case {
  projectId: string;
  resolutionId: string;
  reportId: string;
  at: number;
  talentId: string;
  rules: { rule: string; findings: number }[];
  author: string;
  client: string | null;
}
/** A period's (or the window's) passes and contradicted ones per tool name, and its newest contradicted passes. */
interface SelfAuditSum {
  byClient: Map<string, { passes: number; contradicted: number }>;
  cases: Case[];
  /** The answer drawn from this sum for these projects: kept with the sum (foldWindow hands out the same object while nothing changed). */
  answer?: { projects: readonly ProjectRef[]; out: ReturnType<typeof selfAuditAnswer> };
}

const newest = (cases: Case[]) =>
  cases.sort((a, b) => b.at - a.at || (a.reportId < b.reportId ? 1 : -1) || (a.talentId < b.talentId ? -1 : 1)).slice(0, SELF_AUDIT_LISTED);

const FOLD: PeriodFold<SelfAuditSum, SelfAuditSum> = {
  init: () => ({ byClient: new Map(), cases: [] }),
  add(acc, period) {
    for (const [name, c] of period.byClient) {
      const t = acc.byClient.get(name) ?? acc.byClient.set(name, { passes: 0, contradicted: 0 }).get(name)!;
      t.passes += c.passes;
      t.contradicted += c.contradicted;
    }
    if (period.cases.length > 0) acc.cases = newest([...acc.cases, ...period.cases]);
  },
  copy: (acc) => ({ byClient: new Map([...acc.byClient].map(([k, v]) => [k, { ...v }])), cases: acc.cases }),
};

/** A period's value: each pass judged against its resolution's blocking findings of the same talent. */
async function readPeriod(database: Database, organizationId: string, from: number, to: number): Promise<SelfAuditSum> {
  const out: SelfAuditSum = { byClient: new Map(), cases: [] };
  const passes = await database.all<PassRow>(PASSES[database.dialect], [organizationId, from, to]);
  if (passes.length === 0) return out;
  const blocking = new Map<string, { rule: string; findings: number }[]>();
  for (const b of await database.all<BlockingRow>(BLOCKING[database.dialect], [organizationId, from, to])) {
    const k = `${b.resolution_id} ${b.talent}`;
    (blocking.get(k) ?? blocking.set(k, []).get(k)!).push({ rule: b.rule, findings: Number(b.findings) });
  }
  const cases: Case[] = [];
  for (const p of passes) {
    const name = clientName(p.client);
    const t = out.byClient.get(name) ?? out.byClient.set(name, { passes: 0, contradicted: 0 }).get(name)!;
    t.passes++;
    const rules = blocking.get(`${p.resolution_id} ${p.talent_id}`);
    if (!rules) continue;
    t.contradicted++;
    cases.push({
      projectId: p.project_id,
      resolutionId: p.resolution_id,
      reportId: p.report_id,
      at: Number(p.created_at),
      talentId: p.talent_id,
      rules: [...rules].sort((a, b) => b.findings - a.findings || (a.rule < b.rule ? -1 : 1)),
      author: p.author,
      client: p.client,
    });
  }
  out.cases = newest(cases);
  return out;
}

/**
 * The self-audit figure of the window: pass verdicts on the resolutions made in it (their reports and
 * findings whenever they came), a day at a time through `foldWindow` (a verdict or a findings report
 * touches its resolution's day, so a settled day is read again only then).
 */
export async function selfAudit(database: Database, organizationId: string, projects: readonly ProjectRef[], w: Window) {
  const sum = await foldWindow(
    database,
    `selfaudit|${organizationId}`,
    w.fromDay,
    w.toDay,
    (from, to) => readPeriod(database, organizationId, from, to),
    FOLD,
  );
  // the same sum and projects: the same answer object, so the page keeps the section's HTML by it
  if (sum.answer?.projects !== projects) sum.answer = { projects, out: selfAuditAnswer(sum, projects) };
  return sum.answer.out;
}

const share = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);

/** The Activity tab of a case's project, filtered to the talent's fails (its blocking findings among them). */
export const caseHref = (projectId: string, talentId: string) =>
  `/projects/${projectId}?${new URLSearchParams({ tab: "activity", talent: talentId, result: "fail" })}`;

function selfAuditAnswer(sum: SelfAuditSum, projects: readonly ProjectRef[]) {
  const names = new Map(projects.map((p) => [p.id, p.name]));
  let passes = 0;
  let contradicted = 0;
  for (const c of sum.byClient.values()) {
    passes += c.passes;
    contradicted += c.contradicted;
  }
  return {
    passes,
    contradicted,
    share: share(contradicted, passes),
    byClient: [...sum.byClient]
      .map(([name, c]) => ({ name, passes: c.passes, contradicted: c.contradicted, share: share(c.contradicted, c.passes) }))
      .sort((a, b) => b.contradicted - a.contradicted || b.passes - a.passes || (a.name < b.name ? -1 : 1)),
    cases: sum.cases
      .filter((c) => names.has(c.projectId))
      .map((c) => ({
        projectId: c.projectId,
        projectName: names.get(c.projectId)!,
        resolutionId: c.resolutionId,
        reportId: c.reportId,
        recordedAt: iso(c.at),
        talentId: c.talentId,
        rules: c.rules,
        author: c.author,
        client: c.client,
        clientName: clientName(c.client),
        href: caseHref(c.projectId, c.talentId),
      })),
  };
}
