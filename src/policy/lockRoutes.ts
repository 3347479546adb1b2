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
import { savePolicy } from "./routes";
import { readPolicy } from "./service";

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

/** Saves the policy with one lock set or lifted; a refusal's issues name the form's `rule`. */
export async function changeLock(
  deps: CatalogDeps & JournalDeps,
  organizationId: string,
  user: { id: string; email: string },
  change: LockChange,
  request: Request,
) {
  const policy = await readPolicy(deps.database, organizationId);
  const hookRules = { ...policy.hookRules };
  if (change.choice === null) {
    if (!Object.hasOwn(hookRules, change.rule))
      throw validationFailed([{ path: "rule", message: `${change.rule} is not locked by the organization's policy` }]);
    delete hookRules[change.rule];
  } else hookRules[change.rule] = change.choice;
  const body = { requiredTalents: policy.requiredTalents, allowedTalents: policy.allowedTalents, hookRules };
  try {
    return await savePolicy(deps, organizationId, user, body, request);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== "validation_failed") throw e;
    const issues = ((e.details.issues as Issue[] | undefined) ?? []).map((i) => ({
      path: i.path.startsWith("hookRules") ? "rule" : i.path,
      message: i.message.replace(/^hookRules\.[^ :]+:? /, ""),
    }));
    throw validationFailed(issues);
  }
}

export function lockRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  return new Elysia({ prefix: "/web/orgs/current/policy/hook-rules" })
    .use(guards)
    .post("/", async ({ auth, org, body, request }) => changeLock(deps, org.id, auth.user, readLockBody(body), request), { org: "admin" })
    .delete(
      "/:rule",
      async ({ auth, org, params, request }) =>
        changeLock(deps, org.id, auth.user, { rule: decodedParam(params.rule, "rule"), choice: null }, request),
      { org: "admin" },
    );
}
