/** `/web/projects/*`: projects of the active organization and their API keys. */
import { Elysia, t } from "elysia";
import type { CoreDeps } from "../../deps";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { notFound } from "../../http/errors";
import { requireConfirmation, requireTypedName } from "../../http/methodOverride";
import { confirmations } from "../../ui/confirmations";
import { recordSecurityEvent } from "../../identity/security";
import { KEY_NAME_MAX, listKeys, revokeKey } from "../keys";
import { createProjectKey } from "../keyForm";
import { createOrgProject, DEFAULT_CONTEXT_BUDGET, getProject, listProjects, removeProject, updateProject, type Project } from "../service";
import { iso } from "../../lib/time";
import { readContextBudget, REPOSITORY_ISSUE, REPOSITORY_PATTERN } from "../settings";
import { userActor } from "../../audit/record";
import { routeGuard, routePattern } from "../../http/route";
import { PROJECT } from "../describe";

const Repository = t.String({ pattern: REPOSITORY_PATTERN, maxLength: 200, error: REPOSITORY_ISSUE });
/** The body's `repository`: a path, or null or "" to clear it. The issue is the path's (a union's own text is "Expected union value"). */
const RepositoryField = t.Optional(t.Union([Repository, t.Null(), t.Literal("")], { error: REPOSITORY_ISSUE }));

/** The key body's unions, in words (a union's own text is "Expected union value"). */
const TOOLS_ISSUE = "tools must name at least one tool: a list of tool names, or a comma-separated string";
const EXPIRES_ISSUE = "expiresAt must be a date and time such as 2030-01-31T00:00:00Z, or null for a key that does not expire";

const projectView = (p: Project) => ({
  id: p.id,
  organizationId: p.organizationId,
  name: p.name,
  description: p.description,
  repository: p.repository,
  // the tokens of compact forms a prepare-task serves (the project's own, or the default)
  contextBudget: p.contextBudget ?? DEFAULT_CONTEXT_BUDGET,
  createdBy: p.createdBy,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

/** The project routes of the active organization: the projects themselves, then their keys. */
export function projectRoutes(deps: CatalogDeps, guards: Guards) {
  return new Elysia().use(projectCrudRoutes(deps, guards)).use(projectKeyRoutes(deps, guards));
}

/** List, create, read, edit and delete projects. */
function projectCrudRoutes(deps: CatalogDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(PROJECT.list),
      async ({ org }) => ({ projects: (await listProjects(deps.database, org.id)).map(projectView) }),
      routeGuard(PROJECT.list),
    )
    .post(
      routePattern(PROJECT.create),
      async ({ auth, org, body, set }) => {
        const input = { name: body.name.trim(), description: body.description?.trim() ?? "", repository: body.repository || null };
        const p = await createOrgProject(deps, org.id, auth.user, input);
        set.status = 201;
        return { project: projectView(p) };
      },
      {
        ...routeGuard(PROJECT.create),
        body: t.Object({
          name: t.String({ minLength: 1, maxLength: 100 }),
          description: t.Optional(t.String({ maxLength: 1000 })),
          repository: RepositoryField,
        }),
      },
    )
    .get(
      routePattern(PROJECT.one),
      async ({ org, params }) => ({ project: projectView(await getProject(deps.database, org.id, params.id)) }),
      routeGuard(PROJECT.one),
    )
    .patch(
      routePattern(PROJECT.update),
      async ({ auth, org, params, body }) => {
        const p = await deps.database.write((tx) =>
          updateProject(
            tx,
            org.id,
            params.id,
            {
              name: body.name?.trim(),
              description: body.description?.trim(),
              repository: body.repository === "" ? null : body.repository,
              contextBudget: readContextBudget(body.contextBudget),
            },
            userActor(auth.user),
          ),
        );
        return { project: projectView(p) };
      },
      {
        ...routeGuard(PROJECT.update),
        body: t.Object(
          {
            name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
            description: t.Optional(t.String({ maxLength: 1000 })),
            repository: RepositoryField,
            contextBudget: t.Optional(t.Unknown()),
          },
          { minProperties: 1, error: "send at least one of name, description, repository, contextBudget" },
        ),
      },
    )
    .delete(
      routePattern(PROJECT.remove),
      async ({ auth, org, params, body, request }) => {
        const project = await getProject(deps.database, org.id, params.id);
        await requireTypedName(request, body, async () => project.name, "project");
        await removeProject(deps.database, org.id, params.id, userActor(auth.user));
        return { deleted: params.id, name: project.name };
      },
      routeGuard(PROJECT.remove),
    );
}

/** A project's keys: any member lists, creates and revokes; a key can never reach these routes. */
function projectKeyRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(PROJECT.keys),
      async ({ org, params }) => {
        await getProject(deps.database, org.id, params.id);
        return { keys: await listKeys(deps.database, params.id) };
      },
      routeGuard(PROJECT.keys),
    )
    .post(
      routePattern(PROJECT.createKey),
      async ({ auth, org, params, body, set }) => {
        await getProject(deps.database, org.id, params.id);
        const r = await createProjectKey(deps.database, { organizationId: org.id, projectId: params.id }, auth.user, body);
        set.status = 201;
        return { key: r.key, value: r.value, notice: "Copy the value now: it is shown once and cannot be retrieved again." };
      },
      {
        ...routeGuard(PROJECT.createKey),
        body: t.Object({
          name: t.String({ maxLength: KEY_NAME_MAX, error: `must be a string of at most ${KEY_NAME_MAX} characters` }),
          tools: t.Union([t.Array(t.String({ maxLength: 40 }), { maxItems: 16 }), t.String({ maxLength: 400 })], { error: TOOLS_ISSUE }),
          expiresAt: t.Optional(t.Union([t.String({ maxLength: 40 }), t.Null()], { error: EXPIRES_ISSUE })),
        }),
      },
    )
    .delete(
      routePattern(PROJECT.revokeKey),
      async ({ auth, org, params, body, request }) => {
        await getProject(deps.database, org.id, params.id);
        await requireConfirmation(request, body, async () => {
          const key = (await listKeys(deps.database, params.id)).find((k) => k.id === params.keyId);
          if (!key) throw notFound("No such key in this project.");
          return confirmations.revokeKey(key.name);
        });
        const key = await deps.database.write(async (tx) => {
          const revoked = await revokeKey(tx, params.id, params.keyId, { organizationId: org.id, actor: userActor(auth.user) });
          await recordSecurityEvent(tx, {
            kind: "key.revoked",
            userId: auth.user.id,
            email: auth.user.email,
            detail: { keyId: revoked.id, projectId: params.id },
          });
          return revoked;
        });
        return { key };
      },
      routeGuard(PROJECT.revokeKey),
    );
}
