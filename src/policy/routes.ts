/**
 * `GET, PUT /web/orgs/current/policy` (owners and admins; docs/api.md "Organization policy"):
 * read and set the organization's required and allowed talents. Saving installs the required
 * talents in every project (one transaction, service.ts commitPolicy); each project that gained
 * or re-enabled one gets an `install` event in its activity journal, by the person, via `web`.
 */
import { Elysia, t } from "elysia";
import type { Guards } from "../auth/guards";
import type { CatalogDeps } from "../catalog/state";
import { arrivalOf, elapsedMs } from "../http/edge";
import type { JournalDeps } from "../journal/journal";
import { clientOf } from "../journal/trace";
import { userActor } from "../audit/record";
import { commitPolicy, readPolicy, readPolicyBody, requiredItemsOf, type PolicyView } from "./service";

/** The answer of both routes. */
export function policyAnswer(p: PolicyView) {
  return {
    policy: {
      requiredTalents: p.requiredTalents,
      allowedTalents: p.allowedTalents,
      setBy: p.setBy,
      updatedAt: p.updatedAt === null ? null : new Date(p.updatedAt).toISOString(),
    },
  };
}

export function policyRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia({ prefix: "/web/orgs/current/policy" })
    .use(guards)
    .get("/", async ({ org }) => policyAnswer(await readPolicy(deps.database, org.id)), { org: "admin" })
    .put(
      "/",
      async ({ auth, org, body, request }) => {
        const input = readPolicyBody(body as Record<string, unknown>);
        const items = await requiredItemsOf(deps.database, deps.state.catalog!, org.id, input);
        const changed = await deps.database.write((tx) => commitPolicy(tx, org.id, { ...input, items }, userActor(auth.user)));
        for (const c of changed) {
          if (c.entered.length === 0) continue;
          deps.journal.record({
            projectId: c.projectId,
            kind: "install",
            via: "web",
            authorType: "user",
            authorId: auth.user.id,
            authorName: auth.user.email,
            client: clientOf(request),
            talentsEntered: c.entered,
            status: 200,
            durationMs: elapsedMs(request),
            arrival: arrivalOf(request),
            detail: { policy: true },
          });
        }
        return {
          ...policyAnswer(await readPolicy(deps.database, org.id)),
          projects: changed.filter((c) => c.entered.length > 0).map((c) => ({ projectId: c.projectId, installed: c.entered })),
        };
      },
      {
        org: "admin",
        body: t.Object({ requiredTalents: t.Optional(t.Unknown()), allowedTalents: t.Optional(t.Unknown()) }),
      },
    );
}
