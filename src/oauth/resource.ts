/**
 * The service's protected resources (RFC 8707 resource indicators, RFC 9728 metadata URLs):
 * `${BASE_URL}/mcp/<project_id>` is a project's MCP URL, `${BASE_URL}/mcp` the bare endpoint
 * whose project comes from the bearer. Every OAuth token is bound to exactly one of them.
 */
import { mcpResource } from "../auth/bearers";
import { OAUTH_SCOPES, type KeyScope } from "../db/schema";

export { mcpResource };

/** A project id as minted by `newId("prj")`: checked before any lookup. */
export const PROJECT_ID_PATTERN = /^prj_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The scopes an OAuth client may ask for (declared beside KEY_SCOPES). */
export { OAUTH_SCOPES };

/** Where the RFC 9728 metadata of a resource lives (the root document for the bare endpoint). */
export function resourceMetadataUrl(baseUrl: string, projectId?: string | null): string {
  return projectId ? `${baseUrl}/.well-known/oauth-protected-resource/mcp/${projectId}` : `${baseUrl}/.well-known/oauth-protected-resource`;
}

/**
 * Reads a `resource` parameter: `{ projectId }` for one of our MCP URLs (null for the bare
 * endpoint), or null when it names anything else (RFC 8707 `invalid_target`).
 */
export function parseResource(baseUrl: string, resource: string): { projectId: string | null } | null {
  if (resource === mcpResource(baseUrl)) return { projectId: null };
  const prefix = `${baseUrl}/mcp/`;
  if (!resource.startsWith(prefix)) return null;
  const id = resource.slice(prefix.length);
  return PROJECT_ID_PATTERN.test(id) ? { projectId: id } : null;
}

/** Parses a space-separated scope string (scopes in canonical order); `unknown` lists the names that are not scopes. */
export function parseScopes(value: string | null | undefined): { scopes: KeyScope[]; unknown: string[] } {
  const scopes: KeyScope[] = [];
  const unknown: string[] = [];
  for (const s of (value ?? "").split(" ").filter(Boolean)) {
    if ((OAUTH_SCOPES as readonly string[]).includes(s)) {
      if (!scopes.includes(s as KeyScope)) scopes.push(s as KeyScope);
    } else if (s !== "offline_access") {
      // offline_access is implied (a refresh token is always issued), so it is accepted and dropped
      unknown.push(s);
    }
  }
  // canonical order, whatever the order asked
  return { scopes: OAUTH_SCOPES.filter((s) => scopes.includes(s)), unknown };
}
