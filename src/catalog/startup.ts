/** Loads the catalog the server serves: the embedded one with TALENTS_DIR merged over it. */
import { embeddedTalents } from "../embedded";
import type { Logger } from "../lib/log";
import { buildCatalog, type Catalog } from "./catalog";
import { formatFinding } from "./format";
import { readTalentDir, sourcesFromFlat } from "./load";

/** Builds the catalog; every skipped folder is logged with its reasons, never a crash. */
export function loadCatalog(talentsDir: string | undefined, log: Logger): Catalog {
  const started = performance.now();
  const sources = sourcesFromFlat(embeddedTalents());
  const extra = talentsDir ? readTalentDir(talentsDir) : { sources: [], findings: [] };
  const { catalog, findings } = buildCatalog([...sources, ...extra.sources], extra.findings, { gcEvery: 500 });
  // Start-up parses every talent once; collecting during the load keeps the heap from
  // fragmenting (docs/performance.md: RSS with 5,000 talents 149 → 142 MiB).
  Bun.gc(true);
  for (const f of findings) log.warn("talent skipped", { finding: formatFinding(f) });
  log.info("catalog loaded", {
    talents: catalog.list.length,
    broken: catalog.broken.length,
    digest: catalog.digest,
    ms: Math.round(performance.now() - started),
  });
  return catalog;
}
