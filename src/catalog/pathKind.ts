/**
 * What a repository path holds besides the product's own code (docs/talent-format.md "Detectors"):
 * tests, end-to-end specs, examples, docs, fixtures, generated or vendored code. A detector skips
 * these by default (a rule about production code is noise there: a pytest function without a return
 * type, an `unwrap()` in a test); a detector that is about them names them in `scan`.
 */

/** The path kinds a detector skips unless its `scan` names them. */
export const PATH_KINDS = ["tests", "e2e", "examples", "docs", "fixtures", "generated", "vendored"] as const;
export type PathKind = (typeof PATH_KINDS)[number];

/** What `scan` may name: a path kind, or `comments` (comment text, skipped by default too). */
export const SCAN_VALUES: readonly string[] = [...PATH_KINDS, "comments"];

const DIR = (names: string): RegExp => new RegExp(`(?:^|/)(?:${names})/`);

/** First match wins: a fixture under tests/ is a fixture, a Markdown file under tests/ a test file. */
const KINDS: [PathKind, RegExp[]][] = [
  ["vendored", [DIR("vendor|node_modules|third_party|third-party|bower_components")]],
  [
    "generated",
    [
      DIR("generated|__generated__|dist|deno_dist"),
      /[._](?:pb|pb\.gw|gen|generated)\.\w+$/,
      /\.min\.(?:js|css)$/,
      /(?:^|\/)(?:package-lock\.json|pnpm-lock\.yaml|yarn\.lock|Cargo\.lock|go\.sum|poetry\.lock|uv\.lock)$/,
    ],
  ],
  ["fixtures", [DIR("fixtures?|__fixtures__|testdata|__snapshots__"), /\.snap$/]],
  ["e2e", [DIR("e2e|cypress|playwright"), /\.e2e(?:-spec)?\.\w+$/]],
  [
    "tests",
    [
      DIR("(?:\\w+[_-])?tests?|__tests__|__mocks__|benches|benchmarks?"),
      /\.(?:test|spec|bench)\.\w+$/,
      /_test\.go$/,
      /(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$/,
    ],
  ],
  ["examples", [DIR("examples?|_examples|samples?|docs_src")]],
  ["docs", [DIR("docs?"), /\.(?:md|mdx|rst|adoc)$/]],
];

/** The kind of a repository path, or null for product code. */
export function pathKind(path: string): PathKind | null {
  for (const [kind, res] of KINDS) if (res.some((re) => re.test(path))) return kind;
  return null;
}

/** Go's (and many generators') marker in the first lines of a generated file. */
const GENERATED_MARK = /^\s*(?:\/\/|#|\/\*|--)\s*(?:Code generated .* DO NOT EDIT|@generated\b|This file is (?:auto-?)?generated)/im;

/** The kind of a file, reading its first lines for a generated-code marker when the path says nothing. */
export function fileKind(path: string, content: string | null): PathKind | null {
  const byPath = pathKind(path);
  if (byPath || content === null) return byPath;
  return GENERATED_MARK.test(content.slice(0, 600)) ? "generated" : null;
}

/**
 * A path that a glob names, to classify it (`**\/*.test.ts` → `x/x.test.ts`): the validator asks
 * whether a detector's own `files` point at a kind it would skip without `scan`.
 */
export function sampleOfGlob(glob: string): string {
  return glob
    .replace(/\{([^,}]*)[^}]*\}/g, "$1")
    .replace(/\*\*/g, "x")
    .replace(/\*/g, "x")
    .replace(/\?/g, "x")
    .replace(/\[[^\]]*\]/g, "x");
}
