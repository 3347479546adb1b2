/**
 * The client's glob matcher (src/client/match.ts compileGlob) turns the simple shapes talents write into a small regular
 * expression of its own; it must decide exactly as picomatch with `dot: true` does, on every glob of the shipped catalog
 * and on generated globs and paths (plain and odd: empty, `.` and `..` segments, a leading or doubled slash).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import picomatch from "picomatch";
import { compileGlob } from "../../src/client/match";

const TALENTS = join(import.meta.dir, "..", "..", "talents");

/** Every glob the shipped catalog writes: each talent's triggers.files and its detectors' files. */
function catalogGlobs(): string[] {
  const globs = new Set<string>();
  for (const id of readdirSync(TALENTS)) {
    let text: string;
    try {
      text = readFileSync(join(TALENTS, id, "TALENT.md"), "utf8");
    } catch {
      continue;
    }
    const front = Bun.YAML.parse(text.split("\n---")[0]!.replace(/^---\n/, "")) as {
      triggers?: { files?: string[] };
      rules?: { detect?: { files?: string[] }[] }[];
    };
    for (const g of front.triggers?.files ?? []) globs.add(g);
    for (const r of front.rules ?? []) for (const d of r.detect ?? []) for (const g of d.files ?? []) globs.add(g.replace(/^!/, ""));
  }
  return [...globs];
}

const SEGMENTS = ["src", "api", "a", ".github", "x.ts", "x.py", ".py", "settings.py", "tests", "migrations", "b.component.ts"];
const ODD = ["", "/src/x.ts", "src//x.ts", "src/./x.ts", "src/../x.ts", "./x.ts", "src/", ".", "..", "a\\b.ts"];
const path = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 }).map((s) => s.join("/"));
const segment = fc.oneof(
  fc.constantFrom("**", "*", "src", "api", "*.ts", "*.{ts,py}", "x.*", "*test*", ".github", "settings.py", "a-b", "*.component.ts"),
);
const glob = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));

const compiled = new Map<string, [(p: string) => boolean, (p: string) => boolean]>();
const same = (g: string, p: string) => {
  let pair = compiled.get(g);
  if (!pair) compiled.set(g, (pair = [compileGlob(g), picomatch(g, { dot: true })]));
  const [ours, theirs] = pair;
  if (ours(p) !== theirs(p)) expect([g, p, ours(p)]).toEqual([g, p, theirs(p)]);
};

describe("globs: the client's matcher decides as picomatch (dot: true) does", () => {
  test("every glob of the shipped catalog, on paths built from the catalog's own words and on odd paths", () => {
    const globs = catalogGlobs();
    expect(globs.length).toBeGreaterThan(200);
    const paths = new Set<string>(ODD);
    for (const g of globs) {
      // a path each glob should match, made from its own words
      const plain = g
        .replace(/\{([^,}]*)[^}]*\}/g, "$1")
        .replace(/\*\*\//g, "deep/")
        .replace(/\/\*\*/g, "/deep")
        .replace(/\*/g, "x");
      paths.add(plain);
      paths.add(`nested/${plain}`);
    }
    for (const g of globs) for (const p of paths) same(g, p);
  });

  test("generated globs of the simple shapes on generated plain paths and odd paths", () => {
    fc.assert(
      fc.property(glob, fc.oneof(path, fc.constantFrom(...ODD)), (g, p) => {
        same(g, p);
      }),
      { numRuns: 20000 },
    );
  });
});
