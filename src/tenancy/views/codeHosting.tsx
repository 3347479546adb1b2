/** @jsxImportSource hono/jsx */
/** The organization's code hosting section (tenancy/pages/org.tsx, and its routes' fragments). */
import { confirmations } from "../../ui/confirmations";
import { CODE_HOSTS, type CodeHosting } from "../codeHosting";
import { Notice } from "../../ui/parts";
import { Field, FormActions } from "../../ui/form";

/** Code hosting (docs/api.md "Code hosting"): where the organization's repositories live; evidence links are made from it. Members read it, owners and admins set it. */
export function CodeHostingSection(props: { codeHosting: CodeHosting | null; admin: boolean; notice?: string }) {
  const h = props.codeHosting;
  const route = "/web/orgs/current/code-hosting";
  return (
    <section class="card" id="code-hosting" aria-labelledby="code-hosting-h">
      <h2 id="code-hosting-h">Code hosting</h2>
      <Notice text={props.notice} />
      <p class="muted small">
        Where the organization's repositories live. With a project's repository, the evidence of verdicts (<code>path:line</code>) links to
        the line.
      </p>
      {!props.admin ? (
        h ? (
          <dl class="facts">
            <dt>Provider</dt>
            <dd>{h.provider}</dd>
            <dt>URL</dt>
            <dd>
              <code>{h.url}</code>
            </dd>
            <dt>Default branch</dt>
            <dd>{h.defaultBranch}</dd>
          </dl>
        ) : (
          <p class="muted">Not set.</p>
        )
      ) : (
        <>
          {/* no `return` field: the route takes only the settings; the browser comes back to its Referer, /org */}
          <form method="post" action={`${route}?_method=PUT`} hx-put={route} hx-target="#code-hosting" hx-swap="outerHTML">
            <Field id="ch-provider" label="Provider">
              <select name="provider">
                {CODE_HOSTS.map((p) => (
                  <option value={p} selected={h?.provider === p}>
                    {p}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              id="ch-url"
              label="URL"
              help={
                <>
                  The base of the repositories, e.g. https://github.com/acme; for other, a template with {"{repository}"}, {"{branch}"},{" "}
                  {"{path}"}, {"{line}"}.
                </>
              }
            >
              <input name="url" required maxlength={500} value={h?.url ?? ""} placeholder="https://github.com/acme" />
            </Field>
            <Field id="ch-branch" label="Default branch">
              <input name="defaultBranch" maxlength={100} value={h?.defaultBranch ?? "main"} />
            </Field>
            <FormActions>
              <button type="submit">Save code hosting</button>{" "}
              {h ? (
                // its own (empty) form, since forms do not nest: it posts none of the fields above
                <button
                  type="submit"
                  form="code-hosting-clear"
                  class="secondary"
                  hx-delete={route}
                  hx-target="#code-hosting"
                  hx-swap="outerHTML"
                  hx-confirm={confirmations.clearCodeHosting().question}
                >
                  Clear
                </button>
              ) : null}
            </FormActions>
          </form>
          {h ? <form id="code-hosting-clear" method="post" action={`${route}?_method=DELETE`}></form> : null}
        </>
      )}
    </section>
  );
}
