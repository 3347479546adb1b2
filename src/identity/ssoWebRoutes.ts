/**
 * `GET, POST, DELETE /web/orgs/current/sso` and `POST /web/orgs/current/sso/test` (spec C):
 * the active organization's SSO, for its owners and admins (members 403). Secrets never come
 * back. Every change is a security event (`sso.configured`, `sso.deleted`, `sso.tested`).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { Guards } from "../auth/guards";
import { clientMeta } from "../http/client";
import { notFound } from "../http/errors";
import { requireConfirmation } from "../http/methodOverride";
import { confirmations } from "../web/confirmations";
import { recordSecurityEvent } from "./security";
import { deleteSso, loadSso, markTested, publicSso, readSsoSettings, saveSso, testSso } from "./sso";

export function ssoWebRoutes(deps: AppDeps, guards: Guards) {
  const { config, database } = deps;
  return new Elysia({ prefix: "/web/orgs/current/sso" })
    .use(guards)
    .get("/", async ({ org }) => publicSso(config, org.id, await loadSso(database, org.id)), { org: "admin" })
    .post("/", async ({ auth, org, body, request, server }) => {
      const saved = await database.write(async (tx) => {
        const stored = await loadSso(tx, org.id);
        const settings = readSsoSettings(body, stored);
        await saveSso(tx, org.id, settings);
        await recordSecurityEvent(tx, {
          kind: "sso.configured",
          userId: auth.user.id,
          email: auth.user.email,
          ...clientMeta(request, server),
          detail: { organizationId: org.id, type: settings.type, domains: settings.domains, enforce: settings.enforce, created: stored === null },
        });
        return loadSso(tx, org.id);
      });
      return publicSso(config, org.id, saved);
    }, { org: "admin" })
    .delete("/", async ({ auth, org, body, request, server }) => {
      await requireConfirmation(request, body, async () => {
        if (!(await loadSso(database, org.id))) throw notFound("This organization has no single sign-on.");
        return confirmations.removeSso();
      });
      await database.write(async (tx) => {
        if (!(await deleteSso(tx, org.id))) throw notFound("This organization has no single sign-on.");
        await recordSecurityEvent(tx, { kind: "sso.deleted", userId: auth.user.id, email: auth.user.email, ...clientMeta(request, server), detail: { organizationId: org.id } });
      });
      return { sso: null };
    }, { org: "admin" })
    .post("/test", async ({ auth, org, request, server }) => {
      const settings = await loadSso(database, org.id);
      if (!settings) throw notFound("This organization has no single sign-on to test: save a configuration first.");
      const result = await testSso(settings, config.egress);
      await database.write(async (tx) => {
        if (result.ok) await markTested(tx, org.id);
        await recordSecurityEvent(tx, { kind: "sso.tested", userId: auth.user.id, email: auth.user.email, ...clientMeta(request, server), detail: { organizationId: org.id, ok: result.ok, problems: result.problems } });
      });
      const domain = settings.domains[0]!;
      return {
        ok: result.ok,
        checks: result.checks,
        // the test sign-in: the same door /login uses for the domain (only an approved organization's SSO opens it)
        link: `${config.baseUrl}/api/auth/sso/${domain}?next=${encodeURIComponent("/org/sso")}`,
      };
    }, { org: "admin" });
}
