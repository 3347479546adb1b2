/**
 * Project API keys (docs/api.md "Key API"): `svc_pk_` + 32 random bytes in base62 + a 6-character CRC32
 * checksum. Stored as SHA-256 only; the raw value exists only in the creation response.
 */
import { and, desc, eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { apiKeys, KEY_SCOPES, users, type KeyScope } from "../db/schema";
import { notFound } from "../http/errors";
import { newSecret, sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import { iso } from "../lib/time";
import { KEY_PREFIX } from "../auth/bearers";
import { record, type AuditActor } from "../audit/record";

export { KEY_PREFIX };
export const KEY_NAME_MAX = 100;

/** A key record as it may leave the service: never any part of the value or its hash. */
export interface KeyView {
  id: string;
  projectId: string;
  name: string;
  tools: KeyScope[];
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: "active" | "expired" | "revoked";
  createdBy: { id: string; email: string };
  /** The project's automation key for hooks and CI (POST /web/projects/:id/token). */
  automation: boolean;
}

function view(row: typeof apiKeys.$inferSelect, creatorEmail: string, now = Date.now()): KeyView {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    tools: row.tools,
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
    lastUsedAt: iso(row.lastUsedAt),
    revokedAt: iso(row.revokedAt),
    status: row.revokedAt !== null ? "revoked" : row.expiresAt !== null && row.expiresAt <= now ? "expired" : "active",
    createdBy: { id: row.createdBy, email: creatorEmail },
    automation: row.automation,
  };
}

/** True when `s` is one of the scopes of `KEY_SCOPES`. */
export function isScope(s: string): s is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(s);
}

/** Creates a key; returns its record and the raw value (shown once). */
export async function createKey(
  tx: Tx,
  input: {
    projectId: string;
    name: string;
    tools: KeyScope[];
    expiresAt: number | null;
    createdBy: { id: string; email: string };
    automation?: boolean;
    /** The project's organization: the creation is recorded in its audit log (absent: the caller records it). */
    organizationId?: string;
  },
): Promise<{ key: KeyView; value: string }> {
  const value = newSecret(KEY_PREFIX, 32);
  const row = {
    id: newId("key"),
    projectId: input.projectId,
    name: input.name,
    tools: [...new Set(input.tools)].sort((a, b) => KEY_SCOPES.indexOf(a) - KEY_SCOPES.indexOf(b)),
    keyHash: sha256Hex(value),
    createdBy: input.createdBy.id,
    expiresAt: input.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: Date.now(),
    automation: input.automation ?? false,
  };
  await tx.insert(apiKeys).values(row);
  if (input.organizationId) {
    await record(tx, {
      organizationId: input.organizationId,
      actor: { kind: "user", id: input.createdBy.id, label: input.createdBy.email },
      action: "key.created",
      object: { kind: "key", id: row.id },
      after: keyFacts(row),
    });
  }
  return { key: view(row, input.createdBy.email), value };
}

/** What the audit log tells of a key: never its value nor its hash. */
export function keyFacts(row: { projectId: string; name: string; tools: KeyScope[]; expiresAt: number | null; automation: boolean }) {
  return { projectId: row.projectId, name: row.name, tools: row.tools, expiresAt: iso(row.expiresAt), automation: row.automation };
}

/** Every key of a project (active, expired, revoked), newest first. */
export async function listKeys(database: Database, projectId: string): Promise<KeyView[]> {
  const rows = await database.db
    .select({ key: apiKeys, email: users.email })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdBy))
    .where(eq(apiKeys.projectId, projectId))
    .orderBy(desc(apiKeys.createdAt));
  return rows.map((r) => view(r.key, r.email));
}

/** Revokes a key of the project (idempotent: recorded in the audit log the first time); 404 for a key of another project. */
export async function revokeKey(
  tx: Tx,
  projectId: string,
  keyId: string,
  by: { organizationId: string; actor: AuditActor },
): Promise<KeyView> {
  const rows = await tx
    .select({ key: apiKeys, email: users.email })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdBy))
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, projectId)))
    .limit(1);
  const r = rows[0];
  if (!r) throw notFound("No such key in this project.");
  if (r.key.revokedAt === null) {
    const now = Date.now();
    await tx.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId));
    r.key.revokedAt = now;
    await record(tx, {
      organizationId: by.organizationId,
      actor: by.actor,
      action: "key.revoked",
      object: { kind: "key", id: keyId },
      before: { ...keyFacts(r.key), status: "active" },
      after: { status: "revoked" },
    });
  }
  return view(r.key, r.email);
}
