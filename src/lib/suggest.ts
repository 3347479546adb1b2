/**
 * "Did you mean …?": the known ids closest to an unknown one, for the refusals that name an
 * unknown id (a policy's talents, a locked hook rule, a designated talent). Closeness is the
 * edit distance (insertions, deletions, substitutions, and a swap of two neighbours) between
 * lowercase spellings; an id within a third of the longer spelling's length (at least 2) is a
 * candidate, the closest first (ties: the shared-trigram count, then the id), and only those at
 * most one edit farther than the closest. An id that
 * contains the other whole (`secrets` for `secrets-handling`) counts as 2 edits away.
 */

/** At most this many suggestions per unknown id. */
export const MAX_SUGGESTIONS = 3;

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one span), stopping past `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      if (d < best) best = d;
    }
    if (best > limit) return limit + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

function trigrams(s: string): Set<string> {
  const padded = `  ${s} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

/** The known ids closest to `unknown` (at most `max`, closest first); none when nothing is close. */
export function closestIds(unknown: string, known: Iterable<string>, max = MAX_SUGGESTIONS): string[] {
  const u = unknown.toLowerCase();
  const grams = trigrams(u);
  const scored: { id: string; d: number; shared: number }[] = [];
  for (const id of known) {
    const k = id.toLowerCase();
    if (k === u) continue;
    const limit = Math.max(2, Math.floor(Math.max(k.length, u.length) / 3));
    let d = editDistance(u, k, limit);
    if (d > limit && u.length >= 4 && (k.includes(u) || u.includes(k))) d = 2;
    if (d > limit) continue;
    let shared = 0;
    for (const g of trigrams(k)) if (grams.has(g)) shared++;
    scored.push({ id, d, shared });
  }
  scored.sort((x, y) => x.d - y.d || y.shared - x.shared || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  // only the near-ties of the closest: one edit more than it at most
  const best = scored[0]?.d ?? 0;
  return scored
    .filter((s) => s.d <= best + 1)
    .slice(0, max)
    .map((s) => s.id);
}

/** `unknown talent "x" — did you mean "y"?` (or `"y" or "z"`); without a suggestion, `unknown talent "x"`. */
export function unknownIdSentence(what: string, id: string, suggestions: readonly string[]): string {
  if (suggestions.length === 0) return `unknown ${what} "${id}"`;
  const quoted = suggestions.map((s) => `"${s}"`);
  const choices = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
  return `unknown ${what} "${id}" — did you mean ${choices}?`;
}
