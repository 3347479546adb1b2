/** @jsxImportSource hono/jsx */
/**
 * The policy page's pickers (docs/design.md "Pickers, not typed ids"): the required talents are check boxes of every
 * talent the organization may require (the catalog's and its servable expertises), filtered by a search box — live
 * with JavaScript (public/app.js `[data-picker]`), without it by `?q=` through its own GET form; the ticked ones are
 * always shown, so a filter never drops a choice. A locked rule is typed into an input with a `<datalist>` of every
 * rule a detector carries.
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { listServableExpertises } from "../expertises/servable";
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

/**
 * The picker's filter: a GET form of its own (`?q=`, without JavaScript) placed before the policy form; with
 * JavaScript app.js filters the list it names (`data-picker-filter`) as one types.
 */
export function PickerFilter(props: { q: string; list: string }) {
  return (
    <form id="policy-filter" method="get" action="/org/policy#policy-form-card" class="picker-filter" role="search">
      <label for="policy-picker-q">Find a talent to require</label>{" "}
      <input
        type="search"
        id="policy-picker-q"
        name="q"
        value={props.q}
        placeholder="secrets, typescript…"
        autocomplete="off"
        data-picker-filter={props.list}
      />{" "}
      <button type="submit" class="secondary small">
        Filter
      </button>
    </form>
  );
}

/**
 * The required talents' picker: the filter (PickerFilter, its own form before the policy form), then the check
 * boxes named `requiredTalents` — the ticked first (an id no longer known among them, marked so), then the others that
 * match the filter. A hidden empty `requiredTalents` makes "none ticked" a list of none.
 */
export function TalentPicker(props: { id: string; options: PickerOption[]; checked: string[]; q: string; error: string | null }) {
  const checked = new Set(props.checked);
  const byId = new Map(props.options.map((o) => [o.id, o]));
  const ticked = props.checked.map((id) => byId.get(id) ?? { id, title: "", kind: "talent" as const });
  const others = props.options.filter((o) => !checked.has(o.id) && matchesFilter(o, props.q));
  const hidden = props.options.filter((o) => !checked.has(o.id)).length - others.length;
  return (
    <ChoiceField
      id={props.id}
      legend="Required talents"
      issuePath="requiredTalents"
      help="Saving installs and enables the ticked talents, with their prerequisites, in every project."
      error={props.error}
    >
      <div class="picker" id="policy-picker">
        <input type="hidden" name="requiredTalents" value="" />
        <ul class="picker-list" aria-label="Talents to require">
          {[...ticked, ...others].map((o) => (
            <li data-picker-item={`${o.id} ${o.title}`.toLowerCase()} data-checked={checked.has(o.id) ? "true" : undefined}>
              <label class="check">
                <input type="checkbox" name="requiredTalents" value={o.id} checked={checked.has(o.id)} /> <code>{o.id}</code>
                {o.title ? <span class="muted small"> {o.title}</span> : <span class="error small"> not known</span>}
                {o.kind === "expertise" ? <span class="tag">expertise</span> : null}
              </label>
            </li>
          ))}
        </ul>
        {hidden > 0 ? (
          <p class="muted small" id="policy-picker-hidden">
            {hidden} more do not match “{props.q}”: <a href="/org/policy#policy-form-card">show all</a>.
          </p>
        ) : null}
      </div>
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
