/**
 * The literal search of talents (src/catalog/catalog.ts runs it): each talent's lower-cased
 * fields, the ranking by weighted field matches, the one-word fast path and its haystacks.
 */
import type { Talent } from "./format";

/** One hit of a search: the talent, its pointer, summary and score. */
export interface SearchHit {
  id: string;
  uri: string;
  summary: string;
  score: number;
}

/** The lower-cased fields of one talent, as the search reads them. */
export interface SearchEntry {
  talent: Talent;
  id: string;
  title: string;
  keywords: string;
  summary: string;
  rules: string;
}

/** The lower-cased fields one talent is searched by. */
export function searchEntry(t: Talent): SearchEntry {
  return {
    talent: t,
    id: t.id,
    title: t.title.toLowerCase(),
    keywords: t.triggers.keywords.join("\n").toLowerCase(),
    summary: t.summary.toLowerCase(),
    rules: t.rules
      .map((r) => `${r.id} ${r.title}`)
      .join("\n")
      .toLowerCase(),
  };
}

/**
 * The same literal search over an explicit list of talents (a project's selection with its
 * expertises, which are not in the catalog's index): same matching, same scoring.
 */
export function searchTalents(list: readonly Talent[], query: string, k = 10): SearchHit[] {
  const phrase = query.trim().toLowerCase().replace(/\s+/g, " ");
  if (!phrase) return [];
  return searchEntries(list.map(searchEntry), phrase, k);
}

/** Catalogs larger than this get a trigram prefilter; smaller ones are scanned. */
export const INDEX_FROM = 500;

const FIELD_WEIGHTS: [keyof Omit<SearchEntry, "talent">, number][] = [
  ["id", 8],
  ["title", 6],
  ["keywords", 5],
  ["summary", 3],
  ["rules", 2],
];

/** Separates the entries' values in a haystack; a query holding it takes the full scan. */
export const SEPARATOR = "\u0000";
/**
 * Above this many candidates a one-word search jumps through haystacks instead of scanning the
 * candidates (over 5,050 talents the two cost the same at about 400; docs/performance.md).
 */
export const HAYSTACK_FROM = 400;
/** The fields kept as haystacks: the short ones (rules, three quarters of the text, are scanned). */
export const HAYSTACK_FIELDS = ["id", "title", "keywords", "summary"] as const;

/** One field of every entry joined in entry order, so `indexOf` jumps from match to match. */
export class Haystack {
  readonly #text: string;
  /** Where each entry's value starts in the text. */
  readonly #starts: Int32Array;

  constructor(values: readonly string[]) {
    this.#starts = new Int32Array(values.length);
    let at = 0;
    values.forEach((v, i) => {
      this.#starts[i] = at;
      at += v.length + 1;
    });
    this.#text = values.join(SEPARATOR);
  }

  /**
   * Visits the entry numbers whose value holds `word`, ascending (the word holds no separator),
   * until `visit` returns true. A callback, not a generator: resuming a generator per match was
   * a third of a one-word search.
   */
  eachMatch(word: string, visit: (entry: number) => boolean): void {
    const starts = this.#starts;
    const text = this.#text;
    const last = starts.length - 1;
    let from = 0;
    for (;;) {
      const at = text.indexOf(word, from);
      if (at < 0) return;
      let lo = 0;
      let hi = last;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      if (visit(lo) || lo >= last) return;
      from = starts[lo + 1]!;
    }
  }
}

/**
 * The ranking of searchEntries for a one-word query, without scoring every match. A one-word
 * score is the weight of the heaviest field holding the word (plus 100 for the exact id), so the
 * hits come level by level (id, title, keywords, summary, rules), in id order within a level,
 * and the search stops once k are found. A level is searched by scanning `candidates` (the
 * trigram prefilter's, intersected by the first level that scans), or, given haystacks, for the
 * four short fields by `indexOf` jumps.
 * Measured over 5,050 talents: "module", held by every talent, 1.3 ms → see docs/performance.md.
 * Equality with the full ranking is tested (test/catalog/catalog.test.ts).
 */
