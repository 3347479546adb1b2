/** @jsxImportSource hono/jsx */
/**
 * `/org/expertises/import` (docs/api.md "Pages"): "Import rules", for the organization's owners and
 * admins. One form, without JavaScript: files uploaded (`<input type=file multiple>`) and/or one
 * text pasted with the path it had; posted as multipart to the page itself, it calls the same
 * parsing and service as `POST /web/orgs/current/expertises/import`, then goes (303) to
 * `?imported=<ids>`, which lists the drafts, each linked to its editor. A refusal answers the
 * form again (400 or 413) with the problems and the pasted text kept.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import { expertises } from "../db/schema";
import { AppError, type Issue } from "../http/errors";
import type { OrgMembership } from "../tenancy/service";
import { createPageGuard, type PageContext } from "../tenancy/pageSessions";
import { Field, FormActions } from "../ui/form";
import { DataTable, Layout, page } from "../ui/layout";
import { importDrafts } from "./importDrafts";
import { parseImport } from "./importRequest";
import { IMPORT_LIMITS, readLooseFrontMatter, type ImportFile } from "./imports";
import { skippedLines, type SkippedLine } from "./importSkipped";
import { EXPERTISES_ADMIN } from "./pages";
import { describeContent } from "./service";
import { EXPERTISES_PAGE, pageOf } from "./views/list";

export const IMPORT_PAGE = `${EXPERTISES_PAGE}/import`;

interface Attempt {
  pastePath: string;
  paste: string;
  issues: Issue[];
}

interface ImportedRow {
  id: string;
  slug: string;
  title: string | null;
  rules: number;
  /** The lines of the imported file (the draft's body) that became no rule, with why. */
  skipped: SkippedLine[];
}

/** The files of the form: each upload (a name, no folder) and the pasted text under its path. */
async function filesOfForm(body: unknown): Promise<{ files: ImportFile[]; pastePath: string; paste: string }> {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const paste = typeof b.paste === "string" ? b.paste.replace(/\r\n/g, "\n") : "";
  const pastePath = typeof b.pastePath === "string" && b.pastePath.trim() !== "" ? b.pastePath.trim() : "AGENTS.md";
  const uploads = (Array.isArray(b.files) ? b.files : [b.files]).filter((f): f is File => f instanceof Blob && f.size > 0);
  const files: ImportFile[] = [];
  for (const f of uploads) files.push({ path: f.name || "rules.md", content: await f.text() });
  if (paste.trim() !== "") files.push({ path: pastePath, content: paste });
  return { files, pastePath, paste };
}

/** The drafts of `?imported=`: those of the organization, in the order given. */
async function importedRows(deps: CatalogDeps, org: OrgMembership, ids: string[]): Promise<ImportedRow[]> {
  if (ids.length === 0) return [];
  const rows = await deps.database.db
    .select()
    .from(expertises)
    .where(and(eq(expertises.organizationId, org.id), inArray(expertises.id, ids), isNull(expertises.deletedAt)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    const rules = (r.workingContent.split("\n---\n")[0]?.match(/^ {2}- id: /gm) ?? []).length;
    // the draft's body is the imported file as it was: its lines are the file's
    const skipped = skippedLines(readLooseFrontMatter(r.workingContent).body, r.slug);
    return [{ id: r.id, slug: r.slug, title: describeContent(r.workingContent).title, rules, skipped }];
  });
}

