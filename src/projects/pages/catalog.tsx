/** @jsxImportSource hono/jsx */
/**
 * `/catalog` and `/catalog/:id` (docs/api.md "Pages"). The catalog: the specializations block, then search
 * and filters (facets) and cards. Grouped install mode (`?project=<id>`): the specializations
 * block is hidden, cards get checkboxes, and one atomic install of the chosen group
 * (`POST /web/projects/:id/talents`); `select=<id>` pre-ticks talents and their missing
 * prerequisites, `specialization=<id>` shows one specialization with its closure and applies
 * it (`POST /web/projects/:id/apply-specialization`). The talent sheet: graph, roles,
 * triggers, budget, conformance tests, compact preview, and install into a chosen project.
 */
import { latestEffects } from "../measuredEffect";
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { card, catalogCards, dependencyGraph, facets, talentSheet, type ProjectState, type Visible } from "../../catalog/people";
import type { Talent } from "../../catalog/format";
import { requiresClosure } from "../../catalog/graph";
import { listServableExpertises } from "../../expertises/servable";
import { versionLabel } from "../../expertises/views/lifecycle";
import { AppError, notFound } from "../../http/errors";
import { formList } from "../../http/form";
import { decodedParam } from "../../http/query";
import { catalogRelevance, judge } from "../../selection/relevance";
import { listInstalled } from "../../selection/service";
import { getProject, listProjects, type Project } from "../service";
import { getSpecialization, listSpecializations } from "../../specializations/service";
import { createPageGuard, type PageContext } from "../../tenancy/pageSessions";
import type { OrgMembership } from "../../auth/memberships";
import type { GraphNodeView } from "../../ui/graph";
import { page } from "../../ui/layout";
import { ApplySpecialization, CatalogListing, talentHref, type Listing } from "../views/catalog";
import { filterSpecializations } from "../views/catalogSpecs";
import { TalentSheet } from "../views/talentSheet";
import { nodeState } from "../views/sheetProjects";

const PAGE = 24;
/** Ticks read from a query, at most (a selection is a few dozen talents). */
const MAX_TICKS = 500;
const str = (v: unknown, max = 200) => (typeof v === "string" && v.length <= max && v !== "" ? v : undefined);
const list = (query: Record<string, unknown>, name: string) => (formList(query, name) ?? []).filter((x) => x !== "" && x.length <= 200);

/** The listing's query: search, filters, the relevance switch and the cursor. */
function listingQuery(query: Record<string, unknown>) {
  return {
    query: str(query.query),
    role: str(query.role, 40),
    language: str(query.language, 40),
    kind: query.kind === "talent" || query.kind === "expertise" ? (query.kind as "talent" | "expertise") : undefined,
    relevance: query.relevance === "all" ? "all" : undefined,
    cursor: str(query.cursor, 100),
  };
}

/** The query with its repeated fields as lists (the parsed query keeps one value of a repeated name): the ticks. */
function withLists(query: Record<string, unknown>, request: Request): Record<string, unknown> {
  const params = new URL(request.url).searchParams;
  const all = (name: string) => params.getAll(name).slice(0, MAX_TICKS);
  return { ...query, select: all("select"), talents: all("talents"), prerequisites: all("prerequisites") };
}

/** What the organization sees of the catalog: the loaded catalog and its servable expertises (with the versions their authors declared). */
async function visibleOf(deps: CatalogDeps, orgId: string): Promise<Visible & { declared: Map<string, string | null> }> {
  const catalog = deps.state.catalog!;
  const servable = await listServableExpertises(deps.database, orgId, catalog);
  return { catalog, expertises: servable.map((e) => e.talent), declared: new Map(servable.map((e) => [e.ref, e.declaredVersion])) };
}

/** Whether a talent conflicts with one installed in the project (either side declares it): it cannot join that selection, so it does not suit it. */
function conflictWithInstalled(installed: Iterable<string>, lookup: (id: string) => Talent | undefined) {
  const ids = new Set(installed);
  const named = new Set([...ids].flatMap((id) => lookup(id)?.conflicts ?? []));
  return (t: Talent): boolean => named.has(t.id) || t.conflicts.some((c) => ids.has(c));
}

