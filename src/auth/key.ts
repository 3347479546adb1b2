/**
 * The project-key guard (docs/api.md "Key API"), evaluated on every call in this
 * order: bearer parse → hash lookup → unknown / revoked / expired / keys disabled → one
 * byte-identical 401 invalid_token; creator no longer a member → 403 not_a_member;
 * organization not approved → 403 organization_not_approved; project gone → 404;
 * missing scope → 403 insufficient_scope with requiredScope.
 */
import type { Config } from "../config";
import type { Database } from "../db/client";
import type { KeyScope, MemberRole } from "../db/schema";
import { AppError } from "../http/errors";
import { hasValidChecksum, sha256Hex } from "../lib/crypto";
import type { Logger } from "../lib/log";
import { kept, keptByVersion } from "../lib/kept";
import type { KeptMap } from "../lib/keptMap";
import { KEY_PREFIX } from "./bearers";
import { storageFailureOf } from "../db/storage";

/** Who is calling on the key API: a project key (or an OAuth access token). */
export interface KeyPrincipal {
  kind: "key" | "token";
  /** Key id (or token id). */
  id: string;
  /** Key name (or the OAuth client's name): the author shown in traces. */
  name: string;
  projectId: string;
  organizationId: string;
  /** The key's creator (or the token's user): must still be a member. */
  userId: string;
  /** That member's role in the organization, as read by this call's guard. */
  role: MemberRole;
  scopes: KeyScope[];
}

/** The one 401 of the key API: same status, headers and body in every case. */
export function invalidToken(): AppError {
  return new AppError(
    "invalid_token",
    "The bearer token is missing, unknown, revoked or expired.",
    {},
    {
      "www-authenticate": 'Bearer realm="talentd", error="invalid_token"',
    },
  );
}

/**
 * 403 insufficient_scope naming the scope the route needs and who can grant it: any member of the project creates a
 * key with it (the project's Keys tab); an OAuth token's person grants it by signing in again (the consent page).
 */
export function insufficientScope(scope: KeyScope, bearer: "key" | "token" = "key"): AppError {
  return new AppError(
    "insufficient_scope",
    bearer === "key"
      ? `This key does not carry the "${scope}" scope this needs. Any member of the project can create a key with it in the ` +
          "project's Keys tab of the dashboard."
      : `This token was not granted the "${scope}" scope this needs. Connect again and allow it on the consent page (the ` +
          "person who signs in must be a member of the project's organization).",
    { requiredScope: scope },
    {
      "www-authenticate": `Bearer realm="talentd", error="insufficient_scope", scope="${scope}"`,
    },
  );
}

/**
 * The checks every bearer (key, OAuth token, tombstone) goes through after its lookup, in the
 * spec's order: revoked or expired → the one 401; its creator (or user) no longer a member →
 * 403 not_a_member; organization not approved → 403 organization_not_approved.
 */
export function checkStanding(
  row: { revokedAt?: number | null; expiresAt: number | null; memberRole: string | null; orgStatus: string },
  now: number,
  notAMember?: string,
): void {
  if ((row.revokedAt !== undefined && row.revokedAt !== null) || (row.expiresAt !== null && row.expiresAt <= now)) throw invalidToken();
  if (row.memberRole === null) throw new AppError("not_a_member", notAMember);
  if (row.orgStatus !== "approved") throw new AppError("organization_not_approved");
}

