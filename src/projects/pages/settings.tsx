/** @jsxImportSource hono/jsx */
/**
 * The Settings tab of `/projects/:id` (docs/api.md "Pages"): name, description, repository, context budget, and the
 * typed deletion. With JavaScript the form sends `PATCH /web/projects/:id` (a refusal in #flash, each issue also under
 * its field by app.js); without, it posts to `POST /projects/:id?tab=settings`, saved under the same rules (settings.ts)
 * → 303 back to the tab, or refused → 400 with this tab again: what was typed, each problem under its field. The hook
 * rules' card (views/hookRules.tsx) posts with `&form=hook-rules` under the same rules as `PUT /web/projects/:id/hook-rules`.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { userActor } from "../../audit/record";
import { AppError, type Issue } from "../../http/errors";
import { formField } from "../../http/form";
import { typedNameRefusal } from "../../http/methodOverride";
import { createPageGuard, type PageContext } from "../../tenancy/pageSessions";
import type { OrgMembership } from "../../tenancy/service";
import { Field, FormActions, RefusalLine, refusalOf, type Refusal } from "../../ui/form";
import { Layout, page } from "../../ui/layout";
import { isOrgAdmin } from "../../ui/pageGuard";
import { statusCookie } from "../../ui/status";
import { TypedDeleteForm } from "../../ui/typedDelete";
import { DEFAULT_CONTEXT_BUDGET, getProject, type Project, removeProject, updateProject } from "../service";
import { readSettingsForm, type SettingsForm, settingsForm } from "../settings";
import { HOOK_RULES_SAVED, projectDeleted, settingsSaved } from "../statuses";
import { ProjectHeader } from "./header";
import { hookRuleLines, knownHookRules, readHookRulesBody, saveHookRules } from "../../policy/hookRules";
import { hookRuleField, HookRulesCard, type HookRuleLine, type HookRulesAttempt } from "../views/hookRules";

/** The field of the form each issue's path names. */
const FIELDS: Record<string, string> = { name: "p-name", description: "p-desc", repository: "p-repo", contextBudget: "p-budget" };
const fieldOf = (path: string): string => FIELDS[path] ?? "";

/** A refused save: what was typed, and the problems by field. */
interface SettingsAttempt {
  values: SettingsForm;
  refusal: Refusal;
}

export function Settings(props: {
  project: Project;
  admin: boolean;
  hookRules: HookRuleLine[];
  attempt?: SettingsAttempt;
  deletion?: DeleteAttempt;
  hookAttempt?: HookRulesAttempt;
}) {
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
      <HookRulesCard projectId={p.id} rules={props.hookRules} admin={props.admin} attempt={props.hookAttempt} />
      {props.admin ? (
        <TypedDeleteForm
          route={route}
          action={`/projects/${p.id}?tab=settings&form=delete#delete-h`}
          name={p.name}
          title="Delete this project"
          button={`Delete ${p.name}`}
          typed={props.deletion?.typed}
          error={props.deletion?.error}
        >
          Its selection, keys, resolutions, reports and activity are deleted with it. Agents and hooks using it stop working.
        </TypedDeleteForm>
      ) : null}
    </>
  );
}

/** A refused typed-name deletion posted without JavaScript: what was typed, and why it is not the name. */
interface DeleteAttempt {
  typed: string;
  error: string;
}

/** The Settings tab's hook rules, as its card shows them. */
export function settingsHookRules(deps: CatalogDeps, organizationId: string, projectId: string): Promise<HookRuleLine[]> {
  return hookRuleLines(deps.database, deps.state.catalog!, organizationId, projectId);
}

/** The Settings tab's page (its header and the tab), for a refused post of one of its forms. */
async function settingsPage(
  deps: CatalogDeps,
  ctx: PageContext,
  org: OrgMembership,
  project: Project,
  status: number,
  refused: { attempt?: SettingsAttempt; deletion?: DeleteAttempt; hookAttempt?: HookRulesAttempt },
) {
  const hookRules = await settingsHookRules(deps, org.id, project.id);
  return page(
    <Layout title={project.name} user={ctx.session.user} nav={ctx.nav}>
      <ProjectHeader project={project} tab="settings" />
      <Settings project={project} admin={isOrgAdmin(org)} hookRules={hookRules} {...refused} />
    </Layout>,
    status,
    { "cache-control": "no-store" },
  );
}

