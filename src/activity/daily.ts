/**
 * A project's activity per UTC day, read from the journal and the reports (DESIGN §11
 * "Activity"): trace events grouped by kind and client (with how many failed), resolutions
 * served, reports and their verdicts. Nothing is counted beside the journal; every figure is a
 * query over the rows themselves.
 *
 * One day of one project is one indexed read: `trace_events_summary_idx` is
 * (project_id, created_at / 86400000, kind, client, status, created_at), so the day's events come
 * grouped by kind and client in index order — no temporary sort, no table row read (the plan is
 * checked in test/activity.test.ts). A day that is over cannot change any more (events are
 * written within 250 ms of their call, resolutions and reports when they are made), so its
 * counts are kept in a bounded memo: a summary reads today (and any day not yet settled) from
 * the database and earlier days from memory. Computing a cold day yields to other requests
 * before the next one, so a cold 90-day summary never holds the thread for more than one day's
 * read (docs/performance.md "Activity").
 */
import type { Database } from "../db/client";
import { VERDICTS, type Verdict } from "../resolution/reports";

export const DAY_MS = 86_400_000;
/** A day is complete this long after it ended: calls that started before midnight are in the journal by then. */
export const SETTLE_MS = 5 * 60_000;

/** The UTC day number of a time (ms since epoch). */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** `YYYY-MM-DD` of a UTC day number. */
export function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export type VerdictCounts = Record<Verdict, number>;
export const noVerdicts = (): VerdictCounts => ({ pass: 0, fail: 0, not_applicable: 0 });

/** Trace events of one day with the same kind and client. */
export interface EventGroup {
  kind: string;
  client: string | null;
  events: number;
  failed: number;
}

/** Everything a summary needs of one project's day. */
export interface DayCounts {
  day: number;
  groups: EventGroup[];
  resolutions: number;
  reports: number;
  verdicts: VerdictCounts;
}

/**
 * One day of a project's events, grouped by kind and client; `created_at / 86400000 = ?` is the
 * index's expression, so SQLite seeks the day and reads the groups in order.
 */
export const DAY_EVENTS_SQL = `SELECT kind, client, count(*) AS events, sum(status >= 400) AS failed
FROM trace_events WHERE project_id = ? AND created_at / 86400000 = ? GROUP BY kind, client`;

/** Resolutions and reports of a project made in [from, to): both on (project_id, created_at) indexes. */
export const DAY_COUNTS_SQL = `SELECT
  (SELECT count(*) FROM resolutions WHERE project_id = ?1 AND created_at >= ?2 AND created_at < ?3) AS resolutions,
  (SELECT count(*) FROM reports WHERE project_id = ?1 AND created_at >= ?2 AND created_at < ?3) AS reports`;

/** Verdicts of the reports a project recorded in [from, to) (one row: no grouping, no sort). */
export const DAY_VERDICTS_SQL = `SELECT sum(rr.verdict = 'pass') AS pass, sum(rr.verdict = 'fail') AS fail, sum(rr.verdict = 'not_applicable') AS not_applicable
FROM reports rep JOIN report_results rr ON rr.report_id = rep.id
WHERE rep.project_id = ? AND rep.created_at >= ? AND rep.created_at < ?`;

/** Reads one day of a project from the database. */
async function readDay(database: Database, projectId: string, day: number): Promise<DayCounts> {
  const from = day * DAY_MS;
  const to = from + DAY_MS;
  const groups = (await database.all<EventGroup>(DAY_EVENTS_SQL, [projectId, day])).map((g) => ({
    kind: g.kind,
    client: g.client,
    events: Number(g.events),
    failed: Number(g.failed),
  }));
  const counts = (await database.get<{ resolutions: number; reports: number }>(DAY_COUNTS_SQL, [projectId, from, to]))!;
  const verdicts = noVerdicts();
  if (Number(counts.reports) > 0) {
    const v = (await database.get<Record<Verdict, number | null>>(DAY_VERDICTS_SQL, [projectId, from, to]))!;
    for (const name of VERDICTS) verdicts[name] = Number(v[name] ?? 0);
  }
  return { day, groups, resolutions: Number(counts.resolutions), reports: Number(counts.reports), verdicts };
}

/** Settled days, per database (tests open many), least recently used first; weighed by their groups. */
class DayMemo {
  readonly days = new Map<string, DayCounts>();
  weight = 0;
  static readonly MAX_WEIGHT = 100_000;

  get(key: string): DayCounts | undefined {
    const hit = this.days.get(key);
    if (hit) {
      this.days.delete(key);
      this.days.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: DayCounts): void {
    if (this.days.has(key)) return;
    this.days.set(key, value);
    this.weight += 1 + value.groups.length;
    while (this.weight > DayMemo.MAX_WEIGHT) {
      const [oldest, counts] = this.days.entries().next().value!;
      this.days.delete(oldest);
      this.weight -= 1 + counts.groups.length;
    }
  }
}

const memos = new WeakMap<Database, DayMemo>();
/** Cold reads in flight, so two summaries asking for the same day read it once. */
const inFlight = new WeakMap<Database, Map<string, Promise<DayCounts>>>();

/** Forgets every memoized day (tests that write a past day's rows behind the journal's back). */
export function forgetDays(database: Database): void {
  memos.delete(database);
}

/**
 * The days `fromDay..toDay` of a project, oldest first: settled days from the memo (read once),
 * the others from the database. The caller settles the journal first (TraceJournal.settle).
 */
export async function projectDays(database: Database, projectId: string, fromDay: number, toDay: number, now = Date.now()): Promise<DayCounts[]> {
  let memo = memos.get(database);
  if (!memo) memos.set(database, (memo = new DayMemo()));
  let pending = inFlight.get(database);
  if (!pending) inFlight.set(database, (pending = new Map()));
  const out: DayCounts[] = [];
  let cold = 0;
  for (let day = fromDay; day <= toDay; day++) {
    const settled = (day + 1) * DAY_MS + SETTLE_MS <= now;
    if (!settled) {
      out.push(await readDay(database, projectId, day));
      continue;
    }
    const key = `${projectId}|${day}`;
    const hit = memo.get(key);
    if (hit) {
      out.push(hit);
      continue;
    }
    // a cold day: let other requests run between two of them (each read is synchronous)
    if (cold++ > 0) await new Promise((r) => setImmediate(r));
    let read = pending.get(key);
    if (!read) {
      const m = memo;
      const p = pending;
      read = readDay(database, projectId, day).then(
        (counts) => {
          m.set(key, counts);
          p.delete(key);
          return counts;
        },
        (e: unknown) => {
          p.delete(key);
          throw e;
        },
      );
      pending.set(key, read);
    }
    out.push(await read);
  }
  return out;
}
