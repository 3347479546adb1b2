/** @jsxImportSource hono/jsx */
/** The one-time first-admin setup page (`/setup?token=…`, printed to the log at first start). */
import { Layout } from "../../ui/layout";

export function SetupPage(props: { token: string; valid: boolean; error?: string }) {
  return (
    <Layout title="Set up talentd">
      <div class="card">
        <h1>Create the platform administrator</h1>
        {props.valid ? (
          <form method="post" action="/setup">
            {props.error ? <p class="error">{props.error}</p> : null}
            <input type="hidden" name="token" value={props.token} />
            <label for="email">E-mail</label>
            <input id="email" name="email" type="email" required autocomplete="username" />
            <label for="name">Name</label>
            <input id="name" name="name" type="text" autocomplete="name" />
            <label for="password">Password (at least 10 characters)</label>
            <input id="password" name="password" type="password" required minlength={10} autocomplete="new-password" />
            <p>
              <button type="submit">Create administrator</button>
            </p>
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
