/** @jsxImportSource hono/jsx */
/**
 * The authoring form of an expertise (authoring.ts makes its TALENT.md): title, summary, roles and languages, triggers
 * (path globs, task words), the rules as repeated rows (title, how to check it, severity, a passing and a failing
 * example) and the guidance. No JavaScript needed: a save with every row filled comes back with two more blank rows.
 */
import type { Issue } from "../../http/errors";
import { Field, FormActions, RefusedIssues } from "../../ui/form";
import { isFilled, MAX_RULE_ROWS, MIN_RULE_ROWS, type AuthoringFields, type RuleFields } from "../authoring";

const blankRule = (): RuleFields => ({ id: "", severity: "advisory", title: "", check: "", pass: "", fail: "" });

/** The rows the form shows: the filled ones, then blank ones up to at least MIN_RULE_ROWS and two spare (at most MAX_RULE_ROWS). */
export function ruleRows(rules: RuleFields[]): RuleFields[] {
  const filled = rules.filter(isFilled);
  const count = Math.min(MAX_RULE_ROWS, Math.max(MIN_RULE_ROWS, filled.length + 2));
  return [...filled, ...Array.from({ length: Math.max(0, count - filled.length) }, blankRule)];
}

function RuleRow(props: { n: number; r: RuleFields }) {
  const { n, r } = props;
  const id = (f: string) => `rule-${n}-${f}`;
  const name = (f: string) => `rule_${n}_${f}`;
  return (
    <fieldset class="rule-row" id={`rule-${n}`}>
      <legend>
        Rule {n + 1}
        {r.id ? <code class="muted small"> {r.id}</code> : null}
      </legend>
      <input type="hidden" name={name("id")} value={r.id} />
      <Field id={id("title")} label="Rule" help={n === 0 ? "One imperative sentence: “Make every migration reversible.”" : undefined}>
        <input name={name("title")} value={r.title} maxlength={160} />
      </Field>
      <Field id={id("check")} label="How to check it" help={n === 0 ? "What a reviewer looks for in a diff." : undefined}>
        <textarea name={name("check")} rows={2} maxlength={600}>
          {r.check}
        </textarea>
      </Field>
      <Field id={id("severity")} label="Severity">
        <select name={name("severity")}>
          <option value="advisory" selected={r.severity === "advisory"}>
            advisory
          </option>
          <option value="blocking" selected={r.severity === "blocking"}>
            blocking: the work must not land while violated
          </option>
        </select>
      </Field>
      <Field
        id={id("pass")}
        label="Passes"
        help={n === 0 ? "A short snippet that follows the rule (a blocking rule needs both examples)." : undefined}
      >
        <input name={name("pass")} value={r.pass} class="code" />
      </Field>
      <Field id={id("fail")} label="Fails">
        <input name={name("fail")} value={r.fail} class="code" />
      </Field>
    </fieldset>
  );
}

/** A taken slug's expertise, as the refused form offers it: its reference, its page, its id and working revision. */
export interface SlugOffer {
  ref: string;
  href: string;
  id: string;
  revision: number;
}

/**
 * Beside the slug of a new expertise that is taken: the expertise it belongs to (a link) and a button that sends the
 * same form again as a new draft version of it (`overwrite` = its id, at the revision shown).
 */
function SaveAsVersion(props: { offer: SlugOffer }) {
  const o = props.offer;
  return (
    <div class="slug-taken" id="form-slug-taken">
      <p>
        <a href={o.href}>
          <code>{o.ref}</code>
        </a>{" "}
        already exists. Save this form as a new draft version of it instead? Its published version stays served until you publish the draft.
      </p>
      <input type="hidden" name="overwriteRevision" value={String(o.revision)} />
      <button type="submit" name="overwrite" value={o.id} class="secondary" id="save-as-version">
        Save as a new version of {o.ref}
      </button>
    </div>
  );
}

