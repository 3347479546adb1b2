/**
 * Enterprise-managed authorization (docs/api-oauth-mcp.md "Enterprise-managed authorization"):
 * the `urn:ietf:params:oauth:grant-type:jwt-bearer` grant (RFC 7523) whose `assertion` is an
 * Identity Assertion JWT Authorization Grant (ID-JAG, `typ: oauth-id-jag+jwt`) that an
 * organization's OIDC IdP issued by token exchange (RFC 8693). The `resource` claim names the
 * project, hence the organization; that organization must have turned the grant on for its OIDC
 * SSO, and only its issuer, its keys (the JWKS of its discovery, through the egress policy) and
 * its members count. The answer is one access token bound to the resource: no refresh token, no
 * consent page (the IdP's policy is the consent). Every `iss|jti` is accepted once.
 *
 * `aud` must be this server's issuer (BASE_URL) as a single string: the draft names one audience,
 * the issuer of the resource's authorization server, and a list would let one assertion serve
 * several servers. The scopes are those the `scope` claim names (narrowed by the request's
 * `scope`); an assertion without the claim gets none (refused): the IdP's policy must name what
 * it grants. A client identified by its metadata document's URL is looked up only once the
 * assertion verified (the IdP vouched for that client_id), and its row is written with the token.
 * The token is its own family (`family_id = id`): that is how the tokens of this grant are told
 * apart, and revoked when the organization turns the grant off (identity/ssoEnterprise.ts).
 */
import { and, eq, isNotNull, ne } from "drizzle-orm";
import type { FetchImplementation, JWTPayload } from "jose";
import type { Config } from "../config";
import type { Database, Tx } from "../db/client";
import {
  externalAccounts,
  members,
  oauthTokens,
  organizations,
  projects,
  ssoConnections,
  ssoNonces,
  users,
  type KeyScope,
} from "../db/schema";
import { normalizeEmail } from "../identity/users";
import { oidcConfiguration, OidcError } from "../identity/oidc";
import { usableSsoOf } from "../identity/sso";
import { newSecret, sha256Hex } from "../lib/crypto";
import { egressPolicyKey, policyFetch, type EgressPolicy } from "../lib/egress";
import { newId } from "../lib/ids";
import { keptUnbounded } from "../lib/kept";
import { onFirstUse } from "../lib/onFirstUse";
import { rememberMetadataClient } from "./cimd";
import { touchClient, type OAuthClient } from "./clients";
import { OAuthError } from "./errors";
import { ACCESS_TOKEN_PREFIX, ACCESS_TOKEN_TTL_MS } from "./grants";
import { parseResource, parseScopes } from "./resource";

/** The grant type (RFC 7523 §2.1) the token endpoint accepts an ID-JAG with. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** Announced in `authorization_grant_profiles_supported` (the extension's discovery). */
export const ID_JAG_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag";
/** The JWT `typ` header an ID-JAG carries (RFC 8725 §3.11 explicit typing). */
export const ID_JAG_TYP = "oauth-id-jag+jwt";
/** Clock skew allowed on `exp` and `iat`, in seconds. */
export const ID_JAG_CLOCK_SKEW_S = 30;
/** The longest lifetime (`exp - iat`) of an ID-JAG accepted, in seconds: they are meant to live minutes. */
export const ID_JAG_MAX_LIFETIME_S = 3600;
/** Asymmetric signatures only (never `none`, never HMAC: the key is the IdP's published one). */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

export interface JwtBearerResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

/** jose, loaded with the first jwt-bearer request (not at start). */
const joseLib = onFirstUse(() => import("jose"));
type Jose = Awaited<ReturnType<typeof joseLib>>;

const keySets = keptUnbounded<string, ReturnType<Jose["createRemoteJWKSet"]>>("An IdP's remote JWKS (ID-JAG signatures)", {
  clock: "time",
  bound: "one per SSO issuer with enterprise-managed authorization",
});

