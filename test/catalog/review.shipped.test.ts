import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildCatalog } from "../../src/catalog/catalog";
import { readTalentDir } from "../../src/catalog/load";
import { parseSupportTable, pastSupport, SUPPORT_FILE, utcDay } from "../../src/catalog/support";
import { ROOT } from "../helpers";

describe("the shipped catalog is reviewed and current (as of the day the test runs)", () => {
  const read = readTalentDir(join(ROOT, "talents"), "talents");
  const { catalog } = buildCatalog(read.sources);
  const table = parseSupportTable(readFileSync(join(ROOT, "talents", SUPPORT_FILE), "utf8"));
  const today = utcDay();

  test("every shipped talent says when it was reviewed, and that day is not in the future", () => {
    const missing = catalog.list.filter((t) => !t.reviewed).map((t) => t.id);
    expect(missing).toEqual([]);
    const future = catalog.list.filter((t) => t.reviewed! > today).map((t) => `${t.id}: reviewed ${t.reviewed} is after ${today}`);
    expect(future).toEqual([]);
  });

  test("talents/_support.yaml reads clean and lists only products some talent covers", () => {
    expect(table.problems).toEqual([]);
    const covered = new Set(catalog.list.flatMap((t) => (t.covers ?? []).map((c) => c.product.toLowerCase())));
    expect(table.rows.filter((r) => !covered.has(r.product.toLowerCase())).map((r) => r.product)).toEqual([]);
  });

  test("no shipped talent covers a version whose end of support is before today", () => {
    const past = catalog.list.flatMap((t) =>
      pastSupport(t.covers, table.rows, today).map((p) => `${t.id}: covers ${p.product} ${p.version}, supported until ${p.ended}`),
    );
    expect(past).toEqual([]);
  });
});
