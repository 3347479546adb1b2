/**
 * `/web/account…` (docs/api.md "Your account"): the signed-in person's own account as JSON, and
 * its changes. htmx gets each change's status line and `/account` again (the views of describe.ts);
 * `/account`'s forms posted without JavaScript are answered by identity/pages/account.tsx under
 * the same rules (account.ts).
 */
import { Elysia, t } from "elysia";
import type { Guards } from "../../auth/guards";
import { sessionCookie } from "../../auth/sessions";
import { clientMeta } from "../../http/client";
import { changeOwnPassword, endOtherSessions, endOwnSession, readAccount, readName, readPasswordChange, renameSelf } from "../account";
import { resendEmailVerification } from "../emailVerification";
import type { SignInDeps } from "../limits";
import { iso } from "../../lib/time";
import type { Account } from "../account";
import { routeGuard, routePattern } from "../../http/route";
import { ACCOUNT } from "./describe";

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** The account as JSON: its times as ISO 8601. */
function accountJson(a: Account) {
  return {
    user: a.user,
    sessions: a.sessions.map((s) => ({ ...s, createdAt: iso(s.createdAt), lastSeenAt: iso(s.lastSeenAt) })),
    identities: a.identities.map((i) => ({ ...i, linkedAt: iso(i.linkedAt) })),
    keys: a.keys.map((k) => ({
      ...k,
      createdAt: iso(k.createdAt),
      lastUsedAt: isoOrNull(k.lastUsedAt),
      expiresAt: isoOrNull(k.expiresAt),
    })),
  };
}

/** The JSON routes of the person's own account; a session only (a key never reaches them). */
export function accountWebRoutes(deps: SignInDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(ACCOUNT.account),
      async ({ auth }) => accountJson(await readAccount(deps.database, deps.config, auth.user.id, auth.id)),
      routeGuard(ACCOUNT.account),
    )
    .patch(
      routePattern(ACCOUNT.update),
      async ({ auth, body }) => {
        const name = readName(body);
        await renameSelf(deps.database, auth.user.id, name);
        return { user: { id: auth.user.id, email: auth.user.email, name } };
      },
      routeGuard(ACCOUNT.update),
    )
    .post(
      routePattern(ACCOUNT.password),
      async ({ auth, body, request, server, set }) => {
        const change = readPasswordChange(body);
        const s = await changeOwnPassword(deps.database, deps.authLimiters, auth.user.id, change, clientMeta(request, server));
        set.headers["set-cookie"] = sessionCookie(deps.config, s.token, s.expiresAt);
        return { changed: true, otherSessionsEnded: true };
      },
      routeGuard(ACCOUNT.password),
    )
    .post(
      routePattern(ACCOUNT.verification),
      async ({ auth, set }) => {
        const sent = await resendEmailVerification(deps.database, deps, auth.user.id);
        set.status = sent ? 202 : 200;
        return { sent, verified: !sent, email: auth.user.email };
      },
      routeGuard(ACCOUNT.verification),
    )
    .post(
      routePattern(ACCOUNT.signOutOthers),
      async ({ auth, request, server }) => ({
        ended: await endOtherSessions(deps.database, { user: auth.user, meta: clientMeta(request, server) }, auth.id),
      }),
      routeGuard(ACCOUNT.signOutOthers),
    )
    .delete(
      routePattern(ACCOUNT.endSession),
      async ({ auth, params, request, server }) => {
        await endOwnSession(deps.database, { user: auth.user, meta: clientMeta(request, server) }, params.sessionId);
        return { ended: true, current: params.sessionId === auth.id };
      },
      { ...routeGuard(ACCOUNT.endSession), params: t.Object({ sessionId: t.String({ maxLength: 100 }) }) },
    );
}
