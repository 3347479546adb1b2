/**
 * One lock at a time, for `/org/policy`'s lock form (docs/api.md "Organization policy"): `POST
 * /web/orgs/current/policy/hook-rules {rule, choice}` locks a rule (or changes its lock), `DELETE
 * /web/orgs/current/policy/hook-rules/:rule` lifts it; both save the whole policy as `PUT /web/orgs/current/policy`
 * with `hookRules` does (savePolicy: validated, one transaction, audited). Owners and admins.
 */
import { Elysia } from "elysia";
import type { Guards } from "../auth/guards";
import type { CatalogDeps } from "../catalog/state";
import { AppError, validationFailed, type Issue } from "../http/errors";
import { decodedParam } from "../http/query";
import type { JournalDeps } from "../journal/journal";
import { HOOK_CHOICES, type HookChoice } from "./hookRules";
import { userActor } from "../audit/record";
import { checkLockedRules } from "./hookLocks";
import { policyAnswer } from "./save";
import { commitLock, readPolicy } from "./service";
import { routeGuard, routePattern } from "../http/route";
import { POLICY } from "./describe";

/** What the lock form sends: `rule` and `choice` to lock, or only `rule` with `remove` to lift. */
export interface LockChange {
  rule: string;
  choice: HookChoice | null;
}

/** Reads `{rule, choice}`: 400 validation_failed naming `rule` or `choice`. */
export function readLockBody(body: unknown): LockChange {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  const rule = typeof b.rule === "string" ? b.rule.trim() : "";
  if (rule === "" || rule.length > 100) issues.push({ path: "rule", message: "rule is required: a rule id such as TS-005" });
  const choice = b.choice;
  if (typeof choice !== "string" || !(HOOK_CHOICES as string[]).includes(choice))
    issues.push({ path: "choice", message: 'choice must be "block", "advise" or "off"' });
  if (issues.length > 0) throw validationFailed(issues);
  return { rule, choice: choice as HookChoice };
}

/**
 * Sets or lifts one lock (service.ts commitLock, one transaction); the answer is the policy's. A refusal's issues name
 * the form's `rule`.
 */
export async function changeLock(
  deps: CatalogDeps & JournalDeps,
  organizationId: string,
  user: { id: string; email: string },
  change: LockChange,
) {
  if (change.choice !== null) {
    try {
      await checkLockedRules(deps.database, deps.state.catalog!, organizationId, { [change.rule]: change.choice });
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
      throw validationFailed(
        ((e.details.issues as (Issue & { suggestions?: string[] })[] | undefined) ?? []).map((i) => ({
          path: "rule",
          message: i.message.replace(/^hookRules\.[^ :]+:? /, ""),
          ...(i.suggestions ? { suggestions: i.suggestions } : {}),
        })),
      );
    }
  }
  await deps.database.write((tx) => commitLock(tx, organizationId, change, userActor(user)));
  return { ...policyAnswer(await readPolicy(deps.database, organizationId)), projects: [] as { projectId: string; installed: string[] }[] };
}

export function lockRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .post(
      routePattern(POLICY.lockHookRule),
      async ({ auth, org, body }) => changeLock(deps, org.id, auth.user, readLockBody(body)),
      routeGuard(POLICY.lockHookRule),
    )
    .delete(
      routePattern(POLICY.unlockHookRule),
      async ({ auth, org, params }) => changeLock(deps, org.id, auth.user, { rule: decodedParam(params.rule, "rule"), choice: null }),
      routeGuard(POLICY.unlockHookRule),
    );
}