/**
 * The IdP's signing keys: its discovery's jwks_uri (through the discovery cache), fetched through
 * the egress policy; jose keeps the set and fetches it again on an unknown `kid` (key rotation).
 */
async function idpKeys(jose: Jose, oidc: { issuer: string; clientId: string; clientSecret: string }, policy: EgressPolicy) {
  const jwksUri = (await oidcConfiguration(oidc, policy)).serverMetadata().jwks_uri;
  if (!jwksUri) throw new OAuthError("invalid_grant", "The organization's identity provider publishes no signing keys (jwks_uri).");
  const key = `${jwksUri}\n${egressPolicyKey(policy)}`;
  let set = keySets.get(key);
  if (!set) {
    const options = { [jose.customFetch]: policyFetch(policy) as FetchImplementation, timeoutDuration: 10_000 };
    set = jose.createRemoteJWKSet(new URL(jwksUri), options);
    keySets.set(key, set);
  }
  return set;
}

/** Reads the assertion's claims without trusting them (they only choose whose keys verify it). */
function unverifiedClaims(jose: Jose, assertion: string): JWTPayload {
  try {
    return jose.decodeJwt(assertion);
  } catch {
    throw new OAuthError("invalid_grant", "The assertion is not a JWT.");
  }
}

/** The project the `resource` claim names, with its organization (an MCP URL of a project here, else invalid_grant). */
async function targetOf(database: Database, config: Config, claims: JWTPayload, requested: string | undefined) {
  const resource = typeof claims.resource === "string" ? claims.resource : null;
  if (!resource) throw new OAuthError("invalid_grant", "The assertion has no resource claim: it must name a project's MCP URL.");
  if (requested !== undefined && requested !== resource)
    throw new OAuthError("invalid_target", "resource differs from the assertion's resource claim.");
  const projectId = parseResource(config.baseUrl, resource)?.projectId;
  if (!projectId)
    throw new OAuthError("invalid_grant", `The assertion's resource is not a project's MCP URL here (${config.baseUrl}/mcp/<project>).`);
  const row = (
    await database.db
      .select({ organizationId: projects.organizationId, status: organizations.status })
      .from(projects)
      .innerJoin(organizations, eq(organizations.id, projects.organizationId))
      .where(eq(projects.id, projectId))
      .limit(1)
  )[0];
  if (!row) throw new OAuthError("invalid_grant", "The assertion's resource names no project here.");
  return { resource, projectId, organizationId: row.organizationId };
}

/** Verifies signature, typ, issuer, audience and time bounds; maps each failure to its invalid_grant sentence. */
async function verified(jose: Jose, assertion: string, oidc: { issuer: string; clientId: string; clientSecret: string }, config: Config) {
  let keys: Awaited<ReturnType<typeof idpKeys>>;
  try {
    keys = await idpKeys(jose, oidc, config.egress);
  } catch (e) {
    if (e instanceof OidcError)
      throw new OAuthError("temporarily_unavailable", "The organization's identity provider could not be reached.");
    throw e;
  }
  try {
    const { payload } = await jose.jwtVerify(assertion, keys, {
      issuer: oidc.issuer,
      audience: config.baseUrl,
      typ: ID_JAG_TYP,
      algorithms: ALGORITHMS,
      clockTolerance: ID_JAG_CLOCK_SKEW_S,
      requiredClaims: ["exp", "iat", "sub", "jti", "client_id"],
    });
    if (typeof payload.aud !== "string")
      throw new OAuthError(
        "invalid_grant",
        "The assertion's aud must be this authorization server's issuer as a single string, not a list.",
      );
    const now = Math.floor(Date.now() / 1000);
    if (payload.iat! > now + ID_JAG_CLOCK_SKEW_S) throw new OAuthError("invalid_grant", "The assertion was issued in the future (iat).");
    if (payload.exp! - payload.iat! > ID_JAG_MAX_LIFETIME_S)
      throw new OAuthError("invalid_grant", `The assertion lives longer than ${ID_JAG_MAX_LIFETIME_S} seconds (exp - iat).`);
    return payload;
  } catch (e) {
    if (e instanceof OAuthError) throw e;
    throw new OAuthError("invalid_grant", assertionProblem(jose.errors, e));
  }
}

