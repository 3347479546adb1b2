/**
 * Enterprise-managed authorization (docs/api.md "Organization SSO"; its route,
 * `POST /web/orgs/current/sso/enterprise`, is in routes/ssoSettings.ts): turned on or off for the
 * active organization's OIDC SSO, by its owners and admins.
 * When on, the token endpoint accepts ID-JAGs its IdP issued for its members and its projects
 * (src/oauth/jwtBearer.ts). Off by default; a security event (`sso.enterprise_grant`) records each change.
 * Turned off (by hand, by saving another issuer or SAML, by removing the SSO), the access tokens it
 * issued are revoked in the same transaction: they fail at their next use.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Tx } from "../db/client";
import { oauthTokens, projects, ssoConnections } from "../db/schema";
import { AppError, notFound, validationFailed } from "../http/errors";
import { loadSso, type SsoSettings, type StoredSso } from "./sso";

/** Reads `enabled` from a JSON body (boolean) or a form (`true`/`on`/`1`, anything else off). */
export function readEnterpriseToggle(body: unknown): boolean {
  const v = (body as Record<string, unknown> | null)?.enabled;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v === "true" || v === "on" || v === "1";
  if (v === undefined) return false; // an unticked checkbox sends nothing
  throw validationFailed([{ path: "enabled", message: "must be true or false" }]);
}

/** Whether a saved configuration keeps the grant on: only while it trusts the same OIDC issuer (another IdP is trusted anew by hand). */
export function keepsEnterpriseGrant(stored: StoredSso, next: SsoSettings): boolean {
  return next.type === "oidc" && next.oidc?.issuer === stored.oidc?.issuer;
}

/**
 * Revokes the live access tokens the jwt-bearer grant issued for the organization's projects (each
 * is its own family, `family_id = id`; a consented grant's family is its code's hash). Inside the
 * transaction that turns the grant off or removes the SSO.
 */
export async function revokeEnterpriseTokens(tx: Tx, organizationId: string, now = Date.now()): Promise<void> {
  const ofOrganization = tx.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, organizationId));
  await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(isNull(oauthTokens.revokedAt), eq(oauthTokens.familyId, oauthTokens.id), inArray(oauthTokens.projectId, ofOrganization)));
}

/** Stores the setting (off: with the tokens it issued revoked); 404 without SSO, 409 invalid_transition when the SSO is SAML. */
export async function setEnterpriseGrant(tx: Tx, organizationId: string, enabled: boolean): Promise<void> {
  const stored = await loadSso(tx, organizationId);
  if (!stored) throw notFound("This organization has no single sign-on: configure OIDC single sign-on first.");
  if (enabled && stored.type !== "oidc")
    throw new AppError("invalid_transition", "Enterprise-managed authorization needs OpenID Connect single sign-on (this one is SAML).");
  await tx
    .update(ssoConnections)
    .set({ enterpriseGrant: enabled, updatedAt: Date.now() })
    .where(eq(ssoConnections.organizationId, organizationId));
  if (!enabled) await revokeEnterpriseTokens(tx, organizationId);
}
