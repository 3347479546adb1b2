/** @jsxImportSource hono/jsx */
/**
 * The policy page's components (`/org/policy`, pages.tsx): what the policy requires and allows,
 * who set it, and the form that sets it (htmx's PUT, or without JavaScript a post to the page
 * itself, which answers a refusal with the form again; both come back to the page).
 */
import type { Catalog } from "../catalog/catalog";
import { HOOK_WHY } from "../catalog/hookWords";
import { utcMinute } from "../lib/time";
import { Field, FormActions, RefusalLine, type Refusal } from "../ui/form";
import { DataTable } from "../ui/layout";
import type { PolicyView } from "./service";
import type { HookRule } from "./hookRules";
import {
  AllowedFilterForm,
  AllowedPicker,
  idsOf,
  PickerFilter,
  RuleOptions,
  TalentPicker,
  type PickerFilters,
  type PickerOption,
} from "./picker";

const ROUTE = "/web/orgs/current/policy";

/** One id with its title when the catalog knows it (an expertise reference shows as it is). */
function TalentItem(props: { id: string; catalog: Catalog }) {
  const t = props.id.startsWith("@") ? undefined : props.catalog.get(props.id);
  return (
    <li>
      <a href={`/catalog/${encodeURIComponent(props.id).replace(/%2F/g, "/")}`}>
        <code>{props.id}</code>
      </a>
      {t ? <span class="muted small"> {t.title}</span> : null}
    </li>
  );
}

/** What the policy says now, in words. */
export function PolicySummary(props: { policy: PolicyView; catalog: Catalog }) {
  const p = props.policy;
  return (
    <section class="card" id="policy-now" aria-labelledby="policy-now-h">
      <h2 id="policy-now-h">In force</h2>
      <h3>Required in every project</h3>
      {p.requiredTalents.length === 0 ? (
        <p class="muted">No talent is required.</p>
      ) : (
        <ul id="policy-required">
          {p.requiredTalents.map((id) => (
            <TalentItem id={id} catalog={props.catalog} />
          ))}
        </ul>
      )}
      <h3>Allowed</h3>
      {p.allowedTalents === null ? (
        <p class="muted" id="policy-allowed">
          Any talent may be installed.
        </p>
      ) : (
        <>
          <p class="muted small">
            {p.allowedTalents.length === 0
              ? "Projects may install only the required talents (with what they require)."
              : "Projects may install only these and the required talents (with what they require)."}
          </p>
          <ul id="policy-allowed">
            {p.allowedTalents.map((id) => (
              <TalentItem id={id} catalog={props.catalog} />
            ))}
          </ul>
        </>
      )}
      <p class="muted small" id="policy-set-by">
        {p.setBy && p.updatedAt !== null ? `Set by ${p.setBy.name} on ${utcMinute(p.updatedAt)} (UTC).` : "Never set."}
      </p>
    </section>
  );
}

/** The form's field of each list the server names in a refusal (its issues' paths, a 409's `field`). */
export const POLICY_FIELDS: Record<string, string> = {
  requiredTalents: "policy-required-field",
  allowedTalents: "policy-allowed-field",
  allowedMode: "policy-allowed-field",
};

/** A refused save posted without JavaScript: the lists as sent (ids one per line), the allow-list's mode, and the problems by field. */
export interface PolicyAttempt {
  values: { requiredTalents: string; allowedMode: string; allowedTalents: string };
  refusal: Refusal;
}

/**
 * The form: the required talents ticked in a picker, the allowed ones "any" or only those ticked in a second picker
 * (picker.tsx). Each picker's filter is a GET form outside this one. A refused attempt keeps what was sent.
 */
export function PolicyForm(props: { policy: PolicyView; attempt?: PolicyAttempt; options: PickerOption[]; filters: PickerFilters }) {
  const p = props.policy;
  const v = props.attempt?.values;
  const at = (field: string) => props.attempt?.refusal.fields[field] ?? null;
  // an older form's text with no mode: blank is "any"
  const only = v ? v.allowedMode === "only" || (v.allowedMode === "" && v.allowedTalents.trim() !== "") : p.allowedTalents !== null;
  return (
    <section class="card" id="policy-form-card" aria-labelledby="policy-form-h">
      <h2 id="policy-form-h">Change the policy</h2>
      <PickerFilter filters={props.filters} list="policy-picker" />
      <AllowedFilterForm filters={props.filters} />
      <form method="post" action="/org/policy" hx-put={ROUTE} id="policy-form">
        <RefusalLine id="policy-refused" refusal={props.attempt?.refusal} />
        <TalentPicker
          id={POLICY_FIELDS.requiredTalents!}
          options={props.options}
          checked={v ? idsOf(v.requiredTalents) : p.requiredTalents}
          filters={props.filters}
          error={at(POLICY_FIELDS.requiredTalents!)}
        />
        <AllowedPicker
          id={POLICY_FIELDS.allowedTalents!}
          options={props.options}
          only={only}
          checked={v ? idsOf(v.allowedTalents) : (p.allowedTalents ?? [])}
          filters={props.filters}
          error={at(POLICY_FIELDS.allowedTalents!)}
        />
        <FormActions>
          <button type="submit" id="policy-save">
            Save the policy
          </button>
        </FormActions>
      </form>
    </section>
  );
}

