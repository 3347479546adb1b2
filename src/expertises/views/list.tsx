/** @jsxImportSource hono/jsx */
/**
 * The list of expertises with its status filter, the creation form, and what every expertise
 * view shares (the routes, the page of one, dates, the status tag). Composed by
 * src/expertises/pages.tsx; the other views are in editor.tsx and lifecycle.tsx.
 */
import { utcMinute } from "../../lib/time";
import type { detailView, listExpertises } from "../service";
import { DataTable } from "../../ui/layout";

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

/** A TALENT.md skeleton for a new expertise (the validator says what is still missing). */
export function starterContent(slug = "my-expertise"): string {
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
                {e.serving ? `v${e.serving}` : e.publishedVersion > 0 ? <span class="muted">v{e.publishedVersion} (not served)</span> : "—"}
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

/** The creation form: a slug and a first TALENT.md (a skeleton to edit). */
export function CreateForm() {
  return (
    <section class="card" aria-labelledby="create-h">
      <h2 id="create-h">New expertise</h2>
      <form method="post" action={ROUTE} hx-post={ROUTE}>
        <label for="new-slug">Slug (designated as @organization/slug; the front matter id must equal it)</label>
        <input id="new-slug" name="slug" required maxlength={64} pattern="[a-z0-9]+(-[a-z0-9]+)*" placeholder="payments" />
        <label for="new-content">TALENT.md</label>
        <textarea id="new-content" name="content" rows={12} spellcheck={false} class="code">
          {starterContent()}
        </textarea>
        <p>
          <button type="submit">Create draft</button>
        </p>
      </form>
    </section>
  );
}
