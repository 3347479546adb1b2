/**
 * What the client reads from git: the repository, the paths a change touches and the lines it
 * adds (unified diff with no context, parsed here). Git runs as a child process; its output never
 * leaves the machine.
 */
import { resolve, relative, isAbsolute } from "node:path";
import { CliError } from "../cli/errors";

/** git's empty tree: the base of a repository's first commit. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const ZERO_SHA = /^0+$/;

export interface AddedFile {
  /** Repository-relative path, `/`-separated. */
  path: string;
  /** The added lines with their number in the new version of the file. */
  lines: { line: number; text: string }[];
}

/** Runs git in `cwd`; resolves to stdout, or null on a non-zero exit (`stderr` for the message). */
export async function git(cwd: string, args: string[], stdin?: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  let proc;
  try {
    proc = Bun.spawn(["git", "-c", "core.quotePath=false", ...args], {
      cwd,
      stdin: stdin !== undefined ? new TextEncoder().encode(stdin) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    });
  } catch (e) {
    throw new CliError(`cannot run git: ${(e as Error).message}`);
  }
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { ok: code === 0, stdout, stderr };
}

async function gitOrFail(cwd: string, args: string[], what: string): Promise<string> {
  const r = await git(cwd, args);
  if (!r.ok) throw new CliError(`${what}: ${r.stderr.trim().split("\n")[0] || `git ${args[0]} failed`}`);
  return r.stdout;
}

export interface Repo {
  /** The repository's top folder. */
  root: string;
  /** Where the client remembers the last resolution it prepared (inside the git directory). */
  resolutionFile: string;
}

/** The repository around `cwd` (one git process), or null outside a repository. */
export async function repoOf(cwd: string): Promise<Repo | null> {
  const r = await git(cwd, ["rev-parse", "--show-toplevel", "--git-path", "talentd/last-resolution"]);
  if (!r.ok) return null;
  const [root, file] = r.stdout.split("\n");
  if (!root || !file) return null;
  return { root, resolutionFile: isAbsolute(file) ? file : resolve(cwd, file) };
}

/** The repository's top folder, or null outside a repository. */
export async function repoRoot(cwd: string): Promise<string | null> {
  return (await repoOf(cwd))?.root ?? null;
}

/** The repository, or a usage error saying one is needed for `what`. */
export async function requireRepo(cwd: string, what: string): Promise<Repo> {
  const repo = await repoOf(cwd);
  if (!repo) throw new CliError(`${what} needs a git repository: ${cwd} is not inside one`);
  return repo;
}

/** A path inside the git directory (`hooks/pre-commit`), as git resolves it (core.hooksPath included). */
export async function gitPath(cwd: string, name: string): Promise<string> {
  const out = (await gitOrFail(cwd, ["rev-parse", "--git-path", name], "git rev-parse")).trim();
  return isAbsolute(out) ? out : resolve(cwd, out);
}

/** Whether HEAD names a commit (false in a repository with no commit yet). */
async function hasHead(root: string): Promise<boolean> {
  return (await git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])).ok;
}

/** Which changes: the index, since a base, the pushed commits, or the working tree against HEAD. */
export type DiffSource = { kind: "staged" } | { kind: "base"; ref: string } | { kind: "pre-push"; stdin: string } | { kind: "worktree" };

/** The `git diff` ranges of a source (several for a push of several refs). */
async function ranges(root: string, source: DiffSource): Promise<string[][]> {
  switch (source.kind) {
    case "staged":
      return [["--cached"]];
    case "worktree":
      return [[(await hasHead(root)) ? "HEAD" : EMPTY_TREE]];
    case "base": {
      const ok = await git(root, ["rev-parse", "--verify", "--quiet", `${source.ref}^{commit}`]);
      if (!ok.ok)
        throw new CliError(`--base ${source.ref}: no such commit in this repository (fetch it first, e.g. git fetch origin main)`);
      return [[`${source.ref}...HEAD`]];
    }
    case "pre-push": {
      // git gives one line per ref: <local ref> <local sha> <remote ref> <remote sha>
      const out: string[][] = [];
      for (const line of source.stdin.split("\n")) {
        const [, localSha, , remoteSha] = line.trim().split(/\s+/);
        if (!localSha || ZERO_SHA.test(localSha)) continue; // a deletion pushes no line
        if (remoteSha && !ZERO_SHA.test(remoteSha) && (await git(root, ["cat-file", "-e", `${remoteSha}^{commit}`])).ok) {
          out.push([`${remoteSha}...${localSha}`]);
          continue;
        }
        // a new branch: from where its commits leave what the remotes already have
        const boundary = (await git(root, ["rev-list", "--boundary", localSha, "--not", "--remotes"])).stdout
          .split("\n")
          .find((l) => l.startsWith("-"));
        out.push(boundary ? [`${boundary.slice(1)}...${localSha}`] : [EMPTY_TREE, localSha]);
      }
      return out;
    }
  }
}

