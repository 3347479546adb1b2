import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildCatalog } from "../../src/catalog/catalog";
import { readSpecializationDir, readTalentDir } from "../../src/catalog/load";
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

describe("talents are framed for supported versions", () => {
  const read = readTalentDir(join(ROOT, "talents"), "talents");
  const { catalog } = buildCatalog(read.sources, read.findings, {}, readSpecializationDir(join(ROOT, "talents"), "talents"));
  const table = parseSupportTable(readFileSync(join(ROOT, "talents", SUPPORT_FILE), "utf8"));
  const ended = table.rows.filter((r) => r.ends < utcDay());
  /** "Angular 20/21", ".NET 9+", "EF Core 9 " name the version; "Angular 201" or ".NET 9.5" do not. */
  const names = (text: string, product: string, version: string) =>
    new RegExp(`${product.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} ${version.replace(".", "\\.")}(?!\\d|\\.\\d)`, "i").test(text);

  test("no talent title or summary, and no specialization description, names a version whose support has ended", () => {
    const texts = [
      ...catalog.list.map((t) => [t.id, `${t.title}\n${t.summary}`] as const),
      ...catalog.specializations.map((s) => [`specialization ${s.id}`, s.description] as const),
    ];
    const stale = texts.flatMap(([id, text]) =>
      ended.filter((r) => names(text, r.product, r.version)).map((r) => `${id}: ${r.product} ${r.version}`),
    );
    expect(stale).toEqual([]);
  });

  test("Angular 21: NG-008 is advisory and no longer asks OnPush on every new component (OnPush and zoneless are defaults); NG-010 accepts Signal Forms", () => {
    const ng = catalog.get("angular")!;
    const ng8 = ng.rules.find((r) => r.id === "NG-008")!;
    expect(ng8.severity).toBe("advisory");
    expect(ng8.check).not.toContain("without `changeDetection: ChangeDetectionStrategy.OnPush`");
    expect(ng8.check).toContain("Not a finding: a component with no `changeDetection` key");
    expect(ng.tests.some((t) => t.rule === "NG-010" && t.pass.includes("form(this.model"))).toBe(true);
    expect(ng.body).toContain("Vitest (the CLI's default runner since v21");
  });
});
