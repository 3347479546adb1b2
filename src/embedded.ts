/**
 * Files embedded in the binary: the public catalog (`talents/`) and the static assets
 * (`public/` plus htmx from the htmx.org package). From source they are read from the
 * checkout; `build.ts` replaces this module with one that holds the files as literals.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const ROOT = join(import.meta.dir, "..");

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith(".")) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p).split(sep).join("/")] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

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
