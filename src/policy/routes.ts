/**
 * `GET, PUT /web/orgs/current/policy` (owners and admins; docs/api.md "Organization policy"):
 * read and set the organization's required and allowed talents. Saving installs the required
 * talents in every project (one transaction, service.ts commitPolicy); each project that gained
 * or re-enabled one gets an `install` event in its activity journal, by the person, via `web`.
 */
import { Elysia, t } from "elysia";
import type { Guards } from "../auth/guards";
import type { CatalogDeps } from "../catalog/state";
import type { JournalDeps } from "../journal/journal";
import { policyAnswer, savePolicy } from "./save";
import { readPolicy } from "./service";
import { routeGuard, routePattern } from "../http/route";
import { POLICY } from "./describe";

export function policyRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(routePattern(POLICY.policy), async ({ org }) => policyAnswer(await readPolicy(deps.database, org.id)), routeGuard(POLICY.policy))
    .put(
      routePattern(POLICY.setPolicy),
      async ({ auth, org, body, request }) => savePolicy(deps, org.id, auth.user, body as Record<string, unknown>, request),
      {
        ...routeGuard(POLICY.setPolicy),
        body: t.Object({
          requiredTalents: t.Optional(t.Unknown()),
          allowedTalents: t.Optional(t.Unknown()),
          allowedMode: t.Optional(t.Unknown()),
          hookRules: t.Optional(t.Unknown()),
        }),
      },
    );
}
