/** `GET, PUT, DELETE /web/orgs/current/code-hosting` (members read; owners and admins set it). See codeHosting.ts. */
import { Elysia } from "elysia";
import type { CoreDeps } from "../deps";
import type { Guards } from "../auth/guards";
import { requireConfirmation } from "../http/methodOverride";
import { confirmations } from "../ui/confirmations";
import { getCodeHosting, readCodeHosting, setCodeHosting } from "./codeHosting";
import { userActor } from "../audit/record";
import { routeGuard, routePattern } from "../http/route";
import { TENANCY } from "./describe";

export function codeHostingRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia()
    .use(guards)
    .get(
      routePattern(TENANCY.codeHosting),
      async ({ org }) => ({ codeHosting: await getCodeHosting(deps.database, org.id) }),
      routeGuard(TENANCY.codeHosting),
    )
    .put(
      routePattern(TENANCY.setCodeHosting),
      async ({ auth, org, body }) => {
        const settings = readCodeHosting(body);
        await deps.database.write((tx) => setCodeHosting(tx, org.id, settings, userActor(auth.user)));
        return { codeHosting: settings };
      },
      routeGuard(TENANCY.setCodeHosting),
    )
    .delete(
      routePattern(TENANCY.clearCodeHosting),
      async ({ auth, org, body, request }) => {
        await requireConfirmation(request, body, confirmations.clearCodeHosting);
        await deps.database.write((tx) => setCodeHosting(tx, org.id, null, userActor(auth.user)));
        return { codeHosting: null };
      },
      routeGuard(TENANCY.clearCodeHosting),
    );
}
