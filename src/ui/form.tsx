/** @jsxImportSource hono/jsx */
/**
 * The one form layout of the dashboard (public/app.css "forms"): a label with its control —
 * above it on a narrow form, beside it on a wide one —, the help text and the field's own error
 * under the control, both named by the control's `aria-describedby`. A filter bar's fields
 * (`inline`) keep the label and its control together: side by side, or the label right above
 * the control on a phone, never split across rows.
 */
import type { Child } from "hono/jsx";

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
  describe(props.children, id, help != null && help !== "", !!error);
  return (
    <div class={props.inline ? "field inline" : "field"}>
      <div class="field-body">
        <label for={id}>{props.label}</label>
        <div class="field-control">
          {props.children}
          {help != null && help !== "" ? (
            <p class="help" id={helpId(id)}>
              {help}
            </p>
          ) : null}
          <p class="field-error" id={errorId(id)} hidden={!error}>
            {error ?? ""}
          </p>
        </div>
      </div>
    </div>
  );
}

/** A check box with its label on its right, and an optional help line. */
export function CheckField(props: { id: string; label: Child; help?: Child; children: Child }): Child {
  describe(props.children, props.id, props.help != null, false);
  return (
    <div class="field check">
      <label class="check" for={props.id}>
        {props.children} {props.label}
      </label>
      {props.help != null ? (
        <p class="help" id={helpId(props.id)}>
          {props.help}
        </p>
      ) : null}
    </div>
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
