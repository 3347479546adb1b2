/**
 * Dynamic client registration (RFC 7591) for MCP clients: public ones (no secret, PKCE required)
 * and confidential ones (`client_secret_basic` or `client_secret_post`: a secret issued once, kept
 * as its hash, checked at the token endpoint by clientAuth.ts); redirect URIs limited to https and
 * loopback http (RFC 8252 §7.3, where any port matches).
 */
import { and, eq, lt, or, sql } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { oauthClients, oauthCodes } from "../db/schema";
import { newSecret, sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import { OAuthError } from "./errors";
import { parseScopes } from "./resource";

export const REDIRECT_URIS_MAX = 10;
/**
 * A registration unused this long (no token issued to it) is deleted with its codes and tokens.
 * Equal to the refresh token's lifetime: an idle client holds no live token.
 */
export const CLIENT_IDLE_MS = 30 * 24 * 3600 * 1000;
/**
 * A client that never got a token (its `last_used_at` still its `created_at`) is deleted this long
 * after it was registered or consented to: OAUTH_UNUSED_CLIENT_DAYS, default 1 day.
 */
export const UNUSED_CLIENT_MS = 24 * 3600 * 1000;
/** The largest client metadata accepted at registration, as JSON (RFC 7591 sets none; real clients send well under 1 KiB). */
export const CLIENT_METADATA_MAX_BYTES = 4096;
const URI_MAX = 2000;
/** The jwt-bearer grant of enterprise-managed authorization (jwtBearer.ts, which imports this module). */
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const NAME_MAX = 200;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** How a client authenticates at the token endpoint (RFC 7591 `token_endpoint_auth_method`). */
export const CLIENT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];
/** The prefix of a client secret (a checksum follows the random part: lib/crypto.ts newSecret). */
export const CLIENT_SECRET_PREFIX = "svc_cs_";

export interface OAuthClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** `none` for a public client; a confidential one proves its secret on every token request. */
  authMethod: ClientAuthMethod;
  /** sha256 of its secret (confidential clients only). */
  secretHash: string | null;
  /** The host that served the client's metadata document (a URL client_id, oauth/cimd.ts); absent for a registration. */
  from?: string;
}

/** True when a client_id is a URL (a client ID metadata document, oauth/cimd.ts) rather than a registration's `ocl_` id. */
export function isMetadataClientId(id: string): boolean {
  return /^https?:\/\//i.test(id);
}

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > URI_MAX) return `is longer than ${URI_MAX} characters`;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (u.hash !== "" || uri.includes("#")) return "must not contain a fragment";
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname)) return null;
  return "must be https, or http on a loopback address (localhost, 127.0.0.1, [::1])";
}

/** The largest TCP port: a URI naming a larger one is not a URL (the parser throws). */
export const PORT_MAX = 65535;

/**
 * A loopback http URI's text with its port removed, or null for any other URI (compared as
 * written, never normalised). A port above PORT_MAX is no loopback URI: matching it would let
 * an unparseable URI through to the redirect.
 */
function withoutLoopbackPort(uri: string): string | null {
  const m = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?][^#]*)?$/.exec(uri);
  if (!m || (m[2] !== undefined && Number(m[2]) > PORT_MAX)) return null;
  return `http://${m[1]}${m[3] ?? ""}`;
}

/**
 * True when `candidate` is one of the registered URIs: the same string, except that a
 * loopback http URI may differ in its port only (native apps bind an ephemeral port,
 * RFC 8252 §7.3). Strings, not parsed URLs: a parser would read `/x/../cb` as `/cb`.
 */
