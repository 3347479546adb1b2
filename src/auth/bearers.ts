/**
 * The bearers a caller of the key API presents, as the authenticator tells them apart: a
 * project's API key (`svc_pk_…`, minted by projects/keys.ts) and an OAuth access token
 * (`svc_at_…`, minted by oauth/grants.ts) bound to one MCP resource. Here, below both, so that
 * the authenticator (auth/key.ts, auth/token.ts) imports neither minting domain.
 */

/** The prefix of a project's API key. */
export const KEY_PREFIX = "svc_pk_";

/** The prefix of an OAuth access token. */
export const ACCESS_TOKEN_PREFIX = "svc_at_";

/** The canonical MCP URL: of a project, or of the bare `/mcp` endpoint. */
export function mcpResource(baseUrl: string, projectId?: string | null): string {
  return projectId ? `${baseUrl}/mcp/${projectId}` : `${baseUrl}/mcp`;
}
