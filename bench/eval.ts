/**
 * `talentd eval` (docs/eval.md): the harness's own cost per run — the worktree added and removed, the change read,
 * the detectors and the check, the `with` arm's resolution listings — besides the agent's own time, against
 * `talentd serve` from this checkout on loopback. The agent writes one file and exits (a few ms), so a run's wall
 * time minus its agent time is the overhead. The repository: a clone of hono when /work/.mirror holds one (about
 * the size of a real service: ~400 files of TypeScript), else this checkout. BENCH_EVAL_RUNS: runs per arm (default 5).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./calibrate";
import { printTable, ROOT, seedInstalled } from "./lib";

const RUNS = Number(process.env.BENCH_EVAL_RUNS ?? 5);
const HONO = "/work/.mirror/honojs+hono/repo";
const ENV = (home: string) => ({ PATH: process.env.PATH ?? "", HOME: home, GIT_CONFIG_NOSYSTEM: "1" });

function git(cwd: string, args: string[], home: string): string {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: ENV(home) });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** The repository evaluated: a local clone of hono (hard links, its HEAD checked out), else this checkout. */
function repository(dir: string): { name: string; repo: string } {
  if (!existsSync(HONO)) return { name: "this repository", repo: ROOT };
  const repo = join(dir, "hono");
  git(dir, ["clone", "--quiet", HONO, repo], dir);
  return { name: "hono", repo };
}

interface Doc {
  runs: { arm: string; durationMs: number; findings: unknown[]; invoked: boolean; check: string | null }[];
}

export async function benchEval(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-bench-eval-"));
  const server = await startServer(join(dir, "server"));
  try {
    const { name, repo } = repository(dir);
    const files = git(repo, ["ls-files"], dir).split("\n").filter(Boolean).length;
    const s = await seedInstalled(server.base, ["typescript-strict", "javascript-base"]);
    const tasks = join(dir, "tasks.yaml");
    writeFileSync(
      tasks,
      "tasks:\n  - id: add\n    prompt: Add an exported add function in src/eval-added.ts.\n" +
        "    talents: [typescript-strict, javascript-base]\n    check: test -f src/eval-added.ts\n",
    );
    // the agent: one file, untyped without talentd, typed with it (no call to the server: its time is the agent's)
    const agent =
      'mkdir -p src && if [ "$TALENTD_EVAL_ARM" = with ]; then t=": number"; fi; ' +
      'printf "export function add(a: number)%s {\\n  return a;\\n}\\n" "$t" > src/eval-added.ts';
    const t0 = performance.now();
    const p = Bun.spawnSync(
      [process.execPath, join(ROOT, "src/main.ts"), "eval", "--agent", agent, "--tasks", tasks, "--runs", String(RUNS), "--json"],
      { cwd: repo, env: { ...ENV(dir), TALENTD_URL: server.base, TALENTD_KEY: s.key } },
    );
    const wallMs = performance.now() - t0;
    if (p.exitCode !== 0) throw new Error(`eval: ${p.stderr.toString()}`);
    const doc = JSON.parse(p.stdout.toString()) as Doc;
    const runs = doc.runs.length;
    const agentMs = doc.runs.reduce((n, r) => n + r.durationMs, 0);
    const perRun = (wallMs - agentMs) / runs;
    // CPU of the eval and everything it ran (git, the agent, the check): robust to the machine's other load
    const cpu = p.resourceUsage.cpuTime;
    const cpuMs = Number(cpu.user + cpu.system) / 1000;
    const [load] = loadavg();
    const findings = (arm: string) => doc.runs.filter((r) => r.arm === arm).reduce((n, r) => n + r.findings.length, 0);
    printTable(
      `talentd eval: harness overhead per run (${name}, ${files} files, ${RUNS} run(s) per arm)`,
      ["runs", "wall s", "agent s (sum)", "overhead per run ms", "CPU per run ms", "load avg", "findings with / without", "goal"],
      [
        [
          runs,
          (wallMs / 1000).toFixed(2),
          (agentMs / 1000).toFixed(2),
          perRun.toFixed(0),
          (cpuMs / runs).toFixed(0),
          load!.toFixed(1),
          `${findings("with")} / ${findings("without")}`,
          "< 2000 ms",
        ],
      ],
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