/** `/catalog`: with `?project=` a grouped install into it (or, with `specialization=`, that specialization's install). */
async function catalogPage(deps: CatalogDeps, ctx: PageContext, org: OrgMembership, query: Record<string, unknown>) {
  const q = listingQuery(query);
  const projectId = str(query.project, 40);
  const project = projectId ? await getProject(deps.database, org.id, projectId) : undefined;
  const v = await visibleOf(deps, org.id);
  const states = project
    ? new Map(
        (await listInstalled(deps.database, project.id)).map((r) => [r.talentId, (r.enabled ? "active" : "disabled") as ProjectState]),
      )
    : null;
  const state = (id: string): ProjectState => states?.get(id) ?? "not_installed";
  const lookup = (id: string): Talent | undefined => v.expertises.find((e) => e.id === id) ?? deps.state.catalog!.get(id);

  // grouped install of one specialization: its closure, applied at once
  const specializationId = str(query.specialization, 100);
  if (project && specializationId) {
    const spec = await getSpecialization(deps.database, deps.state.catalog!, org.id, specializationId);
    const closure = requiresClosure(spec.talents, lookup);
    return page(<ApplySpecialization ctx={ctx} project={project} spec={spec} closure={closure} lookup={lookup} state={state} />);
  }
  return page(<CatalogListing l={await listing(deps, ctx, org, query, q, project, v, state, lookup, states?.keys() ?? [])} />);
}

/** The listing's data: this page of cards (relevant ones only for a project, unless asked for all), the selection and its prerequisites. */
async function listing(
  deps: CatalogDeps,
  ctx: PageContext,
  org: OrgMembership,
  query: Record<string, unknown>,
  q: ReturnType<typeof listingQuery>,
  project: Project | undefined,
  v: Visible,
  state: (id: string) => ProjectState,
  lookup: (id: string) => Talent | undefined,
  installed: Iterable<string>,
): Promise<Listing> {
  const relevance = project ? await catalogRelevance(deps.database, deps.state.catalog!, project.id) : null;
  const clash = conflictWithInstalled(installed, lookup);
  const keep = relevance && q.relevance !== "all" ? (t: Talent) => judge(t, relevance.settings).relevant && !clash(t) : undefined;
  let pageOf;
  try {
    pageOf = catalogCards(v, { query: q.query, role: q.role, language: q.language, kind: q.kind, keep }, PAGE, q.cursor);
  } catch (e) {
    if (e instanceof AppError && e.code === "validation_failed")
      pageOf = catalogCards(v, { query: q.query, role: q.role, language: q.language, kind: q.kind, keep }, PAGE);
    else throw e;
  }
  // the ticks: `select` pre-ticks (a sheet's "Install…"), `talents` the boxes the form sent back on a search or a page;
  // those it marked as prerequisites are derived again below from what is still ticked
  const derived = new Set(list(query, "prerequisites"));
  const selected = new Set([...list(query, "select"), ...list(query, "talents").filter((id) => !derived.has(id))]);
  // prerequisites offered: what the selected talents require that the project lacks (named so in the install's status line)
  const prerequisites = new Set<string>();
  if (project && selected.size > 0)
    for (const id of requiresClosure([...selected], lookup).ids)
      if (state(id) === "not_installed" && !selected.has(id)) {
        selected.add(id);
        prerequisites.add(id);
      }
  const selectedCards = project
    ? [...selected]
        .filter((id) => !pageOf.talents.some((t) => t.id === id))
        .map(lookup)
        .filter((t): t is Talent => t !== undefined)
    : [];
  const cards = [...selectedCards, ...pageOf.talents].map((t) => ({
    ...card(t),
    ...(project ? { installed: state(t.id), why: judge(t, relevance!.settings).why } : {}),
  }));
  const [allSpecs, projects] = project
    ? [[], []]
    : await Promise.all([listSpecializations(deps.database, deps.state.catalog!, org.id), listProjects(deps.database, org.id)]);
  const specFilter = str(query.spec, 100)?.trim() || undefined;
  const next = new URLSearchParams(
    Object.entries({ ...q, cursor: pageOf.nextCursor ?? undefined, project: project?.id }).filter(([, x]) => x !== undefined) as [
      string,
      string,
    ][],
  );
  return {
    ctx,
    q,
    project,
    relevance: relevance && q.relevance !== "all" ? relevance : null,
    facets: facets(v),
    talents: pageOf.talents,
    cards,
    selected,
    prerequisites,
    specs: filterSpecializations(allSpecs, specFilter),
    specTotal: allSpecs.length,
    specFilter,
    specOpen: query.spec !== undefined,
    projects,
    next: pageOf.nextCursor ? String(next) : null,
    nextCursor: pageOf.nextCursor ?? null,
  };
}

