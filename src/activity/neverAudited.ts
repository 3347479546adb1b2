/**
 * Resolutions served but never audited (their playbook never fetched), for an organization's
 * insights (insights.ts): by project and by the client that prepared them, and the newest one
 * by one; the unsettled hours read a page at a time.
 */
import { keptByIdentity } from "../lib/kept";
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { keptRead } from "../db/versionMemo";
import { foldWindow, keptAnswer, type PeriodFold } from "../journal/dayMemo";
import type { Window } from "./summaries";
import { AUDITED } from "./usage";
import { bothDialects } from "../db/sqlDialect";

/** A resolution younger than this may still be audited (its task is under way): not counted as never audited. */
export const AUDIT_GRACE_MS = 60 * 60_000;
/** Never-audited resolutions listed one by one (the newest). */
export const NEVER_AUDITED_LISTED = 20;

/** A project as the answers name it. */
type ProjectRef = { id: string; name: string };

/** The client (development tool) that prepared resolution `r`, from its prepare_task trace event. */
const IN_ORG = "r.project_id IN (SELECT id FROM projects WHERE organization_id = ?)";
const PREPARED_BY = `(SELECT t.client FROM trace_events t WHERE t.resolution_id = r.id AND t.kind = 'prepare_task' LIMIT 1)`;

type Recent = {
  id: string;
  project_id: string;
  created_at: number;
  via: string;
  author_type: string;
  author_id: string;
  client: string | null;
};
/** A period's resolutions: served and never audited by project, and by the client that prepared them; its newest never audited. */
type AuditPeriod = {
  projects: [id: string, served: number, never: number][];
  clients: [client: string | null, served: number, never: number][];
  recent: Recent[];
};
type AuditSum = {
  projects: Map<string, { served: number; never: number }>;
  clients: Map<string, { client: string | null; served: number; neverAudited: number }>;
  recent: Recent[];
};

/** The newest first, at most NEVER_AUDITED_LISTED. */
const newest = (rows: Recent[]) =>
  rows.sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1)).slice(0, NEVER_AUDITED_LISTED);

const AUDIT_FOLD: PeriodFold<AuditPeriod, AuditSum> = {
  init: () => ({ projects: new Map(), clients: new Map(), recent: [] }),
  add(acc, period) {
    for (const [id, served, never] of period.projects) {
      const p = acc.projects.get(id) ?? acc.projects.set(id, { served: 0, never: 0 }).get(id)!;
      p.served += served;
      p.never += never;
    }
    for (const [client, served, never] of period.clients) {
      const c = acc.clients.get(client ?? "") ?? acc.clients.set(client ?? "", { client, served: 0, neverAudited: 0 }).get(client ?? "")!;
      c.served += served;
      c.neverAudited += never;
    }
    if (period.recent.length > 0) acc.recent = newest([...acc.recent, ...period.recent]);
  },
  copy: (acc) => ({
    projects: new Map([...acc.projects].map(([k, v]) => [k, { ...v }])),
    clients: new Map([...acc.clients].map(([k, v]) => [k, { ...v }])),
    recent: acc.recent,
  }),
};

/** The unsettled resolutions of never-audited are read up to the grace's limit rounded up to this. */
const OPEN_SLICE_MS = 5 * 60_000;
/** The value of an unsettled period's rows, by how many of them were past the grace. */
const openValues = keptByIdentity<object, { k: number; value: AuditPeriod }>("Never-audited value of an open period");

/** A period's resolutions folded by project and by client. */
function auditPeriod(rows: { project_id: string; client: string | null; served: number; never: number }[], recent: Recent[]): AuditPeriod {
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
}

/** Rows per page of the unsettled resolutions' read: each page is one short statement, and other requests run between two. */
export const OPEN_PAGE_ROWS = 250;

/** One page of a project's resolutions in [?, ?4) after the key (created_at, id), on resolutions_project_idx, in its order. */
export const OPEN_PAGE = bothDialects(
  (d) => `SELECT r.id, r.project_id, r.created_at, r.via, r.author_type,
  r.author_id, ${PREPARED_BY} AS client, ${d.flag(AUDITED)} AS audited
FROM resolutions r WHERE r.project_id = ?1 AND (r.created_at, r.id) > (?2, ?3) AND r.created_at < ?4 ORDER BY r.created_at, r.id
  LIMIT ${OPEN_PAGE_ROWS}`,
);
/** SQLite's. */
export const OPEN_PAGE_SQL = OPEN_PAGE.sqlite;

/** A period's resolutions per project and preparing client, and how many were never audited. */
const PERIOD = bothDialects(
  (d) => `SELECT r.project_id, ${PREPARED_BY} AS client, count(*) AS served, ${d.countWhere(`NOT ${AUDITED}`)} AS never
         FROM resolutions r WHERE ${IN_ORG} AND r.created_at >= ? AND r.created_at < ? GROUP BY r.project_id, client`,
);

/**
 * The organization's resolutions made in [from, to), each with its preparing client and whether it
 * was audited: project by project, OPEN_PAGE_ROWS at a time, yielding to other requests between
 * two pages, so a busy hour (thousands of resolutions) never holds the thread for more than a page.
 */
