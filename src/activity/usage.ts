/**
 * How talents are used (docs/api.md "Activity, insights and adoption"): one talent in one project (`…/talents/:talentId/usage`);
 * adoption.ts does the same for every talent of the organization. A designation is one
 * resolution that served the talent; a resolution is **audited** once its playbook was fetched
 * (a `validate` trace event of that resolution answered 2xx); verdicts are the report results
 * recorded for it. One talent's usage is read from the counts kept per day and version
 * (talent_days, kept by triggers in the transaction of each resolution, audit and report: migration
 * 0010), so a 90-day window reads at most 90 rows per version; adoption.ts and insights.ts read
 * the resolutions, their items, the journal and the reports themselves.
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { notFound } from "../http/errors";
import { iso } from "../lib/time";
import { isExpertiseRef } from "../selection/sources";
import { VERDICTS, type Verdict } from "../resolution/verdicts";
import { dateOf, noVerdicts, type VerdictCounts } from "./daily";
import { DAYS_MAX, windowView, type Window } from "./summaries";
import { SQLITE, type SqlDialect } from "../db/sqlDialect";

/**
 * True for a resolution `r` whose playbook was fetched successfully. Answered from the partial
 * index trace_events (resolution_id, kind, status) alone (migration 0005).
 */
export const AUDITED = `EXISTS (SELECT 1 FROM trace_events t WHERE t.resolution_id = r.id AND t.kind = 'validate'
  AND t.status BETWEEN 200 AND 299)`;

/** Verdict counts: every recorded result (`verdicts`) and the latest one per resolution (`outcomes`). */
export interface VerdictTally {
  verdicts: VerdictCounts;
  outcomes: VerdictCounts;
  /** Resolutions with at least one recorded verdict for the talent. */
  withVerdict: number;
}

export const emptyTally = (): VerdictTally => ({ verdicts: noVerdicts(), outcomes: noVerdicts(), withVerdict: 0 });
const isVerdict = (v: string): v is Verdict => (VERDICTS as readonly string[]).includes(v);

/**
 * Results recorded for the talents served by the resolutions `r` that `from` and `where` select,
 * each counted once (`total`) and, when it is the last report's result for its resolution and
 * talent, once more as that resolution's outcome (`latest`).
 */
export function verdictsSql(from: string, where: string, talentFilter = "", d: SqlDialect = SQLITE): string {
  return `SELECT talent_id, verdict, count(*) AS total, ${d.countWhere("k = 1")} AS latest FROM (
  SELECT rr.talent_id AS talent_id, rr.verdict AS verdict,
    row_number() OVER (PARTITION BY rep.resolution_id, rr.talent_id ORDER BY rep.created_at DESC, rep.id DESC) AS k
  FROM ${from}
  JOIN reports rep ON rep.resolution_id = r.id
  JOIN report_results rr ON rr.report_id = rep.id${talentFilter}
  WHERE ${where}
)${d.name === "sqlite" ? "" : " AS v"} GROUP BY talent_id, verdict`;
}

/** Adds verdict rows (of verdictsSql) into `out`, per talent. */
export function tallyVerdicts(
  rows: { talent_id: string; verdict: string; total: number; latest: number }[],
  out = new Map<string, VerdictTally>(),
): Map<string, VerdictTally> {
  for (const row of rows) {
    if (!isVerdict(row.verdict)) continue;
    let t = out.get(row.talent_id);
    if (!t) out.set(row.talent_id, (t = emptyTally()));
    t.verdicts[row.verdict] += Number(row.total);
    t.outcomes[row.verdict] += Number(row.latest);
    t.withVerdict += Number(row.latest);
  }
  return out;
}

/** n / of with three decimals; null when there is nothing to divide. */
export const rate = (n: number, of: number): number | null => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);

/** The latest version of a talent or expertise (null when it is neither in the catalog nor published). */
async function latestVersion(database: Database, catalog: Catalog, organizationId: string, talentId: string): Promise<string | null> {
  if (!isExpertiseRef(talentId)) return catalog.get(talentId)?.version ?? null;
  const row = await expertiseByRef(database, organizationId, talentId);
  return row && row.published_version > 0 ? String(row.published_version) : null;
}

interface ExpertiseRefRow {
  id: string;
  status: string;
  published_version: number;
}

/** An expertise of the organization by `@org/slug` (deleted ones too: old resolutions name them). */
async function expertiseByRef(database: Database, organizationId: string, ref: string): Promise<ExpertiseRefRow | undefined> {
  const m = /^@([^/]+)\/([^/]+)$/.exec(ref);
  if (!m) return undefined;
  return database.get<ExpertiseRefRow>(
    `SELECT e.id, e.status, e.published_version FROM expertises e JOIN organizations o ON o.id = e.organization_id
     WHERE e.organization_id = ? AND o.slug = ? AND e.slug = ?`,
    [organizationId, m[1]!, m[2]!],
  );
}

/** One talent_days row: a day's use of the talent at one version, kept by triggers on the writes it counts (migration 0012). */
type TalentDayRow = { day: number; version: string; designated: number; audited: number; first_at: number; last_at: number } & Record<
  Verdict | `latest_${Verdict}`,
  number
>;

/** A talent's kept days in a project over a window, on talent_days' primary key (project_id, talent_id, day, version). */
export const TALENT_DAYS_SQL = `SELECT day, version, designated, audited, first_at, last_at, pass, fail, not_applicable,
  latest_pass, latest_fail, latest_not_applicable FROM talent_days WHERE project_id = ? AND talent_id = ? AND day BETWEEN ? AND ?`;

