/**
 * Operational insights of an organization (DESIGN §11 "Insights and adoption", owner/admin):
 * failed calls by error code over the window, keys expired, expiring or unused, projects whose
 * selection has missing prerequisites or conflicts, resolutions served but never audited, and
 * expertises with failing verdicts. Every item carries the ids a page needs to link to where it
 * is fixed (project, key, resolution, report, expertise).
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { doctor } from "../resolution/doctor";
import { dateOf, DAY_MS, eachDay, eachSpan } from "./daily";
import { windowView, type Window } from "./summaries";
import { talentAdoption } from "./adoption";
import { AUDITED } from "./usage";

/** A key expiring within this many days is listed. */
export const KEY_EXPIRING_DAYS = 14;
/** A key not used for this many days is listed as unused… */
export const KEY_UNUSED_DAYS = 30;
/** …and one never used, once it is this many days old. */
export const KEY_NEVER_USED_DAYS = 7;
/** A resolution younger than this may still be audited (its task is under way): not counted as never audited. */
export const AUDIT_GRACE_MS = 60 * 60_000;
/** Never-audited resolutions listed one by one (the newest). */
export const NEVER_AUDITED_LISTED = 20;

type ProjectRef = { id: string; name: string };

/** The client (development tool) that prepared resolution `r`, from its prepare_task trace event. */
const PREPARED_BY = `(SELECT t.client FROM trace_events t WHERE t.resolution_id = r.id AND t.kind = 'prepare_task' LIMIT 1)`;

/**
 * A project's failed calls (status ≥ 400) since a time, by day, status, error code (recorded in
 * the event's detail by the trace hook) and kind: the partial index trace_events_failed_idx
 * holds only failed calls, so the successful ones are never walked.
 */
export const FAILED_CALLS_SQL = `SELECT created_at / 86400000 AS day, status, json_extract(detail, '$.error') AS code, kind, count(*) AS n, max(created_at) AS last
FROM trace_events WHERE project_id = ? AND status >= 400 AND created_at >= ? AND created_at < ? GROUP BY day, status, code, kind`;

/** How many failed calls a project had since a time (the same partial index): decides how the window is walked. */
const FAILED_COUNT_SQL = "SELECT count(*) AS n FROM trace_events WHERE project_id = ? AND status >= 400 AND created_at >= ?";
/** How many resolutions a project made since a time (a covering index). */
const RESOLUTION_COUNT_SQL = "SELECT count(*) AS n FROM resolutions WHERE project_id = ? AND created_at >= ?";
const count = async (database: Database, sql: string, args: (string | number)[]): Promise<number> => Number((await database.get<{ n: number }>(sql, args))!.n);

/** Failed calls of the organization's projects by error code and day. */
async function failedCalls(database: Database, projects: ProjectRef[], w: Window) {
  const byCode = new Map<string, { code: string | null; status: number; count: number; lastAt: number; byKind: Record<string, number>; projects: Map<string, number> }>();
  const byDay = new Map<number, { count: number; byCode: Record<string, number> }>();
  for (let d = w.fromDay; d <= w.toDay; d++) byDay.set(d, { count: 0, byCode: {} });
  let total = 0;
  for (const p of projects) {
    const failed = await count(database, FAILED_COUNT_SQL, [p.id, w.from]);
    if (failed === 0) continue;
    await eachSpan(w.fromDay, w.toDay, failed, async (from, to) => {
      const rows = await database.all<{ day: number; status: number; code: string | null; kind: string; n: number; last: number }>(FAILED_CALLS_SQL, [p.id, from, to]);
      for (const r of rows) {
        const n = Number(r.n);
        const code = typeof r.code === "string" ? r.code : null;
        const key = `${code ?? ""}|${r.status}`;
        let c = byCode.get(key);
        if (!c) byCode.set(key, (c = { code, status: Number(r.status), count: 0, lastAt: 0, byKind: {}, projects: new Map() }));
        c.count += n;
        c.lastAt = Math.max(c.lastAt, Number(r.last));
        c.byKind[r.kind] = (c.byKind[r.kind] ?? 0) + n;
        c.projects.set(p.id, (c.projects.get(p.id) ?? 0) + n);
        const day = byDay.get(Number(r.day));
        if (day) {
          day.count += n;
          const label = code ?? String(r.status);
          day.byCode[label] = (day.byCode[label] ?? 0) + n;
        }
        total += n;
      }
    });
  }
  const names = new Map(projects.map((p) => [p.id, p.name]));
  return {
    total,
    byCode: [...byCode.values()]
      .sort((a, b) => b.count - a.count || a.status - b.status)
      .map((c) => ({
        code: c.code,
        status: c.status,
        count: c.count,
        lastAt: iso(c.lastAt),
        byKind: c.byKind,
        projects: [...c.projects.entries()].sort((a, b) => b[1] - a[1]).map(([id, count]) => ({ projectId: id, projectName: names.get(id)!, count })),
      })),
    byDay: [...byDay.entries()].map(([day, c]) => ({ date: dateOf(day), ...c })),
  };
}

