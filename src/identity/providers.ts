/**
 * External identity providers (docs/operations.md "Sign-in with identity providers") with `arctic`: GitHub, GitLab (any base URL),
 * Google, Microsoft Entra ID; the generic OIDC provider with `openid-client` (oidc.ts).
 * Each is enabled by its OAUTH_<PROVIDER>_* settings (config.ts). What each one checks:
 *   github     state; the verified primary e-mail from /user/emails (no PKCE in GitHub's OAuth apps)
 *   gitlab     state, PKCE S256, nonce in the ID token (scopes openid email profile; GitLab's
 *              email_verified). arctic's GitLab class sends no PKCE, so its generic OAuth2Client is
 *              used with GitLab's endpoints (the ones that class uses: /oauth/authorize, /oauth/token)
 *   google     state, PKCE S256, nonce; email_verified
 *   microsoft  state, PKCE S256, nonce; an e-mail is verified only with `xms_edov` or `email_verified`
 *   oidc       discovery, state, PKCE S256, nonce, the ID token's signature; email_verified
 * The ID tokens of GitLab, Google and Entra come straight from their token endpoint over TLS
 * (OIDC Core 3.1.3.7 lets the client rely on TLS then); their issuer, audience, expiry and
 * nonce are still checked here.
 */
import type { OAuth2Tokens } from "arctic";
import { egressDetail, safeFetch } from "../lib/egress";
import { onFirstUse } from "../lib/onFirstUse";
import { randomBytes } from "node:crypto";
import type { Config } from "../config";
import type { ExternalIdentity } from "./external";
import type { Flow } from "./flow";
import { FLOW_TTL_MS } from "./flow";
import { oidcAuthorizationUrl, oidcFinish, OidcError } from "./oidc";

export const PROVIDER_IDS = ["github", "gitlab", "google", "microsoft", "oidc"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

const LABELS: Record<ProviderId, string> = {
  github: "GitHub",
  gitlab: "GitLab",
  google: "Google",
  microsoft: "Microsoft",
  oidc: "OpenID Connect",
};

/** The provider's name for people (the OIDC one is OAUTH_OIDC_NAME). */
export function providerLabel(config: Config, id: string): string {
  if (id === "oidc") return config.oauth.oidc?.name ?? LABELS.oidc;
  return (LABELS as Record<string, string>)[id] ?? "the identity provider";
}

/** The enabled providers, in a fixed order (the /login buttons). */
export function enabledProviders(config: Config): { id: ProviderId; label: string }[] {
  return PROVIDER_IDS.filter((id) => config.oauth[id]).map((id) => ({ id, label: providerLabel(config, id) }));
}

/** The callback URL registered at the provider. */
export function providerCallbackUrl(config: Config, id: string): string {
  return `${config.baseUrl}/api/auth/oauth/${id}/callback`;
}

/** Why a callback failed, by kind: the /login sentence is chosen from it. */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    readonly kind: "exchange" | "token" | "discovery" | "profile",
    message: string,
  ) {
    super(message);
  }
}

/** arctic, loaded with the first sign-in through an external provider (not at start). */
const arctic = onFirstUse(() => import("arctic"));
type Arctic = Awaited<ReturnType<typeof arctic>>;

const SCOPES_OIDC = ["openid", "email", "profile"];

/** GitLab (any base URL) as arctic's generic OAuth 2.0 client: its GitLab class has no PKCE. */
const gitlabClient = (A: Arctic, g: { clientId: string; clientSecret: string }, redirect: string) =>
  new A.OAuth2Client(g.clientId, g.clientSecret, redirect);
const gitlabEndpoint = (base: string, what: "authorize" | "token") => `${base.replace(/\/+$/, "")}/oauth/${what}`;

