/**
 * The descriptors of the organization's SSO settings (`/web/orgs/current/sso…`: routes/ssoSettings.ts) and of the platform administrators' domain approvals (`/web/admin/sso-domains…`),
 * docs/api.md "Organization SSO": each route's OpenAPI row, answer and view (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../../http/route";
import type { OrgPlace } from "../../ui/places";
import { a, arr, B, n, o, obj, S, str, type Schema } from "../../http/schema";
import { SSO_SAVED } from "../pages/sso";
import type { publicSso } from "../sso";

type Public = ReturnType<typeof publicSso>;

const DomainClaim = o({ domain: S, status: S, record: o({ type: S, name: S, value: S }), verifiedAt: n(S), verifiedBy: n(S) });
/** The answer about one domain claim. */
const Claim = o({ claim: DomainClaim });
const Sso = o({
  sso: n(
    o({
      type: S,
      domains: a(S),
      domainClaims: a(DomainClaim),
      enforce: B,
      enterpriseGrant: B,
      oidc: n(o({ issuer: S, clientId: S, clientSecretSet: B })),
      saml: n(o({ entryPoint: S, idpIssuer: S, idpCert: S, certificate: n(o({ subject: S, validTo: S, fingerprint256: S })) })),
      testedAt: n(S),
      updatedAt: S,
      signInLinks: a(S),
    }),
  ),
  serviceProvider: o({ oidcRedirectUri: S, samlEntityId: S, samlAcsUrl: S, samlMetadataUrl: S }),
});

/** The SSO settings (owners and admins) and the domain approvals (platform administrators). */
export const SSO = {
  settings: {
    method: "GET",
    path: "/web/orgs/current/sso",
    summary: "The organization's SSO (secrets never returned) and the URLs to register at the IdP",
    access: "admin",
    answer: Sso,
  },
  save: {
    method: "POST",
    path: "/web/orgs/current/sso",
    summary: "Set the organization's SSO (OIDC or SAML) and its e-mail domains",
    access: "admin",
    body: obj(
      {
        type: str({ enum: ["oidc", "saml"] }),
        domains: arr(str(), { minItems: 1, maxItems: 20 }),
        enforce: { type: "boolean" },
        oidc: obj({
          issuer: str({ format: "uri" }),
          clientId: str(),
          clientSecret: str({ description: "write-only; empty keeps the stored one" }),
        }),
        saml: obj({ entryPoint: str({ format: "uri" }), idpCert: str({ description: "PEM or base64 X.509" }), idpIssuer: str() }),
      },
      ["type", "domains"],
    ),
    errors: [400, 409],
    answer: Sso,
    view: () => ({ redirect: () => "/org/sso", status: () => SSO_SAVED }),
  },
  remove: {
    method: "DELETE",
    path: "/web/orgs/current/sso",
    summary: "Remove the organization's SSO",
    access: "admin",
    errors: [404],
    answer: o({ sso: { type: "null" } }),
    view: () => ({ redirect: () => "/org/sso", status: () => "Single sign-on removed." }),
  },
  verifyDomain: {
    method: "POST",
    path: "/web/orgs/current/sso/domains/{domain}/verify",
    summary:
      "Verify a claimed SSO domain by its DNS TXT record _talentd-challenge.<domain>; 409 domain_unverified until it holds the token, " +
      "409 conflict when another organization verified it",
    access: "admin",
    errors: [404, 409],
    answer: Claim,
  },
  enterprise: {
    method: "POST",
    path: "/web/orgs/current/sso/enterprise",
    summary:
      "Turn enterprise-managed authorization (the IdP's ID-JAGs at /oauth/token) on or off; OIDC only, 409 invalid_transition for SAML",
    access: "admin",
    body: obj({ enabled: { type: "boolean" } }),
    errors: [400, 404, 409],
    answer: Sso,
    view: () => ({
      redirect: () => "/org/sso",
      status: (d) =>
        (d as Public).sso?.enterpriseGrant ? "Enterprise-managed authorization is on." : "Enterprise-managed authorization is off.",
    }),
  },
  test: {
    method: "POST",
    path: "/web/orgs/current/sso/test",
    summary: "Check the SSO configuration (OIDC discovery; SAML certificate and entry point) and return a test sign-in link",
    access: "admin",
    errors: [404],
    answer: o({ ok: B, checks: a(o({ name: S, ok: B, message: S })), link: S }),
  },
  pendingDomains: {
    method: "GET",
    path: "/web/admin/sso-domains",
    summary: "SSO domain claims waiting for proof",
    access: "platform",
    answer: o({
      claims: a(o({ ...(DomainClaim.properties as Record<string, Schema>), organization: o({ id: S, name: S, status: S }) })),
    }),
  },
  approveDomain: {
    method: "POST",
    path: "/web/admin/sso-domains/{orgId}/{domain}/approve",
    summary: "Verify an organization's SSO domain claim by approval (409 when another organization holds it verified)",
    access: "platform",
    errors: [404, 409],
    answer: Claim,
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const SSO_ROUTES: RouteDescriptor[] = Object.values(SSO);

/** The navigation entry of its page (pages/sso.tsx). */
export const SSO_PLACES: OrgPlace[] = [
  {
    href: "/org/sso",
    label: "SSO",
    title: "Single sign-on",
    text: "OIDC or SAML for the organization's e-mail domains",
    admin: true,
    header: false,
    also: "single sign-on",
  },
];
