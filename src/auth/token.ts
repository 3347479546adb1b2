/**
 * OAuth access tokens (`svc_at_…`) as bearers, evaluated on every call like project keys
 * (docs/api.md "Key API") and producing the same KeyPrincipal with `kind: "token"`:
 * parse → hash lookup → unknown / revoked / expired / bound to another resource → the one
 * 401 invalid_token; the token's user no longer a member → 403 not_a_member; organization not
 * approved → 403 organization_not_approved; missing scope → 403 insufficient_scope.
 * A project deleted takes its tokens with it (foreign-key cascade); its live tokens leave a
 * tombstone, so they answer 404 like its keys (projectGone).
 *
 * The resource (RFC 8707) a token is bound to is checked against the URL it is used on: on
 * `/mcp/<id>` and `/mcp` it must be exactly that URL. On the key API (`/api/*`, where the MCP
 * adapter forwards the caller's bearer) it must be one of this service's MCP URLs of the
 * token's own project — so a token minted under another BASE_URL is refused too.
 */
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { KeyScope, MemberRole } from "../db/schema";
import { hasValidChecksum } from "../lib/crypto";
import type { Logger } from "../lib/log";
import { ACCESS_TOKEN_PREFIX, mcpResource } from "./bearers";
import { bearerOf, checkStanding, hashOfBearer, insufficientScope, invalidToken, projectGone, recordUse, type KeyPrincipal } from "./key";

type Deps = { config: Config; database: Database; log: Logger };

interface TokenRow {
  id: string;
  clientName: string;
  userId: string;
  projectId: string;
  scopes: string;
  resource: string;
  expiresAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
  organizationId: string;
  orgStatus: string;
  memberRole: string | null;
}

/** One indexed lookup per call: the token, its client, its project's organization, the user's membership. */
const TOKEN_LOOKUP = `SELECT t.id AS id, c.name AS clientName, t.user_id AS userId, t.project_id AS projectId,
  t.scopes AS scopes, t.resource AS resource, t.expires_at AS expiresAt, t.revoked_at AS revokedAt,
  t.last_used_at AS lastUsedAt, p.organization_id AS organizationId, o.status AS orgStatus, m.role AS memberRole
FROM oauth_tokens t
JOIN oauth_clients c ON c.id = t.client_id
JOIN projects p ON p.id = t.project_id
JOIN organizations o ON o.id = p.organization_id
LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = t.user_id
WHERE t.token_hash = ? AND t.kind = 'access' LIMIT 1`;

/** True when a bearer is an OAuth access token (the key guard hands those over here). */
export function isAccessToken(token: string | null): boolean {
  return token !== null && token.startsWith(ACCESS_TOKEN_PREFIX);
}

/**
 * Evaluates an OAuth access token. `scope` null checks everything but the scope.
 * `resource` is the exact URL the request addressed (`/mcp…`), or undefined on the key API.
 */
export async function authenticateToken(
  deps: Deps,
  request: Request,
  scope: KeyScope | null,
  resource?: string,
  projectId: string | null = null,
): Promise<KeyPrincipal> {
  const token = bearerOf(request);
  if (!token || !hasValidChecksum(token, ACCESS_TOKEN_PREFIX)) throw invalidToken();
  const now = Date.now();
  const hash = hashOfBearer(token);
  const t = await deps.database.get<TokenRow>(TOKEN_LOOKUP, [hash]);
  if (!t) return projectGone(deps.database, hash, now, projectId); // a deleted project's token: 404, as for a key
  // bound to another resource: the same 401 as revoked or expired (so which one is not told)
  const audience = resource !== undefined ? [resource] : [mcpResource(deps.config.baseUrl, t.projectId), mcpResource(deps.config.baseUrl)];
  if (!audience.includes(t.resource)) throw invalidToken();
  checkStanding(t, now, "The user who authorized this token is no longer a member of the organization.");
  const scopes = JSON.parse(t.scopes) as KeyScope[];
  if (scope !== null && !scopes.includes(scope)) throw insufficientScope(scope, "token");
  recordUse(deps, "oauth_tokens", t.id, t.lastUsedAt, now);
  return {
    kind: "token",
    id: t.id,
    name: t.clientName,
    projectId: t.projectId,
    organizationId: t.organizationId,
    userId: t.userId,
    role: t.memberRole as MemberRole,
    scopes,
  };
}