/** The sentence of a failed verification (jose's error classes). */
function assertionProblem(errors: Jose["errors"], e: unknown): string {
  if (e instanceof errors.JWTExpired) return "The assertion has expired.";
  if (e instanceof errors.JWKSNoMatchingKey) return "The assertion is signed with a key the identity provider does not publish.";
  if (e instanceof errors.JWSSignatureVerificationFailed) return "The assertion's signature does not verify.";
  if (e instanceof errors.JOSEAlgNotAllowed) return "The assertion's signature algorithm is not accepted.";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "aud") return "The assertion is for another audience: aud must be this authorization server's issuer.";
    if (e.claim === "typ") return `The assertion is not an ID-JAG (typ must be ${ID_JAG_TYP}).`;
    return `The assertion's ${e.claim} claim is missing or invalid (${e.reason}).`;
  }
  if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid) return "The identity provider's signing keys could not be read.";
  return "The assertion could not be verified.";
}

/** The scopes to issue: the assertion's narrowed by the request's `scope`, if sent (RFC 6749 §3.3); none without the claim. */
function grantedScopes(claim: unknown, requested: string | undefined): KeyScope[] {
  if (claim === undefined || claim === null)
    throw new OAuthError(
      "invalid_grant",
      "The assertion carries no scope claim: talentd issues no scope the identity provider did not name.",
    );
  if (typeof claim !== "string") throw new OAuthError("invalid_grant", "The assertion's scope claim must be a space-separated string.");
  const fromIdp = parseScopes(claim);
  if (fromIdp.unknown.length > 0)
    throw new OAuthError("invalid_grant", `The assertion's scope names unknown scopes: ${fromIdp.unknown.join(", ")}.`);
  let scopes = fromIdp.scopes;
  if (requested !== undefined) {
    const asked = parseScopes(requested);
    if (asked.unknown.length > 0) throw new OAuthError("invalid_scope", `Unknown scope(s): ${asked.unknown.join(", ")}.`);
    if (asked.scopes.length > 0) scopes = scopes.filter((s) => asked.scopes.includes(s));
  }
  if (scopes.length === 0)
    throw new OAuthError("invalid_scope", "No scope left: the request asks only for scopes the assertion does not carry.");
  return scopes;
}

/**
 * The user the assertion speaks for: the account linked to `sub` through this organization's SSO,
 * else the account whose verified address is its `email` at one of the organization's proven domains; in either case a
 * member of the organization (a platform administrator never acts through an organization's IdP).
 */
async function memberFor(tx: Tx, organizationId: string, verifiedDomains: string[], claims: JWTPayload): Promise<string> {
  const linked = (
    await tx
      .select({ userId: externalAccounts.userId })
      .from(externalAccounts)
      .where(and(eq(externalAccounts.provider, `sso:${organizationId}`), eq(externalAccounts.providerUserId, String(claims.sub))))
      .limit(1)
  )[0];
  let userId = linked?.userId ?? null;
  const email = typeof claims.email === "string" ? normalizeEmail(claims.email) : null;
  if (!userId && email && verifiedDomains.includes(email.slice(email.lastIndexOf("@") + 1))) {
    const verified = and(eq(users.email, email), isNotNull(users.emailVerifiedAt));
    userId = (await tx.select({ id: users.id }).from(users).where(verified).limit(1))[0]?.id ?? null;
  }
  const member = userId
    ? (
        await tx
          .select({ id: users.id })
          .from(users)
          .innerJoin(members, and(eq(members.userId, users.id), eq(members.organizationId, organizationId)))
          .where(and(eq(users.id, userId), ne(users.role, "admin")))
          .limit(1)
      )[0]
    : undefined;
  if (!member) throw new OAuthError("invalid_grant", "The assertion's subject is not a member of the project's organization.");
  return member.id;
}

