import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildCatalog } from "../src/catalog/catalog";
import { formatFinding } from "../src/catalog/format";
import { readTalentDir } from "../src/catalog/load";
import { ROOT } from "./helpers";

const read = readTalentDir(join(ROOT, "talents"), "talents");
const { catalog, findings } = buildCatalog(read.sources, read.findings);

describe("the shipped catalog (talents/)", () => {
  test("lints clean: every folder validates and links", () => {
    expect(findings.map(formatFinding)).toEqual([]);
    expect(catalog.list.length).toBe(read.sources.length);
  });
  test("has at least 40 public talents", () => {
    expect(catalog.list.length).toBeGreaterThanOrEqual(40);
  });
  test("has at least 10 requires edges and at least one conflict pair declared on both sides", () => {
    const edges = catalog.list.flatMap((t) => t.requires.map((r) => `${t.id}→${r}`));
    expect(edges.length).toBeGreaterThanOrEqual(10);
    const pairs = catalog.list.flatMap((t) => t.conflicts.map((c) => [t.id, c] as const));
    expect(pairs.length).toBeGreaterThanOrEqual(2);
    for (const [a, b] of pairs) expect(`${b} conflicts with ${a}: ${catalog.get(b)!.conflicts.includes(a)}`).toBe(`${b} conflicts with ${a}: true`);
  });
  test("each talent: a summary, 3–12 rules, tests for every blocking rule, a talent:// pointer to a deeper file, compact within budget", () => {
    for (const t of catalog.list) {
      expect(t.summary.length).toBeGreaterThan(40);
      expect(t.rules.length).toBeGreaterThanOrEqual(3);
      expect(t.rules.length).toBeLessThanOrEqual(12);
      for (const r of t.rules.filter((r) => r.severity === "blocking")) expect(t.tests.some((x) => x.rule === r.id)).toBe(true);
      const deeper = t.pointers.filter((p) => p.startsWith(`${t.uri}/`) && p !== `${t.uri}/TALENT.md`);
      expect(`${t.id}: ${deeper.length > 0}`).toBe(`${t.id}: true`);
      expect(t.tokens).toBeLessThanOrEqual(t.budget);
    }
  });
  test("rule ids are unique across the whole catalog (an audit names a rule unambiguously)", () => {
    const ids = catalog.list.flatMap((t) => t.rules.map((r) => r.id));
    expect(ids.length).toBe(new Set(ids).size);
  });
});
