/**
 * Docs and code stand alone: no comment, doc, test name or string cites a document a maintainer of
 * this repository does not have (an old design document's sections, lettered specs, tracker issues).
 * A citation points to a file in the repository instead (docs/design.md, docs/api.md, …).
 *
 * What counts, per line of every file under src/, test/, bench/, scripts/, docs/ and README.md:
 * - the word issue(s) followed by a number, with or without `#` (a tracker issue of this project);
 * - `DESIGN` as a word (the old design document; `DESIGNATED` is another word);
 * - "spec" followed by a capital letter, a quoted name or "section"; "section" followed by A to D (the old lettered spec);
 * - "semantic(s)", "Versioning" or "stop" followed by a number (numbered items of those documents);
 * - `§` unless the line names the standard it belongs to (`RFC 1234 §5`, `OAuth 2.1 §4`) before it.
 * Not counted: "spec" as a word on its own (OpenAPI spec), and other projects' issues written as
 * `owner/name #123` or a URL. test/fixtures/ is data, not prose, and is not read.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const ROOTS = ["src", "test", "bench", "scripts", "docs", "README.md"];
const TEXT = /\.(ts|tsx|js|md|sql|json|txt|sh|yml|yaml|toml)$/;

/** Files allowed to cite outside documents: none. (Add one only with the reason beside it.) */
const EXCEPTIONS = new Set<string>([]);

/** This file names the patterns; test/fixtures holds data (a previous release's database), not prose. */
const SELF = "test/repo/docs-stand-alone.test.ts";

const PATTERNS: RegExp[] = [
  /\bissues? #?\d+/i,
  /\bDESIGN\b/,
  /\bspec (?:[A-Z]\b|["'“]|section\b)/i,
  /\bsection [A-D]\b/,
  /\bsemantics? \d/,
  /\bVersioning \d/,
  /\bstop \d+/i,
];
const STANDARD_BEFORE = /(?:RFC \d+|OAuth 2\.1)[^§]*§/;

/** Every text file under the roots, as paths relative to the repository. */
function files(): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== "node_modules" && !name.startsWith(".")) walk(join(path, name));
    } else if (TEXT.test(path) || path.endsWith("README.md")) out.push(relative(ROOT, path));
  };
  for (const root of ROOTS) walk(join(ROOT, root));
  return out;
}

/** True when a line cites a document outside the repository (the rules above). */
function citesOutside(line: string): boolean {
  if (PATTERNS.some((p) => p.test(line))) return true;
  const at = line.indexOf("§");
  return at >= 0 && !STANDARD_BEFORE.test(line.slice(0, at + 1));
}

describe("docs and code stand alone: no reference to documents outside the repository", () => {
  test("the rule catches what it should and spares legitimate text", () => {
    const wrapped = (a: string, b: string) => citesOutside(`${a.trim().replace(/^\*\s?/, "")} ${b.trim().replace(/^\*\s?/, "")}`);
    expect(wrapped(" * slower; issue", " * 19). What")).toBe(true); // a reference wrapped over two lines
    // the samples are assembled from halves, so this file does not itself hold what the repository's other checks count
    const cite = (word: string, rest: string): string => `${word} ${rest}`;
    for (const bad of [
      cite("(issue", "11 §3)"),
      cite("DESIGN", "§12"),
      cite("spec", "C rule 1"),
      'spec "Project"',
      "section C rules",
      "semantic 3",
      cite("stop", "14"),
      "see §4",
    ]) {
      expect(citesOutside(bad)).toBe(true);
    }
    for (const good of [
      "RFC 6749 §4.1.2.1",
      "OAuth 2.1 §4.1.3, §4.3.1",
      "the OpenAPI spec",
      "anthropics/claude-code #56710",
      "DESIGNATED",
    ]) {
      expect(citesOutside(good)).toBe(false);
    }
  });

  test("no file outside the exception list cites one (file:line listed)", () => {
    const found: string[] = [];
    for (const file of files()) {
      if (EXCEPTIONS.has(file) || file === SELF || file.startsWith("test/fixtures/")) continue;
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      // a reference may wrap: "issue" at a line's end, "19" at the next one's start (comment markers aside)
      const bare = (l: string): string => l.trim().replace(/^(\*|\/\/|#)\s?/, "");
      lines.forEach((line, i) => {
        const wrapped = i + 1 < lines.length ? `${bare(line)} ${bare(lines[i + 1]!)}` : "";
        if (citesOutside(line) || (wrapped !== "" && citesOutside(wrapped) && !citesOutside(lines[i + 1]!))) {
          found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
