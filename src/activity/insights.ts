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
import { listServableExpertises } from "../expertises/servable";
import { diagnose } from "../resolution/doctor";
import { withItems } from "../resolution/sources";
import { eachPeriod } from "./dayMemo";
import { orgSelections, type OrgSelectionRow } from "./selections";
import { dateOf, DAY_MS } from "./daily";
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
 * Failed calls (status ≥ 400) of an organization's projects in a period, by project, day,
 * status, error code (recorded in the event's detail by the trace hook) and kind: the partial
 * index trace_events_failed_idx holds only failed calls (probed per project), so the successful
 * ones are never walked.
 */
export const FAILED_CALLS_ORG_SQL = `SELECT project_id, created_at / 86400000 AS day, status, json_extract(detail, '$.error') AS code, kind, count(*) AS n, max(created_at) AS last
FROM trace_events WHERE project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND status >= 400 AND created_at >= ? AND created_at < ? GROUP BY project_id, day, status, code, kind`;

type FailedRow = { project_id: string; day: number; status: number; code: string | null; kind: string; n: number; last: number };

/** A period's failed calls folded by code and status, and by day and code label. */
interface FailedPeriod {
  codes: { code: string | null; status: number; count: number; last: number; byKind: Record<string, number>; projects: [string, number][] }[];
  days: [day: number, label: string, n: number][];
}

function foldFailed(rows: FailedRow[]): FailedPeriod {
  const codes = new Map<string, { code: string | null; status: number; count: number; last: number; byKind: Record<string, number>; projects: Map<string, number> }>();
  const days = new Map<string, [number, string, number]>();
  for (const r of rows) {
    const n = Number(r.n);
    const code = typeof r.code === "string" ? r.code : null;
    const key = `${code ?? ""}|${r.status}`;
    let c = codes.get(key);
    if (!c) codes.set(key, (c = { code, status: Number(r.status), count: 0, last: 0, byKind: {}, projects: new Map() }));
    c.count += n;
    c.last = Math.max(c.last, Number(r.last));
    c.byKind[r.kind] = (c.byKind[r.kind] ?? 0) + n;
    c.projects.set(r.project_id, (c.projects.get(r.project_id) ?? 0) + n);
    const label = code ?? String(r.status);
    const dk = `${r.day}|${label}`;
    const d = days.get(dk) ?? days.set(dk, [Number(r.day), label, 0]).get(dk)!;
    d[2] += n;
  }
  return { codes: [...codes.values()].map((c) => ({ ...c, projects: [...c.projects.entries()] })), days: [...days.values()] };
}

/** Failed calls of the organization's projects by error code and day: a day at a time, settled days memoized (they no longer change). */
export async function failedCalls(database: Database, organizationId: string, projects: ProjectRef[], w: Window) {
  const byCode = new Map<string, { code: string | null; status: number; count: number; lastAt: number; byKind: Record<string, number>; projects: Map<string, number> }>();
  const byDay = new Map<number, { count: number; byCode: Record<string, number> }>();
  for (let d = w.fromDay; d <= w.toDay; d++) byDay.set(d, { count: 0, byCode: {} });
  let total = 0;
  const names = new Map(projects.map((p) => [p.id, p.name]));
  // each period's rows are folded once (by code, then day), so a warm call merges a few entries per day
  const periods = await eachPeriod(database, `failed|${organizationId}`, w.fromDay, w.toDay, async (from, to) => foldFailed(await database.all<FailedRow>(FAILED_CALLS_ORG_SQL, [organizationId, from, to])));
  for (const period of periods) {
    for (const f of period.codes) {
      const key = `${f.code ?? ""}|${f.status}`;
      let c = byCode.get(key);
      if (!c) byCode.set(key, (c = { code: f.code, status: f.status, count: 0, lastAt: 0, byKind: {}, projects: new Map() }));
      c.count += f.count;
      c.lastAt = Math.max(c.lastAt, f.last);
      for (const k in f.byKind) c.byKind[k] = (c.byKind[k] ?? 0) + f.byKind[k]!;
      for (const [id, n] of f.projects) c.projects.set(id, (c.projects.get(id) ?? 0) + n);
      total += f.count;
    }
    for (const [d, label, n] of period.days) {
      const day = byDay.get(d);
      if (!day) continue;
      day.count += n;
      day.byCode[label] = (day.byCode[label] ?? 0) + n;
    }
  }
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
        projects: [...c.projects.entries()].filter(([id]) => names.has(id)).sort((a, b) => b[1] - a[1]).map(([id, count]) => ({ projectId: id, projectName: names.get(id)!, count })),
      })),
    byDay: [...byDay.entries()].map(([day, c]) => ({ date: dateOf(day), ...c })),
  };
}

