/**
 * One run of `talentd eval` (docs/eval.md): a fresh worktree of HEAD in a temp folder (`git worktree add
 * --detach`, removed after: the user's working tree is never touched), the agent command run there through
 * the shell in a process group of its own (killed as a whole at the timeout), then the worktree's change
 * against HEAD read — tracked and new files — and the task's check command run in it. Nothing leaves the machine.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError } from "../../cli/errors";
import { checkedContents } from "../contents";
import { git, parseUnifiedDiff, type AddedFile } from "../git";

/** What an arm's agent is given besides the prompt: the server, its key, and the MCP configuration file. */
export interface Talentd {
  url: string;
  key: string;
  /** The project's MCP URL (`<url>/mcp/<project>`). */
  mcpUrl: string;
}

export interface AgentRun {
  /** The agent's exit code (null: killed at the timeout). */
  exit: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The lines the change adds, per file, and each file's text as the agent left it. */
  files: AddedFile[];
  contents: Map<string, string>;
  /** The task's check: pass, fail, or null without one. */
  check: "pass" | "fail" | null;
  /** The end of the agent's output when it exited non-zero (to see why; never uploaded). */
  output: string | null;
}

/** The last `max` characters of a file (an agent's log). */
function tail(file: string, max = 2000): string {
  try {
    const text = readFileSync(file, "utf8");
    return text.length > max ? "…" + text.slice(-max) : text;
  } catch {
    return "";
  }
}

/** The process group running now (the agent's or the check's), for an interrupt to kill. */
let running: number | null = null;

/** The variables eval sets or removes; everything else of the environment is the agent's. */
const TALENTD_VARS = ["TALENTD_URL", "TALENTD_KEY", "TALENTD_MCP_CONFIG", "TALENTD_TIMEOUT", "TALENTD_RUN", "TALENTD_REPORT"];

/** The MCP configuration Claude Code, Cursor and VS Code read: one HTTP server with the key as its bearer. */
export const mcpConfig = (t: Talentd) => ({
  mcpServers: { talentd: { type: "http", url: t.mcpUrl, headers: { Authorization: `Bearer ${t.key}` } } },
});

/**
 * Runs `command` through the shell in `cwd`, in a process group of its own; at `timeoutMs` the whole group is
 * killed. Its output goes to `log` (outside the worktree, so it is not part of the change).
 */
async function shell(
  command: string,
  cwd: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
  log: string,
): Promise<{ exit: number | null; timedOut: boolean }> {
  const out = Bun.file(log);
  const proc = Bun.spawn(["sh", "-c", command], { cwd, env, detached: true, stdin: "ignore", stdout: out, stderr: out });
  running = proc.pid;
  let timedOut = false;
  const killGroup = () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  const code = await proc.exited;
  running = null;
  clearTimeout(timer);
  killGroup(); // what the agent left running in the background ends with it
  return { exit: timedOut ? null : code, timedOut };
}

const DIFF = ["diff", "--no-color", "--no-ext-diff", "--unified=0", "--find-renames", "--src-prefix=a/", "--dst-prefix=b/"];

/** Everything the agent changed against `head` — commits, edits, new untracked files — as added lines. */
async function changeSince(wt: string, head: string): Promise<AddedFile[]> {
  const add = await git(wt, ["add", "-A"]); // the worktree's own index: new files count too
  if (!add.ok) throw new CliError(`eval: git add in the run's worktree failed: ${add.stderr.trim().split("\n")[0]}`);
  const diff = await git(wt, [...DIFF, "--cached", head]);
  if (!diff.ok) throw new CliError(`eval: git diff in the run's worktree failed: ${diff.stderr.trim().split("\n")[0]}`);
  return parseUnifiedDiff(diff.stdout).filter((f) => f.lines.length > 0);
}

export interface RunSpec {
  root: string;
  head: string;
  agent: string;
  task: { id: string; prompt: string; check: string | null };
  arm: "with" | "without";
  /** The server, for the `with` arm only. */
  talentd: Talentd | null;
  timeoutMs: number;
}

/**
 * An interrupt (Ctrl-C, SIGTERM) during a run: the agent's process group killed, the worktree and its temp folder
 * removed before the exit, so an interrupted eval leaves nothing in the repository.
 */
function onInterrupt(root: string, wt: string, dir: string): () => void {
  const stop = (signal: NodeJS.Signals) => {
    if (running !== null) {
      try {
        process.kill(-running, "SIGKILL");
      } catch {
        // gone already
      }
    }
    Bun.spawnSync(["git", "worktree", "remove", "--force", wt], { cwd: root, stdout: "ignore", stderr: "ignore" });
    rmSync(dir, { recursive: true, force: true });
    Bun.spawnSync(["git", "worktree", "prune"], { cwd: root, stdout: "ignore", stderr: "ignore" });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
}

/** One run: worktree, agent, change, check; the worktree and its temp folder removed whatever happens. */
export async function runOnce(spec: RunSpec): Promise<AgentRun> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-eval-"));
  const wt = join(dir, "worktree");
  const release = onInterrupt(spec.root, wt, dir);
  try {
    const added = await git(spec.root, ["worktree", "add", "--detach", "--quiet", wt, spec.head]);
    if (!added.ok) throw new CliError(`eval: git worktree add failed: ${added.stderr.trim().split("\n")[0]}`);
    const promptFile = join(dir, "prompt.md");
    writeFileSync(promptFile, spec.task.prompt);
    const env: Record<string, string | undefined> = { ...process.env };
    for (const v of TALENTD_VARS) delete env[v];
    Object.assign(env, { TALENTD_EVAL_ARM: spec.arm, TALENTD_EVAL_TASK: spec.task.id, TALENTD_EVAL_PROMPT_FILE: promptFile });
    if (spec.talentd) {
      const mcpFile = join(dir, "mcp.json");
      writeFileSync(mcpFile, JSON.stringify(mcpConfig(spec.talentd), null, 2) + "\n", { mode: 0o600 });
      Object.assign(env, { TALENTD_URL: spec.talentd.url, TALENTD_KEY: spec.talentd.key, TALENTD_MCP_CONFIG: mcpFile });
    }
    const started = performance.now();
    const log = join(dir, "agent.log");
    const agent = await shell(spec.agent, wt, env, spec.timeoutMs, log);
    const durationMs = Math.round(performance.now() - started);
    const files = await changeSince(wt, spec.head);
    const contents = await checkedContents(wt, { kind: "worktree" }, files);
    let check: AgentRun["check"] = null;
    if (spec.task.check) {
      const checkEnv = { ...env };
      for (const v of TALENTD_VARS) delete checkEnv[v];
      const r = await shell(spec.task.check, wt, checkEnv, spec.timeoutMs, join(dir, "check.log"));
      check = r.exit === 0 ? "pass" : "fail";
    }
    const output = agent.exit !== null && agent.exit !== 0 ? tail(log) : null;
    return { exit: agent.exit, timedOut: agent.timedOut, durationMs, files, contents, check, output };
  } finally {
    release();
    await git(spec.root, ["worktree", "remove", "--force", wt]);
    rmSync(dir, { recursive: true, force: true });
    await git(spec.root, ["worktree", "prune"]);
  }
}
