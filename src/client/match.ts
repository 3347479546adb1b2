/**
 * Globs against repository paths, the one way the client matches them (designation from
 * `triggers.files`, a detector's `files`): picomatch, with dot files matched, against the path
 * relative to the repository root. A glob without `/` names a path from the root (`Dockerfile`
 * is the root one; `**\/Dockerfile` is any). In a detector's list, a glob starting with `!`
 * excludes.
 */
import picomatch from "picomatch";

export type PathMatcher = (path: string) => string | null;

const OPTIONS = { dot: true } as const;

/** A matcher over a list of globs: returns the first glob that matches the path (null: none, or excluded). */
export function globMatcher(globs: readonly string[]): PathMatcher {
  const includes: [string, (p: string) => boolean][] = [];
  const excludes: ((p: string) => boolean)[] = [];
  for (const g of globs) {
    if (g.startsWith("!")) excludes.push(picomatch(g.slice(1), OPTIONS));
    else includes.push([g, picomatch(g, OPTIONS)]);
  }
  return (path) => {
    if (excludes.some((x) => x(path))) return null;
    for (const [g, m] of includes) if (m(path)) return g;
    return null;
  };
}

export interface Designation {
  id: string;
  /** Why: the first path and the glob of its triggers.files that matched, or the --talent flag. */
  because: { path: string; glob: string } | "--talent";
}

/**
 * The designable talents whose `triggers.files` match any of the paths, in the server's order,
 * then the talents named with --talent (each once). Nothing else is guessed: keywords are not
 * used, and a talent without file triggers is designated only by name.
 */
export function designate(
  designable: readonly { id: string; triggers?: { files?: string[] } }[],
  paths: readonly string[],
  named: readonly string[],
): Designation[] {
  const out: Designation[] = [];
  const seen = new Set<string>();
  for (const t of designable) {
    const globs = t.triggers?.files ?? [];
    if (globs.length === 0) continue;
    const match = globMatcher(globs);
    for (const p of paths) {
      const glob = match(p);
      if (glob) {
        out.push({ id: t.id, because: { path: p, glob } });
        seen.add(t.id);
        break;
      }
    }
  }
  for (const id of named) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ id, because: "--talent" });
  }
  return out;
}
