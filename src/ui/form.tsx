/** @jsxImportSource hono/jsx */
/**
 * The one form layout of the dashboard (public/app.css "forms"): a label with its control —
 * above it on a narrow form, beside it on a wide one —, the help text and the field's own error
 * under the control, both named by the control's `aria-describedby`. A filter bar's fields
 * (`inline`) keep the label and its control together: side by side, or the label right above
 * the control on a phone, never split across rows.
 */
import type { Child } from "hono/jsx";
import type { AppError, Issue } from "../http/errors";
import { flatParentheses, issueWords } from "./refusalWords";

/** The ids a field's help and error get, from the control's id (also the error slot app.js fills for htmx). */
export const helpId = (id: string): string => `${id}-help`;
/** The id of a field's error line. */
export const errorId = (id: string): string => `${id}-error`;

/** What a control is given by its field: its id, and what describes it. */
type ControlNode = { props: Record<string, unknown> };

/** Gives the control its id and `aria-describedby` (help, error), `aria-invalid` when there is an error. */
function describe(control: Child, id: string, help: boolean, error: boolean): void {
  const node = (Array.isArray(control) ? control[0] : control) as ControlNode | null | undefined;
  if (!node || typeof node !== "object" || typeof node.props !== "object" || node.props === null) return;
  // the id first, as a hand-written control has it
  const props: Record<string, unknown> = { id, ...node.props };
  const by = [help ? helpId(id) : null, error ? errorId(id) : null, node.props["aria-describedby"] as string | undefined].filter(Boolean);
  if (by.length > 0) props["aria-describedby"] = by.join(" ");
  if (error) props["aria-invalid"] = "true";
  node.props = props;
}

/**
 * A labelled field: `children` is its one control (input, select, textarea), given `id` here.
 * `help` is shown under it; `error` (the server's word on this field) under that, in the alert colour.
 */
export function Field(props: { id: string; label: Child; help?: Child; error?: string | null; inline?: boolean; children: Child }): Child {
  const { id, help, error } = props;
  describe(props.children, id, hasHelp(help), !!error);
  return (
    <div class={props.inline ? "field inline" : "field"}>
      <div class="field-body">
        <label for={id}>{props.label}</label>
        <div class="field-control">
          {props.children}
          <HelpLine id={id} help={help} />
          <ErrorLine id={id} error={error} />
        </div>
      </div>
    </div>
  );
}

/** The error line of a field (hidden while it has none): also the slot app.js fills for htmx. */
/** A field's help line (named by its control's aria-describedby), when it has one. */
function HelpLine(props: { id: string; help?: Child }): Child {
  if (!hasHelp(props.help)) return null;
  return (
    <p class="help" id={helpId(props.id)}>
      {props.help}
    </p>
  );
}

/** Whether a help text is given (null, undefined and "" are none). */
const hasHelp = (help: Child | undefined): boolean => help != null && help !== "";

function ErrorLine(props: { id: string; error?: string | null }): Child {
  return (
    <p class="field-error" id={errorId(props.id)} hidden={!props.error}>
      {props.error ?? ""}
    </p>
  );
}

/** A check box with its label on its right, an optional help line, and its error under them. */
export function CheckField(props: { id: string; label: Child; help?: Child; error?: string | null; children: Child }): Child {
  describe(props.children, props.id, hasHelp(props.help), !!props.error);
  return (
    <div class="field check">
      <label class="check" for={props.id}>
        {props.children} {props.label}
      </label>
      <HelpLine id={props.id} help={props.help} />
      <ErrorLine id={props.id} error={props.error} />
    </div>
  );
}

/**
 * A group of choices (radio buttons, check boxes) under its legend: the fieldset is named by its
 * help and error. `issuePath` is the field the server names in its refusals (the controls' `name`),
 * so that app.js finds the group's error slot for htmx too.
 */
export function ChoiceField(props: { id: string; legend: Child; issuePath: string; help?: Child; error?: string | null; children: Child }) {
  const { id, help, error } = props;
  const by = [hasHelp(help) ? helpId(id) : null, error ? errorId(id) : null].filter(Boolean).join(" ");
  return (
    <fieldset class="field choice" id={id} data-issue-path={props.issuePath} aria-describedby={by || undefined}>
      <legend>{props.legend}</legend>
      <div class="checks">{props.children}</div>
      <HelpLine id={id} help={help} />
      <ErrorLine id={id} error={error} />
    </fieldset>
  );
}

/** The buttons of a form, lined up with the controls (not the labels) on a wide form. */
export function FormActions(props: { children: Child }): Child {
  return (
    <div class="form-actions">
      <div class="form-actions-body">{props.children}</div>
    </div>
  );
}

/**
 * A refused post of a form, as the page that answers it without JavaScript shows it: each problem under
 * the field it concerns (several of one field said in order, as app.js does for htmx), the rest at the
 * top of the form. `fieldOf` maps an issue's path (`domains/0`, `oidc/issuer`) to a field, "" for none.
 */
export interface Refusal {
  /** The problem of the form as a whole (no single field caused it), or null. */
  whole: string | null;
  /** The problems of the fields, by field. */
  fields: Record<string, string>;
}

/**
 * Sorts a refusal (400 with its issues, or another 4xx naming its `field` in its details) by field, each issue in a
 * person's words (ui/refusalWords.ts): beside its field, or in the form's top line when no field shows it.
 */
export function refusalOf(error: AppError, fieldOf: (path: string) => string): Refusal {
  const issues = (error.details.issues as Issue[] | undefined) ?? [{ path: String(error.details.field ?? ""), message: error.message }];
  const fields: Record<string, string> = {};
  const whole: string[] = [];
  for (const i of issues) {
    const field = fieldOf(i.path);
    const words = issueWords(i);
    if (field === "") whole.push(words.alone);
    else fields[field] = fields[field] ? `${fields[field]}; ${words.atField}` : words.atField;
  }
  if (whole.length === 0 && Object.keys(fields).length === 0) whole.push(flatParentheses(error.message));
  return { whole: whole.length > 0 ? whole.join(" ") : null, fields };
}

/** The one sentence of a refusal whose problems its fields show: "Not saved: fix the 2 fields marked below." */
export function markedFields(count: number | "{n}"): string {
  return count === 1 ? "Not saved: fix the field marked below." : `Not saved: fix the ${count} fields marked below.`;
}

/**
 * The top line of a refused form: its own problem when no field shows it, else one sentence pointing to the fields
 * (never their problems again: each is said once, beside its field).
 */
export function RefusalLine(props: { id: string; refusal?: Refusal | null }): Child {
  const r = props.refusal;
  if (!r) return null;
  const marked = Object.keys(r.fields).length;
  const point = marked > 0 ? markedFields(marked) : "";
  return (
    <p class="error" role="alert" id={props.id}>
      {r.whole ? `${r.whole}${point ? `${/[.!?]$/.test(r.whole) ? "" : "."} ${point}` : ""}` : point}
    </p>
  );
}

/**
 * The alert of a refused save whose problems are a document's (an editor's files, a form whose fields make
 * one TALENT.md): "Not saved." and each issue with the path it names in that document (a file, a field of
 * its front matter), which is the person's own text here, not an API's.
 */
export function RefusedIssues(props: { id?: string; issues?: Issue[] | null }): Child {
  if (!props.issues || props.issues.length === 0) return null;
  return (
    <div class="flash error" role="alert" id={props.id}>
      <strong>Not saved.</strong>
      <ul>
        {props.issues.map((i) => (
          <li>
            {i.path ? <code>{i.path}</code> : null} {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
