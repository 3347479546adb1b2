/**
 * A project's activity per UTC day, read from the journal and the reports (docs/api.md "Activity,
 * insights and adoption"): trace events grouped by kind and client (with how many failed), resolutions
 * served, reports and their verdicts. Nothing is counted beside the journal; every figure is a
 * query over the rows themselves.
 *
 * The unit of reading is one hour of one project: `trace_events_summary_idx` is
 * (project_id, created_at / 3600000, kind, client, status, created_at), so an hour's events come
 * grouped by kind and client in index order — no temporary sort, no table row read (the plan is
 * checked in test/activity/activity.test.ts). A period that is over cannot change any more (events are
 * written within 250 ms of their call, resolutions and reports when they are made), so its
 * counts are kept in a bounded memo: past days as whole days, today hour by hour. A summary
 * therefore reads from the database only the current hour (and any period not yet settled) and
 * the days it never read before. Hours are read from the counts kept per hour by triggers
 * (trace_hours, resolution_hours: migration 0012), so the current hour costs a few rows however
 * busy it is; a cold day yields to other requests before the next one, so a
 * cold 90-day summary never holds the thread longer than one day's reads (docs/performance.md
 * "Activity summaries").
 */
import { keptPer } from "../lib/kept";
import { onActivityPurged } from "../db/activityPurged";
import { utcDay } from "../lib/time";
import type { Database } from "../db/client";
import { KeptMap } from "../lib/keptMap";
import { VERDICTS, type Verdict } from "../resolution/verdicts";
import { DAY_MS, HOUR_MS, SETTLE_MS } from "../journal/dayMemo";
import { bothDialects } from "../db/sqlDialect";

export { DAY_MS, HOUR_MS, SETTLE_MS };

/** The UTC day number of a time (ms since epoch). */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** `YYYY-MM-DD` of a UTC day number. */
export function dateOf(day: number): string {
  return utcDay(day * DAY_MS);
}

export type VerdictCounts = Record<Verdict, number>;
export const noVerdicts = (): VerdictCounts => ({ pass: 0, fail: 0, not_applicable: 0 });

/** Trace events of a period with the same kind and client. */
export interface EventGroup {
  kind: string;
  client: string | null;
  events: number;
  failed: number;
}

/** Everything a summary needs of one period of a project. */
export interface PeriodCounts {
  groups: EventGroup[];
  resolutions: number;
  reports: number;
  verdicts: VerdictCounts;
}

export interface DayCounts extends PeriodCounts {
  day: number;
}

/**
 * One hour of a project's events, grouped by kind and client; `created_at / 3600000 = ?` is the
 * index's expression, so SQLite seeks the hour and reads the groups in order.
 */
export const HOUR_EVENTS = bothDialects(
  (d) => `SELECT kind, client, count(*) AS events, ${d.countWhere("status >= 400")} AS failed
FROM trace_events WHERE project_id = ? AND created_at / 3600000 = ? GROUP BY kind, client`,
);
/** SQLite's. */
export const HOUR_EVENTS_SQL = HOUR_EVENTS.sqlite;

/** Whether a project has any event in hours `?2..?3`: one seek, so a quiet day costs one query, not 24. */
export const ANY_EVENT_SQL = `SELECT 1 AS found FROM trace_events WHERE project_id = ? AND created_at / 3600000 BETWEEN ? AND ? LIMIT 1`;

/** Resolutions and reports of a project made in [from, to): both on (project_id, created_at) indexes. */
export const SPAN_COUNTS_SQL = `SELECT
  (SELECT count(*) FROM resolutions WHERE project_id = ?1 AND created_at >= ?2 AND created_at < ?3) AS resolutions,
  (SELECT count(*) FROM reports WHERE project_id = ?1 AND created_at >= ?2 AND created_at < ?3) AS reports`;

/** Verdicts of the reports a project recorded in [from, to) (one row: no grouping, no sort). */
export const SPAN_VERDICTS = bothDialects(
  (d) => `SELECT ${d.countWhere("rr.verdict = 'pass'")} AS pass, ${d.countWhere("rr.verdict = 'fail'")} AS fail,
  ${d.countWhere("rr.verdict = 'not_applicable'")} AS not_applicable
FROM reports rep JOIN report_results rr ON rr.report_id = rep.id
WHERE rep.project_id = ? AND rep.created_at >= ? AND rep.created_at < ?`,
);
/** SQLite's. */
export const SPAN_VERDICTS_SQL = SPAN_VERDICTS.sqlite;

