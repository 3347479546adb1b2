/**
 * Activity summaries (docs/api.md "Activity, insights and adoption"): a project's journal per day (by kind and by
 * client, failed calls, resolutions, reports, verdicts), the same per project for the
 * organization, and one talent's use in a project. Read from the journal, the resolutions and
 * the reports (daily.ts); one talent's use from the counts kept per day in talent_days (usage.ts).
 */
import type { Database } from "../db/client";
import { intParam } from "../http/query";
import { iso } from "../lib/time";
import { dateOf, dayOf, DAY_MS, noVerdicts, projectDays, type DayCounts, type VerdictCounts } from "./daily";

/** The `days` parameter: 1–90 (the default retention), default 30. */
export const DAYS_MIN = 1;
export const DAYS_MAX = 90;
export const DAYS_DEFAULT = 30;
/** Clients shown by name in a summary (by events over the window); the rest are summed as `otherClients`. */
export const TOP_CLIENTS = 10;

/** A window of whole UTC days ending today. */
export interface Window {
  /** Days in the window (the request's, cut to EVENT_RETENTION_DAYS when that is shorter). */
  days: number;
  fromDay: number;
  toDay: number;
  /** Start of the first day (ms). */
  from: number;
  /** Now (ms). */
  to: number;
  /** EVENT_RETENTION_DAYS (0: events are kept forever). */
  retentionDays: number;
}

/**
 * Reads `days` from a query: the last `days` UTC days, today included. Events older than
 * EVENT_RETENTION_DAYS are gone, so a longer window is cut to it (the answer says which).
 */
export function readWindow(query: Record<string, unknown>, retentionDays: number, now = Date.now()): Window {
  const requested = intParam(query, "days", DAYS_MIN, DAYS_MAX, DAYS_DEFAULT);
  const days = retentionDays > 0 ? Math.min(requested, retentionDays) : requested;
  const toDay = dayOf(now);
  const fromDay = toDay - days + 1;
  return { days, fromDay, toDay, from: fromDay * DAY_MS, to: now, retentionDays };
}

/** The window as an answer shows it. */
export function windowView(w: Window) {
  return { days: w.days, from: iso(w.from), to: iso(w.to), retentionDays: w.retentionDays };
}

/** Counts of a period (a day, or the window). */
interface Tally {
  events: number;
  failed: number;
  byKind: Record<string, number>;
  byClient: Map<string, number>;
  resolutions: number;
  reports: number;
  verdicts: VerdictCounts;
}

const newTally = (): Tally => ({
  events: 0,
  failed: 0,
  byKind: {},
  byClient: new Map(),
  resolutions: 0,
  reports: 0,
  verdicts: noVerdicts(),
});

function add(t: Tally, d: DayCounts): void {
  for (const g of d.groups) {
    t.events += g.events;
    t.failed += g.failed;
    t.byKind[g.kind] = (t.byKind[g.kind] ?? 0) + g.events;
    const c = g.client ?? "";
    t.byClient.set(c, (t.byClient.get(c) ?? 0) + g.events);
  }
  t.resolutions += d.resolutions;
  t.reports += d.reports;
  for (const v of Object.keys(t.verdicts) as (keyof VerdictCounts)[]) t.verdicts[v] += d.verdicts[v];
}

/** The clients shown by name: the most active over the window (ties by name). */
function topClients(total: Map<string, number>): Set<string> {
  return new Set(
    [...total.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, TOP_CLIENTS)
      .map(([c]) => c),
  );
}

/** A tally as JSON: clients outside `shown` summed as otherClients; kinds sorted by name. */
function tallyView(t: Tally, shown: Set<string>) {
  const byClient: Record<string, number> = {};
  let otherClients = 0;
  for (const [c, n] of [...t.byClient.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (shown.has(c)) byClient[c] = n;
    else otherClients += n;
  }
  const byKind: Record<string, number> = {};
  for (const k of Object.keys(t.byKind).sort()) byKind[k] = t.byKind[k]!;
  return {
    events: t.events,
    failed: t.failed,
    byKind,
    byClient,
    otherClients,
    resolutions: t.resolutions,
    reports: t.reports,
    verdicts: t.verdicts,
  };
}

/** `GET /web/projects/:id/traces/summary`: the window's totals and every day, oldest first. */
export function summarizeDays(days: DayCounts[]) {
  const total = newTally();
  const perDay = days.map((d) => {
    const t = newTally();
    add(t, d);
    add(total, d);
    return { day: d.day, t };
  });
  const shown = topClients(total.byClient);
  return {
    totals: { ...tallyView(total, shown), clients: total.byClient.size },
    byDay: perDay.map(({ day, t }) => ({ date: dateOf(day), ...tallyView(t, shown) })),
  };
}

/** A project's summary over a window (the journal settled by the caller). */
export async function projectSummary(database: Database, projectId: string, w: Window) {
  const days = await projectDays(database, projectId, w.fromDay, w.toDay, w.to);
  return { projectId, ...windowView(w), ...summarizeDays(days) };
}

/** The small per-day line of the organization summary. */
function dayLine(d: { day: number; t: Tally }) {
  return {
    date: dateOf(d.day),
    events: d.t.events,
    failed: d.t.failed,
    resolutions: d.t.resolutions,
    reports: d.t.reports,
    verdicts: d.t.verdicts,
  };
}

/**
 * `GET /web/activity/summary`: every project of the organization with its totals (by kind and
 * by client) and its days (events, failed, resolutions, reports, verdicts), plus the
 * organization's totals and days. Projects with the most events first.
 */
export async function organizationSummary(
  database: Database,
  organizationId: string,
  projects: readonly { id: string; name: string }[],
  w: Window,
) {
  const orgTotal = newTally();
  const orgDays = new Map<number, Tally>();
  for (let day = w.fromDay; day <= w.toDay; day++) orgDays.set(day, newTally());
  const perProject = [];
  for (const p of projects) {
    const days = await projectDays(database, p.id, w.fromDay, w.toDay, w.to);
    const total = newTally();
    const lines = days.map((d) => {
      const t = newTally();
      add(t, d);
      add(total, d);
      add(orgTotal, d);
      add(orgDays.get(d.day)!, d);
      return dayLine({ day: d.day, t });
    });
    perProject.push({ id: p.id, name: p.name, total, lines });
  }
  const shown = topClients(orgTotal.byClient);
  perProject.sort((a, b) => b.total.events - a.total.events || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    organizationId,
    ...windowView(w),
    totals: { ...tallyView(orgTotal, shown), clients: orgTotal.byClient.size, projects: projects.length },
    byDay: [...orgDays.entries()].map(([day, t]) => dayLine({ day, t })),
    projects: perProject.map((p) => ({
      id: p.id,
      name: p.name,
      totals: { ...tallyView(p.total, topClients(p.total.byClient)), clients: p.total.byClient.size },
      byDay: p.lines,
    })),
  };
}
