/**
 * The page guard of the kit (ui/pageGuard.ts) bound to this app's sessions and memberships: the
 * signed-in person's session (auth) and their organizations (tenancy). Pages of tenancy and
 * the domains above it use createPageGuard; the composition root hands pageSessions to the
 * pages of lower domains (identity's /org/sso, mail's /org/mail) and to the error pages.
 */
import { optionalSession } from "../auth/session";
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { SessionRecord } from "../auth/sessions";
import { createPageGuard as kitPageGuard, type PageContext as KitPageContext, type PageSessions } from "../ui/pageGuard";
import { listMemberships, type OrgMembership } from "./service";

/** What a page handler receives as `page`: the session, the person's organizations and the active one. */
export type PageContext = KitPageContext<SessionRecord, OrgMembership>;

/** The signed-in person of a request and their organizations, for the kit's page guard. */
export function pageSessions(deps: { config: Config; database: Database }): PageSessions<SessionRecord, OrgMembership> {
  return {
    config: deps.config,
    async signedIn(request) {
      const session = await optionalSession(deps, request);
      return session ? { session, organizations: await listMemberships(deps.database, session.user.id) } : null;
    },
  };
}

/** The page guard macros (`page`, `orgPage`) with this app's sessions and memberships. */
export function createPageGuard(deps: { config: Config; database: Database }) {
  return kitPageGuard(pageSessions(deps));
}
