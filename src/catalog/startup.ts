/** Loads the catalog the server serves: the embedded one with TALENTS_DIR merged over it. */
import { blobInserts } from "../db/blobs";
import type { Database } from "../db/client";
import { embeddedTalents } from "../embedded";
import type { Logger } from "../lib/log";
import { buildCatalog, type Catalog } from "./catalog";
import { formatFinding } from "./format";
import type { BlobLoader } from "./lazy";
import { readSpecializationDir, readTalentDir, sourcesFromFlat } from "./load";
import { specializationSourcesFromFlat } from "./specializations";

/**
 * Builds the catalog; every skipped folder is logged with its reasons, never a crash. Returns
 * the folders that came from TALENTS_DIR, for `slimCatalog` once the service is serving.
 */
export async function loadCatalog(
  talentsDir: string | undefined,
  log: Logger,
  /** CONTENT_LINK_HOSTS: the content check runs on every talent, and one with a finding is skipped. */
  linkHosts: readonly string[] = [],
): Promise<{ catalog: Catalog; extraFolders: Set<string> }> {
  const started = performance.now();
  const loaded = build(talentsDir, log, linkHosts);
  // Start-up parses every talent once; the raw sources die with build()'s scope.
  Bun.gc(true);
  log.info("catalog loaded", {
    talents: loaded.catalog.list.length,
    broken: loaded.catalog.broken.length,
    digest: loaded.catalog.digest,
    ms: Math.round(performance.now() - started),
  });
  return loaded;
}

/** The build, in its own scope so that its sources (every file's text) are garbage when it returns. */
function build(talentsDir: string | undefined, log: Logger, linkHosts: readonly string[]): { catalog: Catalog; extraFolders: Set<string> } {
  const flat = embeddedTalents();
  const sources = sourcesFromFlat(flat);
  const extra = talentsDir ? readTalentDir(talentsDir) : { sources: [], findings: [] };
  const specializations = [...specializationSourcesFromFlat(flat), ...(talentsDir ? readSpecializationDir(talentsDir) : [])];
  const { catalog, findings } = buildCatalog([...sources, ...extra.sources], extra.findings, { gcEvery: 1000, linkHosts }, specializations);
  for (const f of findings) log.warn("talent skipped", { finding: formatFinding(f) });
  return { catalog, extraFolders: new Set(extra.sources.map((s) => s.folder)) };
}

/**
 * After the service is ready: keeps a large TALENTS_DIR catalog lazily (bytes in the blob
 * table, heavy fields rebuilt on access) and hands the freed memory back. Serving goes on
 * meanwhile: a full talent and its lazy twin answer with the same bytes, and the swap is
 * one synchronous step. Never throws; a failure leaves the catalog as it was.
 */
export async function slimCatalog(database: Database, catalog: Catalog, folders: ReadonlySet<string>, log: Logger): Promise<void> {
  if (!database.allSync || folders.size < MIN_LAZY) return;
  // let the first requests (readiness probes) through before the blob writes start
  await new Promise((r) => setTimeout(r, SLIM_DELAY_MS));
  const started = performance.now();
  try {
    const lazy = await offloadTalents(database, catalog, folders);
    if (lazy === 0) return;
    Bun.gc(true);
    // once more after the async frames that still reach the full talents are gone
    await new Promise((r) => setTimeout(r, 300));
    Bun.gc(true);
    // and ask JavaScriptCore to hand back the pages it keeps for a heap of start-up's size
    // (deprecated in the types, still the only such call: RSS with 5,000 talents ~121 → ~116 MiB)
    Bun.shrink();
    const mem = process.memoryUsage();
    log.info("catalog slimmed", {
      lazy,
      heapMiB: Math.round(mem.heapUsed / 1048576),
      rssMiB: Math.round(mem.rss / 1048576),
      ms: Math.round(performance.now() - started),
    });
  } catch (e) {
    log.error("catalog could not be slimmed; it stays fully in memory", { error: String(e) });
  }
}

const MIN_LAZY = 200;
const SLIM_DELAY_MS = 500;

/**
 * Stores every file of the given talents in the content-addressed blob table (idempotent) and
 * swaps them for lazy twins. Only for a local database (reads must be synchronous) and a
 * TALENTS_DIR large enough for memory to matter; returns how many became lazy.
 */
export async function offloadTalents(database: Database, catalog: Catalog, folders: ReadonlySet<string>): Promise<number> {
  const allSync = database.allSync;
  if (!allSync || folders.size < MIN_LAZY) return 0;
  const talents = [...folders].map((id) => catalog.get(id)).filter((t) => t !== undefined);
  const now = Date.now();
  const files = talents.flatMap((t) => [...t.files.values()]);
  const PER_TRANSACTION = 500;
  for (let i = 0; i < files.length; i += PER_TRANSACTION) {
    await database.bulkWrite(blobInserts(files.slice(i, i + PER_TRANSACTION), now));
    await new Promise((r) => setImmediate(r)); // requests go on between transactions
  }
  return catalog.offload(new Set(talents.map((t) => t.id)), blobLoader(allSync));
}

/**
 * The synchronous blob loader of lazy talents. Built in its own function on purpose: a closure
 * made inside offloadTalents would share that scope and keep its array of full talents alive.
 */
function blobLoader(allSync: NonNullable<Database["allSync"]>): BlobLoader {
  return (digests) => {
    const out = new Map<string, string>();
    for (let i = 0; i < digests.length; i += 50) {
      const chunk = digests.slice(i, i + 50);
      for (const r of allSync<{ digest: string; content: string }>(
        `SELECT digest, content FROM content_blobs WHERE digest IN (${chunk.map(() => "?").join(",")})`,
        chunk,
      )) {
        out.set(r.digest, r.content);
      }
    }
    return out;
  };
}
