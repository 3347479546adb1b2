/** @jsxImportSource hono/jsx */
/**
 * The Keys tab of `/projects/:id` (docs/api.md "Pages"): the automation key, the project's keys and the creation form.
 * `POST /projects/:id/keys` is that form without JavaScript (any member, as `POST /web/projects/:id/keys`, checked and
 * stored the same way, keyForm.ts): a new key → 200 with this tab again, its value shown once on this answer (never in
 * a redirect); refused → 400 with this tab again: what was typed, each problem under its field.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { AppError } from "../../http/errors";
import { formField, formList } from "../../http/form";
import { createPageGuard, type PageContext } from "../../tenancy/pageSessions";
import { refusalOf } from "../../ui/form";
import { Layout, page } from "../../ui/layout";
import { createProjectKey } from "../keyForm";
import { listKeys, type KeyView } from "../keys";
import { getProject, type Project } from "../service";
import { AutomationKey } from "../views/automationKey";
import { type KeyAttempt, type KeyFormValues, keyFieldOf, KeysSection } from "../views/keys";
import { ProjectHeader } from "./header";
import { keyCreated } from "../statuses";

/** The tab's body: the automation key's card, then the keys (a new key's value, or a refused creation). */
export function KeysTab(props: { project: Project; keys: KeyView[]; created?: { value: string; name: string }; attempt?: KeyAttempt }) {
  const p = props.project;
  return (
    <>
      <section class="card" aria-labelledby="automation-h">
        <h2 id="automation-h">Automation key (hooks and CI)</h2>
        <AutomationKey
          projectId={p.id}
          exists={props.keys.some((k) => k.automation && k.status === "active")}
          returnTo={`/projects/${p.id}?tab=keys`}
        />
      </section>
      <KeysSection projectId={p.id} keys={props.keys} created={props.created} attempt={props.attempt} />
    </>
  );
}

/** The creation form's fields as posted (tools: every checked box). */
function keyForm(body: unknown): KeyFormValues {
  return { name: formField(body, "name") ?? "", tools: formList(body, "tools") ?? [], expiresAt: formField(body, "expiresAt") ?? "" };
}

/** The Keys tab's page, answering the creation form posted without JavaScript. */
async function keysPage(
  deps: CatalogDeps,
  ctx: PageContext,
  project: Project,
  status: number,
  shown: Omit<Parameters<typeof KeysTab>[0], "project" | "keys">,
) {
  return page(
    <Layout title={project.name} user={ctx.session.user} nav={ctx.nav} status={shown.created ? keyCreated(shown.created.name) : undefined}>
      <ProjectHeader project={project} tab="keys" />
      <KeysTab {...shown} project={project} keys={await listKeys(deps.database, project.id)} />
    </Layout>,
    status,
    { "cache-control": "no-store" },
  );
}

/** `POST /projects/:id/keys`: the key creation form without JavaScript. */
export function keysPages(deps: CatalogDeps) {
  return new Elysia().use(createPageGuard(deps)).post(
    "/projects/:id/keys",
    async ({ page: ctx, org, params, body }) => {
      const project = await getProject(deps.database, org.id, params.id);
      const values = keyForm(body);
      try {
        const r = await createProjectKey(deps.database, { organizationId: org.id, projectId: project.id }, ctx.session.user, values);
        return keysPage(deps, ctx, project, 200, { created: { value: r.value, name: r.key.name } });
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
        return keysPage(deps, ctx, project, e.status, { attempt: { values, refusal: refusalOf(e, keyFieldOf) } });
      }
    },
    { orgPage: "member" },
  );
}