/** The URL to send the browser to, and the flow to keep in its cookie. */
export async function startProvider(config: Config, id: ProviderId, next: string): Promise<{ url: URL; flow: Flow }> {
  const redirect = providerCallbackUrl(config, id);
  const exp = Date.now() + FLOW_TTL_MS;
  const o = config.oauth;
  const nonce = randomBytes(16).toString("base64url");
  const A = await arctic();
  // GitLab, Google, Microsoft: a fresh state and PKCE verifier, and OpenID's nonce on the URL
  const pkceFlow = (build: (state: string, verifier: string) => URL) => {
    const state = A.generateState();
    const verifier = A.generateCodeVerifier();
    const url = build(state, verifier);
    url.searchParams.set("nonce", nonce);
    return { url, flow: { provider: id, state, verifier, nonce, next, exp } };
  };
  switch (id) {
    case "github": {
      const state = A.generateState();
      const url = new A.GitHub(o.github!.clientId, o.github!.clientSecret, redirect).createAuthorizationURL(state, [
        "read:user",
        "user:email",
      ]);
      return { url, flow: { provider: id, state, next, exp } };
    }
    case "gitlab":
      return pkceFlow((state, verifier) =>
        gitlabClient(A, o.gitlab!, redirect).createAuthorizationURLWithPKCE(
          gitlabEndpoint(o.gitlab!.baseUrl, "authorize"),
          state,
          A.CodeChallengeMethod.S256,
          verifier,
          SCOPES_OIDC,
        ),
      );
    case "google":
      return pkceFlow((state, verifier) =>
        new A.Google(o.google!.clientId, o.google!.clientSecret, redirect).createAuthorizationURL(state, verifier, SCOPES_OIDC),
      );
    case "microsoft":
      return pkceFlow((state, verifier) =>
        new A.MicrosoftEntraId(o.microsoft!.tenant, o.microsoft!.clientId, o.microsoft!.clientSecret, redirect).createAuthorizationURL(
          state,
          verifier,
          SCOPES_OIDC,
        ),
      );
    case "oidc": {
      try {
        const a = await oidcAuthorizationUrl(o.oidc!, config.egress, redirect);
        return { url: a.url, flow: { provider: id, state: a.state, verifier: a.verifier, nonce: a.nonce, next, exp } };
      } catch (e) {
        throw new ProviderError("discovery", (e as Error).message);
      }
    }
  }
}

/** An ID token's claims after the checks a TLS back-channel token still needs. */
function idTokenClaims(
  A: Arctic,
  tokens: OAuth2Tokens,
  expect: { audience: string; nonce?: string; issuers?: (iss: string) => boolean },
): Record<string, unknown> {
  let claims: Record<string, unknown>;
  try {
    claims = A.decodeIdToken(tokens.idToken()) as Record<string, unknown>;
  } catch (e) {
    throw new ProviderError("token", `No usable ID token: ${(e as Error).message}`);
  }
  const aud = claims.aud;
  const audOk = aud === expect.audience || (Array.isArray(aud) && aud.includes(expect.audience));
  if (!audOk) throw new ProviderError("token", "The ID token is for another client.");
  if (typeof claims.exp !== "number" || claims.exp * 1000 < Date.now() - 60_000)
    throw new ProviderError("token", "The ID token has expired.");
  if (expect.nonce !== undefined && claims.nonce !== expect.nonce)
    throw new ProviderError("token", "The ID token's nonce is not the one this browser sent.");
  if (expect.issuers && !(typeof claims.iss === "string" && expect.issuers(claims.iss)))
    throw new ProviderError("token", "The ID token comes from another issuer.");
  if (typeof claims.sub !== "string" || claims.sub === "") throw new ProviderError("token", "The ID token names no subject.");
  return claims;
}

async function exchange<T>(A: Arctic, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof A.OAuth2RequestError) throw new ProviderError("exchange", `The token endpoint refused the code (${e.code}).`);
    throw new ProviderError("exchange", `The token endpoint could not be reached or answered nonsense: ${(e as Error).message}`);
  }
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/**
 * Completes the sign-in at the provider from its callback (`code`, already matched against
 * the flow's state by the caller) and returns who the person is.
 */