export function redirectUriRegistered(registered: string[], candidate: string): boolean {
  if (registered.includes(candidate)) return true;
  const c = withoutLoopbackPort(candidate);
  return c !== null && registered.some((r) => withoutLoopbackPort(r) === c);
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * A page URI of the metadata (`client_uri`, `logo_uri`) as kept: absent, or an https URL; anything
 * else (another scheme such as `javascript:`, not a URL, too long) is 400 invalid_client_metadata.
 */
function httpsUri(b: Record<string, unknown>, field: "client_uri" | "logo_uri"): { [k: string]: string } {
  const v = b[field];
  if (v === undefined || v === null || v === "") return {};
  const problem = typeof v !== "string" ? "must be a string" : v.length > URI_MAX ? `is longer than ${URI_MAX} characters` : null;
  if (problem) throw new OAuthError("invalid_client_metadata", `${field} ${problem}.`);
  if (!URL.canParse(v as string) || new URL(v as string).protocol !== "https:")
    throw new OAuthError("invalid_client_metadata", `${field} must be an https URL.`);
  return { [field]: v as string };
}

/**
 * Deletes the clients unused for CLIENT_IDLE_MS, and those that never got a token within
 * `unusedMs` of their registration (or consent); never one holding a live, unused authorization
 * code (a consent whose exchange is on its way). Their codes and tokens go by cascade; returns how many.
 */
export async function purgeIdleClients(tx: Tx, now: number, unusedMs = UNUSED_CLIENT_MS): Promise<number> {
  const lastUse = sql`coalesce(${oauthClients.lastUsedAt}, ${oauthClients.createdAt})`;
  const neverUsed = and(eq(oauthClients.lastUsedAt, oauthClients.createdAt), lt(oauthClients.createdAt, now - unusedMs));
  const liveCode = sql`exists (select 1 from ${oauthCodes} where ${oauthCodes.clientId} = ${oauthClients.id}
    and ${oauthCodes.usedAt} is null and ${oauthCodes.expiresAt} > ${now})`;
  const gone = await tx
    .delete(oauthClients)
    .where(and(or(lt(lastUse, now - CLIENT_IDLE_MS), neverUsed), sql`not ${liveCode}`))
    .returning({ id: oauthClients.id });
  return gone.length;
}

/**
 * Marks a client used now (a token was issued to it), which keeps its registration alive. Always
 * after its `created_at` (a row written with its first token, in the same millisecond, too): equal
 * means never used.
 */
export async function touchClient(tx: Tx, clientId: string, now: number): Promise<void> {
  await tx
    .update(oauthClients)
    // the larger of the two, written so both engines read it (SQLite's two-argument max is PostgreSQL's greatest)
    .set({ lastUsedAt: sql`CASE WHEN ${now} > ${oauthClients.createdAt} THEN ${now} ELSE ${oauthClients.createdAt} + 1 END` })
    .where(eq(oauthClients.id, clientId));
}

/** What bounds the registrations: OAUTH_MAX_CLIENTS kept at once, and how long an unused one is kept. */
export interface ClientBudget {
  maxClients: number;
  unusedMs: number;
}

/**
 * Inserts a registration within the global budget `maxClients`: when it is full, idle and unused
 * clients are deleted first; still full → 503 temporarily_unavailable (the per-address limit alone let
 * many addresses grow the table without bound).
 */
async function insertWithinBudget(
  database: Database,
  budget: ClientBudget,
  row: typeof oauthClients.$inferInsert,
  now: number,
): Promise<void> {
  const { maxClients } = budget;
  const full = await database.write(async (tx): Promise<boolean> => {
    const count = async () => (await tx.select({ n: sql<number>`count(*)` }).from(oauthClients))[0]!.n;
    if ((await count()) >= maxClients) {
      await purgeIdleClients(tx, now, budget.unusedMs);
      if ((await count()) >= maxClients) return true;
    }
    await tx.insert(oauthClients).values(row);
    return false;
  });
  if (full) {
    const description = `This server holds its maximum of ${maxClients} registered clients; retry later or ask its operator.`;
    throw new OAuthError("temporarily_unavailable", description);
  }
}

/**
 * Registers a public client. URIs that are not https or loopback http are dropped
 * (RFC 7591 §2 lets the server replace requested values; clients such as Cursor send a private-use
 * scheme beside a loopback one); the registration fails only when none is left.
 */
export async function registerClient(database: Database, body: unknown, budget: ClientBudget) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new OAuthError("invalid_client_metadata", "The body must be a JSON object of client metadata.");
  }
  if (Buffer.byteLength(JSON.stringify(body)) > CLIENT_METADATA_MAX_BYTES)
    throw new OAuthError(
      "invalid_client_metadata",
      `The client metadata is larger than ${CLIENT_METADATA_MAX_BYTES / 1024} KiB (as JSON).`,
    );
  const b = body as Record<string, unknown>;
  const uris = b.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string")) {
    throw new OAuthError("invalid_redirect_uri", "redirect_uris must be a non-empty array of URLs.");
  }
  if (uris.length > REDIRECT_URIS_MAX) throw new OAuthError("invalid_redirect_uri", `At most ${REDIRECT_URIS_MAX} redirect_uris.`);
  const kept = [...new Set(uris as string[])].filter((u) => redirectUriProblem(u) === null);
  if (kept.length === 0) {
    const u = uris[0] as string;
    throw new OAuthError("invalid_redirect_uri", `redirect_uri ${JSON.stringify(u.slice(0, 200))} ${redirectUriProblem(u)}.`);
  }
  const grantTypes = Array.isArray(b.grant_types) ? b.grant_types : ["authorization_code", "refresh_token"];
  if (!grantTypes.every((g) => g === "authorization_code" || g === "refresh_token" || g === JWT_BEARER)) {
    throw new OAuthError("invalid_client_metadata", `grant_types may only contain authorization_code, refresh_token and ${JWT_BEARER}.`);
  }
  const responseTypes = Array.isArray(b.response_types) ? b.response_types : ["code"];
  if (!responseTypes.every((r) => r === "code")) throw new OAuthError("invalid_client_metadata", 'response_types may only contain "code".');
  const scope = str(b.scope);
  if (scope !== undefined && parseScopes(scope).unknown.length > 0) {
    throw new OAuthError("invalid_client_metadata", `Unknown scope(s): ${parseScopes(scope).unknown.join(", ")}.`);
  }
  const authMethod = b.token_endpoint_auth_method ?? "none";
  if (!CLIENT_AUTH_METHODS.includes(authMethod as ClientAuthMethod))
    throw new OAuthError("invalid_client_metadata", `token_endpoint_auth_method may only be ${CLIENT_AUTH_METHODS.join(", ")}.`);
  const pages = { ...httpsUri(b, "client_uri"), ...httpsUri(b, "logo_uri") };
  const name = (str(b.client_name) ?? "").trim().slice(0, NAME_MAX) || "Unnamed client";
  const now = Date.now();
  const id = newId("ocl");
  const secret = authMethod === "none" ? null : newSecret(CLIENT_SECRET_PREFIX, 32);
  const metadata: Record<string, unknown> = {
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: authMethod,
    ...(scope !== undefined ? { scope } : {}),
    ...pages,
    ...(str(b.software_id) ? { software_id: str(b.software_id)!.slice(0, NAME_MAX) } : {}),
    ...(str(b.software_version) ? { software_version: str(b.software_version)!.slice(0, NAME_MAX) } : {}),
  };
  // last_used_at = created_at until a token is issued: a client that never gets one goes after budget.unusedMs
  const row = { id, name, redirectUris: kept, metadata, createdAt: now, lastUsedAt: now, secretHash: secret && sha256Hex(secret) };
  await insertWithinBudget(database, budget, row, now);
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now / 1000),
    // shown once: only its hash is kept; it does not expire (0, RFC 7591 §3.2.1)
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: name,
    redirect_uris: kept,
    ...metadata,
  };
}

/** A registered client (or a metadata-document client a user consented to), or null. */
export async function findClient(database: Database, id: string): Promise<OAuthClient | null> {
  if (!/^ocl_[0-9A-Z]{26}$/.test(id) && !(isMetadataClientId(id) && id.length <= URI_MAX)) return null;
  const rows = await database.db
    .select({
      id: oauthClients.id,
      name: oauthClients.name,
      redirectUris: oauthClients.redirectUris,
      metadata: oauthClients.metadata,
      secretHash: oauthClients.secretHash,
    })
    .from(oauthClients)
    .where(eq(oauthClients.id, id))
    .limit(1);
  const r = rows[0];
  if (!r) return null;
  const method = r.metadata.token_endpoint_auth_method;
  // a confidential method counts only with a secret on record: no row can be confidential without one
  const authMethod: ClientAuthMethod =
    r.secretHash && (method === "client_secret_basic" || method === "client_secret_post") ? method : "none";
  return { id: r.id, name: r.name, redirectUris: r.redirectUris, authMethod, secretHash: authMethod === "none" ? null : r.secretHash };
}
