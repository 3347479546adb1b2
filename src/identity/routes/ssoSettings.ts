/**
 * `GET, POST, DELETE /web/orgs/current/sso`, `POST /web/orgs/current/sso/test` and `…/sso/enterprise`
 * (enterprise-managed authorization: ssoEnterprise.ts), docs/api.md "Organization SSO":
 * the active organization's SSO, for its owners and admins (members 403). Secrets never come
 * back. Every change is a security event (`sso.configured`, `sso.deleted`, `sso.tested`,
 * `sso.domain_verified`). A saved domain is a claim that routes nothing until it is proven:
 * `POST …/sso/domains/:domain/verify` checks its DNS TXT record; a platform administrator may
 * approve it instead (`GET /web/admin/sso-domains`, `POST /web/admin/sso-domains/:orgId/:domain/approve`).
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../../deps";
import type { Guards } from "../../auth/guards";
import { clientMeta } from "../../http/client";
import { notFound } from "../../http/errors";
import { requireConfirmation } from "../../http/methodOverride";
import { confirmations } from "../../ui/confirmations";
import { recordSecurityEvent } from "../security";
import { decodedParam } from "../../http/query";
import { record, userActor } from "../../audit/record";
import { loadSso, markTested, publicSso, testSso } from "../sso";
import { deleteOrgSso, saveOrgSso } from "../ssoChanges";
import { readEnterpriseToggle, setEnterpriseGrant } from "../ssoEnterprise";
import { approveDomainClaim, pendingDomainClaims, txtLookup, verifyDomainByDns } from "../ssoDomains";
import { routeGuard, routePattern } from "../../http/route";
import { SSO } from "./ssoDescribe";

export function ssoWebRoutes(deps: CoreDeps, guards: Guards) {
  return new Elysia().use(orgSsoRoutes(deps, guards)).use(ssoEnterpriseRoutes(deps, guards)).use(adminDomainRoutes(deps, guards));
}

/** The platform administrators' list of pending domain claims and their approval. */
function adminDomainRoutes(deps: CoreDeps, guards: Guards) {
  const { database } = deps;
  return new Elysia()
    .use(guards)
    .get(routePattern(SSO.pendingDomains), async () => ({ claims: await pendingDomainClaims(database) }), routeGuard(SSO.pendingDomains))
    .post(
      routePattern(SSO.approveDomain),
      async ({ auth, params, request, server }) => {
        const orgId = decodedParam(params.orgId, "orgId");
        const domain = decodedParam(params.domain, "domain").toLowerCase();
        const claim = await database.write(async (tx) => {
          const c = await approveDomainClaim(tx, orgId, domain, auth.user.id);
          await record(tx, {
            organizationId: orgId,
            actor: userActor(auth.user),
            action: "sso.domain_verified",
            object: { kind: "sso_domain", id: domain },
            after: { verifiedBy: "admin" },
          });
          await recordSecurityEvent(tx, {
            kind: "sso.domain_verified",
            userId: auth.user.id,
            email: auth.user.email,
            ...clientMeta(request, server),
            detail: { organizationId: orgId, domain, by: "admin" },
          });
          return c;
        });
        return { claim };
      },
      routeGuard(SSO.approveDomain),
    );
}

function orgSsoRoutes(deps: CoreDeps, guards: Guards) {
  const { config, database } = deps;
  return new Elysia()
    .use(guards)
    .get(
      routePattern(SSO.settings),
      async ({ org }) => publicSso(config, org.id, await loadSso(database, org.id)),
      routeGuard(SSO.settings),
    )
    .post(
      routePattern(SSO.save),
      async ({ auth, org, body, request, server }) => {
        const saved = await database.write((tx) => saveOrgSso(tx, org.id, body, auth.user, clientMeta(request, server)));
        return publicSso(config, org.id, saved);
      },
      routeGuard(SSO.save),
    )
    .post(
      routePattern(SSO.verifyDomain),
      async ({ auth, org, params, request, server }) => {
        const domain = decodedParam(params.domain, "domain").toLowerCase();
        const claim = await verifyDomainByDns(database, txtLookup(config), org.id, domain, userActor(auth.user));
        if (claim.verifiedBy === "dns") {
          await recordSecurityEvent(database, {
            kind: "sso.domain_verified",
            userId: auth.user.id,
            email: auth.user.email,
            ...clientMeta(request, server),
            detail: { organizationId: org.id, domain, by: "dns" },
          });
        }
        return { claim };
      },
      routeGuard(SSO.verifyDomain),
    )
    .delete(
      routePattern(SSO.remove),
      async ({ auth, org, body, request, server }) => {
        await requireConfirmation(request, body, async () => {
          if (!(await loadSso(database, org.id))) throw notFound("This organization has no single sign-on.");
          return confirmations.removeSso();
        });
        await database.write((tx) => deleteOrgSso(tx, org.id, auth.user, clientMeta(request, server)));
        return { sso: null };
      },
      routeGuard(SSO.remove),
    )
    .post(
      routePattern(SSO.test),
      async ({ auth, org, request, server }) => {
        const settings = await loadSso(database, org.id);
        if (!settings) throw notFound("This organization has no single sign-on to test: save a configuration first.");
        const result = await testSso(settings, config.egress);
        await database.write(async (tx) => {
          if (result.ok) await markTested(tx, org.id);
          await recordSecurityEvent(tx, {
            kind: "sso.tested",
            userId: auth.user.id,
            email: auth.user.email,
            ...clientMeta(request, server),
            detail: { organizationId: org.id, ok: result.ok, problems: result.problems },
          });
        });
        const domain = settings.verifiedDomains[0] ?? settings.domains[0]!;
        return {
          ok: result.ok,
          checks: result.checks,
          // the test sign-in: the same door /login uses for the domain (only an approved organization's SSO opens it)
          link: `${config.baseUrl}/api/auth/sso/${domain}?next=${encodeURIComponent("/org/sso")}`,
        };
      },
      routeGuard(SSO.test),
    );
}

/** `POST /web/orgs/current/sso/enterprise`: enterprise-managed authorization on or off (ssoEnterprise.ts). */
function ssoEnterpriseRoutes(deps: CoreDeps, guards: Guards) {
  const { config, database } = deps;
  return new Elysia().use(guards).post(
    routePattern(SSO.enterprise),
    async ({ auth, org, body, request, server }) => {
      const enabled = readEnterpriseToggle(body);
      const saved = await database.write(async (tx) => {
        const before = (await loadSso(tx, org.id))?.enterpriseGrant ?? false;
        await setEnterpriseGrant(tx, org.id, enabled);
        if (before !== enabled) {
          await record(tx, {
            organizationId: org.id,
            actor: userActor(auth.user),
            action: "sso.enterprise_grant_changed",
            object: { kind: "sso", id: org.id },
            before: { enterpriseGrant: before },
            after: { enterpriseGrant: enabled },
          });
        }
        await recordSecurityEvent(tx, {
          kind: "sso.enterprise_grant",
          userId: auth.user.id,
          email: auth.user.email,
          ...clientMeta(request, server),
          detail: { organizationId: org.id, enabled },
        });
        return loadSso(tx, org.id);
      });
      return publicSso(config, org.id, saved);
    },
    routeGuard(SSO.enterprise),
  );
}
