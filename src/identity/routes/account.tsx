/** @jsxImportSource hono/jsx */
/** `/api/auth/*` (sign-up, sign-in, sign-out, session, change-password) and `/setup`. */
import { iso } from "../../lib/time";
import { Elysia, t } from "elysia";
import type { CoreDeps } from "../../deps";
import type { SignInDeps } from "../limits";
import type { Guards } from "../../auth/guards";
import { checkSameOrigin } from "../../http/csrf";
import { AppError } from "../../http/errors";
import { clientMeta } from "../../http/client";
import { page } from "../../ui/layout";
import { statusCookie } from "../../ui/status";
import { listMemberships, membershipView } from "../../auth/memberships";
import { ChangePasswordBody, SetupBody, SignInBody, SignUpBody } from "../model";
import { changePassword, completeSetup, setupTokenValid, signIn, signUp } from "../service";
import { deleteSessionByToken, sessionCookie, sessionTokenFrom } from "../../auth/sessions";
import { SetupPage } from "../pages/setup";
import { routeGuard, routePattern } from "../../http/route";
import { AUTH } from "./describe";

export function identityRoutes(deps: SignInDeps, guards: Guards) {
  const limiters = deps.authLimiters;
  return new Elysia()
    .use(guards)
    .post(
      routePattern(AUTH.signUp),
      async ({ body, request, server, set }) => {
        checkSameOrigin(deps.config, request, false);
        const r = await signUp(deps.database, limiters, body, clientMeta(request, server), deps);
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(deps.config, r.session.token, r.session.expiresAt);
        return { user: r.user, organizations: [] };
      },
      { ...routeGuard(AUTH.signUp), body: SignUpBody },
    )
    .post(
      routePattern(AUTH.signIn),
      async ({ body, request, server, set }) => {
        checkSameOrigin(deps.config, request, false);
        const r = await signIn(deps.database, limiters, body, clientMeta(request, server), sessionTokenFrom(deps.config, request));
        set.headers["set-cookie"] = sessionCookie(deps.config, r.session.token, r.session.expiresAt);
        return { user: r.user, activeOrganizationId: r.organizations[0]?.id ?? null, organizations: r.organizations.map(membershipView) };
      },
      { ...routeGuard(AUTH.signIn), body: SignInBody },
    )
    .post(
      routePattern(AUTH.signOut),
      async ({ request, set }) => {
        const token = sessionTokenFrom(deps.config, request);
        if (token) {
          checkSameOrigin(deps.config, request, true);
          await deps.database.write((tx) => deleteSessionByToken(tx, token));
        }
        set.headers["set-cookie"] = sessionCookie(deps.config, null);
        return { signedOut: true };
      },
      routeGuard(AUTH.signOut),
    )
    .get(
      routePattern(AUTH.session),
      async ({ auth }) => {
        const organizations = (await listMemberships(deps.database, auth.user.id)).map(membershipView);
        const { id, email, name, role } = auth.user;
        return {
          user: { id, email, name, role },
          activeOrganizationId: organizations.some((o) => o.id === auth.activeOrganizationId) ? auth.activeOrganizationId : null,
          organizations,
          expiresAt: iso(auth.expiresAt),
        };
      },
      routeGuard(AUTH.session),
    )
    .post(
      routePattern(AUTH.changePassword),
      async ({ auth, body, request, server, set }) => {
        const s = await changePassword(
          deps.database,
          limiters,
          auth.user.id,
          body.currentPassword,
          body.newPassword,
          clientMeta(request, server),
        );
        set.headers["set-cookie"] = sessionCookie(deps.config, s.token, s.expiresAt);
        return { changed: true, otherSessionsEnded: true };
      },
      { ...routeGuard(AUTH.changePassword), body: ChangePasswordBody },
    );
}

/** The first-admin setup page and its form post. */
export function setupRoutes(deps: CoreDeps) {
  return new Elysia()
    .get(
      "/setup",
      async ({ query }) => {
        const token = query.token ?? "";
        return page(<SetupPage token={token} valid={token !== "" && (await setupTokenValid(deps.database, token))} />);
      },
      { query: t.Object({ token: t.Optional(t.String({ maxLength: 200 })) }) },
    )
    .post(
      "/setup",
      async ({ body, request, server }) => {
        checkSameOrigin(deps.config, request, false);
        try {
          const r = await completeSetup(deps.database, body, clientMeta(request, server));
          const cookie = sessionCookie(deps.config, r.session.token, r.session.expiresAt);
          if (request.headers.get("accept")?.includes("application/json")) {
            return new Response(JSON.stringify({ userId: r.userId, role: "admin" }), {
              status: 201,
              headers: { "content-type": "application/json", "set-cookie": cookie },
            });
          }
          // the home page's status line says what was done (ui/status.ts)
          const headers = new Headers({ location: "/", "cache-control": "no-store" });
          headers.append("set-cookie", cookie);
          headers.append("set-cookie", statusCookie(`You are the platform administrator, signed in as ${body.email}.`, request));
          return new Response(null, { status: 303, headers });
        } catch (e) {
          if (e instanceof AppError && !request.headers.get("accept")?.includes("application/json")) {
            // a taken address is the e-mail field's problem; a used or expired link, the form's
            const error = { field: e.code === "conflict" ? ("email" as const) : undefined, message: e.message };
            const valid = await setupTokenValid(deps.database, body.token);
            return page(<SetupPage token={body.token} valid={valid} error={error} email={body.email} name={body.name} />, e.status);
          }
          throw e;
        }
      },
      { body: SetupBody },
    );
}
