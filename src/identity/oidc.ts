/**
 * OpenID Connect relying party with `openid-client` (discovery, PKCE S256, state, nonce, the
 * ID token's signature, issuer, audience, expiry and nonce checked by the library), shared by
 * the generic OIDC identity provider and organization SSO over OIDC. Discovery answers are
 * kept five minutes per issuer and client.
 */
import type * as OidcClient from "openid-client";
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

const cache = new Map<string, { at: number; config: Promise<OidcClient.Configuration> }>();
const CACHE_MS = 5 * 60 * 1000;

/** An issuer over plain HTTP is accepted only on a loopback address (a local IdP, tests). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

/** Discovers the issuer (cached); throws OidcError("discovery") with what went wrong. */
export async function oidcConfiguration(s: OidcClientSettings): Promise<OidcClient.Configuration> {
  const key = `${s.issuer}\n${s.clientId}\n${s.clientSecret}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.config;
  const issuer = new URL(s.issuer);
  const config = openidClient()
    .then((client) => {
      const options: OidcClient.DiscoveryRequestOptions = { timeout: 10 };
      if (isLoopbackHttp(issuer)) options.execute = [client.allowInsecureRequests];
      return client.discovery(issuer, s.clientId, { client_secret: s.clientSecret }, client.ClientSecretBasic(s.clientSecret), options);
    })
    .catch((e: unknown) => {
      cache.delete(key);
      throw new OidcError("discovery", `OpenID discovery of ${s.issuer} failed: ${(e as Error).message}`);
    });
  cache.set(key, { at: Date.now(), config });
  return config;
}

/** Forgets cached discovery answers (a configuration test reads the issuer afresh). */
export function forgetOidcConfiguration(issuer: string): void {
  for (const k of cache.keys()) if (k.startsWith(issuer + "\n")) cache.delete(k);
}

/** The authorization URL with a fresh state, nonce and PKCE verifier (returned for the flow cookie). */
export async function oidcAuthorizationUrl(s: OidcClientSettings, redirectUri: string, extra: Record<string, string> = {}) {
  const config = await oidcConfiguration(s);
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
  currentUrl: URL,
  checks: { state: string; nonce: string; verifier: string },
): Promise<{ subject: string; email: string | null; emailVerified: boolean; name: string | null }> {
  const config = await oidcConfiguration(s);
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
