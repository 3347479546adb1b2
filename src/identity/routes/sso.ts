/**
 * The browser legs of sign-in through someone else (docs/api.md "Identity providers and organization SSO"), all under /api/auth:
 *   GET  /oauth/:provider            → the provider, with state (+ PKCE, nonce) in the flow cookie
 *   GET  /oauth/:provider/callback   ← the provider; signs in, or back to /login with a sentence
 *   GET  /sso/:domain                → the organization's IdP (OIDC or SAML) for that e-mail domain
 *   GET  /sso/oidc/callback          ← an organization's OIDC IdP
 *   POST /saml/:orgId/acs            ← an organization's SAML IdP (HTTP-POST binding)
 *   GET  /saml/:orgId/metadata       the SP metadata to give the IdP
 * Every failure goes back to `/login?error=<code>`: the page says it in a sentence (never the
 * provider's own text, never a stack); the security log keeps the reason.
 */
import { Elysia } from "elysia";
import { randomBytes } from "node:crypto";
import type { SignInDeps } from "../limits";
import { clientMeta } from "../../http/client";
import { cookieValue } from "../../http/cookies";
import { decodedParam } from "../../http/query";
import { safeNext } from "../../http/next";
import { LinkRequired, recordExternalFailure, signInExternal, SignInRefused, emailDomain, type ExternalIdentity } from "../external";
import { linkCookie } from "../linking";
import { flowCookie, readFlow, FLOW_TTL_MS, type Flow } from "../flow";
import { oidcAuthorizationUrl, oidcFinish, OidcError } from "../oidc";
import { enabledProviders, finishProvider, ProviderError, PROVIDER_IDS, startProvider, type ProviderId } from "../providers";
import { samlAuthorizeUrl, samlFinish, samlMetadata, SamlRefused } from "../saml";
import { loadSso, serviceProvider, ssoForDomain, usableSsoOf, ssoEnforcedFor } from "../sso";
import { sessionCookie, sessionTokenFrom } from "../../auth/sessions";
import { routeGuard, routePattern } from "../../http/route";
import { AUTH } from "./describe";

/** The sentences /login shows for `?error=<code>` (identity/pages/login.tsx). */
export type SignInErrorCode =
  | "provider_unknown"
  | "denied"
  | "provider_error"
  | "state"
  | "exchange"
  | "token"
  | "unavailable"
  | "no_email"
  | "unverified"
  | "sso_unknown"
  | "sso_not_approved"
  | "sso_domain"
  | "saml"
  | "enforced"
  | "admin_sso"
  | "link_required";

const SAML_COOKIE = "talentd_saml";

const NO_STORE = { "cache-control": "no-store" };

/** What the sign-in routes share: the way back to /login, the cookies, the callback checks and the final sign-in. */
class SsoFlow {
  private readonly config: SignInDeps["config"];
  private readonly database: SignInDeps["database"];
  private readonly https: boolean;
  constructor(deps: SignInDeps) {
    this.config = deps.config;
    this.database = deps.database;
    this.https = deps.config.baseUrl.startsWith("https:");
  }

  /**
   * The SAML browser binding: the IdP answers with a cross-site POST, which carries only a
   * SameSite=None cookie, and SameSite=None needs Secure (https). Over plain http it is Lax
   * and not required (docs/operations.md).
   */
  readonly samlCookie = (value: string | null): string => {
    const sameSite = this.https ? "SameSite=None; Secure" : "SameSite=Lax";
    return `${SAML_COOKIE}=${value ?? ""}; Path=/api/auth/saml; HttpOnly; Max-Age=${value ? 600 : 0}; ${sameSite}`;
  };

  /** Back to /login with the error's code (and the provider or domain it concerns). */
  readonly toLogin = (code: SignInErrorCode, extra: Record<string, string | undefined> = {}, clearFlow = true): Response => {
    const q = new URLSearchParams({ error: code });
    for (const [k, v] of Object.entries(extra)) if (v) q.set(k, v);
    const headers: Record<string, string> = { location: `/login?${q}`, ...NO_STORE };
    if (clearFlow) headers["set-cookie"] = flowCookie(this.config, null);
    return new Response(null, { status: 303, headers });
  };

