/**
 * The content-addressed blob store: served bytes keyed by `sha256:<hex>`, so a resolution or a
 * published expertise version reads the same forever. Writing the same content twice is a no-op.
 */
import { inArray } from "drizzle-orm";
import type { Database, Tx } from "./client";
import { contentBlobs } from "./schema";
import { digestOf } from "../lib/crypto";

/** Stores `content` (if new) inside the caller's transaction; returns its digest. */
export async function putBlob(tx: Tx, content: string): Promise<string> {
  const digest = digestOf(content);
  await tx
    .insert(contentBlobs)
    .values({ digest, content, size: Buffer.byteLength(content), createdAt: Date.now() })
    .onConflictDoNothing();
  return digest;
}

/** Reads one blob, or undefined. */
export async function getBlob(database: Database, digest: string): Promise<string | undefined> {
  const row = await database.get<{ content: string }>("SELECT content FROM content_blobs WHERE digest = ?", [digest]);
  return row?.content;
}

/** Reads many blobs at once: digest → content. */
export async function getBlobs(database: Database | Tx, digests: string[]): Promise<Map<string, string>> {
  if (digests.length === 0) return new Map();
  const db = "db" in database ? database.db : database;
  const rows = await db
    .select({ digest: contentBlobs.digest, content: contentBlobs.content })
    .from(contentBlobs)
    .where(inArray(contentBlobs.digest, [...new Set(digests)]));
  return new Map(rows.map((r) => [r.digest, r.content]));
}
