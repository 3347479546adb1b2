/**
 * Client authentication at the token endpoint (RFC 6749 §2.3.1): a public client names itself
 * (`client_id`); a confidential one (registered with `client_secret_basic` or
 * `client_secret_post`) proves its secret the way it registered, on every grant, the jwt-bearer
 * grant of enterprise-managed authorization included. A wrong, missing or misplaced secret is
 * 401 `invalid_client` (with `WWW-Authenticate: Basic` when HTTP Basic was tried).
 */
import type { Database } from "../db/client";
import { safeEqual, sha256Hex } from "../lib/crypto";
import { findClient, type OAuthClient } from "./clients";
import { OAuthError } from "./errors";

const field = (body: unknown, name: string): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined;
  const v = (body as Record<string, unknown>)[name];
  return typeof v === "string" && v !== "" ? v : undefined;
};

/** The client id and secret of an `Authorization: Basic` header (each form-urlencoded), null without one; malformed → invalid_client. */
function basicCredentials(request: Request): { id: string; secret: string } | null {
  const header = request.headers.get("authorization");
  if (!header || !/^basic /i.test(header)) return null;
  let decoded: string;
  try {
    decoded = atob(header.slice(6).trim());
  } catch {
    throw basicRefusal("The Authorization header is not valid HTTP Basic credentials.");
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) throw basicRefusal("The Authorization header is not valid HTTP Basic credentials (client_id:client_secret).");
  try {
    const unform = (s: string) => decodeURIComponent(s.replaceAll("+", " "));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    throw basicRefusal("The Authorization header's client_id or client_secret is not form-urlencoded.");
  }
}

/** 401 invalid_client naming the Basic scheme (RFC 6749 §5.2: the client tried HTTP Basic). */
function basicRefusal(description: string): OAuthError {
  const e = new OAuthError("invalid_client", description);
  e.headers = { "www-authenticate": 'Basic realm="talentd"' };
  return e;
}

/** True when `secret` is the client's (compared as hashes, in constant time). */
const secretMatches = (client: OAuthClient, secret: string | undefined): boolean =>
  secret !== undefined && client.secretHash !== null && safeEqual(sha256Hex(secret), client.secretHash);

/**
 * The client of a token request: `client_id` (in the body, or the Basic header's), which must
 * name a registered client; a confidential client's secret checked the way it registered.
 */
export async function authenticateClient(database: Database, body: unknown, request: Request): Promise<OAuthClient> {
  const basic = basicCredentials(request);
  const named = field(body, "client_id");
  if (basic && named && basic.id !== named) throw basicRefusal("client_id differs from the Authorization header's client.");
  const clientId = named ?? basic?.id;
  if (!clientId) throw new OAuthError("invalid_request", "client_id is required (public clients identify themselves with it).");
  const client = await findClient(database, clientId);
  if (!client) {
    if (basic) throw basicRefusal("Unknown client_id; register again.");
    throw new OAuthError("invalid_client", "Unknown client_id; register again.");
  }
  if (client.authMethod === "client_secret_basic") {
    if (!basic) throw basicRefusal("This client authenticates with HTTP Basic (client_secret_basic): send its client_id and secret there.");
    if (!secretMatches(client, basic.secret)) throw basicRefusal("Client authentication failed.");
  } else if (client.authMethod === "client_secret_post") {
    if (basic) throw basicRefusal("This client authenticates with client_secret in the body (client_secret_post), not HTTP Basic.");
    if (!secretMatches(client, field(body, "client_secret"))) throw new OAuthError("invalid_client", "Client authentication failed.");
  }
  return client;
}
