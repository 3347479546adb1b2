/**
 * How talents are used (DESIGN §11): one talent in one project (`…/talents/:talentId/usage`);
 * adoption.ts does the same for every talent of the organization. A designation is one
 * resolution that served the talent; a resolution is **audited** once its playbook was fetched
 * (a `validate` trace event of that resolution answered 2xx); verdicts are the report results
 * recorded for it. All of it is read from resolutions, their items, the journal and the reports.
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { notFound } from "../http/errors";
import { iso } from "../lib/time";
import { isExpertiseRef } from "../resolution/sources";
import { VERDICTS, type Verdict } from "../resolution/reports";
import { dateOf, eachDay, noVerdicts, type VerdictCounts } from "./daily";
import { DAYS_MAX, windowView, type Window } from "./summaries";

/**
 * True for a resolution `r` whose playbook was fetched successfully. Answered from the partial
 * index trace_events (resolution_id, kind, status) alone (migration 0005).
 */
export const AUDITED = `EXISTS (SELECT 1 FROM trace_events t WHERE t.resolution_id = r.id AND t.kind = 'validate' AND t.status BETWEEN 200 AND 299)`;

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
export function verdictsSql(from: string, where: string, talentFilter = ""): string {
  return `SELECT talent_id, verdict, count(*) AS total, sum(k = 1) AS latest FROM (
  SELECT rr.talent_id AS talent_id, rr.verdict AS verdict,
    row_number() OVER (PARTITION BY rep.resolution_id, rr.talent_id ORDER BY rep.created_at DESC, rep.id DESC) AS k
  FROM ${from}
  JOIN reports rep ON rep.resolution_id = r.id
  JOIN report_results rr ON rr.report_id = rep.id${talentFilter}
  WHERE ${where}
) GROUP BY talent_id, verdict`;
}

/** Adds verdict rows (of verdictsSql) into `out`, per talent. */
export function tallyVerdicts(rows: { talent_id: string; verdict: string; total: number; latest: number }[], out = new Map<string, VerdictTally>()): Map<string, VerdictTally> {
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

/**
 * `GET /web/projects/:id/talents/<talentId>/usage`: designations, audits and verdicts over the
 * window, per day and per version served, the installed state and the last use (within the
 * last DAYS_MAX days). A talent is known when it is in the catalog, an expertise of the
 * organization, installed in the project, or was served to it in those days; anything else → 404.
 */
export async function talentUsage(database: Database, catalog: Catalog, project: { id: string; organizationId: string }, talentId: string, w: Window) {
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

  // one day of resolutions at a time (eachDay yields between two): designations per version, audits, verdicts
  const from = "resolutions r JOIN resolution_items i ON i.resolution_id = r.id AND i.talent_id = ?1";
  const where = "r.project_id = ?2 AND r.created_at >= ?3 AND r.created_at < ?4";
  const byDay = new Map<number, { designated: number; audited: number }>();
  const versions = new Map<string, { designated: number; audited: number; firstServedAt: number; lastServedAt: number }>();
  const tallies = new Map<string, VerdictTally>();
  let designated = 0;
  let audited = 0;
  await eachDay(w.fromDay, w.toDay, async (dayFrom, dayTo, day) => {
    const line = { designated: 0, audited: 0 };
    byDay.set(day, line);
    const rows = await database.all<{ version: string; designated: number; audited: number; last: number; first: number }>(
      `SELECT i.version AS version, count(*) AS designated, sum(${AUDITED}) AS audited, max(r.created_at) AS last, min(r.created_at) AS first
       FROM ${from} WHERE ${where} GROUP BY i.version`,
      [talentId, project.id, dayFrom, dayTo],
    );
    for (const row of rows) {
      line.designated += Number(row.designated);
      line.audited += Number(row.audited);
      const v = versions.get(row.version) ?? { designated: 0, audited: 0, firstServedAt: Infinity, lastServedAt: 0 };
      v.designated += Number(row.designated);
      v.audited += Number(row.audited);
      v.firstServedAt = Math.min(v.firstServedAt, Number(row.first));
      v.lastServedAt = Math.max(v.lastServedAt, Number(row.last));
      versions.set(row.version, v);
    }
    designated += line.designated;
    audited += line.audited;
    if (line.designated > 0) tallyVerdicts(await database.all(verdictsSql(from, where, " AND rr.talent_id = ?1"), [talentId, project.id, dayFrom, dayTo]), tallies);
  });
  const verdicts = tallies.get(talentId) ?? emptyTally();
  // the latest verdict recorded in the window (the project's reports newest first, on their (project_id, created_at) index)
  const lastVerdict = verdicts.withVerdict === 0 ? undefined : await database.get<{ verdict: string; created_at: number; resolution_id: string; report_id: string }>(
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
    installed: installed ? { state: installed.enabled ? "active" : "disabled", installedAt: iso(installed.installed_at) } : { state: "not_installed", installedAt: null },
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
      .map(([version, v]) => ({ version, latest: version === latest, designated: v.designated, audited: v.audited, firstServedAt: iso(v.firstServedAt), lastServedAt: iso(v.lastServedAt) })),
    lastUsedAt: last ? iso(last) : null,
    lastVerdict: lastVerdict ? { verdict: lastVerdict.verdict, at: iso(lastVerdict.created_at), resolutionId: lastVerdict.resolution_id, reportId: lastVerdict.report_id } : null,
    byDay: [...byDay.entries()].map(([day, c]) => ({ date: dateOf(day), ...c })),
  };
}

/** When the project last designated the talent between two days (newest first, a day at a time), or null. */
async function lastDesignation(database: Database, projectId: string, talentId: string, fromDay: number, toDay: number): Promise<number | null> {
  let found: number | null = null;
  await eachDay(fromDay, toDay, async (from, to) => {
    const row = await database.get<{ at: number | null }>(
      `SELECT max(r.created_at) AS at FROM resolutions r JOIN resolution_items i ON i.resolution_id = r.id AND i.talent_id = ?
       WHERE r.project_id = ? AND r.created_at >= ? AND r.created_at < ?`,
      [talentId, projectId, from, to],
    );
    if (row?.at !== null && row?.at !== undefined) found = Number(row.at);
  }, { newestFirst: true, stop: () => found !== null });
  return found;
}
