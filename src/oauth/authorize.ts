/**
 * The authorization request (RFC 6749 §4.1.1 with OAuth 2.1 PKCE and RFC 8707 `resource`):
 * its validation in the order that decides where an error goes (RFC 6749 §4.1.2.1), and the
 * project checks of the consent (the user must be a member of an approved organization).
 */
import type { Database } from "../db/client";
import { withoutBidi } from "../lib/controls";
import type { KeyScope } from "../db/schema";
import { metadataClient, type MetadataFetch, type MetadataSettings } from "./cimd";
import { findClient, isMetadataClientId, PORT_MAX, redirectUriRegistered, type OAuthClient } from "./clients";
import { OAuthError, type OAuthErrorCode } from "./errors";
import { CHALLENGE } from "./grants";
import { OAUTH_SCOPES, parseResource, parseScopes } from "./resource";

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  /** From `resource`; null for the bare `/mcp` endpoint (the user picks the project). */
  projectId: string | null;
  scopes: KeyScope[];
}

export type AuthorizeCheck =
  | { ok: true; request: AuthorizeRequest }
  /** Unknown client or redirect URI: shown to the user, never redirected (RFC 6749 §4.1.2.1); 400 unless `status` says otherwise. */
  | { ok: false; page: string; status?: number; headers?: Record<string, string> }
  /** A metadata-document client not kept, and nobody signed in to fetch it for: sign in first. */
  | { ok: false; signIn: true }
  /** Any other error: sent back to the client's redirect URI. */
  | { ok: false; redirect: string };

/** The parameters of the request carried through the consent form. */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "code_challenge",
  "code_challenge_method",
  "scope",
  "resource",
] as const;

/** The client's redirect URI with the response parameters added (`iss` per RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>, issuer: string): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  u.searchParams.set("iss", issuer);
  return u.toString();
}

/** How a URL client_id is looked up: the settings, and whether its document may be fetched now (oauth/cimd.ts). */
export interface MetadataLookup {
  settings: MetadataSettings;
  fetch: MetadataFetch;
}

/**
 * The client of an authorization request: a registration, or the client a URL client_id's
 * metadata document describes (oauth/cimd.ts; its refusal is shown, never redirected; not kept
 * and not to be fetched: sign in first).
 */
async function clientOf(
  database: Database,
  clientId: string | undefined,
  metadata: MetadataLookup,
): Promise<OAuthClient | { page: string; status?: number; headers?: Record<string, string> } | { signIn: true }> {
  const unknown = {
    page:
      "This application is not registered with talentd (unknown client_id, invalid_client). " +
      "Start the connection again from the application.",
  };
  if (!clientId) return unknown;
  if (!isMetadataClientId(clientId)) return (await findClient(database, clientId)) ?? unknown;
  try {
    return (await metadataClient(clientId, metadata.settings, metadata.fetch)) ?? { signIn: true };
  } catch (e) {
    if (e instanceof OAuthError) return { page: `${e.description} (${e.code})`, status: e.status === 429 ? 429 : 400, headers: e.headers };
    throw e;
  }
}

/** Validates an authorization request (query of the GET, or fields of the consent form). */
export async function checkAuthorizeRequest(
  database: Database,
  baseUrl: string,
  get: (name: string) => string | undefined,
  metadata: MetadataLookup,
): Promise<AuthorizeCheck> {
  const client = await clientOf(database, get("client_id"), metadata);
  if ("signIn" in client) return { ok: false, signIn: true };
  if ("page" in client) return { ok: false, ...client };
  const redirectUri = get("redirect_uri");
  if (!redirectUri) return { ok: false, page: "The request carries no redirect_uri." };
  // before any URL is built from it: a port above 65535 (or any unparseable URI) is refused, never redirected to
  if (!URL.canParse(redirectUri)) {
    return { ok: false, page: `The redirect_uri ${redirectUri.slice(0, 200)} is not a valid URL (a port must be 0–${PORT_MAX}).` };
  }
  if (!redirectUriRegistered(client.redirectUris, redirectUri)) {
    return {
      ok: false,
      page:
        `The redirect_uri ${withoutBidi(redirectUri)} is not registered for ${withoutBidi(client.name)}; ` +
        "talentd will not send an authorization there (invalid_request).",
    };
  }
  const state = get("state");
  const fail = (error: OAuthErrorCode, description: string): AuthorizeCheck => ({
    ok: false,
    redirect: redirectWith(redirectUri, { error, error_description: description, state }, baseUrl),
  });
  if (get("response_type") !== "code") return fail("unsupported_response_type", 'response_type must be "code".');
  const method = get("code_challenge_method");
  if (method !== "S256") {
    return fail(
      "invalid_request",
      method === "plain"
        ? "code_challenge_method plain is not supported; use S256."
        : "code_challenge_method must be S256 (PKCE is required).",
    );
  }
  const codeChallenge = get("code_challenge");
  if (!codeChallenge || !CHALLENGE.test(codeChallenge))
    return fail("invalid_request", "code_challenge is required: the base64url SHA-256 of the code_verifier (43 characters).");
  const resource = get("resource");
  if (!resource) return fail("invalid_target", "The resource parameter is required (RFC 8707): the project's MCP URL.");
  const target = parseResource(baseUrl, resource);
  if (!target) return fail("invalid_target", `resource must be ${baseUrl}/mcp/<project_id> (or ${baseUrl}/mcp).`);
  const asked = parseScopes(get("scope"));
  if (asked.unknown.length > 0)
    return fail("invalid_scope", `Unknown scope(s): ${asked.unknown.join(", ")}. Scopes: ${OAUTH_SCOPES.join(" ")}.`);
  const scopes = asked.scopes.length > 0 ? asked.scopes : [...OAUTH_SCOPES];
  return { ok: true, request: { client, redirectUri, state, codeChallenge, resource, projectId: target.projectId, scopes } };
}

export interface ProjectChoice {
  id: string;
  name: string;
  organizationName: string;
}

/** Why the user cannot grant access to a project, or the project. */
export async function projectForConsent(
  database: Database,
  userId: string,
  projectId: string,
): Promise<ProjectChoice | { refused: string; status: number }> {
  const row = await database.get<{ id: string; name: string; organizationName: string; status: string; role: string | null }>(
    `SELECT p.id AS id, p.name AS name, o.name AS organizationName, o.status AS status, m.role AS role
     FROM projects p JOIN organizations o ON o.id = p.organization_id
     LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = ?
     WHERE p.id = ? LIMIT 1`,
    [userId, projectId],
  );
  // another organization's project is hidden the same way as a missing one
  if (!row || row.role === null)
    return { refused: "This project does not exist, or you are not a member of its organization.", status: 403 };
  if (row.status !== "approved")
    return { refused: `The organization "${row.organizationName}" is ${row.status}: its projects cannot be used yet.`, status: 403 };
  return { id: row.id, name: row.name, organizationName: row.organizationName };
}

/** The projects a user may grant access to (bare `/mcp`): those of their approved organizations. */
export async function projectsForConsent(database: Database, userId: string): Promise<ProjectChoice[]> {
  return database.all<ProjectChoice>(
    `SELECT p.id AS id, p.name AS name, o.name AS organizationName
     FROM members m JOIN organizations o ON o.id = m.organization_id JOIN projects p ON p.organization_id = o.id
     WHERE m.user_id = ? AND o.status = 'approved' ORDER BY o.name, p.name LIMIT 500`,
    [userId],
  );
}
