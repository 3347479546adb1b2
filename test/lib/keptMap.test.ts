import { describe, expect, test } from "bun:test";
import { KeptMap, KeptTable } from "../../src/lib/keptMap";

describe("KeptMap: bounded, the oldest entry out first", () => {
  test("inserted order (FIFO): over the limit the first added goes, whatever was read since", () => {
    const m = new KeptMap<string, number>(3);
    m.set("a", 1).set("b", 2).set("c", 3);
    expect(m.get("a")).toBe(1); // a read does not refresh in FIFO
    m.set("d", 4);
    expect(m.has("a")).toBe(false);
    expect([...m.keys()]).toEqual(["b", "c", "d"]);
    expect(m.size).toBe(3);
  });

  test("used order (LRU): a hit of get makes the key the newest; peek and has do not", () => {
    const m = new KeptMap<string, number>(3, { order: "used" });
    m.set("a", 1).set("b", 2).set("c", 3);
    expect(m.get("a")).toBe(1);
    expect(m.peek("b")).toBe(2);
    expect(m.has("b")).toBe(true);
    m.set("d", 4);
    expect([...m.keys()]).toEqual(["c", "a", "d"]);
    expect(m.get("zz")).toBeUndefined();
    expect([...m.keys()]).toEqual(["c", "a", "d"]);
  });

  test("set of a kept key replaces its value in place (as Map.set): no move, no eviction", () => {
    for (const order of ["inserted", "used"] as const) {
      const m = new KeptMap<string, number>(2, { order });
      m.set("a", 1).set("b", 2).set("a", 10);
      expect([...m.keys()]).toEqual(["a", "b"]);
      expect(m.peek("a")).toBe(10);
      m.delete("a");
      m.set("a", 11); // deleting first gives a fresh age
      expect([...m.keys()]).toEqual(["b", "a"]);
    }
  });

  test("a kept null is a hit (has and get), undefined is a miss", () => {
    const m = new KeptMap<string, number | null>(2, { order: "used" });
    m.set("n", null).set("x", 1);
    expect(m.has("n")).toBe(true);
    expect(m.get("n")).toBeNull();
    expect([...m.keys()]).toEqual(["x", "n"]);
  });

  test("weighted: the limit bounds the total weight; the oldest go until within it", () => {
    const m = new KeptMap<string, number[]>(10, { order: "used", weigh: (v) => 1 + v.length });
    m.set("a", [1, 2, 3]).set("b", [1, 2]).set("c", [1]); // 4 + 3 + 2 = 9
    expect(m.weight).toBe(9);
    m.get("a");
    m.set("d", [1, 2]); // 12: b (3) goes first, then within
    expect([...m.keys()]).toEqual(["c", "a", "d"]);
    expect(m.weight).toBe(9);
    m.set("a", []); // replace in place: 4 → 1
    expect(m.weight).toBe(6);
    m.delete("c");
    expect(m.weight).toBe(4);
    m.set(
      "big",
      Array.from({ length: 20 }, () => 0),
    ); // heavier than the limit alone: nothing can stay
    expect(m.size).toBe(0);
    expect(m.weight).toBe(0);
    m.set("e", [1]);
    m.clear();
    expect(m.weight).toBe(0);
  });

  test("stays at its limit over many keys; a limit below 1 is refused", () => {
    const m = new KeptMap<number, number>(100);
    for (let i = 0; i < 10_000; i++) m.set(i, i);
    expect(m.size).toBe(100);
    expect(m.weight).toBe(100);
    expect([...m.keys()][0]).toBe(9_900);
    expect(() => new KeptMap(0)).toThrow(RangeError);
  });
});

describe("KeptTable: two keys, one limit over all groups, the first inserted out first", () => {
  test("over the limit the oldest entry of any group goes; a replaced value keeps its place; a kept undefined is a hit", () => {
    const t = new KeptTable<string, string, number | undefined>(3);
    t.set("q1", "a", 1).set("q2", "a", 2).set("q1", "b", undefined);
    expect(t.has("q1", "b")).toBe(true);
    expect(t.get("q1", "b")).toBeUndefined();
    t.set("q1", "a", 10); // replaced in place: still the oldest
    t.set("q3", "c", 3);
    expect(t.has("q1", "a")).toBe(false);
    expect([t.get("q2", "a"), t.has("q1", "b"), t.get("q3", "c")]).toEqual([2, true, 3]);
    expect(t.size).toBe(3);
    for (let i = 0; i < 5000; i++) t.set(`g${i % 7}`, String(i), i); // the order list is compacted as it goes
    expect(t.size).toBe(3);
    expect([4997, 4998, 4999].map((i) => t.get(`g${i % 7}`, String(i)))).toEqual([4997, 4998, 4999]);
    expect(() => new KeptTable(0)).toThrow(RangeError);
  });
});
