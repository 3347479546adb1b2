/**
 * Saving the organization's policy (docs/api.md "Organization policy"): from a body, JSON or the
 * page's form, validated, committed in one transaction (service.ts commitPolicy), each project that
 * gained or re-enabled a talent journaled; and the answer both `/web/orgs/current/policy` routes
 * give. routes.ts and the page without JavaScript (pages.tsx) call it.
 */
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
