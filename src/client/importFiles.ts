/**
 * `talentd import PATH…`: reads rule files here (AGENTS.md, CLAUDE.md, GEMINI.md, Cursor and
 * Copilot rule files) and sends their text to `POST /web/orgs/current/expertises/import` with a
 * project key carrying the import scope; each becomes a draft expertise of the key's organization,
 * listed with its rules, triggers and editor. Paths go as written from the repository root (else
 * the current folder), since a file's folder decides its triggers. Nothing is published.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, relative, resolve, sep } from "node:path";
import type { CommandLine } from "../cli/args";
import { CliError } from "../cli/errors";
import { call, serverOptions } from "./api";
import { repoRoot } from "./git";
import { print, printJson } from "./output";

type Run = Extract<CommandLine, { kind: "run" }>;

/** The import's per-file limit, checked here first so a large file is named before anything is sent. */
const MAX_FILE_BYTES = 128 * 1024;

interface Imported {
  ref: string;
  path: string;
  rules: { id: string }[];
  triggers: { files: string[]; keywords: string[] };
  contentFindings: number;
  notes: string[];
  editor: string;
}

/** The path a file is sent under: from the repository root (or `cwd`), with `/`; a file outside both by its name alone. */
function sentPath(file: string, root: string): string {
  const rel = relative(root, file);
  return rel.startsWith("..") || rel === "" ? basename(file) : rel.split(sep).join("/");
}

export async function importCommand(cli: Run, cwd: string): Promise<number> {
  const server = serverOptions(cli.flags, process.env, "import");
  const root = (await repoRoot(cwd)) ?? cwd;
  const files = cli.args.map((arg) => {
    const file = resolve(cwd, arg);
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new CliError(`import: ${arg} is not a file`);
      size = st.size;
    } catch (e) {
      if ((e as Error).name === "CliError") throw e;
      throw new CliError(`import: cannot read ${arg}: no such file`);
    }
    if (size > MAX_FILE_BYTES)
      throw new CliError(`import: ${arg} is too large (${size} bytes > ${MAX_FILE_BYTES}, the import's limit per file)`);
    return { path: sentPath(file, root), content: readFileSync(file, "utf8") };
  });
  const answer = await call<{ drafts: Imported[] }>(server, "POST", "/web/orgs/current/expertises/import", { files }, { issues: true });
  if (!Array.isArray(answer.drafts)) throw new Error("no drafts list");
  if (cli.flags.json) {
    printJson(answer);
    return 0;
  }
  for (const d of answer.drafts) {
    const triggers = d.triggers.files.length > 0 ? d.triggers.files.join(", ") : "no triggers";
    print(`${d.ref}  ${d.rules.length} rule${d.rules.length === 1 ? "" : "s"}  ${triggers}  (from ${d.path})`);
    if (d.contentFindings > 0) print(`  ${d.contentFindings} content finding(s) to read before publishing`);
    for (const n of d.notes) print(`  ${n}`);
    print(`  ${server.url}${d.editor}`);
  }
  print(`${answer.drafts.length} draft${answer.drafts.length === 1 ? "" : "s"} imported: review each, then publish it.`);
  return 0;
}