/** Active keys of the organization that expired, expire soon, were never used, or not lately. */
async function keysToReview(database: Database, organizationId: string, now: number) {
  const rows = await database.all<{ id: string; name: string; project_id: string; project_name: string; expires_at: number | null; last_used_at: number | null; created_at: number; automation: number; created_by: string; email: string | null }>(
    `SELECT k.id, k.name, k.project_id, p.name AS project_name, k.expires_at, k.last_used_at, k.created_at, k.automation, k.created_by, u.email
     FROM api_keys k JOIN projects p ON p.id = k.project_id LEFT JOIN users u ON u.id = k.created_by
     WHERE p.organization_id = ? AND k.revoked_at IS NULL`,
    [organizationId],
  );
  const out = [];
  for (const k of rows) {
    const expiresAt = k.expires_at === null ? null : Number(k.expires_at);
    const lastUsedAt = k.last_used_at === null ? null : Number(k.last_used_at);
    let reason: "expired" | "expiring" | "never_used" | "unused" | null = null;
    if (expiresAt !== null && expiresAt <= now) reason = "expired";
    else if (expiresAt !== null && expiresAt <= now + KEY_EXPIRING_DAYS * DAY_MS) reason = "expiring";
    else if (lastUsedAt === null && Number(k.created_at) <= now - KEY_NEVER_USED_DAYS * DAY_MS) reason = "never_used";
    else if (lastUsedAt !== null && lastUsedAt <= now - KEY_UNUSED_DAYS * DAY_MS) reason = "unused";
    if (!reason) continue;
    out.push({
      reason,
      keyId: k.id,
      name: k.name,
      projectId: k.project_id,
      projectName: k.project_name,
      automation: Boolean(k.automation),
      createdAt: iso(Number(k.created_at)),
      expiresAt: iso(expiresAt),
      lastUsedAt: iso(lastUsedAt),
      createdBy: { id: k.created_by, email: k.email },
    });
  }
  const order = { expired: 0, expiring: 1, never_used: 2, unused: 3 };
  return out.sort((a, b) => order[a.reason] - order[b.reason] || (a.projectName < b.projectName ? -1 : 1) || (a.name < b.name ? -1 : 1));
}

/** Projects whose selection doctor finds at fault (missing prerequisites, conflicts, disabled dependencies, unservable talents). */
async function projectsToFix(database: Database, catalog: Catalog, organizationId: string, projects: ProjectRef[]) {
  const out = [];
  for (const p of projects) {
    const d = await doctor({ database, catalog }, { id: p.id, organizationId }, { admin: false });
    if (d.healthy) continue;
    out.push({
      projectId: p.id,
      projectName: p.name,
      missingPrerequisites: d.missingPrerequisites,
      conflicts: d.conflicts,
      disabledDependencies: d.disabledDependencies,
      unservable: d.unservable,
      advice: d.advice,
    });
  }
  return out.sort((a, b) => (a.projectName < b.projectName ? -1 : a.projectName > b.projectName ? 1 : 0));
}

