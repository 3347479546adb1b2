/**
 * The in-memory catalog: validated talents by id, their files and digests, the dependency graph,
 * triggers, and a literal search. Built once at start from the embedded catalog with
 * TALENTS_DIR merged over it; broken folders are skipped and kept for `doctor`.
 */
import { digestOf } from "../lib/crypto";
import { formatFinding, type Finding, type Talent } from "./format";
import { lazyTalent, TalentCache, type BlobLoader } from "./lazy";
import { validateSpecializations, type BuiltInSpecialization, type SpecializationSource } from "./specializations";
import {
  Haystack,
  HAYSTACK_FIELDS,
  HAYSTACK_FROM,
  INDEX_FROM,
  searchEntries,
  searchEntry,
  searchOneWord,
  SEPARATOR,
  type SearchEntry,
  type SearchHit,
} from "./literalSearch";
import { intersectAll, TrigramIndex } from "./trigrams";
import { validateTalent, type TalentSource } from "./validate";

/** A folder that could not be loaded, with why. */
export interface BrokenTalent {
  folder: string;
  findings: Finding[];
}

export class Catalog {
  readonly talents: ReadonlyMap<string, Talent>;
  /** Sorted by id. */
  readonly list: readonly Talent[];
  readonly broken: readonly BrokenTalent[];
  /** sha256 over every talent's id and digest: changes whenever any served byte can change. */
  readonly digest: string;
  /** id → ids of talents that require it. */
  readonly dependents: ReadonlyMap<string, readonly string[]>;
  /** The built-in specializations that passed their checks (set by buildCatalog). */
  specializations: readonly BuiltInSpecialization[] = [];
  /** Bumped whenever `offload` swaps talent objects: what was built from the old objects is stale. */
  generation = 0;
  /**
   * The hosts its content check allowed links to besides the defaults (CONTENT_LINK_HOSTS, set by
   * buildCatalog): the organization's expertises are checked with the same ones.
   */
  linkHosts: readonly string[] = [];
  readonly #search: SearchEntry[];
  #trigrams: TrigramIndex | undefined;
  /** id, title, keywords and summary of every entry, each joined into one text (one-word search). */
  #haystacks: Haystack[] | undefined;

  constructor(talents: Talent[], broken: BrokenTalent[]) {
    const sorted = [...talents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.list = sorted;
    this.talents = new Map(sorted.map((t) => [t.id, t]));
    this.broken = broken;
    this.digest = digestOf(sorted.map((t) => `${t.id}@${t.digest}`).join("\n"));
    const dependents = new Map<string, string[]>();
    for (const t of sorted) for (const r of t.requires) dependents.set(r, [...(dependents.get(r) ?? []), t.id]);
    this.dependents = dependents;
    this.#search = sorted.map(searchEntry);
  }

  get(id: string): Talent | undefined {
    return this.talents.get(id);
  }

  /**
   * Replaces the given talents by lazy twins whose heavy fields are rebuilt from stored bytes
   * on access (src/catalog/lazy.ts). The caller has stored every file of them as a blob.
   */
  offload(ids: ReadonlySet<string>, load: BlobLoader, cache: TalentCache = new TalentCache()): number {
    const talents = this.talents as Map<string, Talent>;
    const list = this.list as Talent[];
    let n = 0;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (!ids.has(t.id)) continue;
      const lazy = lazyTalent(t, load, cache);
      list[i] = lazy;
      talents.set(t.id, lazy);
      this.#search[i]!.talent = lazy;
      n++;
    }
    if (n > 0) this.generation++;
    return n;
  }

