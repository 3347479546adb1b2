/**
 * Files embedded in the binary: the public catalog (`talents/`) and the static assets
 * (`public/` plus htmx from the htmx.org package). From source they are read from the
 * checkout; `build.ts` replaces this module with one that holds the files as literals.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readTree } from "./lib/readTree";

const ROOT = join(import.meta.dir, "..");

/** `<talent folder>/<path>` → content of every file of the shipped catalog. */
export function embeddedTalents(): Record<string, string> {
  return readTree(join(ROOT, "talents"));
}

/** Asset path (under /assets/) → content. htmx comes from the htmx.org package. */
export function embeddedAssets(): Record<string, string> {
  const assets = readTree(join(ROOT, "public"));
  assets["htmx.min.js"] = readFileSync(join(ROOT, "node_modules", "htmx.org", "dist", "htmx.min.js"), "utf8");
  return assets;
}