/**
 * Resolutions served in the window (older than AUDIT_GRACE_MS) whose playbook was never fetched:
 * per project, per development tool that prepared them, and the newest ones with their talents.
 */
async function neverAudited(database: Database, projects: ProjectRef[], w: Window, now: number) {
  const until = now - AUDIT_GRACE_MS;
  const byProject = [];
  const byClient = new Map<string, { client: string | null; served: number; neverAudited: number }>();
  let recent: { id: string; project_id: string; created_at: number; via: string; author_type: string; author_id: string; client: string | null }[] = [];
  let served = 0;
  let never = 0;
  for (const p of projects) {
    let pServed = 0;
    let pNever = 0;
    const made = await count(database, RESOLUTION_COUNT_SQL, [p.id, w.from]);
    if (made === 0) continue;
    await eachSpan(w.fromDay, w.toDay, made, async (from, to) => {
      const rows = await database.all<{ client: string | null; served: number; never: number }>(
        `SELECT ${PREPARED_BY} AS client, count(*) AS served, sum(NOT ${AUDITED}) AS never
         FROM resolutions r WHERE r.project_id = ? AND r.created_at >= ? AND r.created_at < ? GROUP BY client`,
        [p.id, from, Math.min(to, until)],
      );
      for (const r of rows) {
        pServed += Number(r.served);
        pNever += Number(r.never);
        const c = byClient.get(r.client ?? "") ?? { client: r.client, served: 0, neverAudited: 0 };
        c.served += Number(r.served);
        c.neverAudited += Number(r.never);
        byClient.set(r.client ?? "", c);
      }
    });
    served += pServed;
    never += pNever;
    if (pServed > 0) byProject.push({ projectId: p.id, projectName: p.name, served: pServed, neverAudited: pNever });
    if (pNever > 0) {
      // the newest never-audited ones, a day at a time from the newest day
      const mine: typeof recent = [];
      await eachSpan(w.fromDay, w.toDay, made, async (from, to) => {
        mine.push(
          ...(await database.all<(typeof recent)[number]>(
            `SELECT r.id, r.project_id, r.created_at, r.via, r.author_type, r.author_id, ${PREPARED_BY} AS client
             FROM resolutions r WHERE r.project_id = ? AND r.created_at >= ? AND r.created_at < ? AND NOT ${AUDITED}
             ORDER BY r.created_at DESC LIMIT ?`,
            [p.id, from, Math.min(to, until), NEVER_AUDITED_LISTED - mine.length],
          )),
        );
      }, { newestFirst: true, stop: () => mine.length >= NEVER_AUDITED_LISTED });
      recent.push(...mine);
    }
  }
  recent = recent.sort((a, b) => Number(b.created_at) - Number(a.created_at)).slice(0, NEVER_AUDITED_LISTED);
  const talents = new Map<string, string[]>();
  if (recent.length > 0) {
    const items = await database.all<{ resolution_id: string; talent_id: string }>(
      `SELECT resolution_id, talent_id FROM resolution_items WHERE resolution_id IN (${recent.map(() => "?").join(", ")}) ORDER BY resolution_id, position`,
      recent.map((r) => r.id),
    );
    for (const i of items) (talents.get(i.resolution_id) ?? talents.set(i.resolution_id, []).get(i.resolution_id)!).push(i.talent_id);
  }
  const names = new Map(projects.map((p) => [p.id, p.name]));
  return {
    served,
    neverAudited: never,
    share: served === 0 ? null : Math.round((never / served) * 1000) / 1000,
    graceMinutes: AUDIT_GRACE_MS / 60_000,
    byProject: byProject.sort((a, b) => b.neverAudited - a.neverAudited || (a.projectName < b.projectName ? -1 : 1)),
    byClient: [...byClient.values()].sort((a, b) => b.neverAudited - a.neverAudited || b.served - a.served),
    recent: recent.map((r) => ({
      resolutionId: r.id,
      projectId: r.project_id,
      projectName: names.get(r.project_id)!,
      createdAt: iso(Number(r.created_at)),
      via: r.via,
      author: { type: r.author_type, id: r.author_id },
      client: r.client,
      talents: talents.get(r.id) ?? [],
    })),
  };
}

