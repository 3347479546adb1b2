/** `GET /api/catalog` (scope catalog): the public catalog, paged with an opaque cursor; its key-route descriptor (http/keyRoute.ts). */
import { Elysia } from "elysia";
import { guardOf, type KeyRoute, traceKinds } from "../http/keyRoute";
import { a, CatalogItem, I, n, o, page, S, Triggers } from "../http/schema";
import { badCursor, intParam, strParam } from "../http/query";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "./state";
import type { Guards } from "../auth/guards";
import { keyApiTracer } from "../journal/trace";
import type { Catalog } from "./catalog";
import type { Talent } from "./format";

export const CATALOG_PAGE_MAX = 200;

/** The descriptor of the catalog's key route (src/keyRoutes.ts lists it with the others). */
export const CATALOG_KEY_ROUTE = {
  method: "GET",
  path: "/api/catalog",
  scope: "catalog",
  kind: "catalog",
  summary: "The public catalog, paged",
  query: page(CATALOG_PAGE_MAX),
  errors: [400],
  answer: o({ talents: a(o({ ...CatalogItem, uri: S, triggers: Triggers, rules: I })), total: I, digest: S, nextCursor: n(S) }),
} satisfies KeyRoute;

/** The listing shape of a talent: what an agent needs to choose, no content. */
export function talentSummary(t: Talent) {
  return {
    id: t.id,
    uri: t.uri,
    title: t.title,
    summary: t.summary,
    version: t.version,
    roles: t.roles,
    languages: t.languages,
    triggers: t.triggers,
    requires: t.requires,
    conflicts: t.conflicts,
    rules: t.ruleCount,
    tokens: t.tokens,
  };
}

/** One page of the catalog after `cursor` (ids are sorted, so pages are stable). */
export function catalogPage(catalog: Catalog, limit: number, cursor?: string) {
  const after = cursor ? (decodeCursor("after", cursor) ?? badCursor()) : null;
  const list = catalog.list;
  let start = 0;
  if (after !== null) {
    // binary search for the first id > after
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.id <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const page = list.slice(start, start + limit);
  const more = start + limit < list.length;
  return {
    talents: page.map(talentSummary),
    total: list.length,
    digest: catalog.digest,
    nextCursor: more && page.length > 0 ? encodeCursor("after", page.at(-1)!.id) : null,
  };
}

export function catalogApiRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, traceKinds([CATALOG_KEY_ROUTE])))
    .get(
      CATALOG_KEY_ROUTE.path,
      ({ query }) => catalogPage(deps.state.catalog!, intParam(query, "limit", 1, CATALOG_PAGE_MAX, 50), strParam(query, "cursor", 200)),
      guardOf(CATALOG_KEY_ROUTE),
    );
}
