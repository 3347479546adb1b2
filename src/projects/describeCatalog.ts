/**
 * The descriptors of the catalog for people (`/web/catalog…`: routes/catalog.ts) and the command
 * palette's search (`/web/search`: pages/search.tsx), docs/api.md "Catalog for people": each route's OpenAPI
 * row and answer (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import { a, B, CatalogItem, I, map, n, o, page, S, str, Triggers } from "../http/schema";

/** The catalog, its facets, the talent sheet and the search. */
export const CATALOG_WEB = {
  list: {
    method: "GET",
    path: "/web/catalog",
    summary: "Catalog cards (public talents and the organization's published expertises)",
    access: "member",
    query: [
      { name: "query", schema: str() },
      { name: "role", schema: str() },
      { name: "language", schema: str() },
      { name: "kind", schema: str({ enum: ["talent", "expertise"] }) },
      { name: "project", schema: str() },
      { name: "relevance", schema: str({ enum: ["apply", "all"] }) },
      ...page(100),
    ],
    errors: [400, 404],
    answer: o({ items: a(o({ ...CatalogItem, rules: I })), nextCursor: n(S), total: I }),
  },
  facets: {
    method: "GET",
    path: "/web/catalog/facets",
    summary: "Counts by role, language and kind",
    access: "member",
    answer: o({ roles: map(I), languages: map(I), kinds: map(I) }),
  },
  talent: {
    method: "GET",
    path: "/web/catalog/{talentId}",
    summary: "The talent sheet (graph, rules, tests, compact preview, files)",
    access: "member",
    query: [{ name: "project", schema: str() }],
    errors: [400, 404],
    route: "/web/catalog/*",
    answer: o({
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
  },
  search: {
    method: "GET",
    path: "/web/search",
    summary: "The command palette's search: projects, talents, specializations, organizations",
    access: "session",
    query: [{ name: "q", schema: str({ maxLength: 200 }) }],
    errors: [400],
    answer: o({ items: a(o({ type: S, id: S, label: S, detail: S, href: S })) }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const CATALOG_WEB_ROUTES: RouteDescriptor[] = Object.values(CATALOG_WEB);
