/**
 * The project's hook rules (docs/api.md "Hook rules"; src/policy/hookRules.ts says what they do):
 * `GET, PUT /api/hook-rules` for the key's project (read with `validate`, written with `install`) and
 * `GET, PUT /web/projects/:id/hook-rules` for members (owners and admins write).
 */
import { Elysia } from "elysia";
import type { Guards } from "../../auth/guards";
import type { CatalogDeps } from "../../catalog/state";
import type { JournalDeps } from "../../journal/journal";
import { keyApiTracer, noteTrace } from "../../journal/trace";
import { guardOf, traceKinds } from "../../http/keyRoute";
import { HOOK_RULES_READ, HOOK_RULES_WRITE } from "../describe";
import { keyActor, userActor, type AuditBy } from "../../audit/record";
import { hookRulesAnswer, knownHookRules, readHookRulesBody, saveHookRules } from "../../policy/hookRules";
import { getProject } from "../service";
import { routeGuard, routePattern } from "../../http/route";
import { PROJECT } from "../describe";

export function hookRulesRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  const answer = (organizationId: string, projectId: string) =>
    hookRulesAnswer(deps.database, deps.state.catalog!, organizationId, projectId);
  /** Checks the body and the rule ids, then replaces the choices in one transaction. */
  const save = async (organizationId: string, projectId: string, body: unknown, audit: AuditBy) => {
    const choices = readHookRulesBody(body);
    const known = await knownHookRules(deps.database, deps.state.catalog!, organizationId, projectId);
    const changed = await deps.database.write((tx) => saveHookRules(tx, projectId, choices, known, audit));
    return { ...(await answer(organizationId, projectId)), changed };
  };
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, traceKinds([HOOK_RULES_READ, HOOK_RULES_WRITE])))
    .get(HOOK_RULES_READ.path, ({ principal }) => answer(principal.organizationId, principal.projectId), guardOf(HOOK_RULES_READ))
    .put(
      HOOK_RULES_WRITE.path,
      async ({ principal, body, request }) => {
        const r = await save(principal.organizationId, principal.projectId, body, {
          organizationId: principal.organizationId,
          actor: keyActor(principal),
        });
        noteTrace(request, { detail: { changed: r.changed } });
        return r;
      },
      guardOf(HOOK_RULES_WRITE),
    )
    .get(
      routePattern(PROJECT.hookRules),
      async ({ org, params }) => answer(org.id, (await getProject(deps.database, org.id, params.id)).id),
      routeGuard(PROJECT.hookRules),
    )
    .put(
      routePattern(PROJECT.setHookRules),
      async ({ auth, org, params, body }) => {
        const project = await getProject(deps.database, org.id, params.id);
        return save(org.id, project.id, body, { organizationId: org.id, actor: userActor(auth.user) });
      },
      routeGuard(PROJECT.setHookRules),
    );
}