/** The lines of one draft's file that became no rule: each with its line number, its text and why. */
function SkippedList(props: { row: ImportedRow }) {
  const r = props.row;
  const id = `skipped-${r.slug}`;
  return (
    <section class="skipped" id={id} aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>
        Not made rules in <code>{r.slug}</code> ({r.skipped.length} line{r.skipped.length === 1 ? "" : "s"})
      </h3>
      <p class="muted small">They stay in the draft's text; make each a rule in the editor if it is one.</p>
      <DataTable caption={`Lines of ${r.slug} not made rules`} columns={["Line", "Text", "Why"]}>
        {r.skipped.map((l) => (
          <tr>
            <td>{l.line}</td>
            <td>{l.text}</td>
            <td class="small">{l.reason}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function ImportedList(props: { rows: ImportedRow[] }) {
  return (
    <section class="card" id="imported" aria-labelledby="imported-h">
      <h2 id="imported-h">
        {props.rows.length} draft{props.rows.length === 1 ? "" : "s"} imported
      </h2>
      <p class="muted">
        Nothing is served yet: open each draft, read its rules (all advisory) and triggers, choose its roles, then publish it.
      </p>
      <DataTable caption="Imported drafts" columns={["Draft", "Title", "Rules", "Lines not made rules"]}>
        {props.rows.map((r) => (
          <tr>
            <td>
              <a href={pageOf(r.id)}>
                <code>{r.slug}</code>
              </a>
            </td>
            <td>{r.title ?? "—"}</td>
            <td>{r.rules}</td>
            <td>{r.skipped.length}</td>
          </tr>
        ))}
      </DataTable>
      {props.rows
        .filter((r) => r.skipped.length > 0)
        .map((r) => (
          <SkippedList row={r} />
        ))}
    </section>
  );
}

function ImportForm(props: { attempt?: Attempt }) {
  const a = props.attempt;
  return (
    <section class="card" id="import" aria-labelledby="import-h">
      <h2 id="import-h">Import rule files</h2>
      <p class="muted">
        AGENTS.md, CLAUDE.md, GEMINI.md, <code>.cursor/rules/*.mdc</code>, <code>.cursorrules</code>,{" "}
        <code>.github/copilot-instructions.md</code>, <code>.github/instructions/*.instructions.md</code>: each file becomes a draft whose
        rules are its imperative bullets and numbered items, with triggers from its globs or folder. At most {IMPORT_LIMITS.files} files,{" "}
        {IMPORT_LIMITS.fileBytes / 1024} KiB each, {IMPORT_LIMITS.totalBytes / 1024 / 1024} MiB together.
      </p>
      {a && a.issues.length > 0 ? (
        <div class="flash error" role="alert" id="import-problems">
          <p>Nothing was imported:</p>
          <ul>
            {a.issues.map((i) => (
              <li>{i.message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="post" action={IMPORT_PAGE} enctype="multipart/form-data">
        <Field
          id="import-files"
          label="Files"
          help="Choose one or more files (an upload carries no folder: paste a file to keep its path)."
        >
          <input type="file" name="files" multiple accept=".md,.mdc,.txt,.cursorrules,text/markdown,text/plain" />
        </Field>
        <Field id="import-path" label="Pasted file's path" help="Its folder and name decide its format and triggers.">
          <input name="pastePath" maxlength={IMPORT_LIMITS.pathLength} placeholder="AGENTS.md" value={a?.pastePath ?? ""} />
        </Field>
        <Field id="import-paste" label="Or paste a file">
          <textarea name="paste" rows={10} spellcheck={false} class="code">
            {a?.paste ?? ""}
          </textarea>
        </Field>
        <FormActions>
          <button type="submit">Import as drafts</button>
        </FormActions>
      </form>
    </section>
  );
}

function importPage(ctx: PageContext, org: OrgMembership, opts: { rows?: ImportedRow[]; attempt?: Attempt; status?: number }) {
  return page(
    <Layout title="Import rules · Expertises" user={ctx.session.user} nav={ctx.nav}>
      <p class="crumbs">
        <a href={EXPERTISES_PAGE}>Expertises</a> /
      </p>
      <h1>Import rules into {org.name}</h1>
      {opts.rows ? <ImportedList rows={opts.rows} /> : null}
      <ImportForm attempt={opts.attempt} />
    </Layout>,
    opts.status ?? 200,
  );
}

/** `GET` and `POST /org/expertises/import`. */
export function importPages(deps: CatalogDeps) {
  return new Elysia()
    .use(createPageGuard(deps))
    .get(
      IMPORT_PAGE,
      async ({ page: ctx, org, query }) => {
        const ids = typeof query.imported === "string" ? query.imported.split(",").filter(Boolean).slice(0, IMPORT_LIMITS.files) : [];
        return importPage(ctx, org, { rows: ids.length > 0 ? await importedRows(deps, org, ids) : undefined });
      },
      { orgPage: EXPERTISES_ADMIN },
    )
    .post(
      IMPORT_PAGE,
      async ({ page: ctx, org, body }) => {
        const { files, pastePath, paste } = await filesOfForm(body);
        try {
          const parsed = parseImport({ files });
          const drafts = await deps.database.write((tx) => importDrafts(tx, { org, userId: ctx.session.user.id }, parsed));
          return new Response(null, {
            status: 303,
            headers: { location: `${IMPORT_PAGE}?imported=${drafts.map((d) => d.id).join(",")}`, "cache-control": "no-store" },
          });
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
          const issues = e.details.issues as Issue[];
          return importPage(ctx, org, { attempt: { pastePath, paste, issues }, status: 400 });
        }
      },
      { orgPage: EXPERTISES_ADMIN },
    );
}
