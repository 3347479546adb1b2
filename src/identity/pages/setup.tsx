/** @jsxImportSource hono/jsx */
/**
 * The one-time first-admin setup page (`/setup?token=…`, printed to the log at first start), on
 * the dashboard's one form layout: a refusal is shown under the field it concerns (an e-mail
 * already taken under the e-mail), one about the link itself above the form.
 */
import { Layout } from "../../ui/layout";
import { Field, FormActions } from "../../ui/form";
import { Alert } from "../../ui/parts";
import { NameAndPasswordFields } from "./accountFields";

/** A refused setup: its message, and the field it concerns (none: the link or the form as a whole). */
export interface SetupProblem {
  field?: "email" | "name" | "password";
  message: string;
}

export function SetupPage(props: { token: string; valid: boolean; error?: SetupProblem; email?: string; name?: string }) {
  const e = props.error;
  const at = (field: SetupProblem["field"]) => (e && e.field === field ? e.message : null);
  return (
    <Layout title="Set up talentd">
      <div class="card narrow">
        <h1>Create the platform administrator</h1>
        {props.valid ? (
          <form method="post" action="/setup">
            <Alert text={e && !e.field ? e.message : null} />
            <input type="hidden" name="token" value={props.token} />
            <Field id="email" label="E-mail" error={at("email")}>
              <input name="email" type="email" required autocomplete="username" value={props.email ?? ""} />
            </Field>
            <NameAndPasswordFields name={props.name} error={at} />
            <FormActions>
              <button type="submit">Create administrator</button>
            </FormActions>
          </form>
        ) : (
          <p class="error">
            This setup link is invalid, expired or already used. Run <code>talentd admin create</code> on the server instead.
          </p>
        )}
      </div>
    </Layout>
  );
}