/**
 * `GET /web/projects/:id/talents/<talentId>/usage`: designations, audits and verdicts over the
 * window, per day and per version served, the installed state and the last use (within the
 * last DAYS_MAX days). A talent is known when it is in the catalog, an expertise of the
 * organization, installed in the project, or was served to it in those days; anything else → 404.
 */
export async function talentUsage(
  database: Database,
  catalog: Catalog,
  project: { id: string; organizationId: string },
  talentId: string,
  w: Window,
) {
  const installed = await database.get<{ kind: string; enabled: number; installed_at: number }>(
    "SELECT kind, enabled, installed_at FROM installed_talents WHERE project_id = ? AND talent_id = ?",
    [project.id, talentId],
  );
  const expertise = isExpertiseRef(talentId) ? await expertiseByRef(database, project.organizationId, talentId) : undefined;
  const horizon = w.toDay - DAYS_MAX + 1;
  let last: number | null | undefined; // the last designation in the last DAYS_MAX days; undefined: not looked for yet
  if (!(!isExpertiseRef(talentId) && catalog.get(talentId) !== undefined) && !expertise && !installed) {
    // neither in the catalog, nor an expertise of the organization, nor installed: known only if it was served here lately
    last = await lastDesignation(database, project.id, talentId, horizon, w.toDay);
    if (last === null) throw notFound(`No talent ${talentId} for this project.`);
  }

  // the kept counts of the window: at most one row per day and version served (talent_days, migration 0012)
  const byDay = new Map<number, { designated: number; audited: number }>();
  for (let day = w.fromDay; day <= w.toDay; day++) byDay.set(day, { designated: 0, audited: 0 });
  const versions = new Map<string, { designated: number; audited: number; firstServedAt: number; lastServedAt: number }>();
  const tallies = new Map<string, VerdictTally>();
  let designated = 0;
  let audited = 0;
  for (const row of await database.all<TalentDayRow>(TALENT_DAYS_SQL, [project.id, talentId, w.fromDay, w.toDay])) {
    const line = byDay.get(Number(row.day))!;
    line.designated += Number(row.designated);
    line.audited += Number(row.audited);
    const v = versions.get(row.version) ?? { designated: 0, audited: 0, firstServedAt: Infinity, lastServedAt: 0 };
    v.designated += Number(row.designated);
    v.audited += Number(row.audited);
    v.firstServedAt = Math.min(v.firstServedAt, Number(row.first_at));
    v.lastServedAt = Math.max(v.lastServedAt, Number(row.last_at));
    versions.set(row.version, v);
    designated += Number(row.designated);
    audited += Number(row.audited);
    const verdictRows = VERDICTS.map((verdict) => ({
      talent_id: talentId,
      verdict,
      total: row[verdict],
      latest: row[`latest_${verdict}`],
    }));
    tallyVerdicts(verdictRows, tallies);
  }
  const verdicts = tallies.get(talentId) ?? emptyTally();
  // the latest verdict recorded in the window (the project's reports newest first, on their (project_id, created_at) index)
  const lastVerdict =
    verdicts.withVerdict === 0
      ? undefined
      : await database.get<{ verdict: string; created_at: number; resolution_id: string; report_id: string }>(
          `SELECT rr.verdict, rep.created_at, rep.resolution_id, rep.id AS report_id
     FROM reports rep JOIN report_results rr ON rr.report_id = rep.id AND rr.talent_id = ?
     WHERE rep.project_id = ? AND rep.created_at >= ? ORDER BY rep.created_at DESC LIMIT 1`,
          [talentId, project.id, w.from],
        );
  if (designated > 0) last = Math.max(...[...versions.values()].map((v) => v.lastServedAt));
  else if (last === undefined) last = await lastDesignation(database, project.id, talentId, horizon, w.fromDay - 1);

  const latest = await latestVersion(database, catalog, project.organizationId, talentId);
  return {
    projectId: project.id,
    talentId,
    kind: isExpertiseRef(talentId) ? "expertise" : "talent",
    ...(expertise ? { expertiseId: expertise.id } : {}),
    ...windowView(w),
    installed: installed
      ? { state: installed.enabled ? "active" : "disabled", installedAt: iso(installed.installed_at) }
      : { state: "not_installed", installedAt: null },
    designated,
    audited,
    auditRate: rate(audited, designated),
    withVerdict: verdicts.withVerdict,
    verdictRate: rate(verdicts.withVerdict, designated),
    verdicts: verdicts.verdicts,
    outcomes: verdicts.outcomes,
    latestVersion: latest,
    versions: [...versions.entries()]
      .sort((a, b) => b[1].lastServedAt - a[1].lastServedAt)
      .map(([version, v]) => ({
        version,
        latest: version === latest,
        designated: v.designated,
        audited: v.audited,
        firstServedAt: iso(v.firstServedAt),
        lastServedAt: iso(v.lastServedAt),
      })),
    lastUsedAt: last ? iso(last) : null,
    lastVerdict: lastVerdict
      ? {
          verdict: lastVerdict.verdict,
          at: iso(lastVerdict.created_at),
          resolutionId: lastVerdict.resolution_id,
          reportId: lastVerdict.report_id,
        }
      : null,
    byDay: [...byDay.entries()].map(([day, c]) => ({ date: dateOf(day), ...c })),
  };
}

/** When the project last designated the talent between two days (the kept counts' latest last_at), or null. */
async function lastDesignation(
  database: Database,
  projectId: string,
  talentId: string,
  fromDay: number,
  toDay: number,
): Promise<number | null> {
  const row = await database.get<{ at: number | null }>(
    "SELECT max(last_at) AS at FROM talent_days WHERE project_id = ? AND talent_id = ? AND day BETWEEN ? AND ? AND designated > 0",
    [projectId, talentId, fromDay, toDay],
  );
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