  /** Signs in and goes to `next`, or back to /login with the refusal. */
  readonly complete = async (
    request: Request,
    server: unknown,
    identity: ExternalIdentity,
    next: string,
    org?: { id: string; domains: string[] },
  ) => {
    const meta = clientMeta(request, server as Parameters<typeof clientMeta>[1]);
    const provider = identity.provider.startsWith("sso:") ? undefined : identity.provider;
    if (org) {
      const domain = identity.email ? emailDomain(identity.email) : null;
      if (!domain || !org.domains.includes(domain)) {
        await recordExternalFailure(
          this.database,
          identity.provider,
          `the IdP asserted ${identity.email ?? "no e-mail"}, outside the organization's domains`,
          meta,
          identity.email,
        );
        return this.toLogin("sso_domain");
      }
    } else if (identity.email) {
      const enforced = await ssoEnforcedFor(this.database, identity.email);
      if (enforced && identity.emailVerified) {
        await recordExternalFailure(this.database, identity.provider, `SSO is enforced for ${enforced}`, meta, identity.email);
        return this.toLogin("enforced", { domain: enforced });
      }
    }
    try {
      const r = await signInExternal(this.database, identity, meta, sessionTokenFrom(this.config, request), org?.id);
      const headers = new Headers({ location: next, ...NO_STORE });
      headers.append("set-cookie", sessionCookie(this.config, r.session.token, r.session.expiresAt));
      headers.append("set-cookie", flowCookie(this.config, null));
      return new Response(null, { status: 303, headers });
    } catch (e) {
      if (e instanceof LinkRequired) {
        // consent first: the person signs in the way they usually do, then confirms at /account/link
        const r = this.toLogin("link_required", { provider, email: e.email, next: "/account/link" });
        r.headers.append("set-cookie", linkCookie(this.config, e.token));
        return r;
      }
      if (!(e instanceof SignInRefused)) throw e;
      return this.toLogin(e.code, { provider, domain: e.domain });
    }
  };

  /** The checks every redirect callback starts with: the provider's error, then state against the flow cookie. */
  readonly checkCallback = async (
    request: Request,
    server: unknown,
    url: URL,
    provider: string,
    flow: Flow | null,
  ): Promise<Response | null> => {
    const meta = clientMeta(request, server as Parameters<typeof clientMeta>[1]);
    const error = url.searchParams.get("error");
    const shown = provider.startsWith("sso:") ? undefined : provider;
    if (error) {
      await recordExternalFailure(this.database, provider, `the provider answered error=${error.slice(0, 100)}`, meta);
      return this.toLogin(error === "access_denied" ? "denied" : "provider_error", { provider: shown });
    }
    const state = url.searchParams.get("state");
    if (!flow || flow.provider !== provider || !state || state !== flow.state) {
      await recordExternalFailure(
        this.database,
        provider,
        !flow ? "no sign-in flow in this browser (missing or expired cookie)" : "state does not match the one this browser sent",
        meta,
      );
      return this.toLogin("state", { provider: shown });
    }
    return null;
  };

  readonly startRedirect = (url: URL | string, flow: Flow | null) => {
    const headers: Record<string, string> = { location: String(url), ...NO_STORE };
    if (flow) headers["set-cookie"] = flowCookie(this.config, flow);
    return new Response(null, { status: 302, headers });
  };
}

/** External sign-in: OAuth providers, organization OIDC and SAML single sign-on. */
export function ssoAuthRoutes(deps: SignInDeps) {
  const flow = new SsoFlow(deps);
  return new Elysia().use(oauthRoutes(deps, flow)).use(ssoStartRoutes(deps, flow)).use(samlRoutes(deps, flow));
}