/** Expertises with at least one fail verdict on a resolution of the window, with the latest failing report. */
async function failingExpertises(database: Database, catalog: Catalog, org: { id: string; slug: string }, projects: ProjectRef[], w: Window) {
  const adoption = (await talentAdoption(database, catalog, org, w)).filter((e) => e.kind === "expertise" && e.verdicts.fail > 0);
  if (adoption.length === 0) return [];
  // the latest failing result per expertise, over the window's resolutions a day at a time
  type Fail = { talent_id: string; report_id: string; resolution_id: string; project_id: string; created_at: number; evidence: string; missing: string; note: string | null };
  const latest: Fail[] = [];
  await eachDay(w.fromDay, w.toDay, async (from, to) => {
    latest.push(
      ...(await database.all<Fail>(
        `SELECT talent_id, report_id, resolution_id, project_id, created_at, evidence, missing, note FROM (
           SELECT rr.talent_id, rep.id AS report_id, rep.resolution_id, rep.project_id, rep.created_at, rr.evidence, rr.missing, rr.note,
             row_number() OVER (PARTITION BY rr.talent_id ORDER BY rep.created_at DESC, rep.id DESC) AS k
           FROM resolutions r JOIN reports rep ON rep.resolution_id = r.id
           JOIN report_results rr ON rr.report_id = rep.id AND rr.kind = 'expertise' AND rr.verdict = 'fail'
           WHERE r.project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND r.created_at >= ? AND r.created_at < ?
         ) WHERE k = 1`,
        [org.id, from, to],
      )),
    );
  });
  latest.sort((a, b) => Number(a.created_at) - Number(b.created_at) || (a.report_id < b.report_id ? -1 : 1)); // the newest last: it wins below
  const byTalent = new Map(latest.map((l) => [l.talent_id, l]));
  const names = new Map(projects.map((p) => [p.id, p.name]));
  return adoption
    .sort((a, b) => b.verdicts.fail - a.verdicts.fail || (a.id < b.id ? -1 : 1))
    .map((e) => {
      const l = byTalent.get(e.id);
      return {
        expertiseId: e.expertiseId,
        ref: e.id,
        status: e.status,
        designations: e.designations,
        withVerdict: e.withVerdict,
        verdictRate: e.verdictRate,
        verdicts: e.verdicts,
        outcomes: e.outcomes,
        lastFail: l
          ? {
              at: iso(Number(l.created_at)),
              projectId: l.project_id,
              projectName: names.get(l.project_id) ?? null,
              resolutionId: l.resolution_id,
              reportId: l.report_id,
              evidence: JSON.parse(l.evidence) as string[],
              missing: JSON.parse(l.missing) as string[],
              note: l.note,
            }
          : null,
      };
    });
}

/** `GET /web/orgs/current/insights`. */
export async function insights(database: Database, catalog: Catalog, org: { id: string; slug: string }, projects: ProjectRef[], w: Window, now = Date.now()) {
  return {
    organizationId: org.id,
    ...windowView(w),
    failedCalls: await failedCalls(database, projects, w),
    keys: await keysToReview(database, org.id, now),
    projects: await projectsToFix(database, catalog, org.id, projects),
    neverAudited: await neverAudited(database, projects, w, now),
    expertises: await failingExpertises(database, catalog, org, projects, w),
  };
}
