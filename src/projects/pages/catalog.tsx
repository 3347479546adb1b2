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
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { card, catalogCards, dependencyGraph, facets, talentSheet, type Card, type ProjectState, type Visible } from "../../catalog/people";
import type { Talent } from "../../catalog/format";
import { requiresClosure } from "../../catalog/graph";
import { listServableExpertises } from "../../expertises/servable";
import { AppError, notFound } from "../../http/errors";
import { decodedParam } from "../../http/query";
import { judge, relevanceOf } from "../../selection/relevance";
import { listInstalled } from "../../selection/service";
import { getProject, listProjects, type Project } from "../service";
import { getSpecialization, listSpecializations, type SpecializationView } from "../../specializations/service";
import { createPageGuard } from "../../tenancy/pageSessions";
import { GraphSvg, type GraphNodeView } from "../../ui/graph";
import { DataTable, Layout, page } from "../../ui/layout";
import { HtmlByObject, HtmlMemo } from "../../ui/memo";

const PAGE = 24;
/** Kept renders (web/memo.ts): a card outside grouped install depends on its talent only; the other blocks on what their key names. */
const plainCards = new HtmlByObject<Talent, null>(() => true);
const specBlocks = new HtmlMemo(256);
const filterForms = new HtmlMemo(512);
const talentHref = (id: string) => `/catalog/${id.startsWith("@") ? encodeURIComponent(id) : id}`;
const str = (v: unknown, max = 200) => (typeof v === "string" && v.length <= max && v !== "" ? v : undefined);
const list = (v: unknown) =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string" && x !== "" && x.length <= 200);

function Card(props: { c: Card; project?: Project; checked?: boolean }) {
  const c = props.c;
  const installed = c.installed && c.installed !== "not_installed";
  return (
    <li class="card talent-card">
      {props.project ? (
        <label class="pick">
          <input type="checkbox" name="talents" value={c.id} checked={props.checked || installed} disabled={installed} />
          <span class="visually-hidden">Select {c.id}</span>
        </label>
      ) : null}
      <h3>
        <a href={talentHref(c.id)}>{c.title}</a>
      </h3>
      <p class="muted small">
        <code>{c.id}</code> · {c.version}
        {c.kind === "expertise" ? <span class="tag">expertise</span> : null}
        {installed ? <span class={`state ${c.installed}`}>{c.installed}</span> : null}
      </p>
      <p>{c.summary}</p>
      <p class="small muted">
        {c.rules} rules · {c.tokens} tokens{c.languages.length ? ` · ${c.languages.join(", ")}` : ""}
        {c.requires.length ? ` · requires ${c.requires.join(", ")}` : ""}
      </p>
      {c.why && c.why.length > 0 ? <p class="small">Suits: {c.why.join(", ")}</p> : null}
    </li>
  );
}

