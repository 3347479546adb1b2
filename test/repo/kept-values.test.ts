/**
 * Kept values go through one toolkit (src/lib/kept.ts) and the table "Kept values" of
 * docs/caches.md lists them:
 *   - a module-level Map, WeakMap, Set, WeakSet or KeptMap of src/ is made by the toolkit, which
 *     declares its name, clock and limit where it is defined; the few exceptions below say why;
 *   - a file that makes a KeptMap inside a class or a function declares it too;
 *   - the table lists every declared name, and only those, with the declared clock.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const SRC = join(ROOT, "src");

/** Module-level collections that are not kept values, `file name`, each with its reason. */
const NOT_KEPT: Record<string, string> = {
  "lib/kept.ts declared": "the toolkit's own registry of declarations",
  "identity/passwordReset.ts pendingResets": "resets in flight, awaited at shutdown; each leaves when done",
  "mail/signal.ts listeners": "subscribers of the mail signal, not values",
  "activity/daily.ts inFlight": "reads in flight, shared by concurrent askers; each leaves when done",
  "activity/readCap.ts caps": "the read limiter of each app (its state), not a value read again",
};
/** Files that make a KeptMap without declaring a kept value, with the reason. */
const UNDECLARED_KEPT_MAPS: Record<string, string> = {
  "lib/keptMap.ts": "the bounded map itself",
  "lib/kept.ts": "the toolkit",
  "lib/rateLimit.ts": "the sign-in and sign-up limiters' counters: state bounded the same way, not kept values",
};

const TOOLKIT = String.raw`\b(?:kept|keptEach|keptPer|keptByVersion|keptTableByVersion|keptByIdentity|keptUnbounded|declareKept)(?:<[^()]*?>)?\(\s*"([^"]+)"`;
const MODULE_LEVEL = /^(?:export )?(?:const|let) (\w+)[^=\n]*= new (Map|WeakMap|Set|WeakSet|KeptMap)\b(<\s*(\w+))?/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}
const sources = sourceFiles(SRC).map((f) => ({ file: relative(SRC, f), text: readFileSync(f, "utf8") }));

/** Every name declared through the toolkit in src/, read from the source. */
function declaredNames(): string[] {
  return sources.flatMap(({ text }) => [...text.matchAll(new RegExp(TOOLKIT, "g"))].map((m) => m[1]!));
}

/** The table "Kept values": its rows' first cell (the name) and second (the clock). */
function keptTable(): Map<string, string> {
  const doc = readFileSync(join(ROOT, "docs", "caches.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Kept values"));
  const end = section.indexOf("\n## ", 1);
  const body = end < 0 ? section : section.slice(0, end);
  const rows = new Map<string, string>();
  for (const line of body.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5 || cells[1] === "Keeps" || /^-+$/.test(cells[1]!)) continue;
    rows.set(cells[1]!, cells[2]!);
  }
  return rows;
}

describe("kept values: one toolkit, each declares its clock and limit, the docs table lists them all", () => {
  test("no module-level Map, WeakMap, Set or KeptMap of src/ is made outside the toolkit (constants and per-request notes aside)", () => {
    const offenders: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(MODULE_LEVEL)) {
        const [, name, , , keyType] = m;
        if (/^[A-Z][A-Z0-9_]*$/.test(name!)) continue; // a constant lookup table, built once from literals
        if (keyType === "Request") continue; // a per-request note: gone with the request
        if (`${file} ${name}` in NOT_KEPT) continue;
        offenders.push(`${file}: ${name} = new ${m[2]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  test("a file that makes a KeptMap inside a class or function declares its kept value", () => {
    const offenders = sources
      .filter(({ file, text }) => text.includes("new KeptMap") && !(file in UNDECLARED_KEPT_MAPS) && !new RegExp(TOOLKIT).test(text))
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });

  test("each name is declared once, and the table of docs/caches.md lists exactly the declared names", () => {
    const names = declaredNames();
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    const table = keptTable();
    expect([...table.keys()].filter((n) => !names.includes(n))).toEqual([]); // rows of values no longer kept
    expect(names.filter((n) => !table.has(n))).toEqual([]); // declared values the table does not list
  });

  test("the table's clock of each value loaded by the app is the one it declares", async () => {
    await import("../../src/app");
    const { keptDeclarations } = await import("../../src/lib/kept");
    const table = keptTable();
    // the values of src/ (a unit test of the toolkit may have declared its own in this process)
    const ofSrc = keptDeclarations().filter((d) => declaredNames().includes(d.name));
    const wrong = ofSrc
      .filter((d) => !table.get(d.name)?.startsWith(d.clock))
      .map((d) => `${d.name}: declared ${d.clock}, table ${table.get(d.name)}`);
    expect(ofSrc.length).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
  });
});
