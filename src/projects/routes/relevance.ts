/** `GET, PUT, DELETE /web/projects/:id/relevance` (docs/api.md "Relevance"; relevance.ts says what the settings do). */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { readRelevance, relevanceOf, resetRelevance, saveRelevance } from "../../selection/relevance";
import { getProject } from "../service";
import { userActor } from "../../audit/record";

export function relevanceRoutes(deps: CatalogDeps, guards: Guards) {
  const answer = async (projectId: string) => relevanceOf(deps.database, deps.state.catalog!, projectId);
  return new Elysia({ prefix: "/web/projects/:id/relevance" })
    .use(guards)
    .get("/", async ({ org, params }) => answer((await getProject(deps.database, org.id, params.id)).id), { org: "member" })
    .put(
      "/",
      async ({ auth, org, params, body }) => {
        const project = await getProject(deps.database, org.id, params.id);
        const settings = readRelevance(body);
        await deps.database.write((tx) => saveRelevance(tx, project.id, settings, { organizationId: org.id, actor: userActor(auth.user) }));
        return answer(project.id);
      },
      { org: "member" },
    )
    .delete(
      "/",
      async ({ auth, org, params }) => {
        const project = await getProject(deps.database, org.id, params.id);
        await deps.database.write((tx) => resetRelevance(tx, project.id, { organizationId: org.id, actor: userActor(auth.user) }));
        return answer(project.id);
      },
      { org: "member" },
    );
}
