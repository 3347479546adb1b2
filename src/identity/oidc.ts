/**
 * OpenID Connect relying party with `openid-client` (discovery, PKCE S256, state, nonce, the
 * ID token's signature, issuer, audience, expiry and nonce checked by the library), shared by
 * the generic OIDC identity provider and organization SSO over OIDC. Discovery answers are
 * kept five minutes per issuer and client, failures one minute per issuer. Every request goes
 * through the egress policy (lib/egress.ts).
 */
import type * as OidcClient from "openid-client";
import { keptUnbounded } from "../lib/kept";
import { EGRESS_LIMITS, egressDetail, egressPolicyKey, policyFetch, type EgressPolicy } from "../lib/egress";
import { onFirstUse } from "../lib/onFirstUse";

/** openid-client, loaded with the first OIDC sign-in or configuration test (not at start). */
const openidClient = onFirstUse(() => import("openid-client"));

/** A failed step of an OIDC sign-in, by kind (the /login sentence is chosen from it). */
export class OidcError extends Error {
  override name = "OidcError";
  constructor(
    readonly kind: "discovery" | "exchange" | "token",
    message: string,
  ) {
    super(message);
  }
}

export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const cache = keptUnbounded<string, { at: number; config: Promise<OidcClient.Configuration> }>(
  "OpenID discovery by issuer, policy and client",
  { clock: "time", bound: "one per SSO setting; 5 minutes each" },
);
const CACHE_MS = 5 * 60 * 1000;
/**
 * A failed discovery is kept this long per issuer (and policy): unauthenticated visits to an
 * organization's sign-in door then make one fetch a minute at most, not one each.
 */
export const FAILED_DISCOVERY_MS = 60 * 1000;
const failed = keptUnbounded<string, { at: number; error: OidcError }>("A failed OpenID discovery", {
  clock: "time",
  bound: "one per SSO setting; 60 seconds each",
});

/** An issuer over plain HTTP is accepted only on a loopback address (a local IdP, tests). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

const policyKey = egressPolicyKey;

/**
 * Discovers the issuer (cached; a failure is cached too, FAILED_DISCOVERY_MS). Every request
 * of the configuration (discovery, JWKS, token, userinfo) goes through the egress policy.
 * Throws OidcError("discovery"): its message is for the log (it says why), not for the page.
 */
export async function oidcConfiguration(s: OidcClientSettings, policy: EgressPolicy): Promise<OidcClient.Configuration> {
  const issuerKey = `${s.issuer}\n${policyKey(policy)}`;
  const down = failed.get(issuerKey);
  if (down && Date.now() - down.at < FAILED_DISCOVERY_MS) throw down.error;
  const key = `${issuerKey}\n${s.clientId}\n${s.clientSecret}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.config;
  const issuer = new URL(s.issuer);
  const config = openidClient()
    .then((client) => {
      const options: OidcClient.DiscoveryRequestOptions = {
        timeout: EGRESS_LIMITS.timeoutMs / 1000,
        [client.customFetch]: policyFetch(policy) as OidcClient.CustomFetch,
      };
      if (isLoopbackHttp(issuer)) options.execute = [client.allowInsecureRequests];
      return client.discovery(issuer, s.clientId, { client_secret: s.clientSecret }, client.ClientSecretBasic(s.clientSecret), options);
    })
    .catch((e: unknown) => {
      cache.delete(key);
      const error = new OidcError("discovery", `OpenID discovery of ${s.issuer} failed: ${egressDetail(e)}`);
      failed.set(issuerKey, { at: Date.now(), error });
      throw error;
    });
  cache.set(key, { at: Date.now(), config });
  return config;
}

/** Forgets cached discovery answers and failures (a configuration test reads the issuer afresh). */
export function forgetOidcConfiguration(issuer: string): void {
  for (const k of cache.keys()) if (k.startsWith(issuer + "\n")) cache.delete(k);
  for (const k of failed.keys()) if (k.startsWith(issuer + "\n")) failed.delete(k);
}

/** The authorization URL with a fresh state, nonce and PKCE verifier (returned for the flow cookie). */
export async function oidcAuthorizationUrl(
  s: OidcClientSettings,
  policy: EgressPolicy,
  redirectUri: string,
  extra: Record<string, string> = {},
) {
  const config = await oidcConfiguration(s, policy);
  const client = await openidClient();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    response_type: "code",
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  });
  return { url, state, nonce, verifier };
}

/** The person's claims after the code exchange; throws OidcError("exchange" | "token"). */
export async function oidcFinish(
  s: OidcClientSettings,
  policy: EgressPolicy,
  currentUrl: URL,
  checks: { state: string; nonce: string; verifier: string },
): Promise<{ subject: string; email: string | null; emailVerified: boolean; name: string | null }> {
  const config = await oidcConfiguration(s, policy);
  const client = await openidClient();
  let tokens: Awaited<ReturnType<typeof OidcClient.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
  } catch (e) {
    const err = e as Error & { code?: string; error?: string };
    // the token endpoint said no (invalid_grant: an expired, used or unknown code)
    if (err instanceof client.ResponseBodyError) throw new OidcError("exchange", `The token endpoint refused the code (${err.error}).`);
    throw new OidcError("token", `The ID token did not check out: ${err.message}`);
  }
  const claims = tokens.claims();
  if (!claims) throw new OidcError("token", "No ID token came back.");
  let email = typeof claims.email === "string" ? claims.email : null;
  let verified = claims.email_verified === true;
  let name = typeof claims.name === "string" ? claims.name : null;
  if (!email) {
    try {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = typeof info.email === "string" ? info.email : null;
      verified = info.email_verified === true;
      name ??= typeof info.name === "string" ? info.name : null;
    } catch {
      /* no userinfo: the ID token is all there is */
    }
  }
  return { subject: claims.sub, email, emailVerified: verified, name };
}