  /**
   * Literal, case-insensitive search over id, title, keywords, summary and rules. Every word of
   * the query must occur somewhere; the whole phrase and earlier fields score higher.
   * `filter` restricts the candidates (installed, active, pinned…).
   */
  search(query: string, k = 10, filter?: (t: Talent) => boolean): SearchHit[] {
    const phrase = query.trim().toLowerCase().replace(/\s+/g, " ");
    if (!phrase) return [];
    const all = this.#search;
    // the trigram prefilter's posting lists, shortest first (null: no prefilter, every entry)
    let lists: Int32Array[] | null = null;
    if (all.length > INDEX_FROM) {
      // built on the first search (about 170 ms and 6 MiB for 5,000 talents), not at start
      this.#trigrams ??= new TrigramIndex(all.map((e) => `${e.id}\n${e.title}\n${e.keywords}\n${e.summary}\n${e.rules}`));
      lists = this.#trigrams.postings(phrase.split(" "));
    }
    if (!phrase.includes(" ") && !phrase.includes(SEPARATOR)) {
      // few candidates: scan them; many: jump between matches in the field texts. The shortest
      // list bounds the candidates; their intersection is made only if a level scans them (the
      // haystacks' levels never read it: it was most of a one-word search of a common word)
      const bound = lists ? lists[0]!.length : all.length;
      const haystacks = bound > HAYSTACK_FROM ? (this.#haystacks ??= HAYSTACK_FIELDS.map((f) => new Haystack(all.map((e) => e[f])))) : [];
      return searchOneWord(all, haystacks, () => lists && intersectAll(lists), phrase, k, this.#exact(phrase), filter);
    }
    return searchEntries(lists ? Array.from(intersectAll(lists), (i) => all[i]!) : all, phrase, k, filter);
  }

  /** The search entry whose id is exactly `id`, if any. */
  #exact(id: string): SearchEntry | undefined {
    const t = this.talents.get(id);
    if (!t) return undefined;
    // the list is sorted by id: binary search for its entry
    let lo = 0;
    let hi = this.#search.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const e = this.#search[mid]!;
      if (e.id === id) return e;
      if (e.id < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
}

/** The talent and the file (or "" for its main file) a public `talent://<id>[/<path>]` pointer names. */
export function pointerTarget(pointer: string): { target: string; path: string } {
  const rest = pointer.slice("talent://".length);
  const slash = rest.indexOf("/");
  return slash < 0 ? { target: rest, path: "" } : { target: rest.slice(0, slash), path: rest.slice(slash + 1) };
}

/** Result of building a catalog: the catalog and every finding (for lint and logs). */
export interface BuildResult {
  catalog: Catalog;
  findings: Finding[];
  /** What SKILL.md folders hold that no talent field carries (`not mapped: …`); refuses nothing. */
  notes: Finding[];
}

/**
 * Validates sources and links them: a talent with a dangling `requires` or `conflicts`, a
 * pointer to a missing file of another talent, or in a `requires` cycle is refused.
 * Later sources override earlier ones with the same folder (TALENTS_DIR over embedded).
 */
export function buildCatalog(
  sources: TalentSource[],
  extraFindings: Finding[] = [],
  /**
   * `linkHosts`: run the content check (strict: a public talent with a finding is skipped), with
   * these hosts allowed besides the defaults.
   */
  opts: { gcEvery?: number; linkHosts?: readonly string[] } = {},
  /** The built-in specialization files (specializations.ts), checked against the built catalog. */
  specializationSources: readonly SpecializationSource[] = [],
): BuildResult {
  const byFolder = new Map<string, TalentSource>();
  for (const s of sources) byFolder.set(s.folder, s);
  const findings: Finding[] = [...extraFindings];
  const notes: Finding[] = [];
  const brokenMap = new Map<string, Finding[]>();
  const valid = new Map<string, Talent>();
  const labels = new Map<string, (p: string) => string>();
  let validated = 0;
  for (const src of byFolder.values()) {
    // Start-up only: collecting parse garbage as it accrues keeps the peak (and so RSS) low.
    if (opts.gcEvery && ++validated % opts.gcEvery === 0) Bun.gc(true);
    const content = opts.linkHosts ? { linkHosts: opts.linkHosts, strict: true } : undefined;
    const { talent, findings: f, notes: n } = validateTalent(src, { content });
    notes.push(...n);
    labels.set(src.folder, src.label);
    if (talent) valid.set(talent.id, talent);
    else brokenMap.set(src.folder, f);
  }
  for (const f of extraFindings) {
    const folder = f.file.split("/").at(-2);
    if (folder && !brokenMap.has(folder) && !valid.has(folder)) brokenMap.set(folder, [f]);
  }

  // Link checks, repeated until stable: dropping one talent can dangle another's requires.
  let changed = true;
  while (changed) {
    changed = false;
    for (const t of [...valid.values()]) {
      const label = labels.get(t.id)!(t.mainFile);
      const problems: Finding[] = [];
      for (const r of t.requires) {
        if (!valid.has(r))
          problems.push({
            file: label,
            field: "requires",
            problem: `"${r}" ${brokenMap.has(r) ? "is broken" : "does not exist in the catalog"}`,
          });
      }
      for (const c of t.conflicts) {
        if (!valid.has(c) && !brokenMap.has(c))
          problems.push({ file: label, field: "conflicts", problem: `"${c}" does not exist in the catalog` });
      }
      for (const p of t.pointers) {
        if (p.startsWith(t.uri + "/")) continue;
        const { target, path } = pointerTarget(p);
        const other = valid.get(target);
        if (!other) problems.push({ file: label, field: "body", problem: `pointer ${p}: talent "${target}" does not exist` });
        else if (path && !other.files.has(path))
          problems.push({ file: label, field: "body", problem: `pointer ${p}: no file "${path}" in talent "${target}"` });
      }
      if (problems.length > 0) {
        valid.delete(t.id);
        brokenMap.set(t.id, problems);
        changed = true;
      }
    }
  }
  for (const id of findCycle(valid)) {
    const t = valid.get(id)!;
    valid.delete(id);
    brokenMap.set(id, [{ file: labels.get(id)!(t.mainFile), field: "requires", problem: "is part of a requires cycle" }]);
  }

  const broken: BrokenTalent[] = [...brokenMap.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([folder, f]) => ({ folder, findings: f }));
  for (const b of broken) for (const f of b.findings) if (!findings.includes(f)) findings.push(f);
  const catalog = new Catalog([...valid.values()], broken);
  const specializations = validateSpecializations(specializationSources, catalog);
  catalog.specializations = specializations.list;
  catalog.linkHosts = opts.linkHosts ?? [];
  findings.push(...specializations.findings);
  return { catalog, findings, notes };
}

/** Ids on a requires cycle (Tarjan would be overkill: the graph is small and acyclic in practice). */
function findCycle(talents: Map<string, Talent>): string[] {
  const state = new Map<string, 1 | 2>();
  const onCycle = new Set<string>();
  const stack: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 1);
    stack.push(id);
    for (const r of talents.get(id)?.requires ?? []) {
      if (!talents.has(r)) continue;
      const s = state.get(r);
      if (s === 1) for (const x of stack.slice(stack.indexOf(r))) onCycle.add(x);
      else if (s === undefined) visit(r);
    }
    stack.pop();
    state.set(id, 2);
  };
  for (const id of talents.keys()) if (!state.has(id)) visit(id);
  return [...onCycle];
}

/** Formats findings one per line (lint output, start-up log). */
export function formatFindings(findings: Finding[]): string[] {
  return findings.map(formatFinding);
}
