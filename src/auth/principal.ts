/**
 * Who a bearer is: a project key (key.ts) or an OAuth access token (token.ts), told apart by
 * the token's prefix, both ending in the same KeyPrincipal. The one place that knows both, so
 * neither guard imports the other.
 */
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { Logger } from "../lib/log";
import type { KeyScope } from "../db/schema";
import { authenticateKey, bearerOf, type KeyPrincipal } from "./key";
import { authenticateToken, isAccessToken } from "./token";

type Deps = { config: Config; database: Database; log: Logger };

/** The key API's guard: an access token (svc_at_…) is evaluated by the token guard, anything else as a project key. */
export async function authenticateKeyOrToken(
  deps: Deps,
  request: Request,
  scope: KeyScope | null,
  projectId: string | null = null,
): Promise<KeyPrincipal> {
  if (isAccessToken(bearerOf(request))) return authenticateToken(deps, request, scope, undefined, projectId);
  return authenticateKey(deps, request, scope, projectId);
}

/**
 * The bearer of an MCP request (a project key or an access token) for the resource `resource`
 * (`${BASE_URL}/mcp` or `${BASE_URL}/mcp/<id>`), with `scope` or none (initialize, listings).
 * A key designates its project: on `/mcp/<id>` it must be a key of that project (else 401,
 * as for a token bound elsewhere), checked right after the lookup, so nothing else about a
 * foreign key (its creator left, its project was deleted) is told. Otherwise keys go through the
 * key guard unchanged, so their errors and their order stay those of the key API.
 */
export async function authenticateBearer(
  deps: Deps,
  request: Request,
  scope: KeyScope | null,
  resource: string,
  projectId: string | null,
): Promise<KeyPrincipal> {
  const token = bearerOf(request);
  if (isAccessToken(token)) return authenticateToken(deps, request, scope, resource, projectId);
  return authenticateKey(deps, request, scope, projectId);
}