/** The bearer token of a request, or null. */
export function bearerOf(request: Request): string | null {
  const h = request.headers.get("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

const LAST_USED_EVERY_MS = 60_000;

/**
 * Records that a key or token was used: at most once a minute, and never delaying or failing
 * the call (a failure is only logged).
 */
export function recordUse(
  deps: { database: Database; log: Logger },
  table: "api_keys" | "oauth_tokens",
  id: string,
  lastUsedAt: number | null,
  now: number,
): void {
  if (lastUsedAt !== null && now - lastUsedAt <= LAST_USED_EVERY_MS) return;
  deps.database
    .writeJob({ statements: [{ sql: `UPDATE ${table} SET last_used_at = ? WHERE id = ?`, args: [now, id] }], durable: false })
    // a full disk is told by the storage state, once per interval, not once per request (src/db/storage.ts)
    .catch((e) => storageFailureOf(e) || deps.log.warn("could not record use", { table, id, error: String(e) }));
}

interface KeyRow {
  /** A live key, or the tombstone a deleted project left (its evaluation ends in 404). */
  kind: "key" | "tombstone";
  id: string;
  name: string;
  tools: string;
  projectId: string;
  createdBy: string;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  organizationId: string;
  orgStatus: string;
  memberRole: string | null;
}

/**
 * One indexed read per evaluation, whatever the key turns out to be: the key with its
 * project's organization and its creator's membership, or else its tombstone. Unknown,
 * revoked, expired and deleted-project keys cost the same read (a second query
 * for unknown keys once told, by time alone, whether a key had ever existed).
 */
const KEY_LOOKUP = `SELECT 'key' AS kind, k.id AS id, k.name AS name, k.tools AS tools, k.project_id AS projectId, k.created_by AS createdBy,
  k.expires_at AS expiresAt, k.revoked_at AS revokedAt, k.last_used_at AS lastUsedAt,
  p.organization_id AS organizationId, o.status AS orgStatus, m.role AS memberRole
FROM api_keys k
JOIN projects p ON p.id = k.project_id
JOIN organizations o ON o.id = p.organization_id
LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = k.created_by
WHERE k.key_hash = ?
UNION ALL
SELECT 'tombstone' AS kind, t.key_id AS id, '' AS name, '[]' AS tools, t.project_id AS projectId, t.created_by AS createdBy,
  t.expires_at AS expiresAt, NULL AS revokedAt, NULL AS lastUsedAt,
  t.organization_id AS organizationId, o.status AS orgStatus, m.role AS memberRole
FROM key_tombstones t
JOIN organizations o ON o.id = t.organization_id
LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = t.created_by
WHERE t.key_hash = ?
LIMIT 1`;

/**
 * The hashes of the bearers seen lately, keys and OAuth access tokens (hashing the key was most of the guard's own work once
 * its row is cached: ~4 µs of a ~50 µs call). Bounded, FIFO; only key-sized
 * bearers. The raw keys it holds are the ones requests carry anyway; the database keeps only
 * hashes.
 */
const bearerHashes = kept<string, string>("Hash of a bearer (up to 128 characters)", { clock: "none", limit: 4_096 });
export function hashOfBearer(token: string): string {
  let hash = bearerHashes.get(token);
  if (hash === undefined) {
    hash = sha256Hex(token);
    if (token.length <= 128) bearerHashes.set(token, hash);
  }
  return hash;
}

/** Evaluates a project key for `scope` (an OAuth access token goes to principal.ts first); throws the spec's error or returns the principal. */
export async function authenticateKey(
  deps: { config: Config; database: Database; log: Logger },
  request: Request,
  /** The scope the route needs; null for a request that needs none (MCP initialize, listings). */
  scope: KeyScope | null,
  /**
   * The project the URL names (`/mcp/<id>`), or null. A key of another project is then unknown
   * here (401), decided right after the lookup, before anything about it is told.
   */
  projectId: string | null = null,
): Promise<KeyPrincipal> {
  const token = bearerOf(request);
  if (!deps.config.keysEnabled || !token) throw invalidToken();
  const hash = hashOfBearer(token);
  const now = Date.now();
  let key = cachedKey(deps.database, hash);
  if (key === undefined) {
    // the checksum turns malformed bearers away before any read (anyone can compute it, so
    // this tells nothing; a cached hash passed it already)
    if (!hasValidChecksum(token, KEY_PREFIX)) throw invalidToken();
    key = await lookupKey(deps.database, hash);
  }
  // unknown, another project's (on /mcp/<id>), revoked or expired: the one 401, from the same work
  if (key === null || (projectId !== null && key.projectId !== projectId)) throw invalidToken();
  const principal: KeyPrincipal = {
    kind: "key",
    id: key.id,
    name: key.name,
    projectId: key.projectId,
    organizationId: key.organizationId,
    userId: key.createdBy,
    role: key.memberRole as MemberRole,
    scopes: key.scopes,
  };
  try {
    checkStanding(key, now);
    if (key.kind === "tombstone") throw new AppError("not_found", "The project of this key no longer exists.");
    if (scope !== null && !key.scopes.includes(scope)) throw insufficientScope(scope);
  } catch (e) {
    // a refusal of a key the project knows (revoked, expired, a scope it lacks, its organization
    // not approved) is one of the project's failed calls: the trace hook records it (insights)
    if (key.kind === "key") refusedKeys.set(request, principal);
    throw e;
  }
  recordUse(deps, "api_keys", key.id, key.lastUsedAt, now);
  if (key.lastUsedAt === null || now - key.lastUsedAt > LAST_USED_EVERY_MS) key.lastUsedAt = now; // recorded: don't queue it again per call
  return principal;
}

/** Keys of the project that a request presented and was refused with (see authenticateKey). */
const refusedKeys = new WeakMap<Request, KeyPrincipal>();

/** The known key a request was refused with, if any (the trace hook records the refusal as a failed call). */
export function refusedKeyOf(request: Request): KeyPrincipal | undefined {
  return refusedKeys.get(request);
}

/** A key row with its scopes parsed once; null caches "no such key" (unknown costs what known costs). */
type CachedKeyRow = KeyRow & { scopes: KeyScope[] };

/** Key rows by hash, valid for one configuration epoch of the database (see Database.configEpoch). */
const keyCaches = keptByVersion<Database, string, CachedKeyRow | null>("Key rows by hash (misses too)", {
  clock: "configuration epoch",
  limit: 10_000,
  per: "database",
});

/**
 * The key rows of the current configuration epoch: any change to keys, tokens, projects,
 * organizations or memberships, anywhere (by this process or another), bumps it and drops
 * them, so revocation, removal and approval changes are seen on the very next call; the
 * service's own activity commits (a prepare-task's resolution, trace events) keep them. Expiry
 * and scope are still checked per call. Null for a libSQL server (no cache).
 */
function currentKeyCache(database: Database): KeptMap<string, CachedKeyRow | null> | null {
  return keyCaches.current(database, database.configEpoch()); // the epoch is read before any row: a row is never newer-labelled than it is
}

/** The cached row for a hash: a row, null (known unknown), or undefined (not cached). */
function cachedKey(database: Database, hash: string): CachedKeyRow | null | undefined {
  return currentKeyCache(database)?.get(hash);
}

/** The key lookup (one indexed read), cached for the current configuration epoch, misses included. */
async function lookupKey(database: Database, hash: string): Promise<CachedKeyRow | null> {
  const rows = currentKeyCache(database);
  const row = await database.get<KeyRow>(KEY_LOOKUP, [hash, hash]);
  const key: CachedKeyRow | null = row ? { ...row, scopes: JSON.parse(row.tools) as KeyScope[] } : null;
  rows?.set(hash, key);
  return key;
}

/**
 * An OAuth access token that was not found: its project's deletion left a tombstone (404,
 * after the same checks as a key), or it is unknown (the one 401). One prepared read.
 */
export async function projectGone(database: Database, hash: string, now: number, projectId: string | null = null): Promise<never> {
  const t = await database.get<{ projectId: string; expiresAt: number | null; orgStatus: string; memberRole: string | null }>(
    `SELECT t.project_id AS projectId, t.expires_at AS expiresAt, o.status AS orgStatus, m.role AS memberRole
     FROM key_tombstones t JOIN organizations o ON o.id = t.organization_id
     LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = t.created_by
     WHERE t.key_hash = ? LIMIT 1`,
    [hash],
  );
  if (!t || (projectId !== null && t.projectId !== projectId)) throw invalidToken();
  checkStanding(t, now);
  throw new AppError("not_found", "The project of this key no longer exists.");
}