/**
 * `POST /projects/:id?tab=settings&form=delete`: the typed-name deletion without JavaScript (owner/admin, as `DELETE
 * /web/projects/:id`): the name typed exactly → deleted, 303 to `/`; otherwise the tab again (400), the problem under the field.
 */
async function deleteFromForm(deps: CatalogDeps, ctx: PageContext, org: OrgMembership, project: Project, body: unknown, request: Request) {
  if (!isOrgAdmin(org)) throw new AppError("forbidden", "Only the organization's owners and admins delete a project.");
  const refusal = typedNameRefusal(body, project.name, "project");
  if (refusal) {
    const deletion = { typed: formField(body, "confirm") ?? "", error: (refusal.details.issues as Issue[])[0]!.message };
    return settingsPage(deps, ctx, org, project, refusal.status, { deletion });
  }
  await removeProject(deps.database, org.id, project.id, userActor(ctx.session.user));
  const headers = { location: "/", "cache-control": "no-store", "set-cookie": statusCookie(projectDeleted(project.name), request) };
  return new Response(null, { status: 303, headers });
}

/**
 * `POST /projects/:id?tab=settings&form=hook-rules`: the hook rules' card without JavaScript (owner/admin, as `PUT
 * /web/projects/:id/hook-rules`): saved → 303 back to the tab; refused (400, 409 locked_by_policy) → the tab again with
 * the choices as sent, each problem under its rule.
 */
async function hookRulesFromForm(
  deps: CatalogDeps,
  ctx: PageContext,
  org: OrgMembership,
  project: Project,
  body: unknown,
  request: Request,
) {
  if (!isOrgAdmin(org)) throw new AppError("forbidden", "Only the organization's owners and admins change a project's hook rules.");
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const values = Object.fromEntries(
    Object.entries(b).flatMap(([k, v]) => (k.startsWith("rules.") && typeof v === "string" ? [[k.slice(6), v]] : [])),
  );
  try {
    const choices = readHookRulesBody({ ...b, rules: "" });
    const known = await knownHookRules(deps.database, deps.state.catalog!, org.id, project.id);
    await deps.database.write((tx) =>
      saveHookRules(tx, project.id, choices, known, { organizationId: org.id, actor: userActor(ctx.session.user) }),
    );
  } catch (e) {
    if (!(e instanceof AppError) || e.status >= 500 || e.status === 401 || e.status === 403) throw e;
    const refusal = refusalOf(e, (path) => (path.startsWith("rules.") ? hookRuleField(path.slice(6)) : ""));
    return settingsPage(deps, ctx, org, project, e.status, { hookAttempt: { values, refusal } });
  }
  const location = `/projects/${project.id}?tab=settings#hook-rules-h`;
  const headers = { location, "cache-control": "no-store", "set-cookie": statusCookie(HOOK_RULES_SAVED, request) };
  return new Response(null, { status: 303, headers });
}

/**
 * `POST /projects/:id?tab=settings`: the Settings form without JavaScript (any member, as `PATCH /web/projects/:id`);
 * with `&form=delete`, the deletion card's.
 */
export function settingsPages(deps: CatalogDeps) {
  return new Elysia().use(createPageGuard(deps)).post(
    "/projects/:id",
    async ({ page: ctx, org, params, body, request, query }) => {
      const project = await getProject(deps.database, org.id, params.id);
      if (query.form === "delete") return deleteFromForm(deps, ctx, org, project, body, request);
      if (query.form === "hook-rules") return hookRulesFromForm(deps, ctx, org, project, body, request);
      const values = settingsForm(body);
      let saved: string;
      try {
        const change = readSettingsForm(values);
        saved = (await deps.database.write((tx) => updateProject(tx, org.id, project.id, change, userActor(ctx.session.user)))).name;
      } catch (e) {
        if (!(e instanceof AppError) || (e.code !== "validation_failed" && e.code !== "conflict")) throw e;
        return settingsPage(deps, ctx, org, project, e.status, { attempt: { values, refusal: refusalOf(e, fieldOf) } });
      }
      const location = `/projects/${project.id}?tab=settings`;
      const headers = { location, "cache-control": "no-store", "set-cookie": statusCookie(settingsSaved(saved, project.name), request) };
      return new Response(null, { status: 303, headers });
    },
    { orgPage: "member" },
  );
}