/** Sign-in with an OAuth provider (GitHub, Google, …): the start and the callback. */
function oauthRoutes(deps: SignInDeps, f: SsoFlow) {
  const { config, database } = deps;
  const { toLogin, complete, checkCallback, startRedirect } = f;
  return new Elysia()
    .get(
      routePattern(AUTH.oauthStart),
      async ({ params, request, server }) => {
        const id = params.provider as ProviderId;
        if (!PROVIDER_IDS.includes(id) || !config.oauth[id]) return toLogin("provider_unknown");
        const next = safeNext(new URL(request.url).searchParams.get("next"));
        try {
          const { url, flow } = await startProvider(config, id, next);
          return startRedirect(url, flow);
        } catch (e) {
          if (!(e instanceof ProviderError)) throw e;
          await recordExternalFailure(database, id, e.message, clientMeta(request, server));
          deps.log.warn("identity provider unavailable", { provider: id, error: e.message });
          return toLogin("unavailable", { provider: id });
        }
      },
      routeGuard(AUTH.oauthStart),
    )
    .get(
      routePattern(AUTH.oauthCallback),
      async ({ params, request, server }) => {
        const id = params.provider as ProviderId;
        if (!PROVIDER_IDS.includes(id) || !config.oauth[id]) return toLogin("provider_unknown");
        const url = new URL(request.url);
        const callbackUrl = new URL(`${config.baseUrl}/api/auth/oauth/${id}/callback${url.search}`);
        const flow = readFlow(request);
        const refused = await checkCallback(request, server, url, id, flow);
        if (refused) return refused;
        try {
          const identity = await finishProvider(config, id, callbackUrl, flow!);
          return await complete(request, server, identity, flow!.next);
        } catch (e) {
          if (!(e instanceof ProviderError)) throw e;
          await recordExternalFailure(database, id, e.message, clientMeta(request, server));
          return toLogin(e.kind === "exchange" ? "exchange" : e.kind === "discovery" ? "unavailable" : "token", { provider: id });
        }
      },
      routeGuard(AUTH.oauthCallback),
    );
}

/** Organization single sign-on: the start by e-mail domain and the OIDC callback. */
function ssoStartRoutes(deps: SignInDeps, f: SsoFlow) {
  const { config, database } = deps;
  const { toLogin, complete, checkCallback, startRedirect, samlCookie } = f;
  return new Elysia()
    .get(
      routePattern(AUTH.oidcCallback),
      async ({ request, server }) => {
        const url = new URL(request.url);
        const flow = readFlow(request);
        const provider = flow?.provider.startsWith("sso:") ? flow.provider : "sso:unknown";
        const refused = await checkCallback(request, server, url, provider, flow);
        if (refused) return refused;
        const orgId = provider.slice(4);
        const settings = await usableSsoOf(database, orgId);
        if (!settings?.oidc) return toLogin("sso_not_approved");
        try {
          const r = await oidcFinish(settings.oidc, config.egress, new URL(`${config.baseUrl}/api/auth/sso/oidc/callback${url.search}`), {
            state: flow!.state,
            nonce: flow!.nonce ?? "",
            verifier: flow!.verifier ?? "",
          });
          return await complete(request, server, { provider, ...r, emailVerified: true }, flow!.next, {
            id: orgId,
            domains: settings.verifiedDomains,
          });
        } catch (e) {
          if (!(e instanceof OidcError)) throw e;
          await recordExternalFailure(database, provider, e.message, clientMeta(request, server));
          return toLogin(e.kind === "exchange" ? "exchange" : e.kind === "discovery" ? "unavailable" : "token");
        }
      },
      routeGuard(AUTH.oidcCallback),
    )
    .get(
      routePattern(AUTH.ssoStart),
      async ({ params, request, server }) => {
        const domain = decodedParam(params.domain, "domain").toLowerCase();
        const next = safeNext(new URL(request.url).searchParams.get("next"));
        const meta = clientMeta(request, server);
        const found = await ssoForDomain(database, domain);
        if (!found) return toLogin("sso_unknown", { domain: /^[a-z0-9.-]{1,253}$/.test(domain) ? domain : undefined });
        const provider = `sso:${found.organization.id}`;
        if (found.organization.status !== "approved") {
          await recordExternalFailure(database, provider, `organization is ${found.organization.status}`, meta);
          return toLogin("sso_not_approved");
        }
        const s = found.settings;
        try {
          if (s.type === "oidc" && s.oidc) {
            const a = await oidcAuthorizationUrl(s.oidc, config.egress, serviceProvider(config, found.organization.id).oidcRedirectUri);
            return startRedirect(a.url, {
              provider,
              state: a.state,
              nonce: a.nonce,
              verifier: a.verifier,
              next,
              exp: Date.now() + FLOW_TTL_MS,
            });
          }
          if (s.type === "saml" && s.saml) {
            const binding = randomBytes(18).toString("base64url");
            const r = startRedirect(await samlAuthorizeUrl(config, database, found.organization.id, s.saml, next, binding), null);
            r.headers.append("set-cookie", samlCookie(binding));
            return r;
          }
        } catch (e) {
          await recordExternalFailure(database, provider, (e as Error).message, meta);
          return toLogin("unavailable");
        }
        return toLogin("sso_unknown");
      },
      routeGuard(AUTH.ssoStart),
    );
}

