/**
 * The client's glob matching (src/client/match.ts): every glob is matched as picomatch matches it
 * (dot files included), though it first tests the endings a path must have and compiles the
 * glob's regular expression only for a path that has one. Checked against picomatch itself on
 * every glob of the shipped catalog (triggers and detectors) over this repository's own paths and
 * paths written to catch the edges.
 */
import { describe, expect, test } from "bun:test";
import picomatch from "picomatch";
import { globTest, requiredEndings } from "../../src/client/match";
import { ROOT, shipped } from "../helpers";

function catalogGlobs(): string[] {
  const globs = new Set<string>();
  for (const t of shipped().list) {
    for (const g of t.triggers?.files ?? []) globs.add(g);
    for (const r of t.rules) for (const d of r.detect ?? []) for (const g of d.files ?? []) globs.add(g.replace(/^!/, ""));
  }
  return [...globs].sort();
}

function repositoryPaths(): string[] {
  const r = Bun.spawnSync(["git", "ls-files"], { cwd: ROOT, stdout: "pipe" });
  return r.stdout.toString().split("\n").filter(Boolean);
}

const EDGES = [
  "Dockerfile",
  "Dockerfile.prod",
  "api/Dockerfile",
  ".github/workflows/ci.yml",
  ".env",
  "config/.env.local",
  "src/.hidden/x.ts",
  "a.ts",
  "a.tsx",
  "a.d.ts",
  "x.",
  "x.y",
  "x1..3",
  "pkg/go.mod",
  "go.mod",
  "package.json",
  "apps/web/package.json",
  "migrations/0001_init.sql",
  "src/main/java/com/acme/App.java",
  "Program.cs",
  "app/models.py",
  "tests/test_models.py",
  "README.md",
  "docs/guide.mdx",
];

describe("globs: matched exactly as picomatch matches them, the regular expression built only when needed", () => {
  test("every glob of the shipped catalog agrees with picomatch on this repository's paths and the edge paths", () => {
    const globs = catalogGlobs();
    expect(globs.length).toBeGreaterThan(100);
    const paths = [...repositoryPaths(), ...EDGES];
    const disagreements: string[] = [];
    for (const g of globs) {
      const ours = globTest(g);
      const theirs = picomatch(g, { dot: true });
      for (const p of paths) if (ours(p) !== theirs(p)) disagreements.push(`${g} ${p}`);
    }
    expect(disagreements).toEqual([]);
  });

  test("simple globs and braces, ranges, extglobs and character classes: the endings test holds only where it is a necessary condition", () => {
    const cases: [string, string[] | null][] = [
      ["**/*.ts", [".ts"]],
      ["**/*.{ts,tsx}", [".ts", ".tsx"]],
      ["Dockerfile", ["Dockerfile"]],
      ["**/x.{,y}", ["x.", "x.y"]],
      ["**/x{1..3}", null],
      ["**/Dockerfile*", null],
      ["src/**", null],
      ["**/*.@(ts|js)", null],
      ["**/*.[jt]s", null],
      ["**/*", null],
    ];
    for (const [g, endings] of cases) expect([g, requiredEndings(g)]).toEqual([g, endings]);
    for (const [g, p] of [
      ["**/x{1..3}", "a/x2"],
      ["**/*.[jt]s", "a/b.js"],
      ["**/*.@(ts|js)", "b.ts"],
      ["**/x.{,y}", "q/x."],
    ] as const)
      expect([g, p, globTest(g)(p)]).toEqual([g, p, picomatch(g, { dot: true })(p)]);
  });
});
