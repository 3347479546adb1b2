/**
 * Globs against repository paths, the one way the client matches them (designation from
 * `triggers.files`, a detector's `files`): picomatch, with dot files matched, against the path
 * relative to the repository root. A glob without `/` names a path from the root (`Dockerfile`
 * is the root one; `**\/Dockerfile` is any). In a detector's list, a glob starting with `!`
 * excludes.
 */
import { pathKind } from "../catalog/pathKind";

export type PathMatcher = (path: string) => string | null;

const OPTIONS = { dot: true } as const;

/** What picomatch(glob, OPTIONS)(path) decides (no format, matchBase or ignore option), without the result object it builds per call. */
function picomatchOf(glob: string): (p: string) => boolean {
  // loaded on first use: the shipped catalog's globs are all simple, and a check on plain paths never needs it
  const picomatch = require("picomatch") as typeof import("picomatch");
  const re = picomatch.makeRe(glob, OPTIONS);
  return (p) => p !== "" && (p === glob || re.test(p));
}

/** A glob of the simple shapes talents write: `**` as whole segments, `*`, `{a,b}` of plain words, plain characters. */
const SIMPLE_GLOB = /^(?:[\w.\-*/]|\{[\w.\-]+(?:,[\w.\-]+)+\})+$/;
/** A path as git names one: no empty, `.` or `..` segment, no backslash. Any other goes to picomatch, which has its own rules. */
function plainPath(p: string): boolean {
  if (p === "" || p[0] === "/" || p.endsWith("/") || p.includes("//") || p.includes("\\")) return false;
  const s = `/${p}/`;
  return !s.includes("/./") && !s.includes("/../");
}

/**
 * A glob as a matcher. The simple shapes become a small regular expression that decides as picomatch does on a plain
 * path (test/client/glob-equivalence.test.ts compares them): picomatch's own expression for `**\/*.ts` is long, and
 * parsing and compiling ~300 of them cost a check more than the detectors' tests.
 */
export function compileGlob(glob: string): (p: string) => boolean {
  if (!SIMPLE_GLOB.test(glob) || /\*\*[^/]|[^/]\*\*|\*\*\/\*\*|\/\/|^\/|\/$/.test(glob)) return picomatchOf(glob);
  const segments = glob.split("/");
  let source = "";
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    // a trailing `/**` also matches the folder itself, except after a segment ending in `*` (picomatch's rule)
    const folder = i > 0 && segments[i - 1]!.endsWith("*") ? "/.+" : "(?:/.*)?";
    if (seg === "**") source += last ? (i === 0 ? ".*" : folder) : i === 0 ? "(?:[^/]+/)*" : "(?:/[^/]+)*/";
    else {
      if (i > 0 && segments[i - 1] !== "**") source += "/";
      source += seg
        .replace(/[.\-]/g, "\\$&")
        .replace(/\*/g, "[^/]*")
        .replace(/\{([^}]*)\}/g, (_, words: string) => `(?:${words.split(",").join("|")})`);
    }
  });
  const re = new RegExp(`^${source}$`);
  let slow: ((p: string) => boolean) | undefined;
  return (p) => (plainPath(p) ? re.test(p) : (slow ??= picomatchOf(glob))(p));
}

/** Compiled globs, by glob: one run's, so a glob many talents or detectors share is compiled once. */
export type GlobCache = Map<string, (p: string) => boolean>;

/**
 * A matcher over a list of globs: returns the first glob that matches the path (null: none, or excluded).
 * `cache`: the caller's compiled globs, filled here (a new one each call of designate or runDetectors, dropped with it).
 */
export function globMatcher(globs: readonly string[], cache?: GlobCache): PathMatcher {
  const compile = (g: string): ((p: string) => boolean) => {
    const known = cache?.get(g);
    if (known) return known;
    const m = compileGlob(g);
    cache?.set(g, m);
    return m;
  };
  const includes: [string, (p: string) => boolean][] = [];
  const excludes: ((p: string) => boolean)[] = [];
  for (const g of globs) {
    if (g.startsWith("!")) excludes.push(compile(g.slice(1)));
    else includes.push([g, compile(g)]);
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
