/**
 * Globs against repository paths, the one way the client matches them (designation from
 * `triggers.files`, a detector's `files`): picomatch, with dot files matched, against the path
 * relative to the repository root. A glob without `/` names a path from the root (`Dockerfile`
 * is the root one; `**\/Dockerfile` is any). In a detector's list, a glob starting with `!`
 * excludes.
 */
import picomatch from "picomatch";
import { pathKind } from "../catalog/pathKind";

export type PathMatcher = (path: string) => string | null;

const OPTIONS = { dot: true } as const;

/** Compiled globs shared by the matchers of one run: a glob is compiled once however many lists name it. */
export type GlobCache = Map<string, (p: string) => boolean>;

const SPECIAL = "*?[\\]{}()!+@";
/** A glob's last segment: an optional `*`, then literal text, or literal text around one `{a,b}` of literals. */
const TAIL = new RegExp(`^\\*?([^${SPECIAL}]*)(?:\\{([^${SPECIAL}]*)\\}([^${SPECIAL}]*))?$`);

/**
 * The endings one of which a path must have to match the glob (`**\/*.{ts,tsx}`: `.ts` or `.tsx`),
 * or null when its last segment is not that simple. A cheap test before the glob's regular expression.
 */
export function requiredEndings(glob: string): string[] | null {
  const m = TAIL.exec(glob.slice(glob.lastIndexOf("/") + 1));
  if (!m) return null;
  const [, head = "", alternatives, after = ""] = m;
  const endings = alternatives === undefined ? [head] : alternatives.split(",").map((a) => head + a + after);
  return endings.some((e) => e === "") || alternatives?.includes("..") ? null : endings; // `{1..3}` is a range
}

/**
 * One glob as picomatch matches it (the path equal to the glob, or its regular expression), with
 * the endings test first and the regular expression compiled only when a path passes it: a run
 * that designates among all talents' triggers compiles only the globs its paths could match.
 */
export function globTest(glob: string): (path: string) => boolean {
  const endings = requiredEndings(glob);
  let regex: RegExp | undefined;
  return (path) => {
    if (path === glob) return true;
    if (endings !== null && !endings.some((e) => path.endsWith(e))) return false;
    regex ??= picomatch.makeRe(glob, OPTIONS);
    return regex.test(path);
  };
}

/** A matcher over a list of globs: returns the first glob that matches the path (null: none, or excluded). */
export function globMatcher(globs: readonly string[], cache: GlobCache = new Map()): PathMatcher {
  const compiled = (g: string) => {
    let m = cache.get(g);
    if (!m) cache.set(g, (m = globTest(g)));
    return m;
  };
  const includes: [string, (p: string) => boolean][] = [];
  const excludes: ((p: string) => boolean)[] = [];
  for (const g of globs) {
    if (g.startsWith("!")) excludes.push(compiled(g.slice(1)));
    else includes.push([g, compiled(g)]);
  }
  return (path) => {
    if (excludes.some((x) => x(path))) return null;
    for (const [g, m] of includes) if (m(path)) return g;
    return null;
  };
}

export interface Designation {
  id: string;
  /**
   * Why: the first path and the glob of its triggers.files that matched, the first path whose
   * language is one of the talent's `languages`, or the --talent flag.
   */
  because: { path: string; glob: string } | { path: string; language: string } | "--talent";
}

/** The `languages` words (as talents write them) of a file extension, lower-case. */
const LANGUAGES: Record<string, string[]> = {};
const languageTable: [string, string][] = [
  ["typescript", "ts tsx mts cts"],
  ["javascript", "js jsx mjs cjs"],
  ["python", "py pyi"],
  ["go", "go"],
  ["rust", "rs"],
  ["java", "java"],
  ["kotlin", "kt kts"],
  ["csharp", "cs"],
  ["ruby", "rb"],
  ["php", "php"],
  ["swift", "swift"],
  ["sql", "sql"],
  ["bash shell", "sh bash zsh"],
  ["css", "css"],
  ["scss", "scss"],
  ["html", "html htm"],
  ["markdown", "md mdx"],
  ["yaml", "yaml yml"],
  ["json", "json"],
  ["hcl", "tf tfvars hcl"],
  ["dockerfile", "dockerfile"],
];
for (const [words, exts] of languageTable) for (const e of exts.split(" ")) LANGUAGES[e] = words.split(" ");

/**
 * The languages of a path: by extension, or by name for a Dockerfile. None for a vendored,
 * generated or fixture path (their path class, src/catalog/pathKind.ts): nobody writes that code
 * by the project's rules, so its language designates nothing (its triggers.files still may).
 */
export function languagesOf(path: string): readonly string[] {
  const kind = pathKind(path);
  if (kind === "vendored" || kind === "generated" || kind === "fixtures") return [];
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (/^(?:Dockerfile|Containerfile)(?:\.|$)/i.test(name)) return LANGUAGES.dockerfile!;
  const dot = name.lastIndexOf(".");
  return dot < 0 ? [] : (LANGUAGES[name.slice(dot + 1).toLowerCase()] ?? []);
}

type Designable = { id: string; triggers?: { files?: string[] }; languages?: string[] };

/** Why the talent is designated for the paths (its triggers.files first, then its languages), or null. */
function reasonFor(
  t: Designable,
  paths: readonly string[],
  langs: readonly (readonly string[])[],
  cache: GlobCache,
): Designation["because"] | null {
  const globs = t.triggers?.files ?? [];
  if (globs.length > 0) {
    const match = globMatcher(globs, cache);
    for (const p of paths) {
      const glob = match(p);
      if (glob) return { path: p, glob };
    }
  }
  const own = t.languages ?? [];
  if (own.length === 0) return null;
  for (let i = 0; i < paths.length; i++) {
    const language = langs[i]!.find((l) => own.includes(l));
    if (language) return { path: paths[i]!, language };
  }
  return null;
}

/**
 * The designable (the project's active) talents whose `triggers.files` match any of the paths or
 * whose `languages` name the language of one (a .ts file designates the project's TypeScript
 * talents wherever its folder), in the server's order, then the talents named with --talent (each
 * once). Nothing else is guessed: keywords are not used.
 */
export function designate(designable: readonly Designable[], paths: readonly string[], named: readonly string[]): Designation[] {
  const out: Designation[] = [];
  const seen = new Set<string>();
  const langs = paths.map(languagesOf);
  const cache: GlobCache = new Map();
  for (const t of designable) {
    const because = reasonFor(t, paths, langs, cache);
    if (!because) continue;
    out.push({ id: t.id, because });
    seen.add(t.id);
  }
  for (const id of named) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ id, because: "--talent" });
  }
  return out;
}