function SpecializationsBlock(props: { specs: SpecializationView[]; projects: Project[] }) {
  return (
    <section aria-labelledby="specs-h">
      <h2 id="specs-h">Specializations</h2>
      <p class="muted">Bundles for a kind of codebase: apply one to a project, its prerequisites come along.</p>
      <ul class="cards">
        {props.specs.map((s) => (
          <li class="card">
            <h3>
              {s.name}
              {s.builtIn ? null : <span class="tag">custom</span>}
            </h3>
            <p class="small">{s.description}</p>
            <p class="small muted">{s.talents.join(", ")}</p>
            {props.projects.length > 0 ? (
              <form method="get" action="/catalog" class="inline">
                <input type="hidden" name="specialization" value={s.id} />
                <label for={`spec-${s.id}`} class="visually-hidden">
                  Project to apply {s.name} to
                </label>
                <select id={`spec-${s.id}`} name="project">
                  {props.projects.map((p) => (
                    <option value={p.id}>{p.name}</option>
                  ))}
                </select>{" "}
                <button type="submit" class="small">
                  Apply…<span class="visually-hidden"> {s.name}</span>
                </button>
              </form>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Filters(props: {
  query: Record<string, string | undefined>;
  f: ReturnType<typeof facets>;
  project?: Project;
  selected?: Iterable<string>;
}) {
  const q = props.query;
  const options = (name: string, counts: Record<string, number>, label: string) => (
    <>
      <label for={`f-${name}`}>{label}</label>
      <select id={`f-${name}`} name={name}>
        <option value="">any</option>
        {Object.entries(counts).map(([k, n]) => (
          <option value={k} selected={q[name] === k}>
            {k} ({n})
          </option>
        ))}
      </select>
    </>
  );
  return (
    <form method="get" action="/catalog" class="filters" role="search">
      {props.project ? <input type="hidden" name="project" value={props.project.id} /> : null}
      {/* what was pre-selected stays selected across searches */}
      {[...(props.selected ?? [])].map((id) => (
        <input type="hidden" name="select" value={id} />
      ))}
      <label for="f-query">Search</label>
      <input id="f-query" type="search" name="query" value={q.query ?? ""} placeholder="typescript, migrations, TS-001…" />
      {options("role", props.f.roles, "Role")}
      {options("language", props.f.languages, "Language")}
      {options("kind", props.f.kinds, "Kind")}
      {props.project ? (
        <label class="check">
          <input type="checkbox" name="relevance" value="all" checked={q.relevance === "all"} /> show talents that do not suit the project
          too
        </label>
      ) : null}
      <button type="submit">Search</button>
    </form>
  );
}

export function catalogPages(deps: CatalogDeps) {
  const catalog = () => deps.state.catalog!;
  const visible = async (orgId: string): Promise<Visible> => ({
    catalog: catalog(),
    expertises: (await listServableExpertises(deps.database, orgId, catalog())).map((e) => e.talent),
  });

  return new Elysia()
    .use(createPageGuard(deps))
    .get(
      "/catalog",
      async ({ page: ctx, org, query }) => {
        const q = {
          query: str(query.query),
          role: str(query.role, 40),
          language: str(query.language, 40),
          kind: query.kind === "talent" || query.kind === "expertise" ? (query.kind as "talent" | "expertise") : undefined,
          relevance: query.relevance === "all" ? "all" : undefined,
          cursor: str(query.cursor, 100),
        };
        const projectId = str(query.project, 40);
        const project = projectId ? await getProject(deps.database, org.id, projectId) : undefined;
        const v = await visible(org.id);
        const states = project
          ? new Map(
              (await listInstalled(deps.database, project.id)).map((r) => [
                r.talentId,
                (r.enabled ? "active" : "disabled") as ProjectState,
              ]),
            )
          : null;
        const state = (id: string): ProjectState => states?.get(id) ?? "not_installed";
        const lookup = (id: string): Talent | undefined => v.expertises.find((e) => e.id === id) ?? catalog().get(id);

        // grouped install of one specialization: its closure, applied at once
        const specializationId = str(query.specialization, 100);
        if (project && specializationId) {
          const spec = await getSpecialization(deps.database, catalog(), org.id, specializationId);
          const closure = requiresClosure(spec.talents, lookup);
          return page(
            <Layout title={`Apply ${spec.name}`} user={ctx.session.user} nav={ctx.nav}>
              <p class="crumbs">
                <a href="/catalog">Catalog</a> / <a href={`/projects/${project.id}`}>{project.name}</a>
              </p>
              <h1>
                Apply {spec.name} to {project.name}
              </h1>
              <p>{spec.description}</p>
              <form
                method="post"
                action={`/web/projects/${project.id}/apply-specialization`}
                hx-post={`/web/projects/${project.id}/apply-specialization`}
              >
                <input type="hidden" name="specializationId" value={spec.id} />
                <input type="hidden" name="return" value={`/projects/${project.id}`} />
                <ul class="cards">
                  {closure.ids.map((id) => {
                    const t = lookup(id)!;
                    return <Card c={{ ...card(t), installed: state(id) }} />;
                  })}
                </ul>
                {closure.missing.length > 0 ? <p class="error">No longer available: {closure.missing.join(", ")}</p> : null}
                <p>
                  <button type="submit" disabled={closure.missing.length > 0}>
                    Install these {closure.ids.length} talents (one step)
                  </button>
                </p>
              </form>
            </Layout>,
          );
        }

        const relevance = project ? await relevanceOf(deps.database, catalog(), project.id) : null;
        const keep = relevance && q.relevance !== "all" ? (t: Talent) => judge(t, relevance.settings).relevant : undefined;
        let pageOf;
        try {
          pageOf = catalogCards(v, { query: q.query, role: q.role, language: q.language, kind: q.kind, keep }, PAGE, q.cursor);
        } catch (e) {
          if (e instanceof AppError && e.code === "validation_failed")
            pageOf = catalogCards(v, { query: q.query, role: q.role, language: q.language, kind: q.kind, keep }, PAGE);
          else throw e;
        }
        const selected = new Set(list(query.select));
        // prerequisites offered: what the selected talents require that the project lacks
        if (project && selected.size > 0)
          for (const id of requiresClosure([...selected], lookup).ids) if (state(id) === "not_installed") selected.add(id);
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
        const [specs, projects] = project
          ? [[], []]
          : await Promise.all([listSpecializations(deps.database, catalog(), org.id), listProjects(deps.database, org.id)]);
        const next = new URLSearchParams(
          Object.entries({ ...q, cursor: pageOf.nextCursor ?? undefined, project: project?.id }).filter(([, x]) => x !== undefined) as [
            string,
            string,
          ][],
        );
        const grid = (
          <ul class="cards" aria-label="Talents">
            {project
              ? cards.map((c) => <Card c={c} project={project} checked={selected.has(c.id)} />)
              : pageOf.talents.map((t) => plainCards.render(t, null, () => <Card c={card(t)} />))}
          </ul>
        );
        return page(
          <Layout title={project ? `Add talents to ${project.name}` : "Catalog"} user={ctx.session.user} nav={ctx.nav}>
            {project ? (
              <>
                <p class="crumbs">
                  <a href={`/projects/${project.id}`}>{project.name}</a> /
                </p>
                <h1>Add talents to {project.name}</h1>
                <p class="muted">
                  Tick talents and install them in one step (all or nothing).{" "}
                  {relevance && q.relevance !== "all" ? "Only talents that suit the project are shown." : ""}
                </p>
              </>
            ) : (
              <h1>Catalog</h1>
            )}
            {project
              ? null
              : specBlocks.render(JSON.stringify([specs, (projects as Project[]).map((p) => [p.id, p.name])]), () => (
                  <SpecializationsBlock specs={specs as SpecializationView[]} projects={projects as Project[]} />
                ))}
            {filterForms.render(JSON.stringify([q, facets(v), project?.id, project ? [...selected] : null]), () => (
              <Filters query={q} f={facets(v)} project={project} selected={project ? selected : undefined} />
            ))}
            {cards.length === 0 ? <p class="muted">Nothing matches.</p> : null}
            {project ? (
              <form method="post" action={`/web/projects/${project.id}/talents`}>
                <input type="hidden" name="return" value={`/projects/${project.id}`} />
                {grid}
                <p class="sticky-actions">
                  <button type="submit">Install selected</button>
                </p>
              </form>
            ) : (
              grid
            )}
            {pageOf.nextCursor ? (
              <p>
                <a href={`/catalog?${next}`}>More</a>
              </p>
            ) : null}
          </Layout>,
        );
      },
      { orgPage: "member" },
    )
    .get(
      "/catalog/*",
      async ({ page: ctx, org, params }) => {
        const id = decodedParam(params["*"], "id");
        const v = await visible(org.id);
        const lookup = (x: string): Talent | undefined => v.expertises.find((e) => e.id === x) ?? catalog().get(x);
        const t = lookup(id);
        if (!t) throw notFound(`No talent ${id} in the catalog of this organization.`);
        const dependents = [
          ...(catalog().dependents.get(id) ?? []),
          ...v.expertises.filter((e) => e.requires.includes(id)).map((e) => e.id),
        ];
        const sheet = talentSheet(t, dependencyGraph(t, lookup, dependents));
        const projects = await listProjects(deps.database, org.id);
        const nodes: GraphNodeView[] = sheet.graph.nodes.map((n) => ({
          id: n.id,
          label: n.id,
          state: n.relation === "self" ? "self" : n.missing ? "missing" : "other",
          href: n.relation === "self" || n.missing ? undefined : talentHref(n.id),
        }));
        return page(
          <Layout title={t.title} user={ctx.session.user} nav={ctx.nav}>
            <p class="crumbs">
              <a href="/catalog">Catalog</a> /
            </p>
            <h1>{t.title}</h1>
            <p>
              <code>{t.id}</code> · version {t.version} {t.kind === "expertise" ? <span class="tag">expertise</span> : null}
            </p>
            <p>{t.summary}</p>
            {projects.length > 0 ? (
              <form method="get" action="/catalog" class="card sub inline">
                <input type="hidden" name="select" value={t.id} />
                <label for="install-project">Install into</label>{" "}
                <select id="install-project" name="project">
                  {projects.map((p) => (
                    <option value={p.id}>{p.name}</option>
                  ))}
                </select>{" "}
                <button type="submit">Install…</button> <span class="muted small">(with its prerequisites, next step)</span>
              </form>
            ) : null}
            <GraphSvg
              nodes={nodes}
              edges={sheet.graph.edges}
              title={`What ${t.id} requires, what requires it, and what it conflicts with`}
            />
            <dl class="facts">
              <dt>Roles</dt>
              <dd>{t.roles.join(", ") || "—"}</dd>
              <dt>Languages</dt>
              <dd>{t.languages.join(", ") || "any"}</dd>
              <dt>Triggers</dt>
              <dd>
                {t.triggers.files.map((g) => (
                  <code>{g} </code>
                ))}
                {t.triggers.keywords.length ? ` · ${t.triggers.keywords.join(", ")}` : ""}
              </dd>
              <dt>Budget</dt>
              <dd>
                {t.tokens} of {t.budget} tokens
              </dd>
              <dt>Requires</dt>
              <dd>{t.requires.join(", ") || "—"}</dd>
              <dt>Conflicts with</dt>
              <dd>{t.conflicts.join(", ") || "—"}</dd>
            </dl>
            <h2>Rules</h2>
            <DataTable caption="Rules and how to check them" columns={["Rule", "Severity", "Rule and check"]}>
              {sheet.rules.map((r) => (
                <tr>
                  <td>
                    <code>{r.id}</code>
                  </td>
                  <td>
                    <span class={`severity ${r.severity}`}>{r.severity}</span>
                  </td>
                  <td>
                    {r.title}
                    <div class="muted small">Check: {r.check}</div>
                  </td>
                </tr>
              ))}
            </DataTable>
            {sheet.tests.length > 0 ? (
              <>
                <h2>Conformance tests</h2>
                <DataTable caption="Passing and failing samples per rule" columns={["Rule", "Passes", "Fails"]}>
                  {sheet.tests.map((x) => (
                    <tr>
                      <td>
                        <code>{x.rule}</code>
                      </td>
                      <td>
                        <code>{x.pass}</code>
                      </td>
                      <td>
                        <code>{x.fail}</code>
                      </td>
                    </tr>
                  ))}
                </DataTable>
              </>
            ) : null}
            <h2>What an agent is served</h2>
            <pre class="compact">{sheet.compact}</pre>
            <h2>Files</h2>
            <ul>
              {sheet.files.map((f) => (
                <li>
                  <code>{f.path}</code>{" "}
                  <span class="muted small">
                    {f.size} bytes · {f.digest.slice(0, 19)}…
                  </span>
                </li>
              ))}
            </ul>
          </Layout>,
        );
      },
      { orgPage: "member" },
    );
}
