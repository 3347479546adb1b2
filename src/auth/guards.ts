/**
 * Guards as Elysia macros, so each route names its guard beside it (STYLE 2):
 *   { session: true }            a signed-in person (CSRF-checked)
 *   { org: "member" | "admin" }  …acting in an approved active organization with that role
 *   { platformAdmin: true }      …who is a platform administrator
 *   { key: "<scope>" }           a project key (or OAuth token) carrying that scope
 *   { orgOrKey: "<scope>" }      a bearer carrying that scope when the request has one, else a
 *                                member's session in an approved active organization (routes
 *                                the command-line client calls too; the handler checks the role)
 * Authentication runs in `transform`, before body and query validation, so an
 * unauthenticated caller learns nothing about a route's input rules; `resolve` hands the
 * result to the handler. Created once per app in createApp and used by every domain plugin.
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../deps";
import type { KeyScope, MemberRole } from "../db/schema";
import type { SessionRecord } from "./sessions";
import { AppError } from "../http/errors";
import type { OrgMembership } from "./memberships";
import { bearerOf, type KeyPrincipal } from "./key";
import { authenticateKeyOrToken } from "./principal";
import { requireOrg, requireSession } from "./session";

interface Resolved {
  auth?: SessionRecord;
  org?: OrgMembership;
  principal?: KeyPrincipal;
}

/** What the guards resolved per request (shared by every app: requests are unique objects). */
const resolved = new WeakMap<Request, Resolved>();

/** The key (or token) principal the guard resolved for a request, if any (trace journal). */
export function principalOf(request: Request): KeyPrincipal | undefined {
  return resolved.get(request)?.principal;
}

/** The web session the guard resolved for a request, if any (trace journal). */
export function sessionOf(request: Request): SessionRecord | undefined {
  return resolved.get(request)?.auth;
}

export function createGuards(deps: CoreDeps) {
  const got = (request: Request): Resolved => resolved.get(request) ?? {};
  return new Elysia().macro({
    session: {
      async transform({ request }) {
        resolved.set(request, { auth: await requireSession(deps, request) });
      },
      resolve: ({ request }) => ({ auth: got(request).auth! }),
    },
    org: (minRole: MemberRole) => ({
      async transform({ request }) {
        const auth = await requireSession(deps, request);
        resolved.set(request, { auth, org: await requireOrg(deps.database, auth, minRole) });
      },
      resolve: ({ request }) => ({ auth: got(request).auth!, org: got(request).org! }),
    }),
    platformAdmin: {
      async transform({ request }) {
        const auth = await requireSession(deps, request);
        if (auth.user.role !== "admin") throw new AppError("forbidden", "This needs a platform administrator.");
        resolved.set(request, { auth });
      },
      resolve: ({ request }) => ({ auth: got(request).auth! }),
    },
    key: (scope: KeyScope) => ({
      async transform({ request }) {
        resolved.set(request, { principal: await authenticateKeyOrToken(deps, request, scope) });
      },
      resolve: ({ request }) => ({ principal: got(request).principal! }),
    }),
    orgOrKey: (scope: KeyScope) => ({
      async transform({ request }) {
        if (bearerOf(request) !== null) {
          resolved.set(request, { principal: await authenticateKeyOrToken(deps, request, scope) });
          return;
        }
        const auth = await requireSession(deps, request);
        resolved.set(request, { auth, org: await requireOrg(deps.database, auth, "member") });
      },
      resolve: ({ request }) => ({ caller: got(request) }),
    }),
  });
}

export type Guards = ReturnType<typeof createGuards>;
