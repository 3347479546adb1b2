/** @jsxImportSource hono/jsx */
/**
 * The HTML views of the expertise routes (DESIGN §12: a resource's fragments beside its
 * routes): the list, the creation form, the editor of the working version (TALENT.md and its
 * files) with the merge view of a revision conflict, the validator's issues beside the lines
 * they concern, the trigger proposal and its confirmation, the lifecycle buttons, the versions
 * and the typed deletion. The page (src/web/orgExpertisesPages.tsx) composes them; after a
 * change through htmx or a plain form the route sends the browser back to the page
 * (registerExpertiseViews).
 */
import type { Issue } from "../http/errors";
import type { ViewRegistry } from "../web/views";
import type { LifecycleOperation } from "./lifecycle";
import type { detailView, listExpertises } from "./service";
import type { TriggerProposal } from "./triggers";
import { DataTable } from "../web/layout";

export type ExpertiseDetail = Awaited<ReturnType<typeof detailView>>;
export type ExpertiseSummary = Awaited<ReturnType<typeof listExpertises>>[number];

export const EXPERTISES_PAGE = "/org/expertises";
const ROUTE = "/web/orgs/current/expertises";
const pageOf = (id: string) => `${EXPERTISES_PAGE}/${id}`;
const when = (s: string | null | undefined) => (s ? s.replace("T", " ").slice(0, 16) + " UTC" : "—");

/** What the person typed in the editor: the TALENT.md text and the further files. */
export interface Draft {
  content: string;
  files: Record<string, string>;
}

/** The server's working version a conflicting save ran into (409 expertise_revision_conflict `current`). */
export interface ServerVersion {
  revision: number;
  content: string;
  files: Record<string, string>;
  updatedAt: string | null;
}

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

function StatusTag(props: { status: string }) {
  return <span class={`state ${props.status === "active" ? "active" : props.status === "inactive" ? "disabled" : ""}`}>{props.status}</span>;
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
              <td>{e.serving ? `v${e.serving}` : e.publishedVersion > 0 ? <span class="muted">v{e.publishedVersion} (not served)</span> : "—"}</td>
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

/** Where in TALENT.md the validator's finding lies: a 0-based line index, or null (the file as a whole). */
export function lineOfIssue(content: string, field: string, message: string): number | null {
  const lines = content.replace(/\r\n/g, "\n").split("\n");
  const fmEnd = lines[0]?.trim() === "---" ? lines.findIndex((l, i) => i > 0 && l.trim() === "---") : -1;
  const top = /^[A-Za-z_][\w-]*/.exec(field)?.[0];
  if (!top) return null;
  if (top === "body" || fmEnd < 0) {
    const pointer = /talent:\/\/\S+/.exec(message)?.[0]?.replace(/[:,.]$/, "");
    const from = fmEnd < 0 ? 0 : fmEnd + 1;
    if (pointer) {
      for (let i = from; i < lines.length; i++) if (lines[i]!.includes(pointer)) return i;
    }
    return top === "body" && fmEnd >= 0 && fmEnd + 1 < lines.length ? fmEnd + 1 : null;
  }
  const key = new RegExp(`^${top}\\s*:`);
  const at = lines.findIndex((l, i) => i > 0 && i < fmEnd && key.test(l));
  if (at < 0) return 0; // a missing field: the front matter's opening line
  const sub = /^\w[\w-]*\[([^\]]+)\]/.exec(field)?.[1];
  if (sub === undefined) return at;
  let end = lines.findIndex((l, i) => i > at && i < fmEnd && /^[A-Za-z_]/.test(l));
  if (end < 0) end = fmEnd;
  if (/^\d+$/.test(sub)) {
    let n = -1;
    for (let i = at + 1; i < end; i++) if (/^\s*-\s/.test(lines[i]!) && ++n === Number(sub)) return i;
    return at;
  }
  for (let i = at + 1; i < end; i++) if (lines[i]!.includes(sub)) return i;
  return at;
}

