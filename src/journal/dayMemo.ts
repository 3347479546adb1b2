/**
 * A memo of an organization's settled days and hours for insights and adoption (docs/performance.md:
 * 200 projects, 1,000,000 trace events, p99 < 50 ms). Unlike event counts (daily.ts), the
 * facts of a past day's resolutions can still change: a late playbook fetch makes one
 * audited, a report adds a verdict. So each memoized day carries a generation, and the day of a
 * resolution is touched whenever something happens to it:
 *
 * - the journal touches it when it records an event naming the resolution (`validate`,
 *   `record_validation`, …), before the event is written; readers settle the journal before
 *   reading, so they see the event;
 * - the report route touches it after its write;
 * - deleting a project (its resolutions go with it) touches every day, and so does the retention
 *   purge of past events (db/activityPurged.ts).
 *
 * A resolution's day is read from its id (a ULID: its first 10 characters are its creation
 * time, within a few milliseconds of `created_at`; the next day is touched too, for a
 * resolution made just before midnight). A value computed while its day was touched is stored
 * with the generation read before the computation, so it is never served after the touch.
 * Only settled periods (over for SETTLE_MS) are memoized: past days whole, today hour by hour
 * (hours have their own generations: audits come minutes after their resolution, so they touch
 * the current hour, not the morning's). A window's sum of its settled periods is kept too, with
 * their generations (`foldWindow`). The periods not settled yet are read again whenever the
 * database committed anything since the last read (its data version). Bounded: the least
 * recently used entries go first. Nothing is kept on a libSQL server: other instances' writes
 * touch nothing here.
 */
import type { Database } from "../db/client";
import { keptRead } from "../db/versionMemo";
import { keptEach, keptUnbounded } from "../lib/kept";
import { onActivityPurged } from "../db/activityPurged";

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** A period is complete this long after it ended: calls that started before its end are in the journal by then. */
export const SETTLE_MS = 5 * 60_000;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const dayGen = keptUnbounded<number, number>("Generation of a day's resolutions", {
  clock: "generation",
  bound: "one counter per touched day (an entry must not be lost: its values would be served again)",
});
const hourGen = keptUnbounded<number, number>("Generation of an hour's resolutions", {
  clock: "generation",
  bound: "one counter per touched hour (an entry must not be lost: its values would be served again)",
});
let epoch = 0;
/** Per database (tests run several in one process), by `<scope>|<day>`. */
const memos = keptEach<Database, string, { gen: string; value: unknown }>("A settled period's value by scope and period", {
  clock: "generation",
  limit: 20_000,
  order: "used",
  per: "database",
});

const genOf = (day: number) => `${epoch}.${dayGen.get(day) ?? 0}`;

/** The creation time encoded in a ULID-based id (`res_01J…`), or null. */
export function timeOfId(id: string): number | null {
  const u = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11).toUpperCase();
  if (u.length !== 10) return null;
  let t = 0;
  for (const c of u) {
    const v = CROCKFORD.indexOf(c);
    if (v < 0) return null;
    t = t * 32 + v;
  }
  return t;
}

/** Something happened to a resolution (an audit, a report): its day's memoized facts are stale. */
export function touchResolution(resolutionId: string): void {
  const t = timeOfId(resolutionId);
  if (t === null) return touchAll();
  for (const at of [t, t + 60_000]) {
    const d = Math.floor(at / DAY_MS);
    const h = Math.floor(at / HOUR_MS);
    dayGen.set(d, (dayGen.get(d) ?? 0) + 1);
    hourGen.set(h, (hourGen.get(h) ?? 0) + 1);
  }
}

/** Every memoized day is stale (a project and its resolutions deleted, past events purged). */
export function touchAll(): void {
  epoch++;
}
onActivityPurged(() => touchAll());

/** A period's memo key and generation: a whole day, or an hour (of the day not settled yet). */
function periodGen(from: number, to: number): string {
  return to - from === DAY_MS ? genOf(from / DAY_MS) : `${epoch}.h${hourGen.get(Math.floor(from / HOUR_MS)) ?? 0}`;
}

