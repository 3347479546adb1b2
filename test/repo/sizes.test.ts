/**
 * The shape of the source a newcomer reads, checked on every run:
 *   - every file of src/, test/, bench/ and scripts/ is as biome.json's formatter writes it
 *     (`npx biome format --write .` fixes it);
 *   - every .tsx file of src/ names its JSX runtime on its first line: the built binary and a
 *     process started outside the checkout read no tsconfig, and would look for React;
 *   - no function of src/ over 80 lines (biome's noExcessiveLinesPerFunction, configured in
 *     biome.json), no file of src/ over 400 lines, no line of src/ over 140 characters;
 *   - tests live under test/ (mirroring src/), never beside the code.
 * Where the code is not there yet, the offenders are listed below: a new one fails, named, and one
 * that was fixed fails too until its line is removed, so the lists only ever shrink.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");

/** Functions of src/ over 80 lines today, one entry (their file) per function. */
const KNOWN_LONG_FUNCTIONS: string[] = [];

/** Files of src/ over 400 lines today. */
const KNOWN_LONG_FILES: string[] = [];

/** Lines of src/ over 140 characters today (comments and strings the formatter does not break). */
const MAX_LONG_LINES = 52;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

function biome(...args: string[]): { code: number; out: string } {
  const r = Bun.spawnSync([BIOME, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: `${r.stdout.toString()}${r.stderr.toString()}` };
}

const srcFiles = sourceFiles(join(ROOT, "src"));

describe("the shape of the source", () => {
  test("every file is as the formatter writes it (npx biome format --write . fixes it)", () => {
    const r = biome("format", "--max-diagnostics=none", ".");
    const unformatted = [...r.out.matchAll(/^(\S+) format /gm)].map((m) => m[1]);
    expect(unformatted).toEqual([]);
    expect(r.code).toBe(0);
  });

  test("no function of src/ over 80 lines beyond the known list, and every listed one still long", () => {
    const r = biome("lint", "--reporter=json", "--max-diagnostics=none", "src");
    const json = JSON.parse(r.out.slice(r.out.indexOf("{"), r.out.lastIndexOf("}") + 1)) as {
      diagnostics: { category?: string; location: { path: string } }[];
    };
    const long = json.diagnostics
      .filter((d) => d.category === "lint/complexity/noExcessiveLinesPerFunction")
      .map((d) => d.location.path)
      .sort();
    expect(long).toEqual([...KNOWN_LONG_FUNCTIONS].sort());
  });

  test("no file of src/ over 400 lines beyond the known list, and every listed one still long", () => {
    const long = srcFiles
      .filter((f) => readFileSync(f, "utf8").split("\n").length > 400)
      .map((f) => relative(ROOT, f))
      .sort();
    expect(long).toEqual([...KNOWN_LONG_FILES].sort());
  });

  test("lines of src/ over 140 characters do not grow", () => {
    const long = srcFiles.flatMap((f) =>
      readFileSync(f, "utf8")
        .split("\n")
        .filter((l) => l.length > 140)
        .map(() => relative(ROOT, f)),
    );
    expect(long.length).toBeLessThanOrEqual(MAX_LONG_LINES);
  });

  test("every .tsx file of src/ names its JSX runtime (/** @jsxImportSource hono/jsx */ on line 1)", () => {
    const without = srcFiles
      .filter((f) => f.endsWith(".tsx") && !readFileSync(f, "utf8").startsWith("/** @jsxImportSource hono/jsx */"))
      .map((f) => relative(ROOT, f));
    expect(without).toEqual([]);
  });

  test("no test file under src/: tests live under test/, in the folder that mirrors the code's", () => {
    const tests = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) return tests(p);
        return /\.test\.tsx?$/.test(name) ? [relative(ROOT, p)] : [];
      });
    expect(tests(join(ROOT, "src"))).toEqual([]);
  });
});
