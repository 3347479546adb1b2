/**
 * The browser-bound state of a redirect sign-in (OAuth, OIDC, organization SSO over OIDC):
 * `state`, the PKCE verifier, the OIDC nonce, where to go afterwards. It lives in one
 * httpOnly cookie scoped to `/api/auth`, SameSite=Lax (sent on the provider's top-level
 * redirect back, never on a cross-site subrequest), for 10 minutes. A callback whose `state`
 * is not the cookie's did not start in this browser and is refused.
 */
import type { Config } from "../config";
import { safeNext } from "../http/next";

export const FLOW_COOKIE = "talentd_flow";
export const FLOW_TTL_MS = 10 * 60 * 1000;

export interface Flow {
  /** `github`, `gitlab`, `google`, `microsoft`, `oidc`, or `sso:<organizationId>`. */
  provider: string;
  state: string;
  verifier?: string;
  nonce?: string;
  next: string;
  /** Expiry (ms since the epoch). */
  exp: number;
}

/** The Set-Cookie value holding a flow (or clearing it with `null`). */
export function flowCookie(config: Config, flow: Flow | null): string {
  const secure = config.baseUrl.startsWith("https:") ? "; Secure" : "";
  if (!flow) return `${FLOW_COOKIE}=; Path=/api/auth; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
  const value = Buffer.from(JSON.stringify(flow)).toString("base64url");
  return `${FLOW_COOKIE}=${value}; Path=/api/auth; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(FLOW_TTL_MS / 1000)}${secure}`;
}

/** The flow this browser started, if its cookie is there, well-formed and not expired. */
export function readFlow(request: Request): Flow | null {
  const header = request.headers.get("cookie") ?? "";
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i <= 0 || part.slice(0, i).trim() !== FLOW_COOKIE) continue;
    try {
      const f = JSON.parse(Buffer.from(part.slice(i + 1).trim(), "base64url").toString("utf8")) as Flow;
      if (typeof f.provider !== "string" || typeof f.state !== "string" || typeof f.exp !== "number" || f.exp < Date.now()) return null;
      return { ...f, next: safeNext(typeof f.next === "string" ? f.next : "/") };
    } catch {
      return null;
    }
  }
  return null;
}
