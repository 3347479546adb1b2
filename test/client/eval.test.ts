/**
 * `talentd eval` (docs/eval.md) against a real server on 127.0.0.1, in real git repositories, through the real CLI,
 * with a deterministic script agent (test/fixtures/eval-agent.ts): each task runs with and without talentd in
 * fresh worktrees of HEAD, each change is scored here with the task's talents' detectors and its check, the
 * `with` arm's resolutions are found with the key, and the effect per talent is reported; --upload stores the
 * summary (counts only) and the project's members list it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT } from "../helpers";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitIn, gitRepo, removeRepos, stage, talentd } from "../client-support";

let live: LiveEnv;
const home = mkdtempSync(join(tmpdir(), "talentd-eval-home-"));
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
  rmSync(home, { recursive: true, force: true });
});
setDefaultTimeout(60_000);

const AGENT = `'${BUN}' '${join(ROOT, "test", "fixtures", "eval-agent.ts")}'`;
const SCOPES = ["prepare_task", "validate", "doctor"];

/** A repository with one commit and a tasks file (untracked, outside what the worktrees see). */
function repoWithTasks(yaml: string): { repo: string; tasks: string } {
  const repo = gitRepo();
  stage(repo, { "README.md": "# app\n", "src/index.ts": "export const x = 1;\n" });
  gitIn(repo, ["commit", "-q", "-m", "start"]);
  const tasks = join(repo, "tasks.yaml");
  writeFileSync(tasks, yaml);
  return { repo, tasks };
}

/** Whether a process runs (a killed one not yet reaped by its new parent is a zombie: it runs no more). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z";
  } catch {
    return false;
  }
}

const TASKS = `tasks:
  - id: add
    prompt: Add an exported add(a, b) function in src/added.ts.
    talents: [typescript-strict]
    check: "grep -q '): number' src/added.ts"
`;

/** The client's environment, with a HOME of its own (Bun's cache there stays out of the repository). */
const evalEnv = (p: { env: Record<string, string> }, extra: Record<string, string> = {}) => ({
  ...p.env,
  PATH: process.env.PATH ?? "",
  HOME: home,
  ...extra,
});

