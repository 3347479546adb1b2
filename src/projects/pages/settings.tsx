/** @jsxImportSource hono/jsx */
/**
 * The Settings tab of `/projects/:id` (docs/api.md "Pages"): name, description, repository, context budget, and the
 * typed deletion. With JavaScript the form sends `PATCH /web/projects/:id` (a refusal in #flash, each issue also under
 * its field by app.js); without, it posts to `POST /projects/:id?tab=settings`, saved under the same rules (settings.ts)
 * → 303 back to the tab, or refused → 400 with this tab again: what was typed, each problem under its field.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { userActor } from "../../audit/record";
import { AppError } from "../../http/errors";
import { createPageGuard } from "../../tenancy/pageSessions";
import { Field, FormActions, RefusalLine, refusalOf, type Refusal } from "../../ui/form";
import { Layout, page } from "../../ui/layout";
import { isOrgAdmin } from "../../ui/pageGuard";
import { statusCookie } from "../../ui/status";
import { TypedDeleteForm } from "../../ui/typedDelete";
import { DEFAULT_CONTEXT_BUDGET, getProject, type Project, updateProject } from "../service";
import { readSettingsForm, type SettingsForm, settingsForm } from "../settings";
import { SETTINGS_SAVED } from "../statuses";
import { ProjectHeader } from "./header";

/** The field of the form each issue's path names. */
const FIELDS: Record<string, string> = { name: "p-name", description: "p-desc", repository: "p-repo", contextBudget: "p-budget" };
const fieldOf = (path: string): string => FIELDS[path] ?? "";

/** A refused save: what was typed, and the problems by field. */
interface SettingsAttempt {
  values: SettingsForm;
  refusal: Refusal;
}

export function Settings(props: { project: Project; admin: boolean; attempt?: SettingsAttempt }) {
  const p = props.project;
  const route = `/web/projects/${p.id}`;
  const v = props.attempt?.values ?? {
    name: p.name,
    description: p.description,
    repository: p.repository ?? "",
    contextBudget: String(p.contextBudget ?? DEFAULT_CONTEXT_BUDGET),
  };
  const at = (field: string) => props.attempt?.refusal.fields[field] ?? null;
  return (
    <>
      <section class="card" aria-labelledby="settings-h">
        <h2 id="settings-h">Settings</h2>
        <form method="post" action={`/projects/${p.id}?tab=settings`} hx-patch={route} hx-swap="none" id="settings-form">
          <RefusalLine id="settings-refused" refusal={props.attempt?.refusal} />
          <Field id="p-name" label="Name" error={at("p-name")}>
            <input name="name" required maxlength={100} value={v.name} />
          </Field>
          <Field id="p-desc" label="Description" error={at("p-desc")}>
            <input name="description" maxlength={1000} value={v.description} />
          </Field>
          <Field
            id="p-repo"
            label="Repository"
            help="Its path under the organization's code hosting, for evidence links."
            error={at("p-repo")}
          >
            <input name="repository" maxlength={200} value={v.repository} placeholder="payments-api" />
          </Field>
          <Field
            id="p-budget"
            label="Context budget"
            help="Tokens of compact guidance a task is served; the rest is listed by id."
            error={at("p-budget")}
          >
            <input name="contextBudget" inputmode="numeric" value={v.contextBudget} />
          </Field>
          <FormActions>
            <button type="submit">Save</button>
          </FormActions>
        </form>
      </section>
      {props.admin ? (
        <TypedDeleteForm route={route} name={p.name} title="Delete this project" button={`Delete ${p.name}`}>
          Its selection, keys, resolutions, reports and activity are deleted with it. Agents and hooks using it stop working.
        </TypedDeleteForm>
      ) : null}
    </>
  );
}

/** `POST /projects/:id?tab=settings`: the Settings form without JavaScript (any member, as `PATCH /web/projects/:id`). */
export function settingsPages(deps: CatalogDeps) {
  return new Elysia().use(createPageGuard(deps)).post(
    "/projects/:id",
    async ({ page: ctx, org, params, body, request }) => {
      const project = await getProject(deps.database, org.id, params.id);
      const values = settingsForm(body);
      try {
        const change = readSettingsForm(values);
        await deps.database.write((tx) => updateProject(tx, org.id, project.id, change, userActor(ctx.session.user)));
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
        const attempt = { values, refusal: refusalOf(e, fieldOf) };
        return page(
          <Layout title={project.name} user={ctx.session.user} nav={ctx.nav}>
            <ProjectHeader project={project} tab="settings" />
            <Settings project={project} admin={isOrgAdmin(org)} attempt={attempt} />
          </Layout>,
          e.status,
          { "cache-control": "no-store" },
        );
      }
      const location = `/projects/${project.id}?tab=settings`;
      const headers = { location, "cache-control": "no-store", "set-cookie": statusCookie(SETTINGS_SAVED, request) };
      return new Response(null, { status: 303, headers });
    },
    { orgPage: "member" },
  );
}
