/** The dependency graph's two questions: what a set of talents needs, and which of them cannot go together. */
import type { Talent } from "./format";

/** How the graph reads a talent by id (a catalog's `get`). */
export type Lookup = (id: string) => Pick<Talent, "id" | "requires" | "conflicts"> | undefined;

/**
 * `ids` plus everything they require, transitively, in a stable order (the given ids first,
 * then prerequisites as found). `missing`: required ids that `lookup` does not know.
 */
export function requiresClosure(ids: readonly string[], lookup: Lookup): { ids: string[]; missing: string[] } {
  const out: string[] = [];
  const seen = new Set<string>();
  const missing = new Set<string>();
  const queue = [...ids];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const t = lookup(id);
    if (!t) {
      missing.add(id);
      continue;
    }
    out.push(id);
    for (const r of t.requires) if (!seen.has(r)) queue.push(r);
  }
  return { ids: out, missing: [...missing] };
}

/**
 * Pairs that conflict (either side declares the other in `conflicts`) between `ids` and
 * `others` (by default among `ids` themselves), each pair once with `a < b`.
 */
export function conflictPairs(ids: readonly string[], lookup: Lookup, others: readonly string[] = ids): { a: string; b: string }[] {
  const pairs = new Map<string, { a: string; b: string }>();
  const otherSet = new Set(others);
  for (const x of ids) {
    const tx = lookup(x);
    for (const y of otherSet) {
      if (x === y) continue;
      const ty = lookup(y);
      if (tx?.conflicts.includes(y) || ty?.conflicts.includes(x)) {
        const [a, b] = x < y ? [x, y] : [y, x];
        pairs.set(`${a}\n${b}`, { a, b });
      }
    }
  }
  return [...pairs.values()].sort((p, q) => (p.a < q.a ? -1 : p.a > q.a ? 1 : p.b < q.b ? -1 : 1));
}

/**
 * Which of `among` need `id`: those whose requires-closure (through `requiresOf`) holds it, in
 * the order of `among`. What a disable or an uninstall of `id` would leave without a prerequisite.
 */
export function dependentsWithin(
  id: string,
  among: readonly string[],
  requiresOf: (id: string) => readonly string[] | undefined,
): string[] {
  const needs = new Map<string, boolean>();
  const reaches = (x: string, path: Set<string>): boolean => {
    const known = needs.get(x);
    if (known !== undefined) return known;
    if (path.has(x)) return false; // a cycle of requires: not through here
    path.add(x);
    const found = (requiresOf(x) ?? []).some((r) => r === id || reaches(r, path));
    path.delete(x);
    needs.set(x, found);
    return found;
  };
  return among.filter((x) => x !== id && reaches(x, new Set()));
}