describe("talentd eval: the agent with and without talentd, scored locally", () => {
  test("the script agent keeps TS-005 with talentd and breaks it without: 0 findings with, ≥ 1 without, the with arm's resolution found, the check passing only with; the effect for typescript-strict; the user's working tree untouched", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    const r = await talentd(["eval", "--agent", AGENT, "--tasks", tasks, "--runs", "2", "--json"], repo, evalEnv(p));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.runs).toHaveLength(4);
    for (const run of doc.runs) expect([run.exit, run.output ?? ""]).toEqual([0, ""]);
    const withRuns = doc.runs.filter((x: { arm: string }) => x.arm === "with");
    const withoutRuns = doc.runs.filter((x: { arm: string }) => x.arm === "without");
    for (const w of withRuns) {
      expect(w.findings.filter((f: { rule: string }) => f.rule === "TS-005")).toEqual([]);
      expect(w.invoked).toBe(true);
      expect(w.resolutions).toHaveLength(1);
      expect(w.check).toBe("pass");
    }
    for (const w of withoutRuns) {
      expect(w.findings).toContainEqual({
        rule: "TS-005",
        talent: "typescript-strict",
        file: "src/added.ts",
        line: 1,
        severity: "blocking",
      });
      expect(w.invoked).toBe(false);
      expect(w.check).toBe("fail");
    }
    expect(doc.effects).toEqual([
      expect.objectContaining({
        talent: "typescript-strict",
        with: expect.objectContaining({ findingsPerRun: 0, checkPassRate: 1, runs: 2 }),
        without: expect.objectContaining({ checkPassRate: 0, runs: 2 }),
        neverInvoked: 0,
      }),
    ]);
    expect(doc.effects[0].without.findingsPerRun).toBeGreaterThanOrEqual(1);
    // per task and arm: findings by rule over the runs, the check, the time, how many runs invoked talentd
    expect(doc.tasks).toEqual([
      expect.objectContaining({ task: "add", arm: "with", runs: 2, findingsByRule: {}, checkPassRate: 1, invoked: 2, timedOut: 0 }),
      expect.objectContaining({ task: "add", arm: "without", runs: 2, findingsByRule: { "TS-005": 2 }, checkPassRate: 0, invoked: 0 }),
    ]);
    expect(doc.tasks[0].meanDurationMs).toBeGreaterThan(0);
    // the user's working tree and the repository's worktrees are as they were
    expect(existsSync(join(repo, "src", "added.ts"))).toBe(false);
    expect(gitIn(repo, ["status", "--porcelain"]).stdout).toBe("?? tasks.yaml\n");
    expect(gitIn(repo, ["worktree", "list"]).stdout.trim().split("\n")).toHaveLength(1);
    // the with arm's resolution is one the agent prepared with the key, naming its talent
    const listed = await fetch(`${live.base}/api/resolutions`, { headers: { authorization: `Bearer ${p.key}` } });
    const ids = ((await listed.json()) as { resolutions: { resolutionId: string; talents: string[] }[] }).resolutions;
    expect(ids.map((x) => x.resolutionId)).toEqual(
      expect.arrayContaining(withRuns.flatMap((w: { resolutions: string[] }) => w.resolutions)),
    );

    const text = await talentd(["eval", "--agent", AGENT, "--tasks", tasks, "--runs", "2"], repo, evalEnv(p));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/add +with +2 +0 +pass .*prepared 1 task\(s\)/);
    expect(text.stdout).toMatch(/add +without +2 +1 \(TS-005×1\) +fail/);
    // the spread (fewest–most findings in one run) after each mean when a task ran more than once
    expect(text.stdout).toMatch(/typescript-strict +0 \(0–0\) +1 \(1–1\) +100% +0% +2\+2/);
  });

  test("an agent reaching talentd over MCP with TALENTD_MCP_CONFIG (the shape Claude Code reads) is found invoked: its resolution was prepared over MCP", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    const r = await talentd(["eval", "--agent", AGENT, "--tasks", tasks, "--json"], repo, evalEnv(p, { EVAL_AGENT_MODE: "mcp" }));
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const w = doc.runs.find((x: { arm: string }) => x.arm === "with");
    expect([w.exit, w.output ?? ""]).toEqual([0, ""]);
    expect(w).toMatchObject({ invoked: true, findings: [], check: "pass" });
    const listed = await fetch(`${live.base}/api/resolutions?limit=1`, { headers: { authorization: `Bearer ${p.key}` } });
    const [latest] = ((await listed.json()) as { resolutions: { resolutionId: string; via: string; talents: string[] }[] }).resolutions;
    expect(latest).toMatchObject({ resolutionId: w.resolutions[0], via: "mcp", talents: ["typescript-strict"] });
  });

  test("an agent that never calls the service in the with arm is reported as never invoked", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    const r = await talentd(["eval", "--agent", AGENT, "--tasks", tasks, "--json"], repo, evalEnv(p, { EVAL_AGENT_MODE: "lazy" }));
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const w = doc.runs.find((x: { arm: string }) => x.arm === "with");
    expect(w).toMatchObject({ invoked: false, resolutions: [], check: "fail" });
    expect(w.findings.map((f: { rule: string }) => f.rule)).toContain("TS-005");
    expect(doc.effects[0].neverInvoked).toBe(1);
    const text = await talentd(["eval", "--agent", AGENT, "--tasks", tasks], repo, evalEnv(p, { EVAL_AGENT_MODE: "lazy" }));
    expect(text.stdout).toMatch(/add +with .*never invoked/);
  });

  test("an agent past its --timeout has its process group killed and the run reported as timed out", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    const started = Date.now();
    const r = await talentd(
      ["eval", "--agent", `${AGENT} & sleep 120; wait`, "--tasks", tasks, "--timeout", "1", "--json"],
      repo,
      evalEnv(p, { EVAL_AGENT_MODE: "slow" }),
    );
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const doc = JSON.parse(r.stdout);
    for (const run of doc.runs) {
      expect(run).toMatchObject({ timedOut: true, exit: null, findings: [], check: "fail" });
      expect(run.durationMs).toBeLessThan(10_000);
    }
    // what the agent started in the background dies with it
    const pids = join(home, "child.pid");
    const agent = `sleep 120 & echo $! >> '${pids}'; wait`;
    const text = await talentd(["eval", "--agent", agent, "--tasks", tasks, "--timeout", "1"], repo, evalEnv(p));
    expect(text.stdout).toMatch(/add +with .*timed out/);
    const children = readFileSync(pids, "utf8").trim().split("\n").map(Number);
    expect(children).toHaveLength(2);
    for (const pid of children) expect(running(pid)).toBe(false);
  });

  test("an eval interrupted (Ctrl-C) during a run kills the agent and removes the run's worktree before it exits (130)", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    const pids = join(home, "interrupted.pid");
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "eval", "--agent", `echo $$ > '${pids}'; sleep 60`, "--tasks", tasks], {
      cwd: repo,
      env: { GIT_CONFIG_NOSYSTEM: "1", ...evalEnv(p) },
      stdout: "ignore",
      stderr: "ignore",
    });
    const worktrees = () => gitIn(repo, ["worktree", "list"]).stdout.trim().split("\n").length;
    for (let i = 0; i < 200 && !(existsSync(pids) && worktrees() === 2); i++) await Bun.sleep(50);
    expect(worktrees()).toBe(2);
    const agent = Number(readFileSync(pids, "utf8").trim());
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(worktrees()).toBe(1);
    expect(running(agent)).toBe(false);
    expect(gitIn(repo, ["status", "--porcelain"]).stdout).toBe("?? tasks.yaml\n");
  });

  test("--upload stores the summary (counts only: no file, line or code, anything else refused) and GET /web/projects/:id/evals lists it for members; deleted with the project", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    const r = await talentd(["eval", "--agent", AGENT, "--tasks", tasks, "--upload", "--json"], repo, evalEnv(p));
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.uploaded).toMatch(/^evl_/);
    const listed = await p.owner.get(`/web/projects/${p.project.id}/evals`);
    expect(listed.status).toBe(200);
    const evals = (listed.body as { evals: any[] }).evals;
    expect(evals).toHaveLength(1);
    expect(evals[0]).toMatchObject({ evalId: doc.uploaded, runsPerArm: 1, tasks: [{ id: "add", talents: ["typescript-strict"] }] });
    expect(evals[0].runs.find((x: { arm: string }) => x.arm === "without")).toMatchObject({
      findings: { "TS-005": 1 },
      check: "fail",
      invoked: false,
    });
    expect(evals[0].effects[0]).toMatchObject({ talent: "typescript-strict", with: { findingsPerRun: 0, checkPassRate: 1 } });
    expect(JSON.stringify(evals)).not.toContain("src/added.ts");
    // another organization's member does not see them
    const other = await clientProject(live, [], SCOPES);
    expect((await other.owner.get(`/web/projects/${p.project.id}/evals`)).status).toBe(404);
    // a summary carrying anything else (a file, code) is refused, field by field
    const bad = await fetch(`${live.base}/api/evals`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        runsPerArm: 1,
        tasks: [],
        runs: [{ task: "a", arm: "with", run: 1, findings: {}, check: null, durationMs: 1, invoked: true, timedOut: false, diff: "+x" }],
        effects: [],
      }),
    });
    expect(bad.status).toBe(400);
    const refused = (await bad.json()) as { error: string; issues: { path: string }[] };
    expect(refused.error).toBe("validation_failed");
    expect(refused.issues.map((i) => i.path)).toContain("runs.0.diff");
    // kept until the project goes: deleted with it
    expect((await p.owner.del(`/web/projects/${p.project.id}`)).status).toBe(200);
    const left = await live.env.database.all("SELECT id FROM evals WHERE project_id = ?", [p.project.id]);
    expect(left).toEqual([]);
  });
});

