/** @jsxImportSource hono/jsx */
/**
 * The typed-name deletion every irreversible delete of a named thing uses (a project, an
 * expertise): a danger-zone card whose form posts `?_method=DELETE` without JavaScript (or to
 * `action`, a page that answers a wrong name with this card again and its `error` under the field)
 * and `hx-delete` with it; the name typed is checked by the browser (`data-confirm-name`, app.js)
 * and again by the server (http/methodOverride.ts `requireTypedName`, `typedNameRefusal`).
 */
import type { Child } from "hono/jsx";
import { errorId } from "./form";

/** The danger-zone card: `title`, what happens (`children`), the name to type (`typed`: as it was), the button. */
export function TypedDeleteForm(props: {
  route: string;
  name: string;
  title: string;
  button: string;
  action?: string;
  typed?: string;
  error?: string | null;
  children: Child;
}): Child {
  const { error } = props;
  return (
    <section class="card danger-zone" aria-labelledby="delete-h">
      <h2 id="delete-h">{props.title}</h2>
      <p>{props.children}</p>
      <form method="post" action={props.action ?? `${props.route}?_method=DELETE`} hx-delete={props.route} data-confirm-name={props.name}>
        <label for="confirm-name">
          Type <strong>{props.name}</strong> to confirm
        </label>
        <input
          id="confirm-name"
          name="confirm"
          autocomplete="off"
          required
          value={props.typed ?? ""}
          aria-describedby={error ? errorId("confirm-name") : undefined}
          aria-invalid={error ? "true" : undefined}
        />
        <p class="field-error" id={errorId("confirm-name")} hidden={!error}>
          {error ?? ""}
        </p>
        <p>
          <button type="submit" class="danger">
            {props.button}
          </button>
        </p>
      </form>
    </section>
  );
}
