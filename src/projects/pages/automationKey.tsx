/** @jsxImportSource hono/jsx */
/**
 * `POST /projects/:id/automation-key` (docs/api.md "Pages"): the automation key's form without
 * JavaScript. While the project has none, it makes one; once it has one, it first asks (the
 * confirmation page of every destructive form: rotating breaks hooks and CI until their secret
 * is replaced) and rotates only when the question is answered (`confirm=yes`). The new value is
 * shown on the answer itself, once (never in a redirect).
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import { AppError } from "../../http/errors";
import { createPageGuard } from "../../tenancy/pageSessions";
import { confirmations } from "../../ui/confirmations";
import { Layout, page } from "../../ui/layout";
import { returnPath } from "../../ui/views";
import { hasAutomationKey, rotateAutomationKey } from "../automationKey";
import { getProject } from "../service";
import { AutomationKey } from "../views/automationKey";

/** The page route of the automation key's form. */
export function automationKeyPages(deps: CatalogDeps) {
  return new Elysia().use(createPageGuard(deps)).post(
    "/projects/:id/automation-key",
    async ({ page: ctx, org, params, body, request }) => {
      const project = await getProject(deps.database, org.id, params.id);
      const confirmed = (body as Record<string, unknown> | null)?.confirm === "yes";
      if (!confirmed && (await hasAutomationKey(deps.database, project.id))) {
        const c = confirmations.rotateAutomationKey();
        throw new AppError("validation_failed", `${c.question} Nothing was changed yet: confirm to go on.`, {
          issues: [{ path: "confirm", message: "confirm the change (confirm=yes)" }],
          confirm: c,
        });
      }
      const r = await rotateAutomationKey(deps.database, project, { id: ctx.session.user.id, email: ctx.session.user.email });
      const back = returnPath(request, `/projects/${project.id}`);
      return page(
        <Layout title={`Automation key · ${project.name}`} user={ctx.session.user} nav={ctx.nav}>
          <p class="crumbs">
            <a href={back}>{project.name}</a> /
          </p>
          <h1>Automation key of {project.name}</h1>
          <AutomationKey
            projectId={project.id}
            exists
            returnTo={back}
            created={{ value: r.created.value, baseUrl: deps.config.baseUrl, replaced: r.revoked.length > 0 }}
          />
          <p>
            <a href={back}>Back to the project</a>
          </p>
        </Layout>,
        200,
        { "cache-control": "no-store" },
      );
    },
    { orgPage: "member" },
  );
}