/** How a window's periods add up: `add` folds one period's value into an accumulator it owns. */
export interface PeriodFold<V, A> {
  init(): A;
  add(acc: A, value: V): void;
  /** A copy `add` may change without changing `acc` (the kept sum of the settled periods). */
  copy(acc: A): A;
}

/** What the periods not settled yet are read with, when it differs from the settled read. */
export interface OpenRead<R, V> {
  /** Reads what the value depends on, independent of the time of the call (kept per data version). */
  read(from: number, to: number): Promise<R>;
  /**
   * Nothing from this time on counts: the periods not settled yet are read only up to it. A bound
   * that moves with every call would defeat the keeping, so it is rounded (e.g. the audit grace's
   * limit rounded up to 5 minutes) and `value` filters the rest.
   */
  end?: number;
  /**
   * The period's value from what `read` returned, at this call's time: the same object while it is the same value (the answer is then the
   * same object too).
   */
  value(raw: R, from: number, to: number): V;
}

/** Per database: a scope's kept sum of settled periods (their keys and generations, in order), and open reads per data version. */
const sums = keptEach<Database, string, { parts: string[]; acc: unknown }>("A scope's sum of settled periods", {
  clock: "generation",
  limit: 1_000,
  per: "database",
});
/** Per database: a scope's last answer, with the kept sum and the unsettled periods' values it was made of. */
const lasts = keptEach<Database, string, { base: unknown; values: unknown[]; acc: unknown }>("A scope's last answer", {
  clock: "identity",
  limit: 1_000,
  per: "database",
});

/**
 * The fold of `read(from, to)` over the days `fromDay..toDay` (settled days whole, today's settled hours, then the rest of today as one
 * piece). The
 * sum of the settled periods is kept per scope and window with each period's generation: while
 * none was touched it is reused as is, and when hours settled since, only those are added (a
 * view then adds the periods not settled yet to a copy). The periods not settled yet (today's
 * last hour or two) are read again only when the database committed something since (its data
 * version), so a view costs a copy and a few additions; a commit anywhere (every 250 ms under
 * agents' traffic) makes the next view read them again. On a libSQL server (no data version,
 * other instances write unseen) nothing is kept. The caller reads the answer, never changes it:
 * it may be the kept sum itself, and while the sum and the unsettled periods' values are the
 * same objects, it is the same object as the last call's (so what is drawn from it can be kept).
 */
