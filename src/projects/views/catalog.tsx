/** @jsxImportSource hono/jsx */
/**
 * The components of the dashboard catalog (pages/catalog.tsx): cards, the specializations block,
 * the filters, the grouped install of a specialization and the listing (the talent sheet: talentSheet.tsx).
 */
import { card, type Card as CardView, type facets, type ProjectState } from "../../catalog/people";
import type { Talent } from "../../catalog/format";
import type { Project } from "../service";
import type { CatalogRelevance } from "../../selection/relevance";
import type { SpecializationView } from "../../specializations/service";
import type { PageContext } from "../../tenancy/pageSessions";
import { Field } from "../../ui/form";
import { Layout } from "../../ui/layout";
import { SpecializationsBlock, SpecializationsLink } from "./catalogSpecs";
import { InlineMarkdown } from "../../ui/markdown";
import { HtmlByObject, HtmlMemo } from "../../ui/memo";

/** Kept renders (ui/memo.ts): a card outside grouped install depends on its talent only; the other blocks on what their key names. */
const plainCards = new HtmlByObject<Talent, null>(() => true);
const specBlocks = new HtmlMemo(256);
const filterForms = new HtmlMemo(512);
/** A talent's sheet: an expertise id (`@org/…`) is encoded as one path segment. */
export const talentHref = (id: string): string => `/catalog/${id.startsWith("@") ? encodeURIComponent(id) : id}`;

export function Card(props: { c: CardView; project?: Project; checked?: boolean }) {
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
        <a href={talentHref(c.id)}>
          <InlineMarkdown text={c.title} links={false} />
        </a>
      </h3>
      <p class="muted small">
        <code>{c.id}</code> · {c.version}
        {c.kind === "expertise" ? <span class="tag">expertise</span> : null}
        {installed ? <span class={`state ${c.installed}`}>{c.installed}</span> : null}
      </p>
      <p>
        <InlineMarkdown text={c.summary} />
      </p>
      <p class="small muted">
        {c.rules} rules · {c.tokens} tokens{c.languages.length ? ` · ${c.languages.join(", ")}` : ""}
        {c.requires.length ? ` · requires ${c.requires.join(", ")}` : ""}
      </p>
      {c.why && c.why.length > 0 ? <p class="small">Suits: {c.why.join(", ")}</p> : null}
    </li>
  );
}

/**
 * The search fields: a GET form of their own on the plain catalog; in grouped install (`inForm`)
 * a bar inside the one form that also holds the ticks, so a search sends them along.
 */
function Filters(props: { query: Record<string, string | undefined>; f: ReturnType<typeof facets>; project?: Project; inForm?: boolean }) {
  const q = props.query;
  const options = (name: string, counts: Record<string, number>, label: string) => (
    <Field id={`f-${name}`} label={label} inline>
      <select name={name}>
        <option value="">any</option>
        {Object.entries(counts).map(([k, n]) => (
          <option value={k} selected={q[name] === k}>
            {k} ({n})
          </option>
        ))}
      </select>
    </Field>
  );
  const fields = (
    <>
      <Field id="f-query" label="Search" inline>
        <input type="search" name="query" value={q.query ?? ""} placeholder="typescript, migrations, TS-001…" />
      </Field>
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
    </>
  );
  return props.inForm ? (
    <div class="filters" role="search" aria-label="Search the catalog">
      {fields}
    </div>
  ) : (
    <form method="get" action="/catalog" class="filters" role="search">
      {fields}
    </form>
  );
}

/** The grouped install of one specialization into a project: its closure, applied at once. */
export function ApplySpecialization(props: {
  ctx: PageContext;
  project: Project;
  spec: SpecializationView;
  closure: { ids: string[]; missing: string[] };
  lookup: (id: string) => Talent | undefined;
  state: (id: string) => ProjectState;
}) {
  const { ctx, project, spec, closure, lookup, state } = props;
  const missing = closure.ids.filter((id) => state(id) === "not_installed").length;
  return (
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
          {missing === 0 && closure.missing.length === 0 ? (
            <button type="submit" class="secondary" disabled>
              Applied
            </button>
          ) : (
            <button type="submit" disabled={closure.missing.length > 0}>
              {missing < closure.ids.length
                ? `Apply again: install the ${missing} missing (one step)`
                : `Install these ${closure.ids.length} talents (one step)`}
            </button>
          )}
        </p>
      </form>
    </Layout>
  );
}

/** What the listing shows: the cards of this page, the project of a grouped install and its choices. */
export interface Listing {
  ctx: PageContext;
  q: Record<string, string | undefined>;
  project: Project | undefined;
  /** The relevance settings that narrow the cards (grouped install, unless all are asked for), and where they come from. */
  relevance: CatalogRelevance | null;
  facets: ReturnType<typeof facets>;
  talents: Talent[];
  cards: CardView[];
  selected: Set<string>;
  /** Of the selected, those ticked because a selected talent requires them. */
  prerequisites: Set<string>;
  /** The specializations shown (filtered by `specFilter`), of `specTotal`; none in grouped install. */
  specs: SpecializationView[];
  specTotal: number;
  specFilter: string | undefined;
  /** The specializations block opened: a filter was asked for (`?spec=`, even empty). */
  specOpen: boolean;
  projects: readonly Project[];
  /** The next page's query string (plain catalog: a link) and its cursor (grouped install: a button of the form, so the ticks go along). */
  next: string | null;
  nextCursor: string | null;
}

