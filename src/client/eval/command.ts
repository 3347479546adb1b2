/**
 * `talentd eval --agent CMD --tasks FILE [--runs N] [--json] [--upload] [--timeout S]` (docs/eval.md): each task,
 * each run, the agent twice in fresh worktrees of HEAD — with talentd (the task's talents; the agent gets the
 * server, the key and an MCP configuration) and without — each change scored here with the detectors of the
 * task's talents (all of them, blocking or not) and the task's check. Only talent ids and, with --upload, counts
 * go to the server.
 */
import { resolve } from "node:path";
import type { CommandLine } from "../../cli/args";
import { CliError } from "../../cli/errors";
import { call, serverOptions, type ServerOptions } from "../api";
import { runDetectors, type ServedObligation } from "../check";
import { git, requireRepo } from "../git";
import { note, print, printJson } from "../output";
import { runOnce, type Talentd } from "./run";
import { effectsOf, evalText, perTask, uploadBody, type Arm, type EvalRun } from "./summary";
import { readTasks, type EvalTask } from "./tasks";

type Run = Extract<CommandLine, { kind: "run" }>;

export const DEFAULT_AGENT_TIMEOUT_S = 600;
const MAX_RUNS = 50;

/** A whole number flag from `min` to `max`, else a usage error. */
function count(v: unknown, flag: string, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (typeof v !== "string" || !/^\d+$/.test(v) || n < min || n > max)
    throw new CliError(`eval: --${flag} takes a whole number from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return n;
}

type Resolutions = { resolutions: { resolutionId: string }[] };
/** The newest resolutions the key prepared (GET /api/resolutions): a run's new ones are the ones not there before. */
const resolutionIds = async (server: ServerOptions): Promise<Set<string>> =>
  new Set((await call<Resolutions>(server, "GET", "/api/resolutions?limit=100")).resolutions.map((r) => r.resolutionId));

/** The task's talents' detectors: one prepare-task with them, its playbook with `include=detectors`. */
async function detectorsOf(server: ServerOptions, task: EvalTask): Promise<ServedObligation[]> {
  const prepared = await call(server, "POST", "/api/prepare-task", { talentIds: task.talents });
  const q = new URLSearchParams({ resolutionId: prepared.resolutionId, include: "detectors" });
  return (await call<{ obligations: ServedObligation[] }>(server, "GET", `/api/validation/playbook?${q}`)).obligations;
}

export async function evalCommand(cli: Run, cwd: string): Promise<number> {
  const agent = typeof cli.flags.agent === "string" ? cli.flags.agent.trim() : "";
  if (!agent)
    throw new CliError('eval: no --agent: give the agent command, e.g. --agent \'claude -p "$(cat "$TALENTD_EVAL_PROMPT_FILE")"\'');
  if (typeof cli.flags.tasks !== "string" || cli.flags.tasks === "")
    throw new CliError("eval: no --tasks FILE: give the tasks file (YAML)");
  const runs = count(cli.flags.runs, "runs", 1, 1, MAX_RUNS);
  const timeoutS = count(cli.flags.timeout, "timeout", DEFAULT_AGENT_TIMEOUT_S, 1, 86_400);
  const repo = await requireRepo(cwd, "eval");
  const tasks = readTasks(resolve(cwd, cli.flags.tasks));
  const head = (await git(repo.root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])).stdout.trim();
  if (!head) throw new CliError("eval needs a commit to start from: this repository has none yet");
  // --timeout is the agent's here: the server's answers keep TALENTD_TIMEOUT or the default
  const { timeout: _agentTimeout, ...serverFlags } = cli.flags;
  const server = serverOptions(serverFlags, process.env);
  // the project's id (its MCP URL) and what a task can designate now: the active talents
  const doctor = await call<{ projectId: string; designable: string[] }>(server, "GET", "/api/doctor?include=selection");
  if (typeof doctor.projectId !== "string" || !Array.isArray(doctor.designable))
    throw new Error("no projectId or designable in the doctor's answer");
  const active = new Set(doctor.designable);
  for (const t of tasks) {
    const unknown = t.talents.filter((id) => !active.has(id));
    if (unknown.length > 0)
      throw new CliError(
        `eval: task ${t.id} names ${unknown.join(", ")}: not an active talent of the project (install or enable it first)`,
      );
  }
  const talentd: Talentd = { url: server.url, key: server.key, mcpUrl: `${server.url}/mcp/${encodeURIComponent(doctor.projectId)}` };
  const results: EvalRun[] = [];
  for (const task of tasks) {
    const obligations = await detectorsOf(server, task);
    for (let run = 1; run <= runs; run++) {
      // the arms take turns going first, so what one run leaves warm (caches, rate limits) favours neither
      const arms: Arm[] = run % 2 === 1 ? ["with", "without"] : ["without", "with"];
      for (const arm of arms) {
        if (!cli.flags.json) note(`talentd eval: ${task.id} run ${run} ${arm} talentd…`);
        const before = arm === "with" ? await resolutionIds(server) : null;
        const r = await runOnce({
          root: repo.root,
          head,
          agent,
          task,
          arm,
          talentd: arm === "with" ? talentd : null,
          timeoutMs: timeoutS * 1000,
        });
        const made = before ? [...(await resolutionIds(server))].filter((id) => !before.has(id)) : [];
        const found = runDetectors(obligations, r.files, (path) => r.contents.get(path) ?? null);
        results.push({
          task: task.id,
          arm,
          run,
          findings: found.findings.map((f) => ({ rule: f.rule, talent: f.talent, file: f.file, line: f.line, severity: f.severity })),
          check: r.check,
          durationMs: r.durationMs,
          invoked: made.length > 0,
          resolutions: made,
          timedOut: r.timedOut,
          exit: r.exit,
          ...(r.output !== null ? { output: r.output } : {}),
        });
      }
    }
  }
  const effects = effectsOf(tasks, results);
  // a refused upload never loses the runs: they are printed all the same, the refusal after them (exit 2)
  let uploaded: { evalId: string } | null = null;
  let refused: string | null = null;
  if (cli.flags.upload) {
    try {
      uploaded = await call(server, "POST", "/api/evals", uploadBody(tasks, results, effects, runs), { issues: true });
    } catch (e) {
      refused = `talentd eval: not uploaded: ${(e as Error).message}`;
    }
  }
  if (cli.flags.json) {
    const tasksDoc = perTask(tasks, results);
    printJson({ head, runsPerArm: runs, runs: results, tasks: tasksDoc, effects, ...(uploaded ? { uploaded: uploaded.evalId } : {}) });
  } else {
    print(...evalText(results, effects, runs));
    if (uploaded) print(`uploaded: ${uploaded.evalId} (counts only: no code, no diff)`);
  }
  if (refused) note(refused);
  return refused ? 2 : 0;
}
