/** @jsxImportSource hono/jsx */
/** The organization's code hosting section (tenancy/pages/org.tsx, and its routes' fragments). */
import { confirmations } from "../../ui/confirmations";
import { CODE_HOSTS, type CodeHosting } from "../codeHosting";
import { Notice } from "../../ui/parts";
import { Field, FormActions, RefusalLine, type Refusal } from "../../ui/form";

/** What a saved code hosting says in the status line (the JSON route's htmx answer, and the form without JavaScript). */
export const CODE_HOSTING_SAVED = "Code hosting saved.";

/** A refused save without JavaScript (`POST /org/code-hosting`, pages/org.tsx): what was typed, the problems by field. */
export interface CodeHostingAttempt {
  values: { provider: string; url: string; defaultBranch: string };
  refusal: Refusal;
}

/** Code hosting (docs/api.md "Code hosting"): where the organization's repositories live; evidence links are made from it. Members read it, owners and admins set it. */
export function CodeHostingSection(props: {
  codeHosting: CodeHosting | null;
  admin: boolean;
  notice?: string;
  attempt?: CodeHostingAttempt;
}) {
  const h = props.codeHosting;
  const v = props.attempt?.values ?? { provider: h?.provider ?? "", url: h?.url ?? "", defaultBranch: h?.defaultBranch ?? "main" };
  const at = (field: string) => props.attempt?.refusal.fields[field] ?? null;
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
          {/* without JavaScript the form posts to /org/code-hosting, which answers /org again when it refuses */}
          <form
            method="post"
            action="/org/code-hosting"
            hx-put={route}
            hx-target="#code-hosting"
            hx-swap="outerHTML"
            id="code-hosting-form"
          >
            <RefusalLine id="code-hosting-refused" refusal={props.attempt?.refusal} />
            <Field id="ch-provider" label="Provider" error={at("ch-provider")}>
              <select name="provider">
                {CODE_HOSTS.map((p) => (
                  <option value={p} selected={v.provider === p}>
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
              error={at("ch-url")}
            >
              <input name="url" required maxlength={500} value={v.url} placeholder="https://github.com/acme" />
            </Field>
            <Field id="ch-branch" label="Default branch" error={at("ch-branch")}>
              <input name="defaultBranch" maxlength={100} value={v.defaultBranch} />
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
