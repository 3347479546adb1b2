/** `GET, PUT, DELETE /web/projects/:id/relevance` (docs/api.md "Relevance"; relevance.ts says what the settings do). */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { readRelevance, relevanceOf, resetRelevance, saveRelevance } from "../../selection/relevance";
import { getProject } from "../service";
import { userActor } from "../../audit/record";
import { routeGuard, routePattern } from "../../http/route";
import { PROJECT } from "../describe";

export function relevanceRoutes(deps: CatalogDeps, guards: Guards) {
  const answer = async (projectId: string) => relevanceOf(deps.database, deps.state.catalog!, projectId);
  return new Elysia()
    .use(guards)
    .get(
      routePattern(PROJECT.relevance),
      async ({ org, params }) => answer((await getProject(deps.database, org.id, params.id)).id),
      routeGuard(PROJECT.relevance),
    )
    .put(
      routePattern(PROJECT.setRelevance),
      async ({ auth, org, params, body }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const settings = readRelevance(body);
        await deps.database.write((tx) => saveRelevance(tx, project.id, settings, { organizationId: org.id, actor: userActor(auth.user) }));
        return answer(project.id);
      },
      routeGuard(PROJECT.setRelevance),
    )
    .delete(
      routePattern(PROJECT.resetRelevance),
      async ({ auth, org, params }) => {
        const project = await getProject(deps.database, org.id, params.id);
        await deps.database.write((tx) => resetRelevance(tx, project.id, { organizationId: org.id, actor: userActor(auth.user) }));
        return answer(project.id);
      },
      routeGuard(PROJECT.resetRelevance),
    );
}
