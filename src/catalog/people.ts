/**
 * The catalog as people browse it (docs/api.md "Catalog for people"): the public talents and
 * the active organization's published expertises (`kind: "expertise"`; another organization's
 * never), as cards with filters, facets and cursor paging, and the talent sheet with its
 * dependency graph. Plain functions over the catalog and the expertises given; the routes
 * (projects/routes/catalog.ts) gather those and the project's state.
 */
import { keptByIdentity, keptEach } from "../lib/kept";
import { badCursor } from "../http/query";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import type { Catalog } from "./catalog";
import { searchTalents, type SearchHit } from "./literalSearch";
import type { Talent } from "./format";

/** A talent's state in a project (installed, active or not). */
export type ProjectState = "not_installed" | "disabled" | "active";

export interface Card {
  id: string;
  kind: "talent" | "expertise";
  title: string;
  summary: string;
  version: string;
  roles: string[];
  languages: string[];
  tokens: number;
  rules: number;
  requires: string[];
  conflicts: string[];
  /** Only with `project`: the talent's state there. */
  installed?: ProjectState;
  /** Only with `project`: why it suits the project (relevance), or [] when it does not. */
  why?: string[];
}

export const CATALOG_KINDS = ["talent", "expertise"] as const;

/** What a listing may show: the catalog, plus the organization's published expertises (which are not in it). */
export interface Visible {
  catalog: Catalog;
  expertises: readonly Talent[];
}

export function card(t: Talent): Card {
  return {
    id: t.id,
    kind: t.kind,
    title: t.title,
    summary: t.summary,
    version: t.version,
    roles: t.roles,
    languages: t.languages,
    tokens: t.tokens,
    rules: t.ruleCount,
    requires: t.requires,
    conflicts: t.conflicts,
  };
}

export interface CatalogFilter {
  query?: string;
  role?: string;
  language?: string;
  kind?: "talent" | "expertise";
  /** Extra condition (relevance pre-filter of grouped install mode). */
  keep?: (t: Talent) => boolean;
}

function passes(t: Talent, f: CatalogFilter): boolean {
  if (f.kind && t.kind !== f.kind) return false;
  if (f.role && !t.roles.includes(f.role)) return false;
  if (f.language && !t.languages.includes(f.language)) return false;
  return f.keep ? f.keep(t) : true;
}

/** The offset a cursor of these cards carries (0 without one). */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const at = decodeCursor("at", cursor);
  if (at === null || !/^\d{1,7}$/.test(at)) badCursor();
  return Number(at);
}

/**
 * One page of cards. Without `query`: expertises first (their ids start with `@`), then the
 * catalog by id; with it: by search score (the literal search of the key API, the same
 * matching and scoring for expertises). The cursor is an offset into that order.
 */
export function catalogCards(
  v: Visible,
  f: CatalogFilter,
  limit: number,
  cursor?: string,
): { talents: Talent[]; nextCursor: string | null; total: number | null } {
  const offset = offsetOf(cursor);
  const want = offset + limit + 1;
  let ordered: Talent[];
  let total: number | null = null;
  const query = f.query?.trim();
  if (query) {
    const expertises = v.expertises.filter((t) => passes(t, f));
    const hits: SearchHit[] = [
      ...(f.kind === "expertise"
        ? []
        : f.keep
          ? v.catalog.search(query, want, (t) => passes(t, f))
          : keptSearch(v.catalog, query, want, f)),
      ...searchTalents(expertises, query, want),
    ];
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    const byId = new Map([...v.expertises.map((t) => [t.id, t] as const)]);
    ordered = hits
      .slice(0, want)
      .map((h) => byId.get(h.id) ?? v.catalog.get(h.id)!)
      .filter(Boolean);
  } else {
    ordered = [];
    for (const t of v.expertises) if (passes(t, f)) ordered.push(t);
    if (f.kind !== "expertise") for (const t of v.catalog.list) if (passes(t, f)) ordered.push(t);
    total = ordered.length;
  }
  const page = ordered.slice(offset, offset + limit);
  return { talents: page, nextCursor: ordered.length > offset + limit ? encodeCursor("at", offset + limit) : null, total };
}

/**
 * The catalog's part of a search for people, kept per catalog by everything it depends on
 * (query, depth, role, language, kind; not with a relevance filter, which is the project's):
 * people repeat searches (the palette searches as they type, pages come back), and a query
 * whose words every talent holds costs milliseconds over 5,000 talents. Bounded; oldest out.
 */