export async function foldWindow<V, A, R = V>(
  database: Database,
  scope: string,
  fromDay: number,
  toDay: number,
  read: (from: number, to: number) => Promise<V>,
  fold: PeriodFold<V, A>,
  opts: { now?: number; limit?: number; open?: OpenRead<R, V> } = {},
): Promise<A> {
  const now = opts.now ?? Date.now();
  const limit = Math.min(opts.limit ?? Infinity, now - SETTLE_MS);
  const version = database.dataVersion();
  if (version === null) {
    const acc = fold.init();
    for (const [from, periodEnd] of periodsOf(fromDay, toDay, now, limit)) {
      const to = periodEnd > limit ? Math.min(periodEnd, opts.open?.end ?? Infinity) : periodEnd;
      if (to <= from) continue;
      fold.add(acc, opts.open && periodEnd > limit ? opts.open.value(await opts.open.read(from, to), from, to) : await read(from, to));
      await new Promise((r) => setImmediate(r));
    }
    return acc;
  }
  const periods = periodsOf(fromDay, toDay, now, limit);
  const settled = periods.filter(([, to]) => to <= limit);
  const parts = settled.map(([from, to]) => `${from}|${to}|${periodGen(from, to)}`);
  const bySum = sums.of(database);
  const sumKey = `${scope}|${fromDay}`;
  const kept = bySum.get(sumKey);
  let base: A;
  let start = 0;
  if (kept && kept.parts.length <= parts.length && kept.parts.every((p, i) => p === parts[i])) {
    base = kept.acc as A;
    start = kept.parts.length;
  } else base = fold.init();
  if (start < settled.length) {
    // new settled periods (or a touched one): add them to a fresh copy, so a concurrent view's kept sum never changes under it
    const sum = start === 0 ? base : fold.copy(base);
    const values = await settledValues(database, scope, settled.slice(start), read);
    for (const v of values) fold.add(sum, v);
    base = sum;
    bySum.set(sumKey, { parts, acc: sum });
  }
  const open = periods.filter(([, to]) => to > limit);
  if (open.length === 0) return base;
  const values: V[] = [];
  for (const [from, periodEnd] of open) {
    const to = Math.min(periodEnd, opts.open?.end ?? Infinity);
    if (to <= from) continue;
    // kept for the data version (versionMemo.ts): read again after any commit
    if (opts.open) {
      const { read: readOpen, value } = opts.open;
      values.push(value(await keptRead(database, scope, [from, to], () => readOpen(from, to)), from, to));
    } else values.push(await keptRead(database, scope, [from, to], () => read(from, to)));
  }
  // the same kept sum and the same values (nothing committed since): the same answer, so what is drawn from it can be kept by identity
  const byLast = lasts.of(database);
  const last = byLast.get(sumKey);
  if (last && last.base === base && last.values.length === values.length && last.values.every((v, i) => v === values[i]))
    return last.acc as A;
  const acc = fold.copy(base);
  for (const v of values) fold.add(acc, v);
  byLast.set(sumKey, { base, values, acc });
  return acc;
}

/** The window's periods: settled days whole, the rest hour by hour up to `limit`, then one piece to the end of the last day (or now). */
function periodsOf(fromDay: number, toDay: number, now: number, limit: number): [number, number][] {
  const out: [number, number][] = [];
  for (let day = fromDay; day <= toDay; day++) {
    const start = day * DAY_MS;
    const end = start + DAY_MS;
    if (end <= limit) {
      out.push([start, end]);
      continue;
    }
    let h = start;
    for (; h + HOUR_MS <= limit && h + HOUR_MS <= end; h += HOUR_MS) out.push([h, h + HOUR_MS]);
    if (h < end && h < now) out.push([h, end]);
  }
  return out;
}

/**
 * The values of settled `periods` (each ended SETTLE_MS ago and before the fold's limit), each
 * kept by scope and period with its generation; yields to other requests after each one it had
 * to read.
 */
async function settledValues<T>(
  database: Database,
  scope: string,
  periods: [number, number][],
  read: (from: number, to: number) => Promise<T>,
): Promise<T[]> {
  const memo = memos.of(database);
  const out: T[] = [];
  for (const [from, to] of periods) {
    const key = `${scope}|${from}|${to}`;
    const gen = periodGen(from, to);
    // peek: a hit of another generation keeps its place (it is replaced in place below)
    const hit = memo.peek(key);
    if (hit && hit.gen === gen) {
      memo.get(key);
      out.push(hit.value as T);
      continue;
    }
    const value = await read(from, to);
    memo.set(key, { gen, value });
    out.push(value);
    await new Promise((r) => setImmediate(r));
  }
  return out;
}

/**
 * What `make` answers for `key` and `deps`, kept while they are the same objects: a window's
 * answer drawn from a `foldWindow` sum (the same object while nothing changed) is then the same
 * object too, and a page keeps its HTML by it (src/ui/memo.ts HtmlByObject).
 */
export async function keptAnswer<T>(
  memo: WeakMap<object, { deps: unknown[]; out: T }>,
  key: object,
  deps: unknown[],
  make: () => T | Promise<T>,
): Promise<T> {
  const hit = memo.get(key);
  if (hit && hit.deps.length === deps.length && hit.deps.every((d, i) => d === deps[i])) return hit.out;
  const out = await make();
  memo.set(key, { deps, out });
  return out;
}
