/**
 * The descriptors of the organization's talent policy routes (`/web/orgs/current/policy…`: routes.ts,
 * lockRoutes.ts), docs/api.md "Organization policy": each route's OpenAPI row, answer and view (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import type { OrgPlace } from "../ui/places";
import { a, arr, map, n, o, obj, S, str } from "../http/schema";
import { lockSaved, policySaved } from "./views";
import { HOOK_CHOICES } from "./hookRules";

/** A hook rule's choice: block, advise or off (the policy's locks, a project's hook rules). */
export const HookChoice = str({ enum: [...HOOK_CHOICES] });

const Policy = o({ requiredTalents: a(S), allowedTalents: n(a(S)), hookRules: map(S), setBy: n(o({ id: S, name: S })), updatedAt: n(S) });

/**
 * The policy and its hook-rule locks: owners and admins. A change goes back to the page, from a form post and from
 * htmx alike, saying what it did.
 */
export const POLICY = {
  policy: {
    method: "GET",
    path: "/web/orgs/current/policy",
    summary: "The organization's talent policy (required and allowed talents)",
    access: "admin",
    answer: o({ policy: Policy }),
  },
  setPolicy: {
    method: "PUT",
    path: "/web/orgs/current/policy",
    summary:
      "Set the talent policy: required talents are installed and active in every project, with their prerequisites; hookRules locks rules",
    access: "admin",
    body: obj(
      {
        requiredTalents: arr(str()),
        allowedTalents: { anyOf: [arr(str()), { type: "null" }] },
        hookRules: map(HookChoice),
      },
      ["requiredTalents"],
    ),
    errors: [400, 409],
    answer: o({ policy: Policy, projects: a(o({ projectId: S, installed: a(S) })) }),
    view: () => ({ redirect: () => "/org/policy", status: policySaved }),
  },
  lockHookRule: {
    method: "POST",
    path: "/web/orgs/current/policy/hook-rules",
    summary: "Lock one hook rule in every project (or change its lock): {rule, choice}",
    access: "admin",
    body: obj({ rule: str(), choice: HookChoice }, ["rule", "choice"]),
    errors: [400],
    answer: o({ policy: Policy, projects: a(o({ projectId: S, installed: a(S) })) }),
    view: () => ({ redirect: () => "/org/policy", status: (d) => lockSaved(d, false) }),
  },
  unlockHookRule: {
    method: "DELETE",
    path: "/web/orgs/current/policy/hook-rules/{rule}",
    summary: "Lift the organization's lock on a hook rule",
    access: "admin",
    errors: [400],
    answer: o({ policy: Policy, projects: a(o({ projectId: S, installed: a(S) })) }),
    view: () => ({ redirect: () => "/org/policy", status: (d) => lockSaved(d, true) }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const POLICY_ROUTES: RouteDescriptor[] = Object.values(POLICY);

/** The navigation entry of its page (pages.tsx). */
export const POLICY_PLACES: OrgPlace[] = [
  {
    href: "/org/policy",
    label: "Policy",
    title: "Talent policy",
    text: "talents every project must have, and the only ones it may install",
    admin: true,
    header: false,
    also: "talent policy, required and allowed talents",
  },
];
