/** @jsxImportSource hono/jsx */
/**
 * The policy page's pickers (docs/design.md "Pickers, not typed ids"): the required and the allowed talents are check
 * boxes of every talent the organization may require (the catalog's and its servable expertises), each list filtered by
 * its search box — live with JavaScript (public/app.js `[data-picker-filter]`), without it by `?q=` / `?aq=` through a GET
 * form of its own; the ticked ones are always shown, so a filter never drops a choice; a filter that matches nothing
 * offers the closest ids. A locked rule is typed into an input with a `<datalist>` of every
 * rule a detector carries.
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { listServableExpertises } from "../expertises/servable";
import { closestIds } from "../lib/suggest";
import { ChoiceField } from "../ui/form";
import { rulesOf, type HookRule } from "./hookRules";

/** One choice of the talent picker. */
export interface PickerOption {
  id: string;
  title: string;
  kind: "talent" | "expertise";
}

/** What the pickers offer: every talent the organization may require, every rule a lock may name. */
export interface PickerOptions {
  talents: PickerOption[];
  rules: HookRule[];
}

/** The pickers' choices: the catalog's talents and the organization's servable expertises, by id; their rules with a detector. */
export async function pickerOptions(database: Database, catalog: Catalog, organizationId: string): Promise<PickerOptions> {
  const expertises = await listServableExpertises(database, organizationId, catalog);
  const talents: PickerOption[] = [
    ...[...catalog.talents.values()].map((t) => ({ id: t.id, title: t.title, kind: "talent" as const })),
    ...expertises.map((e) => ({ id: e.ref, title: e.talent.title, kind: "expertise" as const })),
  ].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { talents, rules: rulesOf([...catalog.talents.values(), ...expertises.map((e) => e.talent)]) };
}

/** Whether a choice matches a filter: every word of it is in its id or title. */
export function matchesFilter(o: { id: string; title: string }, q: string): boolean {
  const hay = `${o.id} ${o.title}`.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

/** The ids a list field holds: a form's text (one per line or comma) or the saved list. */
export const idsOf = (text: string): string[] => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/** The policy page's two filters (`?q=`: the required talents', `?aq=`: the allowed talents'). */
export interface PickerFilters {
  q: string;
  aq: string;
}

/** The policy page filtered so (both filters kept), at the field it concerns. */
export function filterHref(f: PickerFilters, at: string): string {
  const query = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== "")).toString();
  return `/org/policy${query ? `?${query}` : ""}#${at}`;
}

/**
 * The required talents' filter: a GET form of its own (`?q=`, without JavaScript) placed before the policy form; with
 * JavaScript app.js filters the list it names (`data-picker-filter`) as one types. It carries the other filter along.
 */
export function PickerFilter(props: { filters: PickerFilters; list: string }) {
  return (
    <form id="policy-filter" method="get" action="/org/policy#policy-form-card" class="picker-filter" role="search">
      <label for="policy-picker-q">Find a talent to require</label>{" "}
      <input
        type="search"
        id="policy-picker-q"
        name="q"
        value={props.filters.q}
        placeholder="secrets, typescript…"
        autocomplete="off"
        data-picker-filter={props.list}
      />{" "}
      {props.filters.aq ? <input type="hidden" name="aq" value={props.filters.aq} /> : null}
      <button type="submit" class="secondary small">
        Filter
      </button>
    </form>
  );
}

/**
 * The allowed talents' filter form (`?aq=`), empty: its search box and button sit in the allowed talents' field inside the
 * policy form and belong to it by their `form` attribute (AllowedPicker), so that neither form's button submits the other.
 */
export function AllowedFilterForm(props: { filters: PickerFilters }) {
  return (
    <form id="policy-allowed-filter" method="get" action="/org/policy#policy-allowed-field" role="search" aria-label="Allowed talents">
      {props.filters.q ? <input type="hidden" name="q" value={props.filters.q} /> : null}
    </form>
  );
}

/**
 * One picker's check boxes named `name`: the ticked first (an id no longer known among them, marked so), then the others
 * that match the filter `q`; a hidden empty `name` makes "none ticked" a list of none. When the filter matches none of
 * the others, the closest ids are offered ("did you mean", each a link filtering by it: `hrefOf`).
 */