export function searchOneWord(
  all: readonly SearchEntry[],
  haystacks: readonly Haystack[],
  candidates: () => Int32Array | null,
  word: string,
  k: number,
  exact: SearchEntry | undefined,
  filter?: (t: Talent) => boolean,
): SearchHit[] {
  const hits: { e: SearchEntry; score: number }[] = [];
  let numbers: Int32Array | null | undefined; // made by the first level that scans
  const exactHit = exact !== undefined && (!filter || filter(exact.talent));
  if (exactHit) hits.push({ e: exact, score: FIELD_WEIGHTS[0]![1] + 100 });
  const consider = (e: SearchEntry, level: number): void => {
    if (exactHit && e === exact) return;
    // its heaviest field must be this level's: no earlier field holds the word
    for (let l = 0; l < level; l++) if (e[FIELD_WEIGHTS[l]![0]].includes(word)) return;
    if (filter && !filter(e.talent)) return;
    hits.push({ e, score: FIELD_WEIGHTS[level]![1] });
  };
  for (let level = 0; level < FIELD_WEIGHTS.length && hits.length < k; level++) {
    const [field] = FIELD_WEIGHTS[level]!;
    if (level < haystacks.length) {
      haystacks[level]!.eachMatch(word, (i) => {
        consider(all[i]!, level);
        return hits.length >= k;
      });
    } else {
      if (numbers === undefined) numbers = candidates();
      const n = numbers ? numbers.length : all.length;
      for (let j = 0; j < n && hits.length < k; j++) {
        const e = all[numbers ? numbers[j]! : j]!;
        if (e[field].includes(word)) consider(e, level);
      }
    }
  }
  return hits.map(({ e, score }) => ({ id: e.talent.id, uri: e.talent.uri, summary: e.talent.summary, score }));
}

/** Ranks `entries` for a phrase by weighted field matches: the top k hits. */
export function searchEntries(entries: Iterable<SearchEntry>, phrase: string, k: number, filter?: (t: Talent) => boolean): SearchHit[] {
  const words = [...new Set(phrase.split(" "))];
  // keep only the best k while scanning (ordered by score desc, then id): no sort of every match
  const top: { e: SearchEntry; score: number }[] = [];
  const better = (a: { e: SearchEntry; score: number }, b: { e: SearchEntry; score: number }) =>
    a.score > b.score || (a.score === b.score && a.e.id < b.e.id);
  const multi = words.length > 1;
  for (const e of entries) {
    if (filter && !filter(e.talent)) continue;
    // the fields in weight order, read once (this loop runs for every candidate: plain loops, no iterator)
    const id = e.id,
      title = e.title,
      keywords = e.keywords,
      summary = e.summary;
    let score = 0;
    let allWords = true;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      const best = id.includes(w)
        ? 8
        : title.includes(w)
          ? 6
          : keywords.includes(w)
            ? 5
            : summary.includes(w)
              ? 3
              : e.rules.includes(w)
                ? 2
                : 0;
      if (best === 0) {
        allWords = false;
        break;
      }
      score += best;
    }
    if (!allWords) continue;
    if (id === phrase) score += 100;
    else if (multi) {
      const bonus = id.includes(phrase)
        ? 8
        : title.includes(phrase)
          ? 6
          : keywords.includes(phrase)
            ? 5
            : summary.includes(phrase)
              ? 3
              : e.rules.includes(phrase)
                ? 2
                : 0;
      score += bonus * 2;
    }
    if (top.length === k && score < top[k - 1]!.score) continue;
    const hit = { e, score };
    if (top.length === k && !better(hit, top[k - 1]!)) continue;
    let i = top.length < k ? top.length : k - 1;
    while (i > 0 && better(hit, top[i - 1]!)) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = hit;
  }
  return top.map(({ e, score }) => ({ id: e.talent.id, uri: e.talent.uri, summary: e.talent.summary, score }));
}
