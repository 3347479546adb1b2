/**
 * Cross-site request refusal (docs/api.md "Cross-site requests"), one rule for every state-changing request a
 * browser can make: the cookie-authenticated ones (`/web/*`, consent, invitations, sign-out)
 * and the ones that create a session (sign-in, sign-up, setup: login CSRF).
 *
 * What a real browser sends decides it, in this order (the order of Go's
 * net/http CrossOriginProtection, a reviewed design of the same check):
 *   1. GET, HEAD, OPTIONS change nothing: accepted.
 *   2. `Sec-Fetch-Site` (set by the browser, never by a page's script): `same-origin` or
 *      `none` (typed by the person) is accepted; `same-site` (another port of this host is
 *      another origin but the same site) and `cross-site` are refused. Chromium sends it to
 *      HTTPS and loopback origins only.
 *   3. Otherwise `Origin`: accepted when its host is BASE_URL's or the request's own `Host`
 *      (a page of this server reached under another name, e.g. a LAN address over plain HTTP,
 *      where no Sec-Fetch-Site is sent); `null` (an opaque origin) and any other host refused.
 *   4. Neither header: not a browser. `HX-Request` is accepted (a page cannot send a custom
 *      header to another origin without a CORS preflight this server never grants). For the
 *      routes that create a session, a client without either header (curl, scripts) is
 *      accepted; a cookie-authenticated request must say where it comes from.
 * The pages send `Referrer-Policy: same-origin` (ui/layout.tsx), so a same-origin form POST
 * carries its real Origin; `no-referrer` made Chromium send `Origin: null`.
 */
import type { Config } from "../config";
import { AppError } from "./errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The host (host:port, default port dropped) of an origin or URL string, or null if it is none. */
function hostOf(value: string): string | null {
  try {
    return new URL(value).host;
  } catch {
    return null;
  }
}

/**
 * Refuses a cross-site state-changing request with 403 csrf_rejected. `cookieAuth`: the
 * request acts with the session cookie (so a request that says nothing of its origin is
 * refused too); false for the routes that create a session (sign-in, sign-up, setup).
 */
export function checkSameOrigin(config: Config, request: Request, cookieAuth: boolean): void {
  if (SAFE_METHODS.has(request.method)) return;
  const base = new URL(config.baseUrl);
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) {
    if (site === "same-origin" || site === "none") return;
    throw new AppError("csrf_rejected", `This form was sent from another site (${site}); open ${base.origin} and submit it from there.`, {
      secFetchSite: site,
    });
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const host = origin === "null" ? null : hostOf(origin);
    if (host !== null && (host === base.host || host === request.headers.get("host"))) return;
    throw new AppError("csrf_rejected", `Requests from ${origin} are not accepted; use ${base.origin}.`, { origin });
  }
  if (request.headers.get("hx-request") === "true" || !cookieAuth) return;
  throw new AppError(
    "csrf_rejected",
    `A request that uses the session cookie must say where it comes from: send the header "Origin: ${base.origin}".`,
  );
}