function PickerChecks(props: {
  listId: string;
  name: string;
  label: string;
  options: PickerOption[];
  checked: string[];
  q: string;
  hrefOf: (q: string) => string;
}) {
  const checked = new Set(props.checked);
  const byId = new Map(props.options.map((o) => [o.id, o]));
  const ticked = props.checked.map((id) => byId.get(id) ?? { id, title: "", kind: "talent" as const });
  const unticked = props.options.filter((o) => !checked.has(o.id));
  const others = unticked.filter((o) => matchesFilter(o, props.q));
  const hidden = unticked.length - others.length;
  const suggestions =
    props.q && others.length === 0
      ? closestIds(
          props.q,
          unticked.map((o) => o.id),
        )
      : [];
  return (
    <div class="picker" id={props.listId}>
      <input type="hidden" name={props.name} value="" />
      <ul class="picker-list" aria-label={props.label}>
        {[...ticked, ...others].map((o) => (
          <li data-picker-item={`${o.id} ${o.title}`.toLowerCase()} data-checked={checked.has(o.id) ? "true" : undefined}>
            <label class="check">
              <input type="checkbox" name={props.name} value={o.id} checked={checked.has(o.id)} /> <code>{o.id}</code>
              {o.title ? <span class="muted small"> {o.title}</span> : <span class="error small"> not known</span>}
              {o.kind === "expertise" ? <span class="tag">expertise</span> : null}
            </label>
          </li>
        ))}
      </ul>
      {hidden > 0 ? (
        <p class="muted small" id={`${props.listId}-hidden`}>
          {hidden} more do not match “{props.q}”
          {suggestions.length > 0 ? (
            <>
              {": did you mean "}
              {suggestions.map((id, i) => (
                <>
                  {i > 0 ? " or " : ""}
                  <a href={props.hrefOf(id)}>{id}</a>
                </>
              ))}
              {"? Or "}
            </>
          ) : (
            ": "
          )}
          <a href={props.hrefOf("")}>show all</a>.
        </p>
      ) : null}
      <p class="muted small" data-picker-empty hidden>
        No other talent matches: press Enter for the closest ids.
      </p>
    </div>
  );
}

/** What both pickers read: the field's id, the talents to offer, the ticked ones, the filters and the field's error. */
interface PickerProps {
  id: string;
  options: PickerOption[];
  checked: string[];
  filters: PickerFilters;
  error: string | null;
}

/**
 * The required talents' picker: the filter (PickerFilter, its own form before the policy form), then the check
 * boxes named `requiredTalents`.
 */
export function TalentPicker(props: PickerProps) {
  return (
    <ChoiceField
      id={props.id}
      legend="Required talents"
      issuePath="requiredTalents"
      help="Saving installs and enables the ticked talents, with their prerequisites, in every project."
      error={props.error}
    >
      <PickerChecks
        listId="policy-picker"
        name="requiredTalents"
        label="Talents to require"
        options={props.options}
        checked={props.checked}
        q={props.filters.q}
        hrefOf={(q) => filterHref({ ...props.filters, q }, "policy-form-card")}
      />
    </ChoiceField>
  );
}

/**
 * The allowed talents' picker: "any talent" or "only the ticked ones" (`allowedMode`), its own search box (of the form
 * AllowedFilterForm, `?aq=`), then the check boxes named `allowedTalents`, as the required talents' picker has them.
 */
export function AllowedPicker(props: PickerProps & { only: boolean }) {
  return (
    <ChoiceField
      id={props.id}
      legend="Allowed talents"
      issuePath="allowedTalents"
      help="With “only”, projects may install the ticked talents and the required ones (with what they require); nothing else."
      error={props.error}
    >
      <label class="check">
        <input type="radio" name="allowedMode" value="any" checked={!props.only} /> Any talent may be installed
      </label>
      <label class="check">
        <input type="radio" name="allowedMode" value="only" checked={props.only} /> Only the ticked talents (and the required ones)
      </label>
      <div class="picker-filter">
        <label for="policy-allowed-q">Find a talent to allow</label>{" "}
        <input
          type="search"
          id="policy-allowed-q"
          name="aq"
          form="policy-allowed-filter"
          value={props.filters.aq}
          placeholder="sql, react…"
          autocomplete="off"
          data-picker-filter="policy-allowed-picker"
        />{" "}
        <button type="submit" form="policy-allowed-filter" class="secondary small">
          Filter
        </button>
      </div>
      <PickerChecks
        listId="policy-allowed-picker"
        name="allowedTalents"
        label="Talents to allow"
        options={props.options}
        checked={props.checked}
        q={props.filters.aq}
        hrefOf={(aq) => filterHref({ ...props.filters, aq }, "policy-allowed-field")}
      />
    </ChoiceField>
  );
}

/** The `<datalist>` of the lock form's rule input: each rule a detector carries, with its talent and title. */
export function RuleOptions(props: { id: string; rules: HookRule[] }) {
  return (
    <datalist id={props.id}>
      {props.rules.map((r) => (
        <option value={r.rule}>
          {r.talent}: {r.title}
        </option>
      ))}
    </datalist>
  );
}
