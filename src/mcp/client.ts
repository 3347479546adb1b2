/**
 * Which development tool is calling (docs/api.md "Trace events": each MCP call names it). The MCP
 * `initialize` request carries `clientInfo`; later requests of a stateless server do not, so
 * the initialize response hands the client an `Mcp-Session-Id` that encodes its clientInfo
 * (plus randomness), which the client echoes on every later request. It is a label for traces
 * only — never a credential: every request is authenticated by its bearer.
 */
import { randomBytes } from "node:crypto";

const PART_MAX = 100;

/** `name/version` of an initialize request's clientInfo, or null. */
export function clientInfoLabel(clientInfo: unknown): string | null {
  const c = clientInfo as { name?: unknown; version?: unknown } | null | undefined;
  if (!c || typeof c.name !== "string" || c.name === "") return null;
  // header-safe: printable ASCII only
  const clean = (v: string) => v.slice(0, PART_MAX).replace(/[^\x20-\x7e]/g, "?");
  return typeof c.version === "string" && c.version !== "" ? `${clean(c.name)}/${clean(c.version)}` : clean(c.name);
}

/** The session id given at initialize: `c1.<base64url label>.<random>` (visible ASCII only). */
export function sessionIdFor(label: string): string {
  return `c1.${Buffer.from(label).toString("base64url")}.${randomBytes(12).toString("base64url")}`;
}

/** The client label a session id carries, or null for any other value. */
export function labelFromSessionId(sessionId: string | null): string | null {
  const m = sessionId ? /^c1\.([A-Za-z0-9_-]{1,400})\.[A-Za-z0-9_-]{16}$/.exec(sessionId) : null;
  if (!m) return null;
  const label = Buffer.from(m[1]!, "base64url").toString("utf8");
  return /^[\x20-\x7e]{1,201}$/.test(label) ? label : null;
}

/** The client of a request: initialize's clientInfo, else the session id's label, else the User-Agent. */
export function clientLabel(request: Request, initializeClientInfo: unknown): string | null {
  return (
    clientInfoLabel(initializeClientInfo) ??
    labelFromSessionId(request.headers.get("mcp-session-id")) ??
    request.headers
      .get("user-agent")
      ?.slice(0, 200)
      .replace(/[^\x20-\x7e]/g, "?") ??
    null
  );
}
