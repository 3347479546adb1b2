import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildCatalog } from "../../src/catalog/catalog";
import { proveDetectors } from "../../src/catalog/detect";
import { formatFinding } from "../../src/catalog/format";
import { requiresClosure } from "../../src/catalog/graph";
import { readSpecializationDir, readTalentDir } from "../../src/catalog/load";
import { ROOT } from "../helpers";

const read = readTalentDir(join(ROOT, "talents"), "talents");
const { catalog, findings } = buildCatalog(read.sources, read.findings, {}, readSpecializationDir(join(ROOT, "talents"), "talents"));

describe("the shipped catalog (talents/)", () => {
  test("lints clean: every folder validates and links", () => {
    expect(findings.map(formatFinding)).toEqual([]);
    expect(catalog.list.length).toBe(read.sources.length);
  });
  test("has at least 79 public talents", () => {
    expect(catalog.list.length).toBeGreaterThanOrEqual(79);
  });
  test("has at least 10 requires edges and at least one conflict pair declared on both sides", () => {
    const edges = catalog.list.flatMap((t) => t.requires.map((r) => `${t.id}→${r}`));
    expect(edges.length).toBeGreaterThanOrEqual(10);
    const pairs = catalog.list.flatMap((t) => t.conflicts.map((c) => [t.id, c] as const));
    expect(pairs.length).toBeGreaterThanOrEqual(2);
    for (const [a, b] of pairs)
      expect(`${b} conflicts with ${a}: ${catalog.get(b)!.conflicts.includes(a)}`).toBe(`${b} conflicts with ${a}: true`);
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
  test("detectors: at least 60 rules across at least 25 talents carry one, each proven by its conformance tests (lint above runs them)", () => {
    const withDetect = catalog.list.flatMap((t) =>
      t.rules.filter((r) => r.detect && r.detect.length > 0).map((r) => ({ talent: t, rule: r })),
    );
    expect(withDetect.length).toBeGreaterThanOrEqual(60);
    expect(new Set(withDetect.map((x) => x.talent.id)).size).toBeGreaterThanOrEqual(25);
    for (const { talent, rule } of withDetect) {
      const tests = talent.tests.filter((x) => x.rule === rule.id);
      expect(`${rule.id}: ${tests.length > 0}`).toBe(`${rule.id}: true`);
      // each fail sample reported, each pass sample not, read in context as a check reads a file (comments, test code)
      const problems: string[] = [];
      proveDetectors(rule, tests, rule.id, (field, problem) => problems.push(`${field}: ${problem}`), talent.triggers?.files ?? []);
      expect(problems).toEqual([]);
    }
  });
  test("every talent is reachable from a built-in specialization: named by one, required by one it names, or the declared alternative (conflict) of one", () => {
    expect(catalog.specializations.length).toBeGreaterThanOrEqual(12);
    const named = catalog.specializations.flatMap((s) => s.talents);
    const reached = new Set(requiresClosure(named, (id) => catalog.get(id)).ids);
    const unreached = catalog.list.filter((t) => !reached.has(t.id) && !t.conflicts.some((c) => reached.has(c))).map((t) => t.id);
    expect(unreached).toEqual([]);
  });
  test("rule ids are unique across the whole catalog (an audit names a rule unambiguously)", () => {
    const ids = catalog.list.flatMap((t) => t.rules.map((r) => r.id));
    expect(ids.length).toBe(new Set(ids).size);
  });
});