/** Active keys of the organization that expired, expire soon, were never used, or not lately. */
export async function keysToReview(database: Database, organizationId: string, now: number) {
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

/** The last judgement of each organization's projects, per catalog (a reloaded catalog judges afresh). */
const judged = new WeakMap<Catalog, Map<string, { key: string; out: ProjectToFix[] }>>();
type ProjectToFix = { projectId: string; projectName: string; advice: string } & Pick<ReturnType<typeof diagnose>, "missingPrerequisites" | "conflicts" | "disabledDependencies" | "unservable">;

/**
 * Projects whose selection doctor finds at fault (missing prerequisites, conflicts, disabled
 * dependencies, unservable talents): every project's selection at once (selections.ts) and the
 * organization's servable expertises once, then doctor's judgement per project in memory.
 */
export async function projectsToFix(database: Database, catalog: Catalog, organizationId: string, projects: ProjectRef[]): Promise<ProjectToFix[]> {
  const { fingerprint, rows } = await orgSelections(database, organizationId);
  const expertises = rows.some((r) => r.kind === "expertise") ? await listServableExpertises(database, organizationId, catalog) : [];
  // the same selections, servable expertises, projects and catalog: the same judgement
  const key = `${fingerprint}|${expertises.map((e) => `${e.ref}@${e.version}`).join(",")}|${projects.map((p) => `${p.id}=${p.name}`).join(",")}`;
  const hit = judged.get(catalog)?.get(organizationId);
  if (hit && hit.key === key) return hit.out;
  const byProject = new Map<string, OrgSelectionRow[]>();
  for (const r of rows) (byProject.get(r.project_id) ?? byProject.set(r.project_id, []).get(r.project_id)!).push(r);
  const out: ProjectToFix[] = [];
  for (const p of projects) {
    const selection = (byProject.get(p.id) ?? []).map((r) => ({ talentId: r.talent_id, kind: r.kind, enabled: Boolean(r.enabled), installedBy: r.installed_by, installedAt: Number(r.installed_at), updatedAt: Number(r.updated_at) }));
    const d = diagnose(withItems(selection, expertises, catalog), catalog, { id: p.id, organizationId }, { admin: false });
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
  out.sort((a, b) => (a.projectName < b.projectName ? -1 : a.projectName > b.projectName ? 1 : 0));
  const byOrg = judged.get(catalog) ?? judged.set(catalog, new Map()).get(catalog)!;
  byOrg.set(organizationId, { key, out });
  if (byOrg.size > 1_000) byOrg.delete(byOrg.keys().next().value!);
  return out;
}

/**
 * Resolutions served in the window (older than AUDIT_GRACE_MS) whose playbook was never fetched:
 * per project, per development tool that prepared them, and the newest ones with their talents.
 * Read a day at a time over the organization's projects; a day wholly before the grace limit is
 * memoized until an audit touches one of its resolutions (dayMemo.ts).
 */
export async function neverAudited(database: Database, organizationId: string, projects: ProjectRef[], w: Window, now: number) {
  const until = now - AUDIT_GRACE_MS;
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const perProject = new Map<string, { served: number; never: number }>();
  const byClient = new Map<string, { client: string | null; served: number; neverAudited: number }>();
  let served = 0;
  let never = 0;
  const inOrg = "r.project_id IN (SELECT id FROM projects WHERE organization_id = ?)";
  type Recent = { id: string; project_id: string; created_at: number; via: string; author_type: string; author_id: string; client: string | null };
  const periods = await eachPeriod(
    database,
    `audit|${organizationId}`,
    w.fromDay,
    w.toDay,
    async (from, to) => {
      const end = Math.min(to, until);
      if (from >= end) return { projects: [], clients: [], recent: [] as Recent[] };
      const rows = await database.all<{ project_id: string; client: string | null; served: number; never: number }>(
        `SELECT r.project_id, ${PREPARED_BY} AS client, count(*) AS served, sum(NOT ${AUDITED}) AS never
         FROM resolutions r WHERE ${inOrg} AND r.created_at >= ? AND r.created_at < ? GROUP BY r.project_id, client`,
        [organizationId, from, end],
      );
      // the period's newest never-audited ones, when it has some
      const recent = rows.some((r) => Number(r.never) > 0)
        ? await database.all<Recent>(
            `SELECT r.id, r.project_id, r.created_at, r.via, r.author_type, r.author_id, ${PREPARED_BY} AS client
             FROM resolutions r WHERE ${inOrg} AND r.created_at >= ? AND r.created_at < ? AND NOT ${AUDITED}
             ORDER BY r.created_at DESC LIMIT ?`,
            [organizationId, from, end, NEVER_AUDITED_LISTED],
          )
        : [];
      // folded once per period: by project, and by client
      const projects = new Map<string, [string, number, number]>();
      const clients = new Map<string, [string | null, number, number]>();
      for (const r of rows) {
        const p = projects.get(r.project_id) ?? projects.set(r.project_id, [r.project_id, 0, 0]).get(r.project_id)!;
        p[1] += Number(r.served);
        p[2] += Number(r.never);
        const c = clients.get(r.client ?? "") ?? clients.set(r.client ?? "", [r.client, 0, 0]).get(r.client ?? "")!;
        c[1] += Number(r.served);
        c[2] += Number(r.never);
      }
      return { projects: [...projects.values()], clients: [...clients.values()], recent };
    },
    { now, limit: until },
  );
  let recent: Recent[] = [];
  for (const period of periods) {
    for (const [id, s, n] of period.projects) {
      if (!names.has(id)) continue;
      const p = perProject.get(id) ?? perProject.set(id, { served: 0, never: 0 }).get(id)!;
      p.served += s;
      p.never += n;
      served += s;
      never += n;
    }
    for (const [client, s, n] of period.clients) {
      const c = byClient.get(client ?? "") ?? byClient.set(client ?? "", { client, served: 0, neverAudited: 0 }).get(client ?? "")!;
      c.served += s;
      c.neverAudited += n;
    }
    recent.push(...period.recent.filter((r) => names.has(r.project_id)));
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
  const byProject = [...perProject.entries()].filter(([, p]) => p.served > 0).map(([id, p]) => ({ projectId: id, projectName: names.get(id)!, served: p.served, neverAudited: p.never }));
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
export async function failingExpertises(database: Database, catalog: Catalog, org: { id: string; slug: string }, projects: ProjectRef[], w: Window) {
  const adoption = (await talentAdoption(database, catalog, org, w)).filter((e) => e.kind === "expertise" && e.verdicts.fail > 0);
  if (adoption.length === 0) return [];
  // the latest failing result per expertise, over the window's resolutions a day at a time
  type Fail = { talent_id: string; report_id: string; resolution_id: string; project_id: string; created_at: number; evidence: string; missing: string; note: string | null };
  const latest: Fail[] = [];
  const periods = await eachPeriod(database, `fails|${org.id}`, w.fromDay, w.toDay, (from, to) =>
    database.all<Fail>(
        `SELECT talent_id, report_id, resolution_id, project_id, created_at, evidence, missing, note FROM (
           SELECT rr.talent_id, rep.id AS report_id, rep.resolution_id, rep.project_id, rep.created_at, rr.evidence, rr.missing, rr.note,
             row_number() OVER (PARTITION BY rr.talent_id ORDER BY rep.created_at DESC, rep.id DESC) AS k
           FROM resolutions r JOIN reports rep ON rep.resolution_id = r.id
           JOIN report_results rr ON rr.report_id = rep.id AND rr.kind = 'expertise' AND rr.verdict = 'fail'
           WHERE r.project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND r.created_at >= ? AND r.created_at < ?
         ) WHERE k = 1`,
        [org.id, from, to],
      ),
  );
  latest.push(...periods.flat());
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
    failedCalls: await failedCalls(database, org.id, projects, w),
    keys: await keysToReview(database, org.id, now),
    projects: await projectsToFix(database, catalog, org.id, projects),
    neverAudited: await neverAudited(database, org.id, projects, w, now),
    expertises: await failingExpertises(database, catalog, org, projects, w),
  };
}
