import { describe, expect, test } from "bun:test";
import { timeOfId } from "../../src/journal/dayMemo";
import { newId, orderedId, orderedSubId, ulid } from "../../src/lib/ids";

describe("ulid: 26 Crockford characters, its time first, monotonic within one millisecond", () => {
  test("the first 10 characters are the time; the rest is random; ids of one millisecond sort in the order they were made", () => {
    const at = Date.UTC(2026, 10, 23, 5, 0, 0, 123);
    const ids = Array.from({ length: 2000 }, () => ulid(at));
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(timeOfId(`x_${ids[0]}`)).toBe(at);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(orderedId(at, 0).slice(0, 10)).toBe(ids[0]!.slice(0, 10));
  });

  test("ids of different milliseconds draw fresh randomness and sort by time (across refills of the random pool)", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => ulid(Date.UTC(2026, 0, 1) + i * 7));
    expect([...ids].sort()).toEqual(ids);
    const tails = new Set(ids.map((id) => id.slice(10)));
    expect(tails.size).toBe(ids.length);
    expect(newId("req" as never)).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});

describe("orderedSubId: one id per item of a call, sorted by (time, seq, n)", () => {
  test("the items of one call get distinct ids in their order; a later call sorts after all of them", () => {
    const at = Date.UTC(2026, 10, 23, 5, 0, 0, 123);
    const ids = [
      orderedSubId(at, 7, 0),
      orderedSubId(at, 7, 1),
      orderedSubId(at, 7, 40),
      orderedSubId(at, 8, 0),
      orderedSubId(at + 1, 0, 0),
    ];
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(timeOfId(`x_${ids[0]}`)).toBe(at);
  });
});
