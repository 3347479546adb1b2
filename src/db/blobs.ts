/**
 * The content-addressed blob store: served bytes keyed by `sha256:<hex>`, so a resolution or a
 * published expertise version reads the same forever. Writing the same content twice is a no-op.
 */
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

/** Reads many blobs at once: digest → content (prepared statements, one per batch size). */
export async function getBlobs(database: Database, digests: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(digests)];
  const out = new Map<string, string>();
  for (let i = 0; i < unique.length; i += 50) {
    const chunk = unique.slice(i, i + 50);
    const rows = await database.all<{ digest: string; content: string }>(
      `SELECT digest, content FROM content_blobs WHERE digest IN (${chunk.map(() => "?").join(",")})`,
      chunk,
    );
    for (const r of rows) out.set(r.digest, r.content);
  }
  return out;
}
