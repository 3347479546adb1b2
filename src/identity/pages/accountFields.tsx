/** @jsxImportSource hono/jsx */
/** The name and new-password fields of a form that creates an account (first-admin setup, an invitation's sign-up). */
import { Field } from "../../ui/form";

/** `error(field)`: the refusal to show under that field, or null. */
export function NameAndPasswordFields(props: { name?: string; error: (field: "name" | "password") => string | null }) {
  return (
    <>
      <Field id="name" label="Name" error={props.error("name")}>
        <input name="name" type="text" maxlength={100} autocomplete="name" value={props.name ?? ""} />
      </Field>
      <Field id="password" label="Password" help="At least 10 characters." error={props.error("password")}>
        <input name="password" type="password" required minlength={10} autocomplete="new-password" />
      </Field>
    </>
  );
}