/** Adds `b` into `a` (groups merged by kind and client). */
function merge(a: PeriodCounts, b: PeriodCounts): PeriodCounts {
  const byKey = new Map(a.groups.map((g) => [`${g.kind}\u0000${g.client ?? "\u0001"}`, g]));
  for (const g of b.groups) {
    const key = `${g.kind}\u0000${g.client ?? "\u0001"}`;
    const have = byKey.get(key);
    if (have) {
      have.events += g.events;
      have.failed += g.failed;
    } else {
      const copy = { ...g };
      byKey.set(key, copy);
      a.groups.push(copy);
    }
  }
  a.resolutions += b.resolutions;
  a.reports += b.reports;
  for (const v of VERDICTS) a.verdicts[v] += b.verdicts[v];
  return a;
}

const empty = (): PeriodCounts => ({ groups: [], resolutions: 0, reports: 0, verdicts: noVerdicts() });

/** The events of hours `fromHour..toHour` of a project, merged. */
async function readEvents(database: Database, projectId: string, fromHour: number, toHour: number): Promise<EventGroup[]> {
  const out = empty();
  for (let h = fromHour; h <= toHour; h++) {
    const groups = (await database.all<EventGroup>(HOUR_EVENTS[database.dialect], [projectId, h])).map((g) => ({
      kind: g.kind,
      client: g.client,
      events: Number(g.events),
      failed: Number(g.failed),
    }));
    merge(out, { ...empty(), groups });
  }
  return out.groups;
}

/** Resolutions, reports and verdicts of a project in [from, to). */
async function readSpan(database: Database, projectId: string, from: number, to: number): Promise<Omit<PeriodCounts, "groups">> {
  const counts = (await database.get<{ resolutions: number; reports: number }>(SPAN_COUNTS_SQL, [projectId, from, to]))!;
  const verdicts = noVerdicts();
  if (Number(counts.reports) > 0) {
    const v = (await database.get<Record<Verdict, number | null>>(SPAN_VERDICTS[database.dialect], [projectId, from, to]))!;
    for (const name of VERDICTS) verdicts[name] = Number(v[name] ?? 0);
  }
  return { resolutions: Number(counts.resolutions), reports: Number(counts.reports), verdicts };
}

/** One whole day of a project from the database (its 24 hours of events, its resolutions and reports). */
async function readDay(database: Database, projectId: string, day: number): Promise<PeriodCounts> {
  const any = await database.get(ANY_EVENT_SQL, [projectId, day * 24, day * 24 + 23]);
  // a busy day hour by hour: 24 streaming reads cost a third of one sorted read of the day
  const groups = any ? await readEvents(database, projectId, day * 24, day * 24 + 23) : [];
  return { groups, ...(await readSpan(database, projectId, day * DAY_MS, (day + 1) * DAY_MS)) };
}

/** One hour of a project's events by kind and client, from the counts kept per hour (trace_hours, migration 0012). */
export const KEPT_HOUR_EVENTS = bothDialects(
  (d) => `SELECT kind, CASE WHEN client_null${d.name === "sqlite" ? "" : " <> 0"} THEN NULL ELSE client END AS client, events, failed
FROM trace_hours WHERE project_id = ? AND hour = ?`,
);

/** One hour of a project's resolutions, reports and verdicts, kept per hour (resolution_hours, migration 0012). */
export const KEPT_HOUR_SPAN_SQL =
  "SELECT resolutions, reports, pass, fail, not_applicable FROM resolution_hours WHERE project_id = ? AND hour = ?";

/**
 * One hour of a project, from the counts kept per hour by triggers on the journal, the resolutions
 * and the reports: a few rows whatever the hour's traffic, so today's hours (read again on every
 * summary until they settle) cost the same for a busy project as for a quiet one.
 */
async function readHour(database: Database, projectId: string, hour: number): Promise<PeriodCounts> {
  const rows = await database.all<EventGroup>(KEPT_HOUR_EVENTS[database.dialect], [projectId, hour]);
  const groups = rows.map((g) => ({ kind: g.kind, client: g.client, events: Number(g.events), failed: Number(g.failed) }));
  const span = await database.get<Record<"resolutions" | "reports" | Verdict, number>>(KEPT_HOUR_SPAN_SQL, [projectId, hour]);
  const verdicts = noVerdicts();
  for (const name of VERDICTS) verdicts[name] = Number(span?.[name] ?? 0);
  return { groups, resolutions: Number(span?.resolutions ?? 0), reports: Number(span?.reports ?? 0), verdicts };
}

/** Settled periods (days `d…`, hours `h…`), per database (tests open many), least recently used first, weighed by their groups. */
class PeriodMemo {
  static readonly MAX_WEIGHT = 100_000;
  readonly periods = new KeptMap<string, PeriodCounts>(PeriodMemo.MAX_WEIGHT, { order: "used", weigh: (c) => 1 + c.groups.length });

  get(key: string): PeriodCounts | undefined {
    return this.periods.get(key);
  }

  /** The first value read for a period stays (a settled period does not change). */
  set(key: string, value: PeriodCounts): void {
    if (!this.periods.has(key)) this.periods.set(key, value);
  }
}

