/**
 * `/web/catalog`, `/web/catalog/facets`, `/web/catalog/:id` (docs/api.md "Catalog for people"): the catalog
 * for people in the active organization — public talents and its published expertises — with
 * a project's install state (`project`) and, in grouped install mode, the project's relevance
 * pre-filter (`relevance=all` lifts it).
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { listServableExpertises } from "../../expertises/servable";
import { PROJECT_ID_PATTERN } from "../../oauth/resource";
import { notFound } from "../../http/errors";
import { kept } from "../../lib/kept";
import { decodedParam, intParam, oneOf, patternParam, strParam } from "../../http/query";
import { catalogRelevance, judge } from "../../selection/relevance";
import { listInstalled } from "../../selection/service";
import { getProject } from "../service";
import type { Catalog } from "../../catalog/catalog";
import type { Talent } from "../../catalog/format";
import {
  card,
  CATALOG_KINDS,
  catalogCards,
  dependencyGraph,
  facets,
  talentSheet,
  type ProjectState,
  type Visible,
} from "../../catalog/people";
import { routeGuard, routePattern } from "../../http/route";
import { CATALOG_WEB } from "../describeCatalog";

export const WEB_CATALOG_PAGE_MAX = 100;

export function catalogWebRoutes(deps: CatalogDeps, guards: Guards) {
  /** What the organization sees: the catalog and its published expertises. */
  const visible = async (organizationId: string): Promise<Visible> => ({
    catalog: deps.state.catalog!,
    expertises: (await listServableExpertises(deps.database, organizationId, deps.state.catalog!)).map((e) => e.talent),
  });
  /** The project named by `project` (404 if not one of the organization's) and its talents' states. */
  const projectStates = async (organizationId: string, query: Record<string, unknown>) => {
    const projectId = patternParam(query, "project", PROJECT_ID_PATTERN, "a project id (prj_…)");
    if (!projectId) return null;
    const project = await getProject(deps.database, organizationId, projectId);
    const rows = await listInstalled(deps.database, project.id);
    const states = new Map(rows.map((r) => [r.talentId, (r.enabled ? "active" : "disabled") as ProjectState]));
    return { project, state: (id: string): ProjectState => states.get(id) ?? "not_installed" };
  };

  return new Elysia()
    .use(guards)
    .get(
      routePattern(CATALOG_WEB.list),
      async ({ org, query }) => {
        const limit = intParam(query, "limit", 1, WEB_CATALOG_PAGE_MAX, 30);
        const filter = {
          query: strParam(query, "query", 200),
          role: strParam(query, "role", 40),
          language: strParam(query, "language", 40),
          kind: oneOf(query, "kind", CATALOG_KINDS),
        };
        const wholeCatalog = oneOf(query, "relevance", ["apply", "all"] as const) === "all";
        const [v, p] = await Promise.all([visible(org.id), projectStates(org.id, query)]);
        const relevance = p ? await catalogRelevance(deps.database, deps.state.catalog!, p.project.id) : null;
        const keep = relevance && !wholeCatalog ? (t: Talent) => judge(t, relevance.settings).relevant : undefined;
        const page = catalogCards(v, { ...filter, keep }, limit, strParam(query, "cursor", 100));
        return {
          items: page.talents.map((t) => (p ? { ...card(t), installed: p.state(t.id), why: judge(t, relevance!.settings).why } : card(t))),
          nextCursor: page.nextCursor,
          total: page.total,
          ...(relevance ? { relevance: { ...relevance, applied: !wholeCatalog } } : {}),
        };
      },
      routeGuard(CATALOG_WEB.list),
    )
    .get(routePattern(CATALOG_WEB.facets), async ({ org }) => facets(await visible(org.id)), routeGuard(CATALOG_WEB.facets))
    .get(
      routePattern(CATALOG_WEB.talent),
      async ({ org, params, query }) => {
        const id = decodedParam(params["*"], "id");
        const [v, p] = await Promise.all([visible(org.id), projectStates(org.id, query)]);
        const expertises = new Map(v.expertises.map((t) => [t.id, t]));
        const lookup = (x: string) => expertises.get(x) ?? v.catalog.get(x);
        const t = lookup(id);
        if (!t) throw notFound(`No talent ${id} in the catalog of this organization.`);
        const dependents = [
          ...(v.catalog.dependents.get(id) ?? []),
          ...v.expertises.filter((e) => e.requires.includes(id)).map((e) => e.id),
        ];
        if (p || t.kind !== "talent") return talentSheet(t, dependencyGraph(t, lookup, dependents, p?.state), p?.state(t.id));
        return keptSheet(v.catalog, t, dependents.map((d) => `${d}\u0001${lookup(d)?.title ?? ""}`).join("\n"), () =>
          talentSheet(t, dependencyGraph(t, lookup, dependents)),
        );
      },
      routeGuard(CATALOG_WEB.talent),
    );
}

/**
 * A public talent's sheet without a project, kept by the talent object (one catalog's) and what
 * else it shows: its dependents with their titles (the organization's expertises that require it
 * are among them; every other node comes from the catalog). A lazy
 * talent's sheet rebuilds the talent from stored bytes (≈ 0.2 ms of validation), and people
 * open the same sheets again and again. Bounded (about 4 KB each); oldest out.
 */
function keptSheet(catalog: Catalog, t: Talent, key: string, make: () => ReturnType<typeof talentSheet>): ReturnType<typeof talentSheet> {
  if (catalog !== sheetsOf) {
    sheets.clear(); // a reloaded catalog: nothing of the old one is kept
    sheetsOf = catalog;
  }
  const hit = sheets.get(t);
  if (hit && hit.key === key) return hit.sheet;
  const sheet = make();
  sheets.set(t, { key, sheet });
  return sheet;
}
const sheets = kept<Talent, { key: string; sheet: ReturnType<typeof talentSheet> }>(
  "A public talent's sheet by talent and its dependents",
  { clock: "identity", limit: 1024 },
);
let sheetsOf: Catalog | null = null;
