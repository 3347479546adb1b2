/** @jsxImportSource hono/jsx */
/**
 * The list of expertises with its status filter, the creation form, and what every expertise
 * view shares (the routes, the page of one, dates, the status tag). Composed by
 * src/expertises/pages.tsx; the other views are in editor.tsx and lifecycle.tsx.
 */
import { utcMinute } from "../../lib/time";
import type { detailView, listExpertises } from "../service";
import { DataTable } from "../../ui/layout";
import { Field, FormActions } from "../../ui/form";

export type ExpertiseDetail = Awaited<ReturnType<typeof detailView>>;
export type ExpertiseSummary = Awaited<ReturnType<typeof listExpertises>>[number];

export const EXPERTISES_PAGE = "/org/expertises";
/** The routes of the expertises, which the forms post to. */
export const ROUTE = "/web/orgs/current/expertises";
/** The page of one expertise. */
export const pageOf = (id: string): string => `${EXPERTISES_PAGE}/${id}`;
/** An ISO time as the pages show it, to the minute, or a dash. */
export const when = (s: string | null | undefined): string => (s ? `${utcMinute(s)} UTC` : "—");

/** The statuses of an expertise, in the order the list filters them. */
export const STATUSES = ["draft", "published", "active", "inactive"] as const;

/** The id the TALENT.md skeleton carries until a slug is typed (the slug replaces it: `idFollowsSlug`). */
export const TEMPLATE_ID = "my-expertise";

/** A TALENT.md skeleton for a new expertise (the validator says what is still missing). */
export function starterContent(slug = TEMPLATE_ID): string {
  return `---
id: ${slug}
title: What this expertise covers
summary: What it covers and when to designate it.
version: 1.0.0
roles: [backend]
languages: [typescript]
budget: 1200
rules:
  - { id: EXP-001, severity: blocking, title: The first rule., check: How to verify it in a diff. }
  - { id: EXP-002, severity: blocking, title: The second rule., check: How to verify it in a diff. }
  - { id: EXP-003, severity: advisory, title: The third rule., check: How to verify it in a diff. }
tests:
  - { rule: EXP-001, pass: "good()", fail: "bad()" }
  - { rule: EXP-002, pass: "good()", fail: "bad()" }
---
The compact guidance an agent is served.
`;
}

/** The creation form's text with the skeleton's id replaced by the slug (what app.js does as the slug is typed). */
export function idFollowsSlug(content: string, slug: string): string {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) return content;
  const end = content.indexOf("\n---", 3);
  if (!content.startsWith("---\n") || end < 0) return content;
  const head = content.slice(0, end).replace(new RegExp(`^id:[ \\t]*${TEMPLATE_ID}[ \\t]*$`, "m"), `id: ${slug}`);
  return head + content.slice(end);
}

/** An expertise's status as a tag. */
export function StatusTag(props: { status: string }) {
  return (
    <span class={`state ${props.status === "active" ? "active" : props.status === "inactive" ? "disabled" : ""}`}>{props.status}</span>
  );
}

/** The list with its status filter. */
export function ExpertiseList(props: { items: ExpertiseSummary[]; status: string | undefined }) {
  return (
    <section class="card" aria-labelledby="list-h">
      <div class="row">
        <h2 id="list-h">Expertises</h2>
        <form method="get" action={EXPERTISES_PAGE} class="inline" role="search">
          <label for="status-filter" class="visually-hidden">
            Status
          </label>
          <select id="status-filter" name="status">
            <option value="" selected={!props.status}>
              All statuses
            </option>
            {STATUSES.map((s) => (
              <option value={s} selected={props.status === s}>
                {s}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary small">
            Filter
          </button>
        </form>
      </div>
      {props.items.length === 0 ? (
        <p class="muted">{props.status ? `No ${props.status} expertise.` : "No expertise yet: create the first one below."}</p>
      ) : (
        <DataTable caption="Expertises of the organization, by slug" columns={["Expertise", "Status", "Serving", "Revision", "Updated"]}>
          {props.items.map((e) => (
            <tr>
              <td>
                <a href={pageOf(e.id)}>
                  <code>{e.ref}</code>
                </a>
                {e.title ? <div class="muted small">{e.title}</div> : null}
              </td>
              <td>
                <StatusTag status={e.status} />
              </td>
              <td>
                {e.serving ? (
                  (e.publishedDeclaredVersion ?? `publication ${e.serving}`)
                ) : e.publishedVersion > 0 ? (
                  <span class="muted">{e.publishedDeclaredVersion ?? `publication ${e.publishedVersion}`} (not served)</span>
                ) : (
                  "—"
                )}
              </td>
              <td>{e.revision}</td>
              <td class="small">{when(e.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** What a refused creation sends back to the form: what was typed and each problem by field ("" = the form as a whole). */
export interface CreateAttempt {
  slug: string;
  content: string;
  problems: { field: string; message: string }[];
}

/** The problems of the creation form about `field` ("" = the form as a whole), in one line, or null. */
function problemOf(attempt: CreateAttempt | undefined, field: string): string | null {
  const mine = (attempt?.problems ?? []).filter((p) => p.field === field).map((p) => p.message);
  return mine.length > 0 ? mine.join(" ") : null;
}

/**
 * The creation form: a slug and a first TALENT.md (a skeleton whose id follows the slug). It posts
 * to the page, so that a refusal (a taken slug: 409) comes back beside the field it concerns.
 */
export function CreateForm(props: { attempt?: CreateAttempt }) {
  const a = props.attempt;
  const whole = problemOf(a, "");
  return (
    <section class="card" id="create" aria-labelledby="create-h">
      <h2 id="create-h">New expertise</h2>
      <p>
        <a class="button" href={`${EXPERTISES_PAGE}/new`} id="create-with-form">
          Write it with the form
        </a>{" "}
        <span class="muted">Title, summary, triggers and rules, field by field. Advanced: write its TALENT.md (YAML) below.</span>
      </p>
      {whole ? (
        <p id="create-problem" class="error" role="alert">
          {whole}
        </p>
      ) : null}
      <form method="post" action={EXPERTISES_PAGE}>
        <Field
          id="new-slug"
          label="Slug"
          help="The expertise's id, designated as @organization/slug (the TALENT.md id follows it)."
          error={problemOf(a, "slug")}
        >
          <input
            name="slug"
            required
            maxlength={64}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            placeholder="payments"
            value={a?.slug ?? ""}
            data-id-follows="#new-content"
            data-template-id={TEMPLATE_ID}
          />
        </Field>
        <Field id="new-content" label="TALENT.md" error={problemOf(a, "content")}>
          <textarea name="content" rows={12} spellcheck={false} class="code">
            {a?.content ?? starterContent()}
          </textarea>
        </Field>
        <FormActions>
          <button type="submit">Create draft</button>
        </FormActions>
      </form>
    </section>
  );
}