/** Which of the project's settings narrow the cards, in words, and where they come from. */
function Narrowed(props: { r: CatalogRelevance }) {
  const { languages, roles, paths, exclude } = props.r.settings;
  // roles the project did not name, taken from its installed talents, say so when the rest is the project's own
  const borrowed = props.r.source === "stored" && props.r.rolesFrom === "derived" ? " (those of its installed talents)" : "";
  const parts = [
    languages.length ? `languages ${languages.join(", ")} (or none)` : "",
    roles.length ? `roles ${roles.join(", ")}${borrowed}` : "",
    paths.length ? `files ${paths.join(", ")}` : "",
    exclude.length ? `not ${exclude.join(", ")}` : "",
  ].filter(Boolean);
  const from = props.r.source === "stored" ? "the project's relevance settings" : "derived from its installed talents";
  return (
    <p class="small" id="narrowed">
      {parts.length > 0
        ? `Only talents that suit the project are shown: ${parts.join("; ")} (${from}), and none that conflicts with an installed talent.`
        : "Only talents that do not conflict with an installed talent are shown: the project has no relevance settings, nor installed talents to derive them from."}
    </p>
  );
}

/**
 * The catalog listing: the search, the talents, the next page, then the specializations (collapsed,
 * with their filter). In grouped install one GET form holds the search, the ticks and "More", so a
 * search or a page keeps what was ticked; "Install selected" posts the same form to the install route.
 */
export function CatalogListing(props: { l: Listing }) {
  const { ctx, q, project, selected, cards } = props.l;
  const grid = (
    <ul class="cards" aria-label="Talents">
      {project
        ? cards.map((c) => <Card c={c} project={project} checked={selected.has(c.id)} />)
        : props.l.talents.map((t) => plainCards.render(t, null, () => <Card c={card(t)} />))}
    </ul>
  );
  const nothing = cards.length === 0 ? <p class="muted">Nothing matches.</p> : null;
  return (
    <Layout title={project ? `Add talents to ${project.name}` : "Catalog"} user={ctx.session.user} nav={ctx.nav}>
      {project ? <GroupedInstall l={props.l} grid={grid} nothing={nothing} /> : null}
      {project ? null : (
        <>
          <h1>Catalog</h1>
          <SpecializationsLink count={props.l.specTotal} />
          {filterForms.render(JSON.stringify([q, props.l.facets]), () => (
            <Filters query={q} f={props.l.facets} />
          ))}
          {nothing}
          {grid}
          {props.l.next ? (
            <p>
              <a href={`/catalog?${props.l.next}`}>More</a>
            </p>
          ) : null}
          {specBlocks.render(
            JSON.stringify([
              props.l.specs,
              props.l.specTotal,
              props.l.specFilter,
              props.l.specOpen,
              q,
              props.l.projects.map((p) => [p.id, p.name]),
            ]),
            () => (
              <SpecializationsBlock
                specs={props.l.specs}
                total={props.l.specTotal}
                projects={props.l.projects as Project[]}
                filter={props.l.specFilter}
                open={props.l.specOpen}
                kept={q}
              />
            ),
          )}
        </>
      )}
    </Layout>
  );
}

/** Grouped install: one form. Its default button (the first) is Search; "More" and "Install selected" are buttons of the same form. */
function GroupedInstall(props: { l: Listing; grid: unknown; nothing: unknown }) {
  const { project: p, q } = props.l;
  const project = p!;
  const install = `/web/projects/${project.id}/talents`;
  return (
    <>
      <p class="crumbs">
        <a href={`/projects/${project.id}`}>{project.name}</a> /
      </p>
      <h1>Add talents to {project.name}</h1>
      <p class="muted">
        Tick talents and install them in one step (all or nothing); what is ticked stays ticked through a search or the next page.
      </p>
      {props.l.relevance ? <Narrowed r={props.l.relevance} /> : null}
      <form method="get" action="/catalog" id="catalog-pick">
        <input type="hidden" name="project" value={project.id} />
        <input type="hidden" name="return" value={`/projects/${project.id}`} />
        {[...props.l.prerequisites].map((id) => (
          <input type="hidden" name="prerequisites" value={id} />
        ))}
        {filterForms.render(JSON.stringify([q, props.l.facets, project.id]), () => (
          <Filters query={q} f={props.l.facets} project={project} inForm />
        ))}
        {props.l.selected.size > 0 ? (
          <p class="small" id="ticked" role="status">
            Ticked: {[...props.l.selected].join(", ")} (shown first when not on this page).
          </p>
        ) : null}
        {props.nothing}
        {props.grid}
        {props.l.nextCursor ? (
          <p>
            <button type="submit" name="cursor" value={props.l.nextCursor} class="secondary">
              More
            </button>
          </p>
        ) : null}
        <p class="sticky-actions">
          <button type="submit" formmethod="post" formaction={install}>
            Install selected
          </button>
        </p>
      </form>
    </>
  );
}
