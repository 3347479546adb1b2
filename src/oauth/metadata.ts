/**
 * Discovery documents: RFC 9728 protected-resource metadata (one per MCP URL) and RFC 8414
 * authorization-server metadata. Pure functions of BASE_URL, so they need no database.
 */
import { ID_JAG_PROFILE, JWT_BEARER_GRANT } from "./jwtBearer";
import { mcpResource, OAUTH_SCOPES } from "./resource";

/** RFC 9728 metadata of a project's MCP URL, or of the bare `/mcp` endpoint. */
export function protectedResourceMetadata(baseUrl: string, projectId?: string | null) {
  return {
    resource: mcpResource(baseUrl, projectId),
    authorization_servers: [baseUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: projectId ? `talentd project ${projectId}` : "talentd",
  };
}

/** RFC 8414 metadata of the built-in authorization server. */
export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    registration_endpoint: `${baseUrl}/oauth/register`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", JWT_BEARER_GRANT],
    // enterprise-managed authorization: an organization's IdP-issued ID-JAG (jwtBearer.ts)
    authorization_grant_profiles_supported: [ID_JAG_PROFILE],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    // a client_id may be the https URL of the client's metadata document (oauth/cimd.ts); registration stays
    client_id_metadata_document_supported: true,
  };
}