export async function finishProvider(config: Config, id: ProviderId, callbackUrl: URL, flow: Flow): Promise<ExternalIdentity> {
  const code = callbackUrl.searchParams.get("code") ?? "";
  const redirect = providerCallbackUrl(config, id);
  const o = config.oauth;
  const A = await arctic();
  switch (id) {
    case "github": {
      const tokens = await exchange(A, () =>
        new A.GitHub(o.github!.clientId, o.github!.clientSecret, redirect).validateAuthorizationCode(code),
      );
      const headers = { authorization: `Bearer ${tokens.accessToken()}`, accept: "application/vnd.github+json", "user-agent": "talentd" };
      const [userRes, emailsRes] = await Promise.all([
        safeFetch("https://api.github.com/user", { headers }, config.egress),
        safeFetch("https://api.github.com/user/emails", { headers }, config.egress),
      ]).catch((e: unknown) => {
        throw new ProviderError("profile", `GitHub's API could not be reached: ${egressDetail(e)}`);
      });
      if (!userRes.ok || !emailsRes.ok) throw new ProviderError("profile", `GitHub's API answered ${userRes.status}/${emailsRes.status}.`);
      const user = (await userRes.json()) as { id: number; name?: string; login: string };
      const emails = (await emailsRes.json()) as { email: string; primary: boolean; verified: boolean }[];
      const primary = emails.find((e) => e.primary) ?? null;
      return {
        provider: id,
        subject: String(user.id),
        email: primary?.email ?? null,
        emailVerified: primary?.verified === true,
        name: user.name ?? user.login,
      };
    }
    case "gitlab": {
      const base = o.gitlab!.baseUrl;
      const tokens = await exchange(A, () =>
        gitlabClient(A, o.gitlab!, redirect).validateAuthorizationCode(gitlabEndpoint(base, "token"), code, flow.verifier ?? null),
      );
      const c = idTokenClaims(A, tokens, {
        audience: o.gitlab!.clientId,
        nonce: flow.nonce,
        issuers: (iss) => iss.replace(/\/+$/, "") === base,
      });
      return { provider: id, subject: String(c.sub), email: str(c.email), emailVerified: c.email_verified === true, name: str(c.name) };
    }
    case "google": {
      const tokens = await exchange(A, () =>
        new A.Google(o.google!.clientId, o.google!.clientSecret, redirect).validateAuthorizationCode(code, flow.verifier ?? ""),
      );
      const c = idTokenClaims(A, tokens, {
        audience: o.google!.clientId,
        nonce: flow.nonce,
        issuers: (iss) => iss === "https://accounts.google.com" || iss === "accounts.google.com",
      });
      return { provider: id, subject: String(c.sub), email: str(c.email), emailVerified: c.email_verified === true, name: str(c.name) };
    }
    case "microsoft": {
      const tokens = await exchange(A, () =>
        new A.MicrosoftEntraId(o.microsoft!.tenant, o.microsoft!.clientId, o.microsoft!.clientSecret, redirect).validateAuthorizationCode(
          code,
          flow.verifier ?? "",
        ),
      );
      const c = idTokenClaims(A, tokens, {
        audience: o.microsoft!.clientId,
        nonce: flow.nonce,
        issuers: (iss) => iss.startsWith("https://login.microsoftonline.com/"),
      });
      return {
        provider: id,
        subject: `${str(c.tid) ?? ""}:${String(c.oid ?? c.sub)}`,
        email: str(c.email),
        emailVerified: c.xms_edov === true || c.email_verified === true,
        name: str(c.name),
      };
    }
    case "oidc": {
      try {
        const r = await oidcFinish(o.oidc!, config.egress, callbackUrl, {
          state: flow.state,
          nonce: flow.nonce ?? "",
          verifier: flow.verifier ?? "",
        });
        return { provider: id, ...r };
      } catch (e) {
        if (e instanceof OidcError) throw new ProviderError(e.kind, e.message);
        throw e;
      }
    }
  }
}
