/** @jsxImportSource hono/jsx */
/**
 * The editor of an expertise's working version (TALENT.md and its files), the merge view of a
 * revision conflict, and the validator's issues beside the lines they concern.
 */
import type { Issue } from "../../http/errors";
import { Field, FormActions, RefusedIssues } from "../../ui/form";
import { pageOf, when, type ExpertiseDetail } from "./list";

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

/** Where in TALENT.md the validator's finding lies: a 0-based line index, or null (the file as a whole). */
export function lineOfIssue(content: string, field: string, message: string): number | null {
  const lines = content.replace(/\r\n/g, "\n").split("\n");
  const fmEnd = lines[0]?.trim() === "---" ? lines.findIndex((l, i) => i > 0 && l.trim() === "---") : -1;
  // a YAML error names its line in the whole file (catalog/frontMatter.ts)
  const yamlLine =
    field === "front matter" ? /\bat line (\d+)/.exec(message)?.[1] : field === "content" ? /^line (\d+)/.exec(message)?.[1] : undefined;
  if (yamlLine !== undefined && Number(yamlLine) <= lines.length) return Number(yamlLine) - 1;
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
export function IssuesByLine(props: { ref: string; content: string; issues: Issue[]; findings?: Issue[] }) {
  const byLine = new Map<number, Issue[]>();
  const elsewhere: { file: string; issue: Issue }[] = [];
  const findings = new Set(props.findings ?? []); // the content check's, to acknowledge (not refusals)
  for (const issue of [...props.issues, ...findings]) {
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
          {props.issues.length} problem{props.issues.length === 1 ? "" : "s"} the validator would refuse at publication, beside the lines
          they concern:
        </p>
      )}
      {elsewhere.length > 0 ? (
        <ul class="issues">
          {elsewhere.map((e) => (
            <li class={findings.has(e.issue) ? "warning" : "error"}>
              <code>{e.file}</code> {e.issue.path.includes(": ") ? <code>{e.issue.path.slice(e.issue.path.indexOf(": ") + 2)}</code> : null}{" "}
              {e.issue.message}
            </li>
          ))}
        </ul>
      ) : null}
      {findings.size > 0 ? (
        <p class="warning">
          {findings.size} content finding{findings.size === 1 ? "" : "s"} to read before publishing (text that could steer an agent rather
          than its code), beside the lines they concern:
        </p>
      ) : null}
      {props.issues.length + findings.size > 0 ? (
        <ol class="source" aria-label="TALENT.md with its problems" tabindex={0}>
          {lines.map((l, i) => (
            <li id={`L${i + 1}`} class={byLine.has(i) ? "has-issue" : undefined}>
              <code>{l === "" ? " " : l}</code>
              {(byLine.get(i) ?? []).map((issue) => (
                <div class={`line-issue ${findings.has(issue) ? "warning" : "error"}`} role="note">
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

/** What a refused save says about `path` (a field of the form: "content", "files.<path>"), in one line, or null. */
function refusedAt(issues: Issue[] | undefined, path: string): string | null {
  const mine = (issues ?? []).filter((i) => i.path === path).map((i) => i.message);
  return mine.length > 0 ? mine.join("; ") : null;
}

/** The further files: each one's path and text, and an empty pair to add one; a refused save's word on a path beside it. */
function FileEditors(props: { files: Record<string, string>; issues: Issue[]; ref: string; refused?: Issue[] }) {
  const entries = Object.entries(props.files);
  return (
    <fieldset class="files">
      <legend>Further files (clear a path to remove its file)</legend>
      <input type="hidden" name="fileCount" value={String(entries.length + 1)} />
      {[...entries, ["", ""] as [string, string]].map(([path, text], n) => {
        const mine = props.issues.filter((i) => path !== "" && splitIssue(props.ref, i).file === path);
        return (
          <div class="file-edit">
            <Field
              id={`fpath_${n}`}
              label={path === "" ? "New file path" : `Path of file ${n + 1}`}
              error={path === "" ? null : refusedAt(props.refused, `files.${path}`)}
            >
              <input name={`fpath_${n}`} value={path} maxlength={200} placeholder={path === "" ? "references/runbook.md" : undefined} />
            </Field>
            <Field id={`ftext_${n}`} label={path === "" ? "New file text" : `Text of ${path}`}>
              <textarea name={`ftext_${n}`} rows={path === "" ? 3 : 6} spellcheck={false} class="code">
                {text}
              </textarea>
            </Field>
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
      {props.server ? null : (
        <p>
          <a href={`${pageOf(e.id)}/form`} id="edit-with-form">
            Edit with the form
          </a>{" "}
          <span class="muted">(title, summary, triggers, rules); below, Advanced: its TALENT.md as YAML.</span>
        </p>
      )}
      {props.server ? (
        <div class="flash error conflict" role="alert">
          <strong>Someone saved this expertise since you opened it.</strong> The server is at revision {props.server.revision} (saved{" "}
          {when(props.server.updatedAt)}), you edited revision {props.editedRevision ?? "an older one"}. Your text is on the left, the
          server's on the right: merge what you want to keep into yours and save again.
        </div>
      ) : null}
      <RefusedIssues issues={props.issues} />
      <form method="post" action={pageOf(e.id)}>
        <input type="hidden" name="expectedRevision" value={String(revision)} />
        <div class={props.server ? "merge" : undefined}>
          <div>
            <Field
              id="content"
              label={props.server ? "Your TALENT.md (will be saved)" : `TALENT.md (revision ${e.revision})`}
              error={refusedAt(props.issues, "content")}
            >
              <textarea name="content" rows={22} spellcheck={false} class="code">
                {draft.content}
              </textarea>
            </Field>
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
          <FileEditors files={draft.files} issues={props.server ? [] : e.verification.issues} ref={e.ref} refused={props.issues} />
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
        <FormActions>
          <button type="submit">{props.server ? `Save over revision ${props.server.revision}` : "Save"}</button>
          {props.server ? (
            <>
              {" "}
              <a href={pageOf(e.id)}>Discard my text and reload</a>
            </>
          ) : null}
        </FormActions>
      </form>
    </section>
  );
}
