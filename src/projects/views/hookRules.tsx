/** @jsxImportSource hono/jsx */
/**
 * The hook rules' card of a project's Settings tab (docs/design.md "What blocks a commit"): every rule with a detector
 * of its enabled talents — the talent, the rule's severity for review, whether its detector earned blocking (with its
 * measured figure), the project's choice (a select per rule for owners and admins, one form), the organization's lock
 * (read-only, naming the policy) and what the hook does, in the words of catalog/hookWords.ts. With JavaScript the form
 * sends `PUT /web/projects/:id/hook-rules`; without, it posts to `POST /projects/:id?tab=settings&form=hook-rules`
 * (pages/settings.tsx): saved → 303 back to the tab, refused → the tab again with each problem under its rule.
 */
import { hookSays } from "../../catalog/hookWords";
import type { Measured } from "../../catalog/measured";
import type { HookChoice } from "../../policy/hookRules";
import { FormActions, RefusalLine, type Refusal } from "../../ui/form";
import { DataTable } from "../../ui/layout";

/** One row of the card: a row of the hook rules' answer, with the rule's title and measured figure. */
export interface HookRuleLine {
  rule: string;
  talent: string;
  title: string;
  shipped: "blocking" | "advisory";
  earned: boolean;
  measured?: Measured;
  choice: HookChoice | null;
  lock: HookChoice | null;
}

/** A refused save posted without JavaScript: the choices as sent, and the problems by rule. */
export interface HookRulesAttempt {
  values: Record<string, string>;
  refusal: Refusal;
}

/** The id of a rule's select (and of its error line). */
export const hookRuleField = (rule: string): string => `hook-${rule}`;

/** The measured figure in words, when the catalog has it. */
function figure(r: HookRuleLine): string | null {
  const m = r.measured;
  if (!m) return null;
  const precision = m.precision === undefined ? "" : `, ${Math.round(m.precision * 1000) / 10}% precision`;
  return `${m.findings} findings${precision} over ${m.commits} commits`;
}

const SHIPPED: Record<HookChoice, string> = { block: "block", advise: "advise", off: "off" };

function ChoiceCell(props: { r: HookRuleLine; admin: boolean; value: string; error: string | null }) {
  const { r } = props;
  const id = hookRuleField(r.rule);
  if (r.lock)
    return (
      <>
        <span class="muted">{r.choice ? `${SHIPPED[r.choice]} (the lock applies)` : "—"}</span>
        <p class="field-error" id={`${id}-error`} hidden={!props.error}>
          {props.error ?? ""}
        </p>
      </>
    );
  if (!props.admin) return <span>{r.choice ?? "default"}</span>;
  const def = r.earned ? "block" : "advise";
  return (
    <>
      <label class="visually-hidden" for={id}>
        {`Choice for ${r.rule}`}
      </label>
      <select name={`rules.${r.rule}`} id={id} aria-invalid={props.error ? "true" : undefined}>
        <option value="" selected={props.value === ""}>{`default (${def})`}</option>
        {(["block", "advise", "off"] as const).map((c) => (
          <option value={c} selected={props.value === c}>
            {c}
          </option>
        ))}
      </select>
      <p class="field-error" id={`${id}-error`} hidden={!props.error}>
        {props.error ?? ""}
      </p>
    </>
  );
}

/** The card. `admin`: the person may change the choices (owner or admin); a member reads them. */
export function HookRulesCard(props: { projectId: string; rules: HookRuleLine[]; admin: boolean; attempt?: HookRulesAttempt }) {
  const { projectId, rules } = props;
  const value = (r: HookRuleLine) => props.attempt?.values[r.rule] ?? r.choice ?? "";
  const table = (
    <DataTable caption="Rules with a detector" columns={["Rule", "Talent", "Review", "Detector", "Project's choice", "Lock", "Hook"]}>
      {rules.map((r) => (
        <tr id={`hook-row-${r.rule}`}>
          <td>
            <code>{r.rule}</code> <span class="muted small">{r.title}</span>
          </td>
          <td>
            <a href={`/catalog/${r.talent}`}>{r.talent}</a>
          </td>
          <td>{r.shipped}</td>
          <td>
            {r.earned ? "earned blocking" : "advisory until measured"}
            {figure(r) ? <span class="muted small"> ({figure(r)})</span> : null}
          </td>
          <td>
            <ChoiceCell r={r} admin={props.admin} value={value(r)} error={props.attempt?.refusal.fields[hookRuleField(r.rule)] ?? null} />
          </td>
          <td>{r.lock ? <a href="/org/policy">{`locked to ${r.lock} by the organization's policy`}</a> : <span class="muted">—</span>}</td>
          <td>{hookSays(r)}</td>
        </tr>
      ))}
    </DataTable>
  );
  return (
    <section class="card" id="hook-rules" aria-labelledby="hook-rules-h">
      <h2 id="hook-rules-h">What blocks a commit</h2>
      <p class="muted">
        A rule's severity is for the agent's review; the hook (<code>talentd check</code>) blocks a commit only on the rules below that
        block. Each change is in the organization's audit log.
      </p>
      {rules.length === 0 ? (
        <p class="muted" id="hook-rules-none">
          No enabled talent of this project has a rule with a detector.
        </p>
      ) : props.admin ? (
        <form
          method="post"
          action={`/projects/${projectId}?tab=settings&form=hook-rules#hook-rules-h`}
          hx-put={`/web/projects/${projectId}/hook-rules`}
          hx-swap="none"
          id="hook-rules-form"
        >
          <RefusalLine id="hook-rules-refused" refusal={props.attempt?.refusal} />
          {table}
          {/* the form's mark (after the selects, which app.js matches first): a form naming no rule clears the choices */}
          <input type="hidden" name="rules" value="" />
          <FormActions>
            <button type="submit">Save the hook rules</button>
          </FormActions>
        </form>
      ) : (
        table
      )}
    </section>
  );
}
