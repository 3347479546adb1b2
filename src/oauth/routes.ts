/**
 * The back channel of the authorization server (public, CORS-enabled, JSON):
 *   GET  /.well-known/oauth-protected-resource[/mcp[/:projectId]]   RFC 9728
 *   GET  /.well-known/oauth-authorization-server                     RFC 8414
 *   POST /oauth/register                                             RFC 7591 (rate limited per IP)
 *   POST /oauth/token                                                authorization_code + PKCE S256, refresh_token,
 *                                                                    jwt-bearer with an ID-JAG (jwtBearer.ts)
 *   POST /oauth/revoke                                               RFC 7009
 * Errors are RFC 6749 bodies `{error, error_description}`, rendered here, not by the global onError.
 */
import { Elysia } from "elysia";
import type { SignInDeps } from "../identity/limits";
import { clientMeta } from "../http/client";
import { SlidingWindowLimiter } from "../lib/rateLimit";
import { sharedWindow } from "../identity/sharedLimits";
import { clientAddressOf } from "../http/client";
import { MetadataFetchBudget, metadataClient } from "./cimd";
import { findClient, isMetadataClientId, registerClient } from "./clients";
import { consentRoutes } from "./pages";
import { OAuthError, oauthErrorResponse, oauthJson, PUBLIC_CORS, preflight } from "./errors";
import { exchangeCode, refreshTokens, revokeToken } from "./grants";
import { JWT_BEARER_GRANT, jwtBearerGrant } from "./jwtBearer";
import { authenticateClient } from "./clientAuth";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata";
import { PROJECT_ID_PATTERN } from "./resource";

const METADATA_CACHE = { "cache-control": "public, max-age=300" };

const param = (body: unknown, name: string): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined;
  const v = (body as Record<string, unknown>)[name];
  return typeof v === "string" && v !== "" ? v : undefined;
};

/** Runs a back-channel handler, rendering an OAuthError as its RFC 6749 response. */
async function answer(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof OAuthError) return oauthErrorResponse(e);
    throw e;
  }
}

/**
 * The jwt-bearer grant's request: its client (a metadata-document client without its row is a public
 * client named by its URL, whose document is looked up only once the assertion verified) and assertion.
 */
async function jwtBearerRequest(deps: SignInDeps, body: unknown, request: Request, budget: MetadataFetchBudget) {
  const named = param(body, "client_id");
  const documentOnly =
    named !== undefined && isMetadataClientId(named) && !request.headers.has("authorization") && !(await findClient(deps.database, named));
  const clientId = documentOnly ? named : (await authenticateClient(deps.database, body, request)).id;
  const assertion = param(body, "assertion");
  if (!assertion) throw new OAuthError("invalid_request", "assertion is required (the ID-JAG from your identity provider).");
  const settings = { egress: deps.config.egress, allowLoopback: deps.config.oauthClientMetadataLoopback, log: deps.log };
  const access = { budget, address: clientAddressOf(request) };
  // with an access, the lookup fetches or throws: never null
  const document = documentOnly ? async () => (await metadataClient(clientId, settings, access))! : undefined;
  return jwtBearerGrant(deps, { clientId, assertion, scope: param(body, "scope"), resource: param(body, "resource"), document });
}

/**
 * The client registration limits: per client address, OAUTH_REGISTRATION_LIMIT_PER_MINUTE, and
 * from all addresses, OAUTH_REGISTRATION_GLOBAL_LIMIT_PER_HOUR; in memory, or on PostgreSQL in
 * the database, across replicas (identity/sharedLimits.ts). Answers the function that counts one
 * registration from an address or throws too_many_requests.
 */
function registrationLimits(deps: SignInDeps): (ip: string | null) => Promise<void> {
  const limits = deps.config.authLimits;
  const registrations = new SlidingWindowLimiter(limits.oauthRegistrations, 60_000);
  const allRegistrations = new SlidingWindowLimiter(limits.oauthRegistrationsGlobal, 3_600_000);
  // on PostgreSQL the same two limits counted in the database, across replicas (identity/sharedLimits.ts)
  const shared =
    deps.database.dialect === "postgres"
      ? {
          mine: sharedWindow(deps.database, "oauth-register", limits.oauthRegistrations, 60_000),
          all: sharedWindow(deps.database, "oauth-register-all", limits.oauthRegistrationsGlobal, 3_600_000),
        }
      : null;
  const tooMany = (retryAfter: number) =>
    Object.assign(new OAuthError("too_many_requests", `Too many client registrations on this server just now; retry in ${retryAfter} s.`), {
      headers: { "retry-after": String(retryAfter) },
    });
  const fromHere = () => new OAuthError("too_many_requests", "Too many client registrations from this address; retry in a minute.");
  /** Counts one registration from `ip`, or throws too_many_requests (in memory, or in the database on PostgreSQL). */
  return async (ip: string | null): Promise<void> => {
    if (shared) {
      const mine = ip !== null ? await shared.mine.take(ip) : null;
      if (mine && !mine.allowed) throw fromHere();
      const all = await shared.all.take("all");
      if (!all.allowed) {
        await mine?.giveBack();
        throw tooMany(all.retryAfter);
      }
      return;
    }
    if (ip !== null && !registrations.check(ip).allowed) throw fromHere();
    const all = allRegistrations.check("all");
    if (!all.allowed) throw tooMany(all.retryAfter);
    if (ip !== null) registrations.hit(ip);
    allRegistrations.hit("all");
  };
}