describe("talentd eval refuses, in one line with exit 2", () => {
  const one = (r: { code: number; stdout: string; stderr: string }, text: string | RegExp) => {
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(text);
  };

  test("no --agent; not in a git repository; an unreadable or invalid tasks file; a task naming a talent not active in the project", async () => {
    const p = await clientProject(live, ["typescript-strict"], SCOPES);
    const { repo, tasks } = repoWithTasks(TASKS);
    one(await talentd(["eval", "--tasks", tasks], repo, evalEnv(p)), "no --agent");
    const plain = mkdtempSync(join(tmpdir(), "talentd-not-a-repo-"));
    one(
      await talentd(["eval", "--agent", AGENT, "--tasks", tasks], plain, evalEnv(p, { GIT_CEILING_DIRECTORIES: tmpdir() })),
      "needs a git repository",
    );
    rmSync(plain, { recursive: true, force: true });
    one(await talentd(["eval", "--agent", AGENT, "--tasks", join(repo, "missing.yaml")], repo, evalEnv(p)), "cannot read the tasks file");
    writeFileSync(join(repo, "bad.yaml"), "tasks: [ {id: a\n");
    one(await talentd(["eval", "--agent", AGENT, "--tasks", "bad.yaml"], repo, evalEnv(p)), "not valid YAML");
    writeFileSync(join(repo, "empty.yaml"), "tasks:\n  - id: a\n    prompt: x\n");
    one(await talentd(["eval", "--agent", AGENT, "--tasks", "empty.yaml"], repo, evalEnv(p)), "task a: talents must be a non-empty list");
    writeFileSync(join(repo, "unknown.yaml"), "tasks:\n  - id: a\n    prompt: x\n    talents: [typescript-strict, no-such-talent]\n");
    one(
      await talentd(["eval", "--agent", AGENT, "--tasks", "unknown.yaml"], repo, evalEnv(p)),
      "task a names no-such-talent: not an active talent",
    );
    one(await talentd(["eval", "--agent", AGENT, "--tasks", tasks, "--runs", "0"], repo, evalEnv(p)), "--runs takes a whole number");
    // nothing was run: no worktree was added
    expect(readdirSync(join(repo, ".git")).includes("worktrees")).toBe(false);
  });
});
