/** The names of the cookies the edge, the OpenAPI document and the identity domain agree on. */

/** The session cookie's name under an http BASE_URL; under https it is `__Host-` + this (sessionCookieName). */
export const SESSION_COOKIE = "talentd_session";

/**
 * The session cookie's name: under an https BASE_URL `__Host-talentd_session`, which a browser
 * only accepts with Secure, Path=/ and no Domain — so neither a sibling subdomain nor a plain
 * http page of the same host can plant or shadow it; under http the bare name (the prefix would
 * be refused without Secure).
 */
export function sessionCookieName(config: { baseUrl: string }): string {
  return config.baseUrl.startsWith("https:") ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}

/** A cookie's value from the request's Cookie header, or null (absent or empty). */
export function cookieValue(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim() || null;
  }
  return null;
}
