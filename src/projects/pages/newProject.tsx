/** @jsxImportSource hono/jsx */
/**
 * `/projects/new` (docs/api.md "Pages"): a new project's name, description and repository. With JavaScript the form
 * sends `POST /web/projects` (a refusal in #flash, each issue also under its field by app.js); without, it posts to
 * `POST /projects/new`, created under the same rules (settings.ts) → 303 to the project's onboarding, or refused →
 * 400 with this page again: what was typed, each problem under its field.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { AppError } from "../../http/errors";
import { createPageGuard, type PageContext } from "../../tenancy/pageSessions";
import { Field, FormActions, RefusalLine, refusalOf, type Refusal } from "../../ui/form";
import { Layout, page } from "../../ui/layout";
import { statusCookie } from "../../ui/status";
import { createOrgProject } from "../service";
import { readSettingsForm, type SettingsForm, settingsForm } from "../settings";
import { projectCreated } from "../statuses";

/** The field of the form each issue's path names. */
const FIELDS: Record<string, string> = { name: "name", description: "description", repository: "repository" };
const fieldOf = (path: string): string => FIELDS[path] ?? "";

function NewProjectPage(props: { ctx: PageContext; attempt?: { values: SettingsForm; refusal: Refusal } }) {
  const v = props.attempt?.values;
  const at = (field: string) => props.attempt?.refusal.fields[field] ?? null;
  return (
    <Layout title="New project" user={props.ctx.session.user} nav={props.ctx.nav}>
      <div class="card narrow">
        <h1>New project</h1>
        <p class="muted">A project is one codebase: its talents, its keys, its agents' activity.</p>
        <form method="post" action="/projects/new" hx-post="/web/projects" id="new-project-form">
          <RefusalLine id="new-project-refused" refusal={props.attempt?.refusal} />
          <Field id="name" label="Name" error={at("name")}>
            <input name="name" required maxlength={100} autofocus value={v?.name ?? ""} />
          </Field>
          <Field id="description" label="Description" help="Optional." error={at("description")}>
            <input name="description" maxlength={1000} value={v?.description ?? ""} />
          </Field>
          <Field id="repository" label="Repository" help="Optional, e.g. payments-api." error={at("repository")}>
            <input name="repository" maxlength={200} value={v?.repository ?? ""} />
          </Field>
          <FormActions>
            <button type="submit">Create and choose talents</button>
          </FormActions>
        </form>
      </div>
    </Layout>
  );
}

/** The new-project page and its form's post without JavaScript (any member). */
export function newProjectPages(deps: CatalogDeps) {
  return new Elysia()
    .use(createPageGuard(deps))
    .get("/projects/new", ({ page: ctx }) => page(<NewProjectPage ctx={ctx} />), { orgPage: "member" })
    .post(
      "/projects/new",
      async ({ page: ctx, org, body, request }) => {
        const values = { ...settingsForm(body), contextBudget: "" };
        let created: { id: string; name: string };
        try {
          const { name, description, repository } = readSettingsForm(values);
          created = await createOrgProject(deps, org.id, ctx.session.user, { name, description, repository });
        } catch (e) {
          // a bad field, or a name another project has: each under its field
          if (!(e instanceof AppError) || (e.code !== "validation_failed" && e.code !== "conflict")) throw e;
          const attempt = { values, refusal: refusalOf(e, fieldOf) };
          return page(<NewProjectPage ctx={ctx} attempt={attempt} />, e.status, { "cache-control": "no-store" });
        }
        const cookie = statusCookie(projectCreated(created.name), request);
        const headers = { location: `/projects/${created.id}/onboarding`, "cache-control": "no-store", "set-cookie": cookie };
        return new Response(null, { status: 303, headers });
      },
      { orgPage: "member" },
    );
}
