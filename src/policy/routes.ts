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
import { checkLockedRules } from "./hookLocks";
import { commitPolicy, readPolicy, readPolicyBody, requiredItemsOf, type PolicyView } from "./service";

/** The answer of both routes. */
export function policyAnswer(p: PolicyView) {
  return {
    policy: {
      requiredTalents: p.requiredTalents,
      allowedTalents: p.allowedTalents,
      hookRules: p.hookRules,
      setBy: p.setBy,
      updatedAt: p.updatedAt === null ? null : new Date(p.updatedAt).toISOString(),
    },
  };
}

export function policyRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia({ prefix: "/web/orgs/current/policy" })
    .use(guards)
    .get("/", async ({ org }) => policyAnswer(await readPolicy(deps.database, org.id)), { org: "admin" })
    .put("/", async ({ auth, org, body, request }) => savePolicy(deps, org.id, auth.user, body as Record<string, unknown>, request), {
      org: "admin",
      body: t.Object({
        requiredTalents: t.Optional(t.Unknown()),
        allowedTalents: t.Optional(t.Unknown()),
        hookRules: t.Optional(t.Unknown()),
      }),
    });
}

/**
 * Saves the organization's policy from a body (JSON, or the page's form as text) and journals each project that gained
 * talents: `PUT /web/orgs/current/policy` and `/org/policy`'s form without JavaScript (pages.tsx). Returns the answer.
 */
export async function savePolicy(
  deps: CatalogDeps & JournalDeps,
  organizationId: string,
  user: { id: string; email: string },
  body: Record<string, unknown>,
  request: Request,
) {
  const input = readPolicyBody(body);
  const items = await requiredItemsOf(deps.database, deps.state.catalog!, organizationId, input);
  if (input.hookRules) await checkLockedRules(deps.database, deps.state.catalog!, organizationId, input.hookRules);
  const changed = await deps.database.write((tx) => commitPolicy(tx, organizationId, { ...input, items }, userActor(user)));
  for (const c of changed) {
    if (c.entered.length === 0) continue;
    deps.journal.record({
      projectId: c.projectId,
      kind: "install",
      via: "web",
      authorType: "user",
      authorId: user.id,
      authorName: user.email,
      client: clientOf(request),
      talentsEntered: c.entered,
      status: 200,
      durationMs: elapsedMs(request),
      arrival: arrivalOf(request),
      detail: { policy: true },
    });
  }
  return {
    ...policyAnswer(await readPolicy(deps.database, organizationId)),
    projects: changed.filter((c) => c.entered.length > 0).map((c) => ({ projectId: c.projectId, installed: c.entered })),
  };
}
