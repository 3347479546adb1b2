/** Support for the client tests: real git repositories in temp folders, a project with a key on a live server. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createKey, orgWithProject, runCli } from "./helpers";
import type { LiveEnv } from "./mcp-support";

export const ALL_SCOPES = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

const made: string[] = [];
/** Removes every repository made by `gitRepo` (afterAll). */
export function removeRepos(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Runs git in `cwd`; throws on failure unless `allowFail`. */
export function gitIn(cwd: string, args: string[], opts: { env?: Record<string, string>; allowFail?: boolean; stdin?: string } = {}) {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", ...opts.env },
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
  });
  const out = { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  if (out.code !== 0 && !opts.allowFail) throw new Error(`git ${args.join(" ")} failed: ${out.stderr}`);
  return out;
}

/**
 * Runs git as a child process without blocking this process: a commit or push whose hook calls
 * back into the server that this test process serves must not wait on a blocked event loop.
 */
export async function gitAsync(cwd: string, args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["git", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A fresh repository (branch main, an identity, no signing) in a temp folder. */
export function gitRepo(opts: { bare?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "talentd-repo-"));
  made.push(dir);
  gitIn(dir, ["init", "-q", "-b", "main", ...(opts.bare ? ["--bare"] : [])]);
  if (!opts.bare) {
    gitIn(dir, ["config", "user.email", "dev@example.com"]);
    gitIn(dir, ["config", "user.name", "Dev"]);
    gitIn(dir, ["config", "commit.gpgsign", "false"]);
  }
  return dir;
}

/** Writes files into a repository and stages them. */
export function stage(repo: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  gitIn(repo, ["add", "--", ...Object.keys(files)]);
}

/** A project of a new organization on the live server, with talents installed and a key. */
export async function clientProject(live: LiveEnv, talents: string[], tools = ALL_SCOPES) {
  const o = await orgWithProject(live.env);
  if (talents.length > 0) {
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents });
    if (r.status !== 201) throw new Error(`install failed: ${JSON.stringify(r.body)}`);
  }
  const created = await createKey(o.owner, o.project.id, tools);
  return { ...o, key: created.value, keyId: created.key.id, env: { TALENTD_URL: live.base, TALENTD_KEY: created.value } };
}

/** The CLI in a folder with the client's environment. */
export function talentd(args: string[], cwd: string, env: Record<string, string>, stdin?: string) {
  return runCli(args, { cwd, env: { HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", ...env }, stdin });
}