/** The form's field of each lock problem (an issue's path). */
export const LOCK_FIELDS: Record<string, string> = { rule: "policy-lock-rule", choice: "policy-lock-choice" };

/** A refused lock posted without JavaScript: what was sent, and the problems by field. */
export interface LockAttempt {
  values: { rule: string; choice: string };
  refusal: Refusal;
}

const LOCK_ROUTE = `${ROUTE}/hook-rules`;

/**
 * The locked hook rules (every project takes the lock over its own choice; docs/design.md "What blocks a commit") with a
 * form to lift each, and the form to lock one: with htmx `POST` / `DELETE /web/orgs/current/policy/hook-rules`, without
 * JavaScript a post to `/org/policy/locks` (pages.tsx).
 */
export function LocksCard(props: { locks: Record<string, string>; attempt?: LockAttempt; rules: HookRule[] }) {
  const locks = Object.entries(props.locks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const at = (field: string) => props.attempt?.refusal.fields[field] ?? null;
  const v = props.attempt?.values ?? { rule: "", choice: "block" };
  return (
    <section class="card" id="policy-locks" aria-labelledby="policy-locks-h">
      <h2 id="policy-locks-h">Locked hook rules</h2>
      <p class="muted">
        A locked rule does in every project's hook (<code>talentd check</code>) what the lock says, whatever the project chose; a project or
        a calibration that tries to change it is refused. The rule's severity for the agent's review stays its own.
      </p>
      {locks.length === 0 ? (
        <p class="muted" id="policy-locks-none">
          No rule is locked.
        </p>
      ) : (
        <DataTable caption="Locked hook rules" columns={["Rule", "Hook", ""]}>
          {locks.map(([rule, choice]) => (
            <tr id={`lock-${rule}`}>
              <td>
                <code>{rule}</code>
              </td>
              <td>{choice === "block" ? `blocks (${HOOK_WHY.policy})` : `${choice === "off" ? "off" : "advises"} (${HOOK_WHY.policy})`}</td>
              <td>
                <form method="post" action="/org/policy/locks" hx-delete={`${LOCK_ROUTE}/${encodeURIComponent(rule)}`} class="inline">
                  <input type="hidden" name="rule" value={rule} />
                  <input type="hidden" name="remove" value="yes" />
                  <button type="submit" class="secondary small">
                    Unlock<span class="visually-hidden"> {rule}</span>
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <form method="post" action="/org/policy/locks#policy-locks-h" hx-post={LOCK_ROUTE} id="policy-lock-form">
        <h3>Lock a rule</h3>
        <RefusalLine id="policy-lock-refused" refusal={props.attempt?.refusal} />
        <Field
          id={LOCK_FIELDS.rule!}
          label="Rule id"
          help="A rule with a detector, of a catalog talent or an active expertise of the organization: type to pick one."
          error={at(LOCK_FIELDS.rule!)}
        >
          <input
            name="rule"
            value={v.rule}
            maxlength={100}
            placeholder="TS-005"
            spellcheck={false}
            autocomplete="off"
            list="policy-rule-options"
          />
        </Field>
        <RuleOptions id="policy-rule-options" rules={props.rules} />
        <Field id={LOCK_FIELDS.choice!} label="The hook" error={at(LOCK_FIELDS.choice!)}>
          <select name="choice">
            {(
              [
                ["block", "blocks a commit"],
                ["advise", "advises only"],
                ["off", "off: its detectors do not run"],
              ] as const
            ).map(([c, label]) => (
              <option value={c} selected={v.choice === c}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <FormActions>
          <button type="submit">Lock the rule</button>
        </FormActions>
      </form>
    </section>
  );
}

/** What the status line says after a lock is set or lifted. */
export function lockSaved(data: unknown, lifted: boolean): string {
  return lifted
    ? "Lock lifted: each project's own choice applies again."
    : `Rule locked in every project${policySaved(data).slice("Policy saved".length)}`;
}

/** What the status line says after a save (htmx and the form without JavaScript alike). */
export function policySaved(data: unknown): string {
  const projects = (data as { projects?: unknown[] }).projects?.length ?? 0;
  return `Policy saved${projects > 0 ? `: required talents installed in ${projects} project${projects > 1 ? "s" : ""}` : ""}.`;
}
