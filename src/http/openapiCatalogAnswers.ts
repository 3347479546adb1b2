/**
 * The declared success answers of the catalog for people (`/web/catalog`, its facets and the talent
 * sheet), a part of ANSWERS (openapiAnswers.ts).
 */
import { a, B, CatalogItem, I, map, n, o, S, Triggers, type Schema } from "./schema";

/** The catalog routes' answers, by `METHOD /path`. */
export const CATALOG_ANSWERS: Record<string, Schema> = {
  "GET /web/catalog": o({ items: a(o({ ...CatalogItem, rules: I })), nextCursor: n(S), total: I }),
  "GET /web/catalog/facets": o({ roles: map(I), languages: map(I), kinds: map(I) }),
  "GET /web/catalog/{talentId}": o({
    ...CatalogItem,
    uri: S,
    format: S,
    budget: I,
    triggers: Triggers,
    compact: S,
    compactDigest: S,
    reviewed: n(S),
    covers: a(o({ product: S, versions: a(S) })),
    rules: a(o({ id: S, severity: S, title: S, check: S })),
    tests: a(o({ rule: S, pass: S, fail: S })),
    files: a(o({ path: S, digest: S, size: I })),
    graph: o({ nodes: a(o({ id: S, title: S, kind: S, missing: B, relation: S })), edges: a(o({ from: S, to: S, type: S })) }),
  }),
};
