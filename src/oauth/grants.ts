/**
 * Authorization codes and tokens (docs/api-oauth-mcp.md): codes single-use and short-lived, access tokens
 * `svc_at_` (1 h), refresh tokens `svc_rt_` (30 d, rotated on every use). All three are stored
 * as SHA-256 only. Tokens descending from one code form a family: replaying a used code or a
 * rotated refresh token revokes the whole family (OAuth 2.1 §4.1.3, §4.3.1).
 */
import { and, eq, isNull } from "drizzle-orm";
import { createHash } from "node:crypto";
import type { Database, Tx } from "../db/client";
import { members, oauthCodes, oauthTokens, organizations, projects, type KeyScope } from "../db/schema";
import { newSecret, sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import { rememberMetadataClient } from "./cimd";
import { findClient, touchClient, type OAuthClient } from "./clients";
import { OAuthError } from "./errors";
import { parseScopes } from "./resource";
import { ACCESS_TOKEN_PREFIX } from "../auth/bearers";

export { ACCESS_TOKEN_PREFIX };

export const CODE_PREFIX = "svc_ac_";
export const REFRESH_TOKEN_PREFIX = "svc_rt_";
/** An authorization code lives 5 minutes (OAuth 2.1 asks for at most 10). */
export const CODE_TTL_MS = 5 * 60 * 1000;
export const ACCESS_TOKEN_TTL_MS = 3600 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/** The PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A base64url SHA-256 digest: 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export interface GrantInput {
  clientId: string;
  userId: string;
  projectId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: KeyScope[];
  resource: string;
}

/**
 * Issues a code for a consented grant; returns the raw value (only ever in the redirect). A
 * metadata-document client (`client.from`, oauth/cimd.ts) gets its row in the same transaction.
 */
export async function issueCode(database: Database, g: GrantInput, client?: OAuthClient): Promise<string> {
  const code = newSecret(CODE_PREFIX, 32);
  const now = Date.now();
  await database.write(async (tx) => {
    if (client?.from !== undefined) await rememberMetadataClient(tx, client, now);
    await tx.insert(oauthCodes).values({ codeHash: sha256Hex(code), ...g, expiresAt: now + CODE_TTL_MS, createdAt: now });
  });
  return code;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

interface Family {
  familyId: string;
  clientId: string;
  userId: string;
  projectId: string;
  scopes: KeyScope[];
  resource: string;
}

/** Inserts a fresh access + refresh pair of a family, and marks its client used. */
async function issuePair(tx: Tx, f: Family, now: number): Promise<TokenResponse> {
  await touchClient(tx, f.clientId, now);
  const access = newSecret(ACCESS_TOKEN_PREFIX, 32);
  const refresh = newSecret(REFRESH_TOKEN_PREFIX, 32);
  const common = {
    familyId: f.familyId,
    clientId: f.clientId,
    userId: f.userId,
    projectId: f.projectId,
    scopes: f.scopes,
    resource: f.resource,
    createdAt: now,
  };
  await tx.insert(oauthTokens).values([
    { id: newId("otk"), kind: "access", tokenHash: sha256Hex(access), expiresAt: now + ACCESS_TOKEN_TTL_MS, ...common },
    { id: newId("otk"), kind: "refresh", tokenHash: sha256Hex(refresh), expiresAt: now + REFRESH_TOKEN_TTL_MS, ...common },
  ]);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh,
    scope: f.scopes.join(" "),
  };
}

/** Revokes every live token of a family. */
async function revokeFamily(tx: Tx, familyId: string, now: number): Promise<void> {
  await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.familyId, familyId), isNull(oauthTokens.revokedAt)));
}

/**
 * Why the grant's user may no longer act on its project, or null: not a member of the project's
 * organization any more, or the organization not approved (pending, suspended). Read in the
 * refresh's own transaction, so a refresh never outlives a removal it could see.
 */
async function standingProblem(tx: Tx, userId: string, projectId: string): Promise<string | null> {
  const row = (
    await tx
      .select({ status: organizations.status, role: members.role })
      .from(projects)
      .innerJoin(organizations, eq(organizations.id, projects.organizationId))
      .leftJoin(members, and(eq(members.organizationId, organizations.id), eq(members.userId, userId)))
      .where(eq(projects.id, projectId))
      .limit(1)
  )[0];
  if (!row || row.role === null) return "The user who authorized this grant is no longer a member of the project's organization";
  if (row.status !== "approved") return `The project's organization is ${row.status}`;
  return null;
}

/**
 * The authorization_code grant. Checks, in order: the code (unknown, replayed → family
 * revoked, expired), its client, its redirect_uri, the `resource` (required, equal to the
 * code's), then PKCE S256. A failed check leaves the code usable (a wrong verifier must not
 * let whoever intercepted the code burn it); success marks it used.
 */