const DIFF_FLAGS = ["diff", "--no-color", "--no-ext-diff", "--unified=0", "--find-renames", "--src-prefix=a/", "--dst-prefix=b/"];

/** The paths the change touches (added, modified, renamed, deleted), repository-relative. */
export async function changedPaths(root: string, source: DiffSource): Promise<string[]> {
  const paths = new Set<string>();
  for (const range of await ranges(root, source)) {
    const out = await gitOrFail(root, ["diff", "--name-only", "-z", "--no-renames", ...range], "git diff");
    for (const p of out.split("\0")) if (p) paths.add(p);
  }
  return [...paths];
}

/** The lines the change adds, per file (deleted files have none). */
export async function addedLines(root: string, source: DiffSource): Promise<AddedFile[]> {
  const files = new Map<string, AddedFile>();
  for (const range of await ranges(root, source)) {
    const out = await gitOrFail(root, [...DIFF_FLAGS, ...range], "git diff");
    for (const f of parseUnifiedDiff(out)) {
      const known = files.get(f.path);
      if (known) known.lines.push(...f.lines);
      else files.set(f.path, f);
    }
  }
  return [...files.values()].filter((f) => f.lines.length > 0);
}

/**
 * Parses `git diff --unified=0` output into the added lines of each file. A file header runs
 * from `diff --git` to its first `@@`; inside hunks every line starts with `+`, `-`, ` ` or `\`,
 * so an added line that reads `++ x` is never taken for a header.
 */
export function parseUnifiedDiff(text: string): AddedFile[] {
  const files: AddedFile[] = [];
  let current: AddedFile | null = null;
  let inHunk = false;
  let next = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("diff --git ")) {
      current = null;
      inHunk = false;
      continue;
    }
    if (!inHunk) {
      if (line.startsWith("+++ ")) {
        const target = unquote(line.slice(4));
        if (target === "/dev/null") current = null;
        else {
          current = { path: target.startsWith("b/") ? target.slice(2) : target, lines: [] };
          files.push(current);
        }
        continue;
      }
      if (!line.startsWith("@@")) continue;
    }
    if (line.startsWith("@@")) {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      inHunk = m !== null;
      next = m ? Number(m[1]) : 0;
      continue;
    }
    if (line.startsWith("+")) {
      current?.lines.push({ line: next, text: line.slice(1) });
      next++;
    } else if (line.startsWith(" ")) next++;
  }
  return files;
}

/** A path as git prints it: as is, or C-quoted ("b/sp\303\251cial \"x\".ts") when it holds odd characters. */
export function unquote(raw: string): string {
  const s = raw.replace(/\t$/, "");
  if (!s.startsWith('"') || !s.endsWith('"')) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  const escapes: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...new TextEncoder().encode(c));
      continue;
    }
    const n = body[i + 1]!;
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(escapes[n] ?? n.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** PATH arguments as the repository names them: resolved against `cwd`, relative to `root`, `/`-separated. */
export function repoPaths(cwd: string, root: string | null, given: string[]): string[] {
  return given.map((p) => {
    if (!root) return p.replace(/^\.\//, "").replace(/\\/g, "/");
    const rel = relative(root, resolve(cwd, p)).replace(/\\/g, "/");
    if (rel.startsWith("../") || rel === "..") throw new CliError(`${p} is outside the repository ${root}`);
    return rel;
  });
}
