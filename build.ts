/**
 * Builds dist/talentd: one executable with the libSQL native addon, the migrations, the public
 * catalog and the static assets inside. Run with `bun run build`.
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { readTree } from "./src/lib/readTree";
import type { BunPlugin } from "bun";

const root = import.meta.dir;

/**
 * `bun build --compile` cannot follow libsql's computed require(`@libsql/${target}`), so the
 * binary would fail with "Cannot find module '@libsql/linux-x64-gnu'". Rewriting it to a static
 * require of this platform's addon makes Bun embed the .node file.
 */
const libsqlNative: BunPlugin = {
  name: "libsql-native",
  setup(build) {
    build.onLoad({ filter: /node_modules[\\/]libsql[\\/](index|promise)\.js$/ }, async (args) => {
      const src = await Bun.file(args.path).text();
      const target = `${process.platform}-${process.arch}-${process.platform === "linux" ? "gnu" : ""}`.replace(/-$/, "");
      const addon = `@libsql/${target}/index.node`;
      const replaced = src.replace(/require\(`@libsql\/\$\{target\}`\)/, `require(${JSON.stringify(addon)})`);
      if (replaced === src) throw new Error(`libsql-native: the require to rewrite was not found in ${args.path}`);
      return { contents: replaced, loader: "js" };
    });
  },
};

/** Replaces src/embedded.ts with a module holding the catalog and assets as literals. */
const embedFiles: BunPlugin = {
  name: "embed-files",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]embedded\.ts$/ }, () => {
      const talents = readTree(join(root, "talents"));
      const assets = readTree(join(root, "public"));
      assets["htmx.min.js"] = readFileSync(join(root, "node_modules", "htmx.org", "dist", "htmx.min.js"), "utf8");
      const contents = [
        `const TALENTS = ${JSON.stringify(talents)};`,
        `const ASSETS = ${JSON.stringify(assets)};`,
        "export function embeddedTalents() { return TALENTS; }",
        "export function embeddedAssets() { return ASSETS; }",
      ].join("\n");
      return { contents, loader: "js" };
    });
  },
};

mkdirSync(join(root, "dist"), { recursive: true });
const started = performance.now();
const result = await Bun.build({
  // the writer thread and the backup thread are Workers: entrypoints embedded beside main (Bun's docs, "Worker");
  // the server's and the client's commands are entrypoints too, imported by main at run time, so
  // each command parses only its own code (a hook's `talentd check` starts in ~15 ms, not ~110)
  entrypoints: [
    join(root, "src", "main.ts"),
    join(root, "src", "db", "writerThread.ts"),
    join(root, "src", "db", "backupThread.ts"),
    join(root, "src", "cli", "commands.ts"),
    join(root, "src", "client", "commands.ts"),
  ],
  compile: {
    outfile: join(root, "dist", "talentd"),
    // configuration is flags > environment > defaults (src/config.ts): the binary must not pick
    // up a stray .env or bunfig.toml from the folder it happens to run in
    autoloadDotenv: false,
    autoloadBunfig: false,
  },
  // identifiers stay as written: Elysia reads handlers' source to see which parts of the
  // context they use, and renamed destructured parameters defeat it (measured on this binary:
  // /healthz 25k → 36k req/s, a key route 12k → 14k; docs/performance.md)
  minify: { whitespace: true, syntax: true, identifiers: false },
  sourcemap: "none",
  // the binary carries JavaScriptCore bytecode beside each chunk's source, so a start does not
  // parse its code: the start's code phase 130–200 → 30–50 ms (docs/performance.md, "Start-up
  // and memory"). Bytecode with chunks needs ESM; the source stays in the binary, so Elysia still
  // reads its handlers' text (Function.prototype.toString is unchanged)
  bytecode: true,
  format: "esm",
  splitting: true,
  plugins: [libsqlNative, embedFiles],
  define: { "process.env.NODE_ENV": '"production"' },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const size = statSync(join(root, "dist", "talentd")).size;
console.log(`dist/talentd built in ${Math.round(performance.now() - started)} ms (${(size / 1024 / 1024).toFixed(1)} MiB)`);
