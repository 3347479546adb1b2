/**
 * Errors of the authorization server in the shape of RFC 6749 §5.2 (`{error, error_description}`),
 * and the CORS headers of its public endpoints (metadata, registration, token, revocation), which
 * browser-based MCP clients call cross-origin.
 */

/** The error codes the endpoints answer (RFC 6749, RFC 7591, RFC 7009, RFC 8707). */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "unsupported_token_type"
  | "too_many_requests"
  | "temporarily_unavailable";

/** An RFC 6749 error: rendered as JSON on the back channel, as a redirect on the front channel. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = code === "invalid_client" ? 401 : code === "too_many_requests" ? 429 : code === "temporarily_unavailable" ? 503 : 400,
  ) {
    super(description);
  }

  /** Response headers of this refusal (`WWW-Authenticate: Basic` when the client tried HTTP Basic, RFC 6749 §5.2). */
  headers: Record<string, string> = {};

  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

/** CORS for the public OAuth endpoints: any origin, no cookies, WWW-Authenticate readable. */
export const PUBLIC_CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-expose-headers": "www-authenticate",
  "access-control-max-age": "86400",
};

/** A JSON response of the back channel (no-store, CORS). */
export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      pragma: "no-cache",
      ...PUBLIC_CORS,
      ...headers,
    },
  });
}

/** Renders an OAuthError as its JSON response. */
export function oauthErrorResponse(e: OAuthError): Response {
  const retryAfter = e.status === 429 ? "60" : e.status === 503 ? "3600" : undefined;
  // a Retry-After the error carries (a limiter's own wait) wins over the default
  return oauthJson(e.body(), e.status, { ...(retryAfter ? { "retry-after": retryAfter } : {}), ...e.headers });
}

/** The answer to a CORS preflight on a public endpoint. */
export function preflight(): Response {
  return new Response(null, { status: 204, headers: PUBLIC_CORS });
}
