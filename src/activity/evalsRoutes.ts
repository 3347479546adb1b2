/**
 * The eval routes (docs/api.md "Evals"): `POST /api/evals` stores a `talentd eval --upload` summary for the key's
 * project (scope validate; counts only), `GET /api/resolutions` lists the resolutions the calling key prepared
 * (what eval reads to tell whether the agent invoked talentd), `GET /web/projects/:id/evals` lists the project's
 * evals (members). Traced like every key route.
 */
import { intParam } from "../http/query";
import { Elysia } from "elysia";
import type { Guards } from "../auth/guards";
import type { CatalogDeps } from "../catalog/state";
import type { JournalDeps } from "../journal/journal";
import { keyApiTracer, noteTrace } from "../journal/trace";
import { guardOf, traceKinds } from "../http/keyRoute";
import { EVALS_UPLOAD, RESOLUTIONS_LIST } from "./describe";
import { getProject } from "../projects/service";
import { keyResolutions, listEvals, readEval, recordEval } from "./evals";
import { routeGuard, routePattern } from "../http/route";
import { ACTIVITY } from "./describe";

export function evalsRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, traceKinds([EVALS_UPLOAD, RESOLUTIONS_LIST])))
    .post(
      EVALS_UPLOAD.path,
      async ({ principal, body, request, set }) => {
        const summary = readEval(body);
        const r = await recordEval(deps.database, principal.projectId, principal.name, summary);
        noteTrace(request, { detail: { evalId: r.evalId, runs: r.runs } });
        set.status = 201;
        return r;
      },
      guardOf(EVALS_UPLOAD),
    )
    .get(
      RESOLUTIONS_LIST.path,
      async ({ principal, query }) => {
        // the paged routes' one reader of limit (http/query.ts): a whole number, its sentence
        const limit = intParam(query, "limit", 1, 100, 20);
        return { resolutions: await keyResolutions(deps.database, principal.projectId, principal.id, limit) };
      },
      guardOf(RESOLUTIONS_LIST),
    )
    .get(
      routePattern(ACTIVITY.evals),
      async ({ org, params }) => {
        const project = await getProject(deps.database, org.id, params.id);
        return { evals: await listEvals(deps.database, project.id) };
      },
      routeGuard(ACTIVITY.evals),
    );
}