/** `/catalog/*`: a talent's sheet, with its state in each project and the graph's states in the chosen one (`?project=`). */
async function sheetPage(deps: CatalogDeps, ctx: PageContext, org: OrgMembership, id: string, query: Record<string, unknown>) {
  const v = await visibleOf(deps, org.id);
  const lookup = (x: string): Talent | undefined => v.expertises.find((e) => e.id === x) ?? deps.state.catalog!.get(x);
  const t = lookup(id);
  if (!t) throw notFound(`No talent ${id} in the catalog of this organization.`);
  const dependents = [
    ...(deps.state.catalog!.dependents.get(id) ?? []),
    ...v.expertises.filter((e) => e.requires.includes(id)).map((e) => e.id),
  ];
  const projects = await listProjects(deps.database, org.id);
  const selections = await Promise.all(projects.map((p) => listInstalled(deps.database, p.id)));
  const states = selections.map((rows) => new Map(rows.map((r) => [r.talentId, (r.enabled ? "active" : "disabled") as ProjectState])));
  const rows = projects.map((project, i) => ({ project, state: states[i]!.get(t.id) ?? ("not_installed" as ProjectState) }));
  // the graph shows the asked project, else the first that has the talent, else the first
  const asked = projects.findIndex((p) => p.id === query.project);
  const at =
    asked >= 0
      ? asked
      : Math.max(
          0,
          rows.findIndex((r) => r.state !== "not_installed"),
        );
  const chosen = states[at];
  const state = chosen ? (x: string): ProjectState => chosen.get(x) ?? "not_installed" : null;
  const sheet = talentSheet(t, dependencyGraph(t, lookup, dependents, state ?? undefined));
  const nodes: GraphNodeView[] = sheet.graph.nodes.map((n) => {
    const drawn = nodeState(n, state);
    return { id: n.id, label: n.id, state: drawn, href: drawn === "self" || n.missing ? undefined : talentHref(n.id) };
  });
  // an expertise's version in the words of its editor: "1.0.0 (publication 1)"
  const version = t.kind === "expertise" ? versionLabel(v.declared.get(t.id), Number(t.version)) : t.version;
  const [measured] = await latestEffects(deps.database, org.id, t.id);
  return page(
    <TalentSheet
      ctx={ctx}
      t={t}
      version={version}
      sheet={sheet}
      nodes={nodes}
      projects={rows}
      chosen={projects[at]}
      measured={measured ?? null}
    />,
  );
}

/** The catalog pages: `/catalog` (listing, grouped install, a specialization's install) and `/catalog/*` (a talent's sheet). */
export function catalogPages(deps: CatalogDeps) {
  return new Elysia()
    .use(createPageGuard(deps))
    .get("/catalog", ({ page: ctx, org, query, request }) => catalogPage(deps, ctx, org, withLists(query, request)), { orgPage: "member" })
    .get("/catalog/*", ({ page: ctx, org, params, query }) => sheetPage(deps, ctx, org, decodedParam(params["*"], "id"), query), {
      orgPage: "member",
    });
}