function keptSearch(catalog: Catalog, query: string, want: number, f: CatalogFilter): readonly SearchHit[] {
  const kept = searches.of(catalog);
  const key = `${want}\u0000${f.role ?? ""}\u0000${f.language ?? ""}\u0000${f.kind ?? ""}\u0000${query.toLowerCase()}`;
  let hits = kept.get(key);
  if (!hits) {
    hits = Object.freeze(catalog.search(query, want, (t) => passes(t, f)));
    kept.set(key, hits);
  }
  return hits;
}
const searches = keptEach<Catalog, string, readonly SearchHit[]>("Catalog search hits by query and filters", {
  clock: "identity",
  limit: 512,
  per: "catalog",
});

/** Counts by role, language and kind over everything visible (the catalog's part is cached per catalog). */
export function facets(v: Visible): { roles: Record<string, number>; languages: Record<string, number>; kinds: Record<string, number> } {
  const base = catalogFacets(v.catalog);
  const out = { roles: { ...base.roles }, languages: { ...base.languages }, kinds: { ...base.kinds } };
  for (const t of v.expertises) count(out, t);
  return { roles: sorted(out.roles), languages: sorted(out.languages), kinds: sorted(out.kinds) };
}

type Counts = { roles: Record<string, number>; languages: Record<string, number>; kinds: Record<string, number> };
const facetCache = keptByIdentity<Catalog, Counts>("Catalog facets");
function catalogFacets(catalog: Catalog): Counts {
  let c = facetCache.get(catalog);
  if (!c) {
    c = { roles: {}, languages: {}, kinds: {} };
    for (const t of catalog.list) count(c, t);
    facetCache.set(catalog, c);
  }
  return c;
}
function count(c: Counts, t: Talent): void {
  for (const r of t.roles) c.roles[r] = (c.roles[r] ?? 0) + 1;
  for (const l of t.languages) c.languages[l] = (c.languages[l] ?? 0) + 1;
  c.kinds[t.kind] = (c.kinds[t.kind] ?? 0) + 1;
}
const sorted = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));

export interface GraphNode {
  id: string;
  title: string | null;
  kind: "talent" | "expertise";
  /** Required by the graph but not in the catalog (nor a visible expertise). */
  missing: boolean;
  /** How the node relates to the sheet's talent. */
  relation: "self" | "requires" | "dependent" | "conflict";
  /** Only with `project`. */
  installed?: ProjectState;
}

export interface Graph {
  nodes: GraphNode[];
  edges: { from: string; to: string; type: "requires" | "conflicts" }[];
}

/**
 * The dependency graph of a talent's sheet: its requires-closure (every talent it needs,
 * transitively, with their own requires edges), its direct dependents, and its conflicts.
 */
export function dependencyGraph(
  t: Talent,
  lookup: (id: string) => Talent | undefined,
  dependents: readonly string[],
  state?: (id: string) => ProjectState,
): Graph {
  const nodes = new Map<string, GraphNode>();
  const edges: Graph["edges"] = [];
  const node = (id: string, relation: GraphNode["relation"]) => {
    if (nodes.has(id)) return;
    const x = lookup(id);
    nodes.set(id, {
      id,
      title: x?.title ?? null,
      kind: id.startsWith("@") ? "expertise" : "talent",
      missing: !x,
      relation,
      ...(state ? { installed: state(id) } : {}),
    });
  };
  node(t.id, "self");
  const queue = [t];
  const seen = new Set([t.id]);
  while (queue.length > 0) {
    const cur = queue.shift()!;
    for (const r of cur.requires) {
      node(r, "requires");
      edges.push({ from: cur.id, to: r, type: "requires" });
      const next = lookup(r);
      if (next && !seen.has(r)) {
        seen.add(r);
        queue.push(next);
      }
    }
  }
  for (const d of dependents) {
    node(d, "dependent");
    edges.push({ from: d, to: t.id, type: "requires" });
  }
  for (const c of t.conflicts) {
    node(c, "conflict");
    edges.push({ from: t.id, to: c, type: "conflicts" });
  }
  return { nodes: [...nodes.values()], edges };
}

/**
 * The talent sheet (docs/api.md "Pages", `/catalog/:id`): what a person needs to decide, and the exact compact block an agent is served.
 */
export function talentSheet(t: Talent, graph: Graph, installed?: ProjectState) {
  return {
    ...card(t),
    uri: t.uri,
    format: t.format,
    budget: t.budget,
    triggers: t.triggers,
    rules: t.rules.map((r) => ({ id: r.id, severity: r.severity, title: r.title, check: r.check })),
    tests: t.tests,
    compact: t.compact,
    compactDigest: t.compactDigest,
    reviewed: t.reviewed ?? null,
    covers: t.covers ?? [],
    files: [...t.files.values()]
      .map((f) => ({ path: f.path, digest: f.digest, size: Buffer.byteLength(f.content, "utf8") }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    graph,
    ...(installed ? { installed } : {}),
  };
}