export function oauthRoutes(deps: SignInDeps) {
  const base = deps.config.baseUrl;
  const limits = deps.config.authLimits;
  const takeRegistration = registrationLimits(deps);
  const clientBudget = { maxClients: deps.config.oauthMaxClients, unusedMs: deps.config.oauthUnusedClientDays * 24 * 3_600_000 };
  const metadataFetches = new MetadataFetchBudget(limits.oauthMetadataFetches, limits.oauthMetadataFetchesGlobal, deps.database);
  return (
    new Elysia()
      .get("/.well-known/oauth-protected-resource", () => oauthJson(protectedResourceMetadata(base), 200, METADATA_CACHE))
      .get("/.well-known/oauth-protected-resource/mcp", () => oauthJson(protectedResourceMetadata(base), 200, METADATA_CACHE))
      .get("/.well-known/oauth-protected-resource/mcp/:projectId", ({ params }) =>
        PROJECT_ID_PATTERN.test(params.projectId)
          ? oauthJson(protectedResourceMetadata(base, params.projectId), 200, METADATA_CACHE)
          : oauthJson({ error: "not_found", message: "No such protected resource." }, 404),
      )
      .get("/.well-known/oauth-authorization-server", () => oauthJson(authorizationServerMetadata(base), 200, METADATA_CACHE))
      .post("/oauth/register", ({ body, request, server }) =>
        answer(async () => {
          // per client address, OAUTH_REGISTRATION_LIMIT_PER_MINUTE (unknown only without a socket, i.e. app.handle in tests
          // and the adapter), and from all addresses, OAUTH_REGISTRATION_GLOBAL_LIMIT_PER_HOUR (many addresses at 30 a minute
          // each filled the table)
          const ip = clientMeta(request, server).ip;
          await takeRegistration(ip);
          return oauthJson(await registerClient(deps.database, body, clientBudget), 201);
        }),
      )
      .post("/oauth/token", ({ body, request }) =>
        answer(async () => {
          const grantType = param(body, "grant_type");
          if (!grantType) throw new OAuthError("invalid_request", "grant_type is required.");
          if (grantType !== "authorization_code" && grantType !== "refresh_token" && grantType !== JWT_BEARER_GRANT) {
            throw new OAuthError(
              "unsupported_grant_type",
              `Supported grant types: authorization_code, refresh_token, ${JWT_BEARER_GRANT}.`,
            );
          }
          if (grantType === JWT_BEARER_GRANT) return oauthJson(await jwtBearerRequest(deps, body, request, metadataFetches));
          const clientId = (await authenticateClient(deps.database, body, request)).id;
          if (grantType === "authorization_code") {
            const code = param(body, "code");
            const codeVerifier = param(body, "code_verifier");
            const redirectUri = param(body, "redirect_uri");
            if (!code || !codeVerifier || !redirectUri)
              throw new OAuthError("invalid_request", "code, code_verifier and redirect_uri are required.");
            return oauthJson(
              await exchangeCode(deps.database, { clientId, code, codeVerifier, redirectUri, resource: param(body, "resource") }),
            );
          }
          const refreshToken = param(body, "refresh_token");
          if (!refreshToken) throw new OAuthError("invalid_request", "refresh_token is required.");
          return oauthJson(
            await refreshTokens(deps.database, { clientId, refreshToken, resource: param(body, "resource"), scope: param(body, "scope") }),
          );
        }),
      )
      .post("/oauth/revoke", ({ body, request }) =>
        answer(async () => {
          // RFC 7009 §2.1: a client that names itself (client_id, or HTTP Basic) is authenticated as at the token endpoint
          // (a confidential one with its secret); it revokes only its own tokens
          const named = param(body, "client_id") !== undefined || /^basic /i.test(request.headers.get("authorization") ?? "");
          const clientId = named ? (await authenticateClient(deps.database, body, request)).id : null;
          const token = param(body, "token");
          if (!token) throw new OAuthError("invalid_request", "token is required.");
          await revokeToken(deps.database, { token, clientId });
          return new Response(null, { status: 200, headers: { ...PUBLIC_CORS, "cache-control": "no-store" } });
        }),
      )
      // CORS preflights of the public endpoints
      .options("/.well-known/oauth-protected-resource", preflight)
      .options("/.well-known/oauth-protected-resource/mcp", preflight)
      .options("/.well-known/oauth-protected-resource/mcp/:projectId", preflight)
      .options("/.well-known/oauth-authorization-server", preflight)
      .options("/oauth/register", preflight)
      .options("/oauth/token", preflight)
      .options("/oauth/revoke", preflight)
      .use(consentRoutes(deps, metadataFetches))
  );
}