const notAccepted = () => new OAuthError("invalid_grant", "The project's organization does not accept enterprise-managed authorization.");

/**
 * The jwt-bearer grant with an ID-JAG. Checks, in order: the resource claim (a project here),
 * its organization's enterprise setting and issuer, the signature and claims, the client_id
 * claim, the scopes, the member, the jti (once); then issues one access token.
 */
export async function jwtBearerGrant(
  deps: { database: Database; config: Config },
  input: {
    clientId: string;
    assertion: string;
    scope: string | undefined;
    resource: string | undefined;
    /** A metadata-document client without its row yet: its document, looked up once the assertion verified. */
    document?: () => Promise<OAuthClient>;
  },
): Promise<JwtBearerResponse> {
  const { database, config } = deps;
  const jose = await joseLib();
  const unverified = unverifiedClaims(jose, input.assertion);
  const target = await targetOf(database, config, unverified, input.resource);
  const sso = await usableSsoOf(database, target.organizationId);
  if (!sso?.oidc || !sso.enterpriseGrant) throw notAccepted();
  if (unverified.iss !== sso.oidc.issuer)
    throw new OAuthError("invalid_grant", "The assertion's issuer is not the identity provider the project's organization trusts.");
  const claims = await verified(jose, input.assertion, sso.oidc, config);
  if (claims.client_id !== input.clientId)
    throw new OAuthError("invalid_grant", "The assertion was issued for another client (client_id claim).");
  const scopes = grantedScopes(claims.scope, input.scope);
  const document = input.document ? await input.document() : null;
  const now = Date.now();
  const r = await database.write(async (tx): Promise<JwtBearerResponse | OAuthError> => {
    // read again in the token's transaction: a grant turned off (which revokes its tokens) while this request was verifying issues nothing
    const on = await tx
      .select({
        enterpriseGrant: ssoConnections.enterpriseGrant,
        config: ssoConnections.config, // read whole: the issuer is a field of its JSON, read the same on both engines
      })
      .from(ssoConnections)
      .where(eq(ssoConnections.organizationId, target.organizationId))
      .limit(1);
    const issuer = (on[0]?.config.oidc as { issuer?: unknown } | undefined)?.issuer;
    if (!on[0]?.enterpriseGrant || issuer !== sso.oidc!.issuer) return notAccepted();
    let userId: string;
    try {
      userId = await memberFor(tx, target.organizationId, sso.verifiedDomains, claims);
    } catch (e) {
      if (e instanceof OAuthError) return e;
      throw e;
    }
    const fresh = await tx
      .insert(ssoNonces)
      .values({
        kind: "id_jag",
        id: sha256Hex(`${claims.iss}|${claims.jti}`),
        organizationId: target.organizationId,
        expiresAt: claims.exp! * 1000 + ID_JAG_CLOCK_SKEW_S * 1000,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: ssoNonces.id });
    if (fresh.length === 0) return new OAuthError("invalid_grant", "The assertion was already used (jti): a replayed ID-JAG is refused.");
    if (document) await rememberMetadataClient(tx, document, now);
    await touchClient(tx, input.clientId, now);
    const access = newSecret(ACCESS_TOKEN_PREFIX, 32);
    const id = newId("otk");
    await tx.insert(oauthTokens).values({
      id,
      kind: "access",
      tokenHash: sha256Hex(access),
      familyId: id, // its own family: a token of this grant (revoked when the organization turns the grant off)
      clientId: input.clientId,
      userId,
      projectId: target.projectId,
      scopes,
      resource: target.resource,
      expiresAt: now + ACCESS_TOKEN_TTL_MS,
      createdAt: now,
    });
    return { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_MS / 1000, scope: scopes.join(" ") };
  });
  if (r instanceof OAuthError) throw r;
  return r;
}
