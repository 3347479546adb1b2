/** @jsxImportSource hono/jsx */
/**
 * The catalog's specializations (docs/design.md "Catalog: talents first"): after the talents, one
 * click away in a collapsed <details>, with a filter box that is a plain GET form (`?spec=<words>`,
 * which also opens the block), so it works without JavaScript; htmx swaps only the block.
 */
import type { Project } from "../service";
import type { SpecializationView } from "../../specializations/service";
import { InlineMarkdown } from "../../ui/markdown";

/** The specializations whose name, id, description or talents contain every word of `filter` (case folded). */
export function filterSpecializations(specs: SpecializationView[], filter: string | undefined): SpecializationView[] {
  const words = (filter ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return specs;
  return specs.filter((s) => {
    const hay = [s.id, s.name, s.description, ...s.talents].join(" ").toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** The link at the top of the catalog to the specializations below (opens the block without JavaScript). */
export function SpecializationsLink(props: { count: number }) {
  return (
    <p class="muted">
      Talents first; <a href="/catalog?spec=#specializations">specializations ({props.count})</a>, bundles for a kind of codebase, are
      below.
    </p>
  );
}

/**
 * The block: collapsed unless a filter was asked for (`open`); `kept` are the listing's search
 * fields, carried by the filter form so the talents above stay as they were.
 */
export function SpecializationsBlock(props: {
  specs: SpecializationView[];
  total: number;
  projects: Project[];
  filter: string | undefined;
  open: boolean;
  kept: Record<string, string | undefined>;
}) {
  const { specs, filter } = props;
  return (
    <details class="card specs" id="specializations" open={props.open}>
      <summary>
        <h2 id="specs-h">Specializations ({props.total})</h2>
      </summary>
      <p class="muted">Bundles for a kind of codebase: apply one to a project, its prerequisites come along.</p>
      {/* htmx, when it runs, swaps only this block (the address kept in step); without it the form is a plain GET */}
      <form
        method="get"
        action="/catalog#specializations"
        hx-get="/catalog"
        hx-select="#specializations"
        hx-target="#specializations"
        hx-swap="outerHTML"
        hx-push-url="true"
        class="inline"
        role="search"
        aria-label="Filter the specializations"
      >
        {Object.entries(props.kept).map(([k, v]) => (v === undefined ? null : <input type="hidden" name={k} value={v} />))}
        <label for="spec-filter" class="visually-hidden">
          Filter the specializations
        </label>
        <input id="spec-filter" type="search" name="spec" value={filter ?? ""} placeholder="Filter: react, python, data…" />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {filter ? (
        <p class="small" role="status">
          {specs.length} of {props.total} match “{filter}”. <a href="/catalog?spec=#specializations">Show all</a>
        </p>
      ) : null}
      {specs.length === 0 ? <p class="muted">No specialization matches.</p> : null}
      <ul class="cards" aria-label="Specializations">
        {specs.map((s) => (
          <li class="card">
            <h3>
              {s.name}
              {s.builtIn ? null : <span class="tag">custom</span>}
            </h3>
            <p class="small">
              <InlineMarkdown text={s.description} />
            </p>
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
    </details>
  );
}
