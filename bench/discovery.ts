/**
 * Discovery answer size (docs/performance.md "Discovery answer"), in process: the playbook an agent receives for an empty
 * selection, in tokens (the budgets' estimate, characters / 4), for the shipped catalog and for 5,000 generated talents,
 * with how many index entries fit and how many were left. Target: at most DISCOVERY_BUDGET (4,000) tokens each.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCatalog, type Catalog } from "../src/catalog/catalog";
import { readTalentDir, sourcesFromFlat } from "../src/catalog/load";
import { embeddedTalents } from "../src/embedded";
import { KEY_ROUTE_LIST } from "../src/keyRoutes";
import { DISCOVERY_BUDGET, discoveryPlaybook, discoveryTokens } from "../src/resolution/discovery";
import { generateCatalog, printTable } from "./lib";

function measure(name: string, catalog: Catalog, languages: string[]): (string | number)[] {
  const relevance = { languages, roles: [], paths: [], exclude: [] };
  const started = performance.now();
  // told as an MCP agent with every scope (the longest wording of the procedure)
  const voice = { channel: "mcp" as const, scopes: [...new Set(KEY_ROUTE_LIST.map((r) => r.scope))] };
  const answer = discoveryPlaybook({ catalog, rows: [], active: new Map(), expertises: [], relevance, offset: 0, voice });
  const ms = performance.now() - started;
  const c = answer.catalog;
  return [name, catalog.list.length, discoveryTokens(answer), c.talents.length, c.left, ms.toFixed(1)];
}

export async function benchDiscovery(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-discovery-"));
  try {
    const shipped = buildCatalog(sourcesFromFlat(embeddedTalents())).catalog;
    generateCatalog(dir, 5000);
    const generated = buildCatalog(readTalentDir(dir).sources).catalog;
    printTable(
      `Discovery answer (budget ${DISCOVERY_BUDGET} tokens)`,
      ["catalog", "talents", "tokens", "listed", "left", "ms"],
      [measure("shipped", shipped, []), measure("shipped, languages=go", shipped, ["go"]), measure("generated", generated, [])],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