/** SAML: the assertion consumer service and the service provider's metadata. */
function samlRoutes(deps: SignInDeps, f: SsoFlow) {
  const { config, database } = deps;
  const { toLogin, complete, samlCookie } = f;
  return new Elysia()
    .post(
      routePattern(AUTH.samlAcs),
      async ({ params, body, request, server }) => {
        const orgId = decodedParam(params.orgId, "orgId");
        const provider = `sso:${orgId}`;
        const meta = clientMeta(request, server);
        const b = (body ?? {}) as Record<string, unknown>;
        const samlResponse = typeof b.SAMLResponse === "string" ? b.SAMLResponse : "";
        const next = safeNext(typeof b.RelayState === "string" ? b.RelayState : "/");
        const settings = await usableSsoOf(database, orgId);
        if (!settings?.saml) {
          await recordExternalFailure(database, provider, "SAML response for an organization without usable SAML SSO", meta);
          return toLogin("sso_not_approved", {}, false);
        }
        if (samlResponse === "") return toLogin("saml", {}, false);
        const clear = (r: Response) => (r.headers.append("set-cookie", samlCookie(null)), r);
        try {
          const r = await samlFinish(config, database, orgId, settings.saml, samlResponse, cookieValue(request, SAML_COOKIE));
          return clear(
            await complete(request, server, { provider, ...r, emailVerified: true }, next, {
              id: orgId,
              domains: settings.verifiedDomains,
            }),
          );
        } catch (e) {
          if (!(e instanceof SamlRefused)) throw e;
          await recordExternalFailure(database, provider, `SAML: ${e.message}`, meta);
          return clear(toLogin("saml", {}, false));
        }
      },
      routeGuard(AUTH.samlAcs),
    )
    .get(
      routePattern(AUTH.samlMetadata),
      async ({ params }) => {
        const orgId = decodedParam(params.orgId, "orgId");
        const settings = await loadSso(database, orgId);
        if (!settings?.saml)
          return new Response(JSON.stringify({ error: "not_found", message: "This organization has no SAML single sign-on." }), {
            status: 404,
            headers: { "content-type": "application/json" },
          });
        return new Response(await samlMetadata(config, database, orgId, settings.saml), {
          headers: { "content-type": "application/samlmetadata+xml; charset=utf-8" },
        });
      },
      routeGuard(AUTH.samlMetadata),
    );
}

/** The providers /login offers (enabled ones only). */
export { enabledProviders };
