/** @jsxImportSource hono/jsx */
/**
 * The Keys section of a project's Keys tab: its keys with revoke, a new key's value shown once, and the creation form.
 * With JavaScript the form sends `POST /web/projects/:id/keys` (htmx swaps this section); without, it posts to
 * `POST /projects/:id/keys` (pages/keys.tsx), which answers the tab with the new key, or refused with what was typed
 * and each problem under its field.
 */
import { KEY_SCOPES } from "../../db/schema";
import { utcDay, utcMinute } from "../../lib/time";
import { confirmations } from "../../ui/confirmations";
import { ChoiceField, Field, FormActions, RefusalLine, type Refusal } from "../../ui/form";
import { DataTable } from "../../ui/layout";
import type { KeyView } from "../keys";
import { OneTimeSecret } from "./automationKey";

/** The tools a new key's form checks at first. */
const DEFAULT_TOOLS = ["prepare_task", "validate", "deepen", "doctor"];

/** What the creation form was sent, as typed. */
export interface KeyFormValues {
  name: string;
  tools: string[];
  expiresAt: string;
}

/** A refused creation posted without JavaScript: what was typed, and the problems by field. */
export interface KeyAttempt {
  values: KeyFormValues;
  refusal: Refusal;
}

/** The creation form's field of each issue's path. */
const FIELDS: Record<string, string> = { name: "key-name", tools: "key-tools", expiresAt: "key-expires" };
export const keyFieldOf = (path: string): string => FIELDS[path.split("/")[0]!] ?? "";

/** The project's keys: list with revoke, and the creation form. */
export function KeysSection(props: {
  projectId: string;
  keys: KeyView[];
  created?: { value: string; name: string };
  attempt?: KeyAttempt;
}) {
  const base = `/web/projects/${props.projectId}/keys`;
  return (
    <section id="keys" aria-labelledby="keys-h">
      <h2 id="keys-h">Keys</h2>
      {props.created ? (
        <OneTimeSecret
          label={`Key “${props.created.name}”`}
          value={props.created.value}
          note="Use it as Authorization: Bearer <key> on the key API (hooks, CI, scripts)."
        />
      ) : null}
      {props.keys.length === 0 ? (
        <p class="muted">No key yet. Interactive agents need none (they sign in with OAuth); hooks and CI do.</p>
      ) : (
        <DataTable caption="Keys of this project" columns={["Name", "Tools", "Status", "Last used", "Actions"]}>
          {props.keys.map((k) => (
            <KeyRow base={base} k={k} />
          ))}
        </DataTable>
      )}
      <KeyForm projectId={props.projectId} attempt={props.attempt} />
      {props.keys
        .filter((k) => k.status === "active")
        .map((k) => (
          <form id={`revoke-${k.id}`} method="post" action={`${base}/${k.id}?_method=DELETE`}></form>
        ))}
    </section>
  );
}

/** One key of the list. */
function KeyRow(props: { base: string; k: KeyView }) {
  const k = props.k;
  return (
    <tr>
      <td>
        {k.name}
        {k.automation ? <span class="tag">automation</span> : null}
        <div class="muted small">by {k.createdBy.email}</div>
      </td>
      <td class="small">{k.tools.join(", ")}</td>
      <td>
        <span class={`state ${k.status}`}>{k.status}</span>
        {k.expiresAt ? <div class="muted small">until {utcDay(k.expiresAt)}</div> : null}
      </td>
      <td class="small">{k.lastUsedAt ? utcMinute(k.lastUsedAt) : "never"}</td>
      <td>
        {k.status === "active" ? (
          // its form is after the key creation form (form="…"): the section's first form stays the creation
          <button
            type="submit"
            form={`revoke-${k.id}`}
            class="danger small"
            hx-delete={`${props.base}/${k.id}`}
            hx-confirm={confirmations.revokeKey(k.name).question}
            hx-target="#keys"
            hx-swap="outerHTML"
          >
            Revoke<span class="visually-hidden"> {k.name}</span>
          </button>
        ) : null}
      </td>
    </tr>
  );
}

/** The creation form: the /web route for htmx, the Keys tab's own page route without JavaScript. */
function KeyForm(props: { projectId: string; attempt?: KeyAttempt }) {
  const a = props.attempt;
  const tools = a?.values.tools ?? DEFAULT_TOOLS;
  const at = (field: string) => a?.refusal.fields[field] ?? null;
  const base = `/web/projects/${props.projectId}/keys`;
  return (
    <form class="card sub" method="post" action={`/projects/${props.projectId}/keys`} hx-post={base} hx-target="#keys" hx-swap="outerHTML">
      <h3>Create a key</h3>
      <RefusalLine id="key-refused" refusal={a?.refusal} />
      <Field id="key-name" label="Name" help="What it is for." error={at("key-name")}>
        <input name="name" required maxlength={100} placeholder="pre-commit hook of alice's laptop" value={a?.values.name} />
      </Field>
      <ChoiceField id="key-tools" legend="Tools it may use" issuePath="tools" error={at("key-tools")}>
        {KEY_SCOPES.map((s) => (
          <label class="check">
            <input type="checkbox" name="tools" value={s} checked={tools.includes(s)} /> {s}
          </label>
        ))}
      </ChoiceField>
      <Field id="key-expires" label="Expires" help="Optional." error={at("key-expires")}>
        <input name="expiresAt" type="date" value={a?.values.expiresAt} />
      </Field>
      <FormActions>
        <button type="submit">Create key</button>
      </FormActions>
    </form>
  );
}