/** Splits verification issues by file: `<ref>/<file>: <field>` → file, field. */
function splitIssue(ref: string, i: Issue): { file: string; field: string } {
  const colon = i.path.indexOf(": ");
  const head = colon < 0 ? i.path : i.path.slice(0, colon);
  const field = colon < 0 ? "" : i.path.slice(colon + 2);
  const file = head.startsWith(ref + "/") ? head.slice(ref.length + 1) : head;
  return { file, field };
}

/**
 * The working TALENT.md with numbered lines and each validator finding under the line it
 * concerns (findings about another file or no line are listed first).
 */
export function IssuesByLine(props: { ref: string; content: string; issues: Issue[] }) {
  const byLine = new Map<number, Issue[]>();
  const elsewhere: { file: string; issue: Issue }[] = [];
  for (const issue of props.issues) {
    const { file, field } = splitIssue(props.ref, issue);
    const line = file === "TALENT.md" || file === "SKILL.md" ? lineOfIssue(props.content, field, issue.message) : null;
    if (line === null) elsewhere.push({ file, issue });
    else (byLine.get(line) ?? byLine.set(line, []).get(line)!).push(issue);
  }
  const lines = props.content.replace(/\r\n/g, "\n").split("\n");
  return (
    <section class="card" id="check" aria-labelledby="check-h">
      <h2 id="check-h">Check</h2>
      {props.issues.length === 0 ? (
        <p class="ok">The working version passes the talent validator.</p>
      ) : (
        <p class="error">
          {props.issues.length} problem{props.issues.length === 1 ? "" : "s"} the validator would refuse at publication, beside the lines they concern:
        </p>
      )}
      {elsewhere.length > 0 ? (
        <ul class="issues">
          {elsewhere.map((e) => (
            <li class="error">
              <code>{e.file}</code> {e.issue.path.includes(": ") ? <code>{e.issue.path.slice(e.issue.path.indexOf(": ") + 2)}</code> : null} {e.issue.message}
            </li>
          ))}
        </ul>
      ) : null}
      {props.issues.length > 0 ? (
        <ol class="source" aria-label="TALENT.md with its problems">
          {lines.map((l, i) => (
            <li id={`L${i + 1}`} class={byLine.has(i) ? "has-issue" : undefined}>
              <code>{l === "" ? " " : l}</code>
              {(byLine.get(i) ?? []).map((issue) => (
                <div class="line-issue error" role="note">
                  ↑ <code>{splitIssue(props.ref, issue).field}</code> {issue.message}
                </div>
              ))}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

function FileEditors(props: { files: Record<string, string>; issues: Issue[]; ref: string; readonlyPrefix?: string }) {
  const entries = Object.entries(props.files);
  return (
    <fieldset class="files">
      <legend>Further files (clear a path to remove its file)</legend>
      <input type="hidden" name="fileCount" value={String(entries.length + 1)} />
      {[...entries, ["", ""] as [string, string]].map(([path, text], n) => {
        const mine = props.issues.filter((i) => path !== "" && splitIssue(props.ref, i).file === path);
        return (
          <div class="file-edit">
            <label for={`fpath_${n}`}>{path === "" ? "New file path" : `Path of file ${n + 1}`}</label>
            <input id={`fpath_${n}`} name={`fpath_${n}`} value={path} maxlength={200} placeholder={path === "" ? "references/runbook.md" : undefined} />
            <label for={`ftext_${n}`}>{path === "" ? "New file text" : `Text of ${path}`}</label>
            <textarea id={`ftext_${n}`} name={`ftext_${n}`} rows={path === "" ? 3 : 6} spellcheck={false} class="code">
              {text}
            </textarea>
            {mine.map((i) => (
              <div class="line-issue error" role="note">
                <code>{splitIssue(props.ref, i).field}</code> {i.message}
              </div>
            ))}
          </div>
        );
      })}
    </fieldset>
  );
}

/**
 * The editor of the working version. It saves with the revision it was read at; after a
 * conflict (`server`), the person's text stays editable beside the server's, read-only, and the
 * next save carries the server's revision.
 */
export function Editor(props: { e: ExpertiseDetail; draft?: Draft; server?: ServerVersion; editedRevision?: number; issues?: Issue[] }) {
  const e = props.e;
  const draft = props.draft ?? e.working;
  const revision = props.server ? props.server.revision : e.revision;
  return (
    <section class="card" id="editor" aria-labelledby="editor-h">
      <h2 id="editor-h">{props.server ? "Merge and save again" : "Working version"}</h2>
      {props.server ? (
        <div class="flash error conflict" role="alert">
          <strong>Someone saved this expertise since you opened it.</strong> The server is at revision {props.server.revision} (saved {when(props.server.updatedAt)}), you edited
          revision {props.editedRevision ?? "an older one"}. Your text is on the left, the server's on the right: merge what you want to keep into yours and
          save again.
        </div>
      ) : null}
      {props.issues && props.issues.length > 0 ? (
        <div class="flash error" role="alert">
          <strong>Not saved.</strong>
          <ul>
            {props.issues.map((i) => (
              <li>
                {i.path ? <code>{i.path}</code> : null} {i.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="post" action={pageOf(e.id)}>
        <input type="hidden" name="expectedRevision" value={String(revision)} />
        <div class={props.server ? "merge" : undefined}>
          <div>
            <label for="content">{props.server ? "Your TALENT.md (will be saved)" : `TALENT.md (revision ${e.revision})`}</label>
            <textarea id="content" name="content" rows={22} spellcheck={false} class="code">
              {draft.content}
            </textarea>
          </div>
          {props.server ? (
            <div>
              <label for="server-content">Server's TALENT.md (revision {props.server.revision}, read-only)</label>
              <textarea id="server-content" rows={22} readonly spellcheck={false} class="code">
                {props.server.content}
              </textarea>
            </div>
          ) : null}
        </div>
        <div class={props.server ? "merge" : undefined}>
          <FileEditors files={draft.files} issues={props.server ? [] : e.verification.issues} ref={e.ref} />
          {props.server ? (
            <fieldset class="files">
              <legend>Server's further files (read-only)</legend>
              {Object.keys(props.server.files).length === 0 ? <p class="muted">None.</p> : null}
              {Object.entries(props.server.files).map(([path, text], n) => (
                <>
                  <label for={`server-file-${n}`}>{path}</label>
                  <textarea id={`server-file-${n}`} rows={6} readonly class="code">
                    {text}
                  </textarea>
                </>
              ))}
            </fieldset>
          ) : null}
        </div>
        <p>
          <button type="submit">{props.server ? `Save over revision ${props.server.revision}` : "Save"}</button>
          {props.server ? (
            <>
              {" "}
              <a href={pageOf(e.id)}>Discard my text and reload</a>
            </>
          ) : null}
        </p>
      </form>
    </section>
  );
}

/** The confirmation form of triggers, prefilled with a proposal or the confirmed ones. */
export function TriggerConfirmForm(props: { id: string; revision: number; files: string[]; keywords: string[]; proposal?: TriggerProposal }) {
  const target = `${ROUTE}/${props.id}/triggers`;
  return (
    <form method="post" action={`${target}?_method=PUT`} hx-put={target} hx-swap="none" id="trigger-form">
      <input type="hidden" name="expectedRevision" value={String(props.revision)} />
      <input type="hidden" name="return" value={pageOf(props.id)} />
      <div class="merge">
        <div>
          <label for="trigger-files">File globs (one per line)</label>
          <textarea id="trigger-files" name="files" rows={5} spellcheck={false} class="code">
            {props.files.join("\n")}
          </textarea>
          {props.proposal ? (
            <ul class="small muted why">
              {props.proposal.files.map((f) => (
                <li>
                  <code>{f.value}</code>: {f.why}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <div>
          <label for="trigger-keywords">Keywords (one per line)</label>
          <textarea id="trigger-keywords" name="keywords" rows={5} spellcheck={false} class="code">
            {props.keywords.join("\n")}
          </textarea>
          {props.proposal ? (
            <ul class="small muted why">
              {props.proposal.keywords.map((k) => (
                <li>
                  <code>{k.value}</code>: {k.why}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </div>
      <p>
        <button type="submit">Confirm triggers</button>
      </p>
    </form>
  );
}

/** The proposal fragment (POST …/trigger-proposal for htmx, `?propose=1` without JavaScript). */
export function TriggerProposalView(props: { id: string; revision: number; proposal: TriggerProposal }) {
  return (
    <div id="proposal">
      <p>
        Proposed from the working TALENT.md (revision {props.revision}); keep, change or remove lines, then confirm. Nothing is stored until you confirm.
      </p>
      <TriggerConfirmForm id={props.id} revision={props.revision} files={props.proposal.files.map((f) => f.value)} keywords={props.proposal.keywords.map((k) => k.value)} proposal={props.proposal} />
    </div>
  );
}

/** Confirmed triggers, the proposal button, and (when asked) the proposal. */
export function TriggersSection(props: { e: ExpertiseDetail; proposal?: TriggerProposal }) {
  const e = props.e;
  return (
    <section class="card" id="triggers" aria-labelledby="triggers-h">
      <h2 id="triggers-h">Triggers</h2>
      {e.triggers ? (
        <p>
          Confirmed {when(e.triggersConfirmedAt)}: files {e.triggers.files.length > 0 ? e.triggers.files.map((f) => <code>{f} </code>) : "none"}; keywords{" "}
          {e.triggers.keywords.length > 0 ? e.triggers.keywords.map((k) => <code>{k} </code>) : "none"}.
        </p>
      ) : (
        <p class="muted">Not confirmed yet: publication needs confirmed triggers (what makes an agent designate this expertise).</p>
      )}
      <form method="get" action={`${pageOf(e.id)}#triggers`} hx-post={`${ROUTE}/${e.id}/trigger-proposal`} hx-target="#proposal" hx-swap="outerHTML">
        <input type="hidden" name="propose" value="1" />
        <button type="submit" class="secondary">
          Propose triggers
        </button>
      </form>
      {props.proposal ? <TriggerProposalView id={e.id} revision={e.revision} proposal={props.proposal} /> : <div id="proposal"></div>}
      {e.triggers && !props.proposal ? (
        <details>
          <summary>Edit the confirmed triggers</summary>
          <TriggerConfirmForm id={e.id} revision={e.revision} files={e.triggers.files} keywords={e.triggers.keywords} />
        </details>
      ) : null}
    </section>
  );
}

const OPERATION_LABEL: Record<LifecycleOperation, string> = { publish: "Publish", activate: "Activate", deactivate: "Deactivate", reactivate: "Reactivate" };
const OPERATION_HELP: Record<LifecycleOperation, string> = {
  publish: "Snapshots the working version into a new immutable version.",
  activate: "Serves the latest published version to the organization's projects that install it.",
  deactivate: "Stops serving it (reactivate serves it again; recorded resolutions keep their version).",
  reactivate: "Serves the latest published version again.",
};

/** The lifecycle operations possible from the current status, each a form to its route. */
export function LifecycleSection(props: { e: ExpertiseDetail }) {
  const e = props.e;
  return (
    <section class="card" id="lifecycle" aria-labelledby="lifecycle-h">
      <h2 id="lifecycle-h">Publication and lifecycle</h2>
      <p>
        Status <StatusTag status={e.status} />
        {e.serving ? ` · serving version ${e.serving}` : e.publishedVersion > 0 ? ` · latest version ${e.publishedVersion}, not served` : " · never published"}
      </p>
      {e.allowedOperations.includes("publish") && !e.verification.publishable ? (
        <p class="muted small">
          Publication will be refused until {[!e.verification.valid ? "the check below passes" : null, !e.verification.triggersConfirmed ? "triggers are confirmed" : null].filter(Boolean).join(" and ")}.
        </p>
      ) : null}
      <div class="actions-row">
        {e.allowedOperations.map((op) => (
          <form method="post" action={`${ROUTE}/${e.id}/${op}`} hx-post={`${ROUTE}/${e.id}/${op}`} hx-swap="none">
            <input type="hidden" name="return" value={pageOf(e.id)} />
            {op === "publish" ? <input type="hidden" name="expectedRevision" value={String(e.revision)} /> : null}
            <button type="submit" class={op === "deactivate" ? "secondary" : undefined} title={OPERATION_HELP[op]}>
              {OPERATION_LABEL[op]}
              {op === "publish" ? ` revision ${e.revision}` : ""}
            </button>
          </form>
        ))}
      </div>
      <ul class="small muted">
        {e.allowedOperations.map((op) => (
          <li>
            {OPERATION_LABEL[op]}: {OPERATION_HELP[op]}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Published versions, newest first, with their dates. */
export function VersionsSection(props: { e: ExpertiseDetail }) {
  const versions = [...props.e.versions].reverse();
  return (
    <section class="card" id="versions" aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      {versions.length === 0 ? (
        <p class="muted">No version yet: publish the working version to create version 1.</p>
      ) : (
        <DataTable caption="Published versions, newest first" columns={["Version", "Published", "By", "Files", "Digest"]}>
          {versions.map((v) => (
            <tr>
              <td>
                v{v.version}
                {props.e.serving === v.version ? <span class="tag">serving</span> : null}
              </td>
              <td class="small">{when(v.publishedAt)}</td>
              <td class="small">{v.publishedBy?.email ?? "—"}</td>
              <td class="small">{Object.keys(v.files).length + 1}</td>
              <td class="small">
                <code>{v.contentDigest.slice(0, 19)}…</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** Deletion with a typed confirmation (the slug), like a project's. */
export function DeleteSection(props: { e: ExpertiseDetail }) {
  const e = props.e;
  return (
    <section class="card danger-zone" aria-labelledby="delete-h">
      <h2 id="delete-h">Delete this expertise</h2>
      <p>It stops being served and designable at once, and leaves the list. Its slug stays reserved; resolutions that pinned a version still read and audit it.</p>
      <form method="post" action={`${ROUTE}/${e.id}?_method=DELETE`} hx-delete={`${ROUTE}/${e.id}`} data-confirm-name={e.slug}>
        <label for="confirm-name">
          Type <strong>{e.slug}</strong> to confirm
        </label>
        <input id="confirm-name" name="confirm" autocomplete="off" required />
        <p>
          <button type="submit" class="danger">
            Delete {e.ref}
          </button>
        </p>
      </form>
    </section>
  );
}

/** The route views of the expertise routes: every change sends the browser back to the page. */
export function registerExpertiseViews(views: ViewRegistry): void {
  const registerView = views.register.bind(views);
  const back = (done: string) => (_d: unknown, ctx: { params: Record<string, string> }) => `${pageOf(ctx.params.id!)}?done=${done}`;
  registerView("POST", `${ROUTE}/`, { redirect: (data) => `${pageOf((data as { id: string }).id)}?done=created` });
  registerView("PATCH", `${ROUTE}/:id`, { redirect: back("saved") });
  registerView("PUT", `${ROUTE}/:id/triggers`, { redirect: back("triggers") });
  for (const op of ["publish", "activate", "deactivate", "reactivate"] as const) registerView("POST", `${ROUTE}/:id/${op}`, { redirect: back(op) });
  registerView("DELETE", `${ROUTE}/:id`, { redirect: () => `${EXPERTISES_PAGE}?done=deleted` });
  registerView("POST", `${ROUTE}/:id/trigger-proposal`, {
    fragment: (data) => {
      const d = data as TriggerProposal & { id: string; revision: number };
      return <TriggerProposalView id={d.id} revision={d.revision} proposal={{ files: d.files, keywords: d.keywords }} />;
    },
  });
}
