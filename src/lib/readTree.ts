/** Reading a folder of text files as one map, the same way from source and at build time. */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * `<path relative to dir, with />` → content of every file under `dir` (dot-files skipped, in
 * sorted order); empty when `dir` does not exist. Why one function: the embedded catalog and
 * assets must be the same map whether read from the checkout (src/embedded.ts) or baked into the
 * binary (build.ts).
 */
export function readTree(dir: string): Record<string, string> {
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
