/**
 * What `talentd check` reads: the added lines of a diff by its source, or a commit message.
 * `check --commit-msg FILE` (the commit-msg hook, client/hooks.ts) checks the message as the added
 * lines of a file at `.git/COMMIT_EDITMSG`, so the talents whose `triggers.files` name that path
 * (conventional-commits, git-commit-messages) are designated and their detectors run on it like on
 * any diff (docs/talent-format.md "Detectors").
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandLine } from "../cli/args";
import { CliError } from "../cli/errors";
import { checkedContents } from "./contents";
import { addedLines, changedPaths, type AddedFile, type DiffSource } from "./git";

type Run = Extract<CommandLine, { kind: "run" }>;

/** The path a commit message is checked at: what the commit-convention talents' triggers and detectors name. */
export const MESSAGE_PATH = ".git/COMMIT_EDITMSG";

/** git's scissors line: what follows it (`commit -v`'s diff) is not part of the message. */
const SCISSORS = /^# -+ >8 -+$/;

/**
 * The message as git records it with its default cleanup: lines from the scissors line on and
 * `#` comment lines dropped, trailing spaces and the blank lines before and after it removed.
 */
export function cleanMessage(text: string): string {
  const lines: string[] = [];
  for (const raw of text.replace(/\r\n/g, "\n").split("\n")) {
    if (SCISSORS.test(raw)) break;
    if (raw.startsWith("#")) continue;
    lines.push(raw.trimEnd());
  }
  return lines.join("\n").replace(/^\n+/, "").replace(/\n+$/, "");
}

/** The message file read and cleaned, as the one added file of the check (empty: nothing to check). */
export function messageChange(file: string): { files: AddedFile[]; text: string } {
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch (e) {
    throw new CliError(`check --commit-msg: cannot read ${file}: ${(e as Error).message}`);
  }
  const text = cleanMessage(raw);
  if (text === "") return { files: [], text };
  return { files: [{ path: MESSAGE_PATH, lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) }], text };
}

/** What `check` reads: the added lines, the changed paths, how to read their checked version, in words. */
interface Change {
  files: AddedFile[];
  paths: string[];
  /** Why nothing is checked: no added line; no talent designated. */
  nothing: string;
  noTalent: string;
  /** The checked version of the changed files (read while the server answers). */
  contents: () => Promise<Map<string, string>>;
}

/** The change `check` is given: a commit message (--commit-msg FILE), or a diff by its source. */
export async function changeOf(cli: Run, root: string, cwd: string): Promise<Change> {
  if (typeof cli.flags["commit-msg"] === "string") {
    const m = messageChange(resolve(cwd, cli.flags["commit-msg"]));
    return {
      files: m.files,
      paths: [MESSAGE_PATH],
      nothing: "an empty commit message: nothing to check",
      noTalent: `no active talent's triggers.files name ${MESSAGE_PATH} (conventional-commits, git-commit-messages): no rule to check`,
      contents: async () => new Map([[MESSAGE_PATH, m.text]]),
    };
  }
  const source: DiffSource = cli.flags.staged
    ? { kind: "staged" }
    : typeof cli.flags.base === "string"
      ? { kind: "base", ref: cli.flags.base }
      : cli.flags["pre-push"]
        ? { kind: "pre-push", stdin: await new Response(Bun.stdin.stream()).text() }
        : { kind: "worktree" };
  const what =
    source.kind === "staged"
      ? "staged"
      : source.kind === "base"
        ? `changed since ${source.ref}`
        : source.kind === "pre-push"
          ? "pushed"
          : "changed";
  const [files, paths] = await Promise.all([addedLines(root, source), cli.args[0] ? Promise.resolve([]) : changedPaths(root, source)]);
  return {
    files,
    paths,
    nothing:
      paths.length === 0 ? `nothing ${what}: nothing to check` : `no added line in the ${paths.length} ${what} path(s): nothing to check`,
    noTalent: `no active talent's triggers.files or languages match the ${paths.length} ${what} path(s): no rule to check`,
    contents: () => checkedContents(root, source, files),
  };
}