const memos = keptPer<Database, PeriodMemo>(
  "Settled day and hour counts of a summary",
  { clock: "immutable", limit: "100,000 per database, LRU weighted by 1 + groups" },
  () => new PeriodMemo(),
);
/** Cold reads in flight, so two summaries asking for the same period read it once. */
const inFlight = new WeakMap<Database, Map<string, Promise<PeriodCounts>>>();

/** Forgets every memoized period: the retention purge deleted some (db/activityPurged.ts), or a test wrote a past day's rows behind the journal's back. */
export function forgetDays(database: Database): void {
  memos.forget(database);
}
onActivityPurged(forgetDays);

/** A settled period from the memo, or read once (concurrent askers share the read). */
async function settled(
  database: Database,
  key: string,
  read: () => Promise<PeriodCounts>,
): Promise<{ counts: PeriodCounts; cold: boolean }> {
  // on PostgreSQL another replica's retention purge would not reach this memo (db/activityPurged.ts is per process): kept nowhere
  if (database.dialect === "postgres") return { counts: await read(), cold: true };
  const memo = memos.of(database);
  const hit = memo.get(key);
  if (hit) return { counts: hit, cold: false };
  let pending = inFlight.get(database);
  if (!pending) inFlight.set(database, (pending = new Map()));
  let p = pending.get(key);
  if (!p) {
    const m = memo;
    const waiting = pending;
    p = read().then(
      (counts) => {
        m.set(key, counts);
        waiting.delete(key);
        return counts;
      },
      (e: unknown) => {
        waiting.delete(key);
        throw e;
      },
    );
    pending.set(key, p);
  }
  return { counts: await p, cold: true };
}

/**
 * The days `fromDay..toDay` of a project, oldest first. A settled day comes from the memo (read
 * once); a day that is not (today, or just after midnight yesterday) is the sum of its hours,
 * settled hours from the memo and the others from the database. The caller settles the journal
 * first (TraceJournal.settle). Returned objects belong to the memo: callers must not change them.
 */
export async function projectDays(
  database: Database,
  projectId: string,
  fromDay: number,
  toDay: number,
  now = Date.now(),
): Promise<DayCounts[]> {
  const out: DayCounts[] = [];
  let cold = 0;
  for (let day = fromDay; day <= toDay; day++) {
    if ((day + 1) * DAY_MS + SETTLE_MS <= now) {
      // a cold day: let other requests run between two of them (each read is synchronous)
      if (cold > 0 && !memos.of(database).periods.has(`${projectId}|d${day}`)) await new Promise((r) => setImmediate(r));
      const r = await settled(database, `${projectId}|d${day}`, () => readDay(database, projectId, day));
      if (r.cold) cold++;
      out.push({ day, ...r.counts });
      continue;
    }
    const sum = empty();
    const lastHour = Math.min(day * 24 + 23, Math.floor(now / HOUR_MS));
    for (let hour = day * 24; hour <= lastHour; hour++) {
      if ((hour + 1) * HOUR_MS + SETTLE_MS <= now)
        merge(sum, (await settled(database, `${projectId}|h${hour}`, () => readHour(database, projectId, hour))).counts);
      else merge(sum, await readHour(database, projectId, hour));
    }
    out.push({ day, ...sum });
  }
  return out;
}

/**
 * Runs `read` over each day of `fromDay..toDay` (oldest first), yielding to other requests
 * between two days: a query over a long window is a series of one-day reads (each synchronous
 * on the prepared reader), so no request holds the thread for the whole window. `stop` ends the
 * walk early (newest first when `newestFirst`).
 */
export async function eachDay(
  fromDay: number,
  toDay: number,
  read: (from: number, to: number, day: number) => Promise<void>,
  opts: { newestFirst?: boolean; stop?: () => boolean } = {},
): Promise<void> {
  const days = toDay - fromDay + 1;
  for (let k = 0; k < days; k++) {
    if (opts.stop?.()) return;
    if (k > 0) await new Promise((r) => setImmediate(r));
    const day = opts.newestFirst ? toDay - k : fromDay + k;
    await read(day * DAY_MS, (day + 1) * DAY_MS, day);
  }
}

/** Up to this many rows, a window is read in one piece (eachSpan). */
export const SPAN_ROWS = 2_000;

/**
 * Runs `read` over the window `fromDay..toDay`: in one piece when `rows` (what the read will walk,
 * counted by the caller on an index) is small — a small project costs one query, not one per
 * day — else a day at a time through eachDay.
 */
export async function eachSpan(
  fromDay: number,
  toDay: number,
  rows: number,
  read: (from: number, to: number) => Promise<void>,
  opts: { newestFirst?: boolean; stop?: () => boolean } = {},
): Promise<void> {
  if (rows <= SPAN_ROWS) return read(fromDay * DAY_MS, (toDay + 1) * DAY_MS);
  return eachDay(fromDay, toDay, read, opts);
}
