/**
 * The import graph of src/, computed from the source on every run (type-only imports count: they
 * are coupling too). What it holds:
 *   - no circle between files (drizzle's table files in db/schema/ referencing each other aside);
 *   - the bottom layers import only below them: lib nothing, configParsers.ts lib, config.ts lib and
 *     configParsers.ts, db lib and config, http lib, config and db — helpers never import a domain;
 *   - app.ts, the composition root, is imported by main's serve command alone (tests aside);
 *   - the web kit (ui) imports only lib, config, db and http;
 *   - no circle between folders (a folder, or a file at the root, is one node), and the folders
 *     keep the order of LAYERS: each imports only the layers before it (docs/architecture.md).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "..", "..", "src");

/**
 * The layers of src/, lowest first: a folder (or a file at the root) imports only layers before it.
 * The kit (ui) below every domain; auth (sessions, memberships, the guards) below the domains
 * that sign people in and manage organizations; the journal below every traced route; a
 * project's selection below the specializations, resolution and projects that read it; the list
 * of every key route (keyRoutes.ts) above the domains whose descriptors it gathers; the
 * composition root and the commands on top. A new folder takes its place here.
 */
const LAYERS = [
  "lib",
  "configParsers.ts",
  "config.ts",
  "embedded.ts",
  "db",
  "signing",
  "http",
  "ui",
  "deps.ts",
  "auth",
  "journal",
  "audit",
  "mail",
  "identity",
  "tenancy",
  "oauth",
  "catalog",
  "expertises",
  "selection",
  "policy",
  "specializations",
  "resolution",
  "projects",
  "activity",
  "skills",
  "keyRoutes.ts",
  "ops",
  "health",
  "mcp",
  "app.ts",
  "cli",
  "client",
  "production.ts",
  "main.ts",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

const SPEC = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (c.startsWith(`${SRC}/`) && /\.tsx?$/.test(c) && existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/** File → the files of src/ it imports (paths relative to src/). */
function fileGraph(): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const f of sourceFiles(SRC)) {
    const out = new Set<string>();
    for (const m of readFileSync(f, "utf8").matchAll(SPEC)) {
      const to = resolveImport(f, (m[1] ?? m[2])!);
      if (to) out.add(relative(SRC, to));
    }
    g.set(relative(SRC, f), out);
  }
  return g;
}

/** A file's node in the folder graph: its top folder under src/, or the file itself at the root. */
const folderOf = (file: string): string => (file.includes("/") ? file.split("/")[0]! : file);

function folderGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const [from, tos] of files) {
    for (const to of tos) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a === b) continue;
      if (!g.has(a)) g.set(a, new Set());
      g.get(a)!.add(b);
    }
  }
  return g;
}

/** The strongly connected components of more than one node (Tarjan). */
function circles(g: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const c: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) out.push(c.sort());
  };
  for (const v of new Set([...g.keys(), ...[...g.values()].flatMap((s) => [...s])])) if (!index.has(v)) visit(v);
  return out;
}

/** Every edge whose two ends are in the same circle, as `from -> to`. */
function edgesInCircles(g: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const c of circles(g)) for (const a of c) for (const b of g.get(a) ?? []) if (c.includes(b)) out.push(`${a} -> ${b}`);
  return out.sort();
}

const files = fileGraph();
const folders = folderGraph(files);

describe("the import graph of src/", () => {
  test("no circle between files (db/schema's tables aside): each edge of one is named", () => {
    const g = new Map(
      [...files].map(([f, tos]) => [f, new Set([...tos].filter((t) => !(f.startsWith("db/schema/") && t.startsWith("db/schema/"))))]),
    );
    expect(edgesInCircles(g)).toEqual([]);
  });

  test("the bottom layers import only below them: lib nothing, config lib, db lib and config, http lib, config and db", () => {
    const config = ["config.ts", "configParsers.ts"];
    const below: Record<string, string[]> = {
      lib: [],
      "configParsers.ts": ["lib"],
      "config.ts": ["lib", "configParsers.ts"],
      db: ["lib", ...config],
      http: ["lib", ...config, "db"],
    };
    const upward = Object.entries(below).flatMap(([layer, allowed]) =>
      [...(folders.get(layer) ?? [])].filter((to) => !allowed.includes(to)).map((to) => `${layer} -> ${to}`),
    );
    expect(upward).toEqual([]);
  });

  test("the web kit (ui) imports only lib, config, db and http: a page's domain hands in what the kit needs", () => {
    const allowed = ["lib", "configParsers.ts", "config.ts", "db", "http"];
    expect([...(folders.get("ui") ?? [])].filter((to) => !allowed.includes(to)).map((to) => `ui -> ${to}`)).toEqual([]);
  });

  test("app.ts, the composition root, is imported by main's serve command alone", () => {
    const importers = [...files]
      .filter(([, tos]) => tos.has("app.ts"))
      .map(([f]) => f)
      .sort();
    expect(importers).toEqual(["cli/commands.ts"]);
  });

  test("the composition root casts nothing: no `as unknown as` in app.ts (a plugin whose route types nobody reads is composed untyped)", () => {
    const root = readFileSync(join(SRC, "app.ts"), "utf8");
    expect(root.split("\n").filter((line) => line.includes("as unknown as"))).toEqual([]);
  });

  test("no folder circle: the edges of any circle between folders are named", () => {
    expect(edgesInCircles(folders)).toEqual([]);
  });

  test("the layer order holds: every folder imports only the layers before it in LAYERS (lowest first)", () => {
    const rank = (node: string): number => LAYERS.indexOf(node);
    const nodes = [...new Set([...folders.keys(), ...[...folders.values()].flatMap((tos) => [...tos])])];
    const unplaced = nodes.filter((n) => rank(n) < 0).sort();
    const upward = [...folders].flatMap(([from, tos]) => [...tos].filter((to) => rank(to) >= rank(from)).map((to) => `${from} -> ${to}`));
    expect({ layers: LAYERS.join(" < "), "not in LAYERS": unplaced, "imports going up": upward.sort() }).toEqual({
      layers: LAYERS.join(" < "),
      "not in LAYERS": [],
      "imports going up": [],
    });
  });
});
