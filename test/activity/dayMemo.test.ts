/**
 * src/journal/dayMemo.ts's foldWindow on a real libSQL file: what a view reads, and when. The
 * fold here counts rows of a scratch table by period; the rows are written through a second
 * connection, as another process (or the writer thread) would, so the read connection's data
 * version changes the way it does in the service.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { foldWindow, touchAll, touchResolution, type PeriodFold } from "../../src/journal/dayMemo";
import { DAY_MS, HOUR_MS } from "../../src/activity/daily";
import { openDatabase, type Database } from "../../src/db/client";
import { orderedId } from "../../src/lib/ids";
import { nextTurn, tempDir } from "../helpers";

const { dir, cleanup } = tempDir();
let database: Database;
let writer: Database;

beforeAll(async () => {
  database = await openDatabase(`file:${join(dir, "fold.db")}`);
  writer = await openDatabase(`file:${join(dir, "fold.db")}`);
  await writer.client.execute("CREATE TABLE rows (at INTEGER NOT NULL)");
});
afterAll(() => {
  database.close();
  writer.close();
  cleanup();
});

/** Sums the rows' count; each period's read is logged. */
const SUM: PeriodFold<number, { n: number }> = { init: () => ({ n: 0 }), add: (acc, v) => void (acc.n += v), copy: (acc) => ({ ...acc }) };

async function view(db: Database, scope: string, fromDay: number, toDay: number, now: number) {
  const reads: [number, number][] = [];
  const acc = await foldWindow(
    db,
    scope,
    fromDay,
    toDay,
    async (from, to) => {
      reads.push([from, to]);
      return Number((await db.get<{ n: number }>("SELECT count(*) AS n FROM rows WHERE at >= ? AND at < ?", [from, to]))!.n);
    },
    SUM,
    { now },
  );
  return { n: acc.n, reads };
}

async function insert(...ats: number[]) {
  for (const at of ats) await writer.client.execute({ sql: "INSERT INTO rows (at) VALUES (?)", args: [at] });
  await nextTurn(); // a later request: the data version is read again
}

// 10:30 on a day: days before it are settled whole, its hours up to 10:00 settled, 10:00–end of day open
const today = Math.floor(Date.now() / DAY_MS) - 1;
const now = today * DAY_MS + 10 * HOUR_MS + 30 * 60_000;
const fromDay = today - 2;

describe("foldWindow: the sum of settled periods kept with their generations, the unsettled ones read again after a commit", () => {
  test("a first view reads every period (2 days whole, today's 10 settled hours, the rest of today), a second one with nothing committed reads none", async () => {
    await insert(fromDay * DAY_MS + 5, (fromDay + 1) * DAY_MS + 7, today * DAY_MS + 3 * HOUR_MS, now - 60_000);
    const first = await view(database, "a", fromDay, today, now);
    expect(first.n).toBe(4);
    expect(first.reads.length).toBe(2 + 10 + 1);
    expect(first.reads.at(-1)).toEqual([today * DAY_MS + 10 * HOUR_MS, (today + 1) * DAY_MS]);
    await nextTurn();
    const second = await view(database, "a", fromDay, today, now);
    expect(second).toEqual({ n: 4, reads: [] });
  });

  test("after a commit, only the periods not settled yet are read again, and the new row is counted", async () => {
    await insert(now - 30_000);
    const v = await view(database, "a", fromDay, today, now);
    expect(v.reads).toEqual([[today * DAY_MS + 10 * HOUR_MS, (today + 1) * DAY_MS]]);
    expect(v.n).toBe(5);
  });

  test("an hour that settled since the last view is added to the kept sum: read once, the other settled periods are not", async () => {
    const later = now + HOUR_MS; // 11:30: 10:00–11:00 settled now
    const v = await view(database, "a", fromDay, today, later);
    expect(v.reads).toEqual([
      [today * DAY_MS + 10 * HOUR_MS, today * DAY_MS + 11 * HOUR_MS],
      [today * DAY_MS + 11 * HOUR_MS, (today + 1) * DAY_MS],
    ]);
    expect(v.n).toBe(5);
    expect((await view(database, "a", fromDay, today, later)).reads).toEqual([]);
  });

  test("a resolution of a past day touched (a late audit or report): that day alone of the settled periods is read again, and what changed in it is counted", async () => {
    const at = (fromDay + 1) * DAY_MS + 2 * HOUR_MS;
    await insert(at); // written with the touch, as the journal and the report route do
    touchResolution(`res_${orderedId(at, 1)}`);
    const v = await view(database, "a", fromDay, today, now + HOUR_MS);
    expect(v.reads).toEqual([
      [(fromDay + 1) * DAY_MS, (fromDay + 2) * DAY_MS],
      [today * DAY_MS + 11 * HOUR_MS, (today + 1) * DAY_MS], // and the open period: a commit happened
    ]);
    expect(v.n).toBe(6);
  });

  test("a row written into a settled day behind the service's back is not seen until everything is touched (the memo's contract: writers touch)", async () => {
    await insert(fromDay * DAY_MS + 9);
    const stale = await view(database, "a", fromDay, today, now + HOUR_MS);
    expect(stale.reads.length).toBe(1); // the open period only (a commit happened)
    expect(stale.n).toBe(6);
    touchAll();
    const fresh = await view(database, "a", fromDay, today, now + HOUR_MS);
    expect(fresh.n).toBe(7);
    expect(fresh.reads.length).toBe(2 + 11); // every settled period; the open one was read since the last commit
  });

  test("each scope keeps its own periods; a window starting another day sums the same kept periods afresh", async () => {
    expect((await view(database, "b", fromDay, today, now + HOUR_MS)).reads.length).toBe(2 + 11 + 1);
    const shorter = await view(database, "a", fromDay + 1, today, now + HOUR_MS);
    expect(shorter.reads).toEqual([]);
    expect(shorter.n).toBe(7 - 2); // the first day's two rows are outside the window
  });

  test("on a libSQL server (no data version: other instances write unseen) nothing is kept: every view reads every period", async () => {
    const remote: Database = { ...database, dataVersion: () => null };
    const a = await view(remote, "r", fromDay, today, now);
    expect(a.reads.length).toBe(2 + 10 + 1);
    await insert(fromDay * DAY_MS + 11); // behind the back, no touch
    const b = await view(remote, "r", fromDay, today, now);
    expect(b.reads.length).toBe(2 + 10 + 1);
    expect(b.n).toBe(a.n + 1);
  });
});
