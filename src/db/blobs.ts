/**
 * The content-addressed blob store: served bytes keyed by `sha256:<hex>`, so a resolution or a
 * published expertise version reads the same forever. Writing the same content twice is a no-op.
 */
import type { Database, Tx } from "./client";
import type { Statement } from "./writeJob";
import { contentBlobs } from "./schema";
import { digestOf } from "../lib/crypto";
import { keptPer } from "../lib/kept";
import { KeptMap } from "../lib/keptMap";

/** Digests known to be committed in each database (blobs are never deleted): inserting them again can be skipped. */
const committed = keptPer<Database, Set<string>>(
  "Digests known committed",
  { clock: "immutable", limit: "none: the blob table's size (blobs are never deleted)" },
  () => new Set(),
);
export function knownBlobs(database: Database): Set<string> {
  return committed.of(database);
}

/**
 * The statements storing blobs (if new), 50 rows per statement, for a write job or a bulk
 * write. Once the caller's write has committed, it adds the digests to knownBlobs.
 */
export function blobInserts(blobs: readonly { digest: string; content: string }[], now = Date.now()): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < blobs.length; i += 50) {
    const chunk = blobs.slice(i, i + 50);
    out.push({
      sql: `INSERT INTO content_blobs (digest, content, size, created_at) VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")} ON CONFLICT DO NOTHING`,
      args: chunk.flatMap((b) => [b.digest, b.content, Buffer.byteLength(b.content), now]),
    });
  }
  return out;
}

/** Stores `content` (if new) inside the caller's transaction; returns its digest. */
export async function putBlob(tx: Tx, content: string): Promise<string> {
  const digest = digestOf(content);
  await tx
    .insert(contentBlobs)
    .values({ digest, content, size: Buffer.byteLength(content), createdAt: Date.now() })
    .onConflictDoNothing();
  return digest;
}

/**
 * Recently read blobs. A digest names its content forever and blobs are never deleted, so a
 * cached blob is always exact; the cache is bounded by characters (least recently read go
 * first) and starts empty. Measured: reading the 20 blobs of a pinned read from the database
 * was about 250 µs of that route's time under load (docs/performance.md).
 */
export class BlobCache {
  readonly #map: KeptMap<string, string>;
  constructor(readonly maxChars: number) {
    this.#map = new KeptMap(maxChars, { order: "used", weigh: (c) => c.length });
  }

  get(digest: string): string | undefined {
    return this.#map.get(digest);
  }

  set(digest: string, content: string): void {
    if (content.length > this.maxChars / 8 || this.#map.has(digest)) return;
    this.#map.set(digest, content);
  }
}

export const BLOB_CACHE_CHARS = 4 * 1024 * 1024;
const caches = keptPer<Database, BlobCache>(
  "Blob contents by digest",
  { clock: "immutable", limit: "4 Mi characters per database, LRU weighted by length" },
  () => new BlobCache(BLOB_CACHE_CHARS),
);
function cacheOf(database: Database): BlobCache {
  return caches.of(database);
}

/** Reads one blob, or undefined. */
export async function getBlob(database: Database, digest: string): Promise<string | undefined> {
  return (await getBlobs(database, [digest])).get(digest);
}

/** Reads many blobs at once: digest → content (from the cache, the rest in batches of 50). */
export async function getBlobs(database: Database, digests: string[]): Promise<Map<string, string>> {
  const cache = cacheOf(database);
  const out = new Map<string, string>();
  const missing: string[] = [];
  for (const d of new Set(digests)) {
    const hit = cache.get(d);
    if (hit !== undefined) out.set(d, hit);
    else missing.push(d);
  }
  for (let i = 0; i < missing.length; i += 50) {
    const chunk = missing.slice(i, i + 50);
    const rows = await database.all<{ digest: string; content: string }>(
      `SELECT digest, content FROM content_blobs WHERE digest IN (${chunk.map(() => "?").join(",")})`,
      chunk,
    );
    for (const r of rows) {
      out.set(r.digest, r.content);
      cache.set(r.digest, r.content);
    }
  }
  return out;
}