/**
 * The form (`action`: the page it posts to). `slug`: the slug field of a new expertise (its value), absent when editing;
 * `revision`: the working revision the edit is based on; `issues`: a refused save's problems (one whose path is `slug`
 * also under the slug); `offer`: the expertise a taken slug belongs to.
 */
export function AuthoringForm(props: {
  action: string;
  fields: AuthoringFields;
  slug?: string;
  revision?: number;
  issues?: Issue[];
  offer?: SlugOffer | null;
  yamlHref: string;
}) {
  const f = props.fields;
  const slugError = props.slug === undefined ? null : (props.issues?.find((i) => i.path === "slug")?.message ?? null);
  // a problem of the slug is said under it; the alert above the form points there
  const others = (props.issues ?? []).filter((i) => !slugError || i.path !== "slug");
  const top = slugError ? [...others, { path: "", message: "See the problem under the slug." }] : others;
  const rows = ruleRows(f.rules);
  return (
    <section class="card" id="authoring" aria-labelledby="authoring-h">
      <h2 id="authoring-h">{props.slug !== undefined ? "Write it with the form" : "Edit with the form"}</h2>
      <p class="muted">
        The form writes the expertise's TALENT.md (front matter and guidance) for you; what it does not show is kept.{" "}
        <a href={props.yamlHref}>Advanced: edit the TALENT.md (YAML) instead</a>.
      </p>
      <RefusedIssues id="authoring-refused" issues={top} />
      <form method="post" action={props.action} id="authoring-form">
        {props.revision !== undefined ? <input type="hidden" name="expectedRevision" value={String(props.revision)} /> : null}
        {props.slug !== undefined ? (
          <>
            <Field id="form-slug" label="Slug" help="The expertise's id, designated as @organization/slug." error={slugError}>
              <input name="slug" required maxlength={64} pattern="[a-z0-9]+(-[a-z0-9]+)*" placeholder="payments" value={props.slug} />
            </Field>
            {props.offer ? <SaveAsVersion offer={props.offer} /> : null}
          </>
        ) : null}
        <Field id="form-title" label="Title">
          <input name="title" value={f.title} maxlength={80} required placeholder="Payments service" />
        </Field>
        <Field id="form-summary" label="Summary" help="What it covers and when an agent should use it.">
          <textarea name="summary" rows={2} maxlength={300} required>
            {f.summary}
          </textarea>
        </Field>
        <Field id="form-roles" label="Roles" help="Comma-separated: backend, frontend, devops, reviewer…">
          <input name="roles" value={f.roles} />
        </Field>
        <Field id="form-languages" label="Languages" help="Comma-separated, lower-case: typescript, python, sql…">
          <input name="languages" value={f.languages} />
        </Field>
        <Field id="form-files" label="Path globs" help="One per line: the files it applies to (src/payments/**, **/*.sql).">
          <textarea name="files" rows={3} spellcheck={false} class="code">
            {f.files}
          </textarea>
        </Field>
        <Field id="form-keywords" label="Task words" help="One per line: words a task may mention (refund, invoice).">
          <textarea name="keywords" rows={3}>
            {f.keywords}
          </textarea>
        </Field>
        <input type="hidden" name="ruleCount" value={String(rows.length)} />
        <div class="rule-rows" id="form-rules">
          <h3>Rules</h3>
          <p class="muted small">3 to 12 rules; leave a row blank to drop it. Save to get more blank rows.</p>
          {rows.map((r, n) => (
            <RuleRow n={n} r={r} />
          ))}
        </div>
        <Field id="form-body" label="Guidance" help="Markdown: what an agent is served beside the rules.">
          <textarea name="body" rows={8} class="code">
            {f.body}
          </textarea>
        </Field>
        <FormActions>
          <button type="submit">{props.slug !== undefined ? "Create draft" : "Save"}</button>
        </FormActions>
      </form>
    </section>
  );
}