export async function exchangeCode(
  database: Database,
  input: { clientId: string; code: string; codeVerifier: string; redirectUri: string; resource: string | undefined },
): Promise<TokenResponse> {
  const codeHash = sha256Hex(input.code);
  const now = Date.now();
  const r = await database.write(async (tx): Promise<TokenResponse | OAuthError> => {
    const c = (await tx.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1))[0];
    if (!c) return new OAuthError("invalid_grant", "The authorization code is unknown.");
    if (c.usedAt !== null) {
      await revokeFamily(tx, codeHash, now);
      return new OAuthError("invalid_grant", "The authorization code was already used; the tokens issued from it are revoked.");
    }
    if (c.expiresAt <= now) return new OAuthError("invalid_grant", "The authorization code has expired.");
    if (c.clientId !== input.clientId) return new OAuthError("invalid_grant", "The authorization code was issued to another client.");
    if (c.redirectUri !== input.redirectUri)
      return new OAuthError("invalid_grant", "redirect_uri differs from the one of the authorization request.");
    if (!input.resource) return new OAuthError("invalid_target", "The resource parameter is required (RFC 8707).");
    if (input.resource !== c.resource)
      return new OAuthError("invalid_target", "resource differs from the one of the authorization request.");
    if (!VERIFIER.test(input.codeVerifier) || s256(input.codeVerifier) !== c.codeChallenge) {
      return new OAuthError("invalid_grant", "PKCE verification failed: code_verifier does not match the code_challenge.");
    }
    const used = await tx
      .update(oauthCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
      .returning({ h: oauthCodes.codeHash });
    if (used.length === 0) return new OAuthError("invalid_grant", "The authorization code was already used.");
    return issuePair(
      tx,
      {
        familyId: codeHash,
        clientId: c.clientId,
        userId: c.userId,
        projectId: c.projectId,
        scopes: c.scopes as KeyScope[],
        resource: c.resource,
      },
      now,
    );
  });
  if (r instanceof OAuthError) throw r;
  return r;
}

/**
 * The refresh_token grant with rotation: the presented token is spent and a new pair is
 * issued in the same family. A spent token presented again revokes the family, and so does a
 * refresh whose user has left the project's organization or whose organization is not
 * approved. `resource`, when sent, must be the bound one; `scope` may only narrow.
 */
export async function refreshTokens(
  database: Database,
  input: { clientId: string; refreshToken: string; resource: string | undefined; scope: string | undefined },
): Promise<TokenResponse> {
  const hash = sha256Hex(input.refreshToken);
  const now = Date.now();
  const r = await database.write(async (tx): Promise<TokenResponse | OAuthError> => {
    const t = (
      await tx
        .select()
        .from(oauthTokens)
        .where(and(eq(oauthTokens.tokenHash, hash), eq(oauthTokens.kind, "refresh")))
        .limit(1)
    )[0];
    if (!t || t.clientId !== input.clientId) return new OAuthError("invalid_grant", "The refresh token is unknown.");
    if (t.revokedAt !== null) return new OAuthError("invalid_grant", "The refresh token was revoked.");
    if (t.rotatedAt !== null) {
      await revokeFamily(tx, t.familyId, now);
      return new OAuthError("invalid_grant", "The refresh token was already used; every token of this grant is now revoked.");
    }
    if (t.expiresAt <= now) return new OAuthError("invalid_grant", "The refresh token has expired.");
    const standing = await standingProblem(tx, t.userId, t.projectId);
    if (standing !== null) {
      await revokeFamily(tx, t.familyId, now);
      return new OAuthError("invalid_grant", `${standing}; every token of this grant is now revoked.`);
    }
    if (input.resource !== undefined && input.resource !== t.resource) {
      return new OAuthError("invalid_target", "resource differs from the one this grant is bound to.");
    }
    let scopes = t.scopes as KeyScope[];
    if (input.scope !== undefined) {
      const asked = parseScopes(input.scope);
      const extra = [...asked.unknown, ...asked.scopes.filter((s) => !scopes.includes(s))];
      if (extra.length > 0)
        return new OAuthError("invalid_scope", `Not granted: ${extra.join(", ")}. A refresh can only narrow the scopes.`);
      if (asked.scopes.length > 0) scopes = asked.scopes;
    }
    const spent = await tx
      .update(oauthTokens)
      .set({ rotatedAt: now })
      .where(and(eq(oauthTokens.id, t.id), isNull(oauthTokens.rotatedAt), isNull(oauthTokens.revokedAt)))
      .returning({ id: oauthTokens.id });
    if (spent.length === 0) return new OAuthError("invalid_grant", "The refresh token was already used.");
    return issuePair(
      tx,
      { familyId: t.familyId, clientId: t.clientId, userId: t.userId, projectId: t.projectId, scopes, resource: t.resource },
      now,
    );
  });
  if (r instanceof OAuthError) throw r;
  return r;
}

/**
 * RFC 7009 revocation, for the client `clientId` (authenticated by the caller: routes.ts), or for
 * a caller that named no client (null). An unknown token is not an error, and neither is a token
 * that is not the caller's: another client's, or, for a caller that named none, a confidential
 * client's (its client did not authenticate). Those are left alone, with the same answer. A
 * refresh token takes its whole family with it (every access token of the grant); an access
 * token only itself.
 */
export async function revokeToken(database: Database, input: { token: string; clientId: string | null }): Promise<void> {
  const hash = sha256Hex(input.token);
  const holder = (
    await database.db.select({ clientId: oauthTokens.clientId }).from(oauthTokens).where(eq(oauthTokens.tokenHash, hash)).limit(1)
  )[0];
  if (!holder) return;
  if (input.clientId !== null ? input.clientId !== holder.clientId : (await findClient(database, holder.clientId))?.authMethod !== "none")
    return;
  const now = Date.now();
  await database.write(async (tx) => {
    const t = (await tx.select().from(oauthTokens).where(eq(oauthTokens.tokenHash, hash)).limit(1))[0];
    if (!t) return;
    if (t.kind === "refresh") await revokeFamily(tx, t.familyId, now);
    else
      await tx
        .update(oauthTokens)
        .set({ revokedAt: now })
        .where(and(eq(oauthTokens.id, t.id), isNull(oauthTokens.revokedAt)));
  });
}
