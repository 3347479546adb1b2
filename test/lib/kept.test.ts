import { describe, expect, test } from "bun:test";
import { declareKept, kept, keptByVersion, keptDeclarations, keptEach, keptUnbounded } from "../../src/lib/kept";

describe("kept toolkit: each kept value declares its clock and limit where it is made", () => {
  test("a declaration is registered with its clock and its limit in words; a name describes one value", () => {
    const m = kept<string, number>("toolkit test: bounded", { clock: "immutable", limit: 10_000, order: "used" });
    expect(m.limit).toBe(10_000);
    expect(keptDeclarations().find((d) => d.name === "toolkit test: bounded")).toEqual({
      name: "toolkit test: bounded",
      clock: "immutable",
      limit: "10,000, LRU",
    });
    keptUnbounded("toolkit test: unbounded", { clock: "time", bound: "one per setting" });
    expect(keptDeclarations().find((d) => d.name === "toolkit test: unbounded")?.limit).toBe("none: one per setting");
    expect(() => declareKept("toolkit test: bounded", { clock: "none", limit: "1" })).toThrow(/declared twice, differently/);
    expect(() => declareKept("toolkit test: bounded", { clock: "immutable", limit: "10,000, LRU" })).not.toThrow(); // a module evaluated again
  });

  test("keptEach: one KeptMap per owner, made on first use, with the declared limit; forget starts afresh", () => {
    const per = keptEach<object, string, number>("toolkit test: per owner", { clock: "identity", limit: 2, per: "owner" });
    const a = {};
    const b = {};
    per.of(a).set("x", 1).set("y", 2).set("z", 3);
    expect([...per.of(a).keys()]).toEqual(["y", "z"]);
    expect(per.of(b).size).toBe(0);
    per.forget(a);
    expect(per.of(a).size).toBe(0);
    expect(keptDeclarations().find((d) => d.name === "toolkit test: per owner")?.limit).toBe("2 per owner, FIFO");
  });

  test("keptByVersion: a new clock reading replaces the map (a value stored late lands in the old one); no clock keeps nothing", () => {
    const byVersion = keptByVersion<object, string, number>("toolkit test: by version", {
      clock: "data version",
      limit: 10,
      per: "database",
    });
    const db = {};
    const v1 = byVersion.current(db, 1)!;
    v1.set("k", 1);
    expect(byVersion.current(db, 1)).toBe(v1);
    const v2 = byVersion.current(db, 2)!;
    expect(v2).not.toBe(v1);
    v1.set("late", 1); // a read that began under version 1 and stored after the change
    expect(v2.has("late")).toBe(false);
    expect(v2.has("k")).toBe(false);
    expect(byVersion.current(db, null)).toBeNull();
  });
});