export async function openResolutions(
  database: Database,
  organizationId: string,
  from: number,
  to: number,
): Promise<(Recent & { audited: number })[]> {
  const out: (Recent & { audited: number })[] = [];
  const projectIds = await database.all<{ id: string }>("SELECT id FROM projects WHERE organization_id = ?", [organizationId]);
  for (const { id } of projectIds) {
    let after: [number, string] = [from - 1, "\uffff"]; // before every resolution made at `from` or later
    for (;;) {
      const page = await database.all<Recent & { audited: number }>(OPEN_PAGE[database.dialect], [id, ...after, to]);
      out.push(...page);
      if (page.length < OPEN_PAGE_ROWS) break;
      after = [Number(page.at(-1)!.created_at), page.at(-1)!.id];
      await new Promise((r) => setImmediate(r));
    }
  }
  return out;
}

/**
 * Resolutions served in the window (older than AUDIT_GRACE_MS) whose playbook was never fetched:
 * per project, per development tool that prepared them, and the newest ones with their talents.
 * Read a day at a time over the organization's projects; the sum of the days (and hours) wholly
 * before the grace limit is kept until an audit touches one of their resolutions (dayMemo.ts).
 * The last hour or two are read resolution by resolution (kept while nothing is committed), and
 * the grace applied to them at the time of the call.
 */
export async function neverAudited(database: Database, organizationId: string, projects: readonly ProjectRef[], w: Window, now: number) {
  const until = now - AUDIT_GRACE_MS;
  const sum = await foldWindow(
    database,
    `audit|${organizationId}`,
    w.fromDay,
    w.toDay,
    async (from, to) => {
      const end = Math.min(to, until);
      if (from >= end) return { projects: [], clients: [], recent: [] };
      const rows = await database.all<{ project_id: string; client: string | null; served: number; never: number }>(
        PERIOD[database.dialect],
        [organizationId, from, end],
      );
      // the period's newest never-audited ones, when it has some
      const recent = rows.some((r) => Number(r.never) > 0)
        ? await database.all<Recent>(
            `SELECT r.id, r.project_id, r.created_at, r.via, r.author_type, r.author_id, ${PREPARED_BY} AS client
             FROM resolutions r WHERE ${IN_ORG} AND r.created_at >= ? AND r.created_at < ? AND NOT ${AUDITED}
             ORDER BY r.created_at DESC LIMIT ?`,
            [organizationId, from, end, NEVER_AUDITED_LISTED],
          )
        : [];
      return auditPeriod(rows, recent);
    },
    AUDIT_FOLD,
    {
      now,
      limit: until,
      open: {
        // the resolutions of the last hour or so one by one, so the grace is applied at each call's time; none younger than the grace
        // rounded up to 5 minutes
        end: Math.ceil(until / OPEN_SLICE_MS) * OPEN_SLICE_MS,
        read: (from, to) => openResolutions(database, organizationId, from, to),
        value: (rows) => {
          // the same rows with as many past the grace: the same value (the same object, so the answer is kept)
          let k = 0;
          for (const r of rows) if (Number(r.created_at) < until) k++;
          const hit = openValues.get(rows);
          if (hit && hit.k === k) return hit.value;
          const before = rows.filter((r) => Number(r.created_at) < until);
          const counts = new Map<string, { project_id: string; client: string | null; served: number; never: number }>();
          for (const r of before) {
            const k = `${r.project_id}\n${r.client ?? ""}`;
            const c = counts.get(k) ?? counts.set(k, { project_id: r.project_id, client: r.client, served: 0, never: 0 }).get(k)!;
            c.served++;
            if (!Number(r.audited)) c.never++;
          }
          const value = auditPeriod(
            [...counts.values()],
            newest(before.filter((r) => !Number(r.audited)).map(({ audited: _, ...r }) => r)),
          );
          openValues.set(rows, { k, value });
          return value;
        },
      },
    },
  );
  return keptAnswer(auditAnswers, sum, [projects], () => auditAnswer(database, sum, projects));
}

const auditAnswers = keptByIdentity<object, { deps: unknown[]; out: Awaited<ReturnType<typeof auditAnswer>> }>("Dashboard: never audited");

/** The never-audited answer from the window's sum (items of a resolution never change: kept with the sum). */
async function auditAnswer(database: Database, sum: AuditSum, projects: readonly ProjectRef[]) {
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const perProject = [...sum.projects].filter(([id, p]) => names.has(id) && p.served > 0);
  let served = 0;
  let never = 0;
  for (const [, p] of perProject) {
    served += p.served;
    never += p.never;
  }
  const recent = sum.recent.filter((r) => names.has(r.project_id));
  const talents = new Map<string, string[]>();
  if (recent.length > 0) {
    const itemsSql =
      `SELECT resolution_id, talent_id FROM resolution_items WHERE resolution_id IN ` +
      `(${recent.map(() => "?").join(", ")}) ORDER BY resolution_id, position`;
    const ids = recent.map((r) => r.id);
    const items = await keptRead(database, itemsSql, ids, () => database.all<{ resolution_id: string; talent_id: string }>(itemsSql, ids));
    for (const i of items) (talents.get(i.resolution_id) ?? talents.set(i.resolution_id, []).get(i.resolution_id)!).push(i.talent_id);
  }
  const byProject = perProject.map(([id, p]) => ({ projectId: id, projectName: names.get(id)!, served: p.served, neverAudited: p.never }));
  return {
    served,
    neverAudited: never,
    share: served === 0 ? null : Math.round((never / served) * 1000) / 1000,
    graceMinutes: AUDIT_GRACE_MS / 60_000,
    byProject: byProject.sort((a, b) => b.neverAudited - a.neverAudited || (a.projectName < b.projectName ? -1 : 1)),
    byClient: [...sum.clients.values()].map((c) => ({ ...c })).sort((a, b) => b.neverAudited - a.neverAudited || b.served - a.served),
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
