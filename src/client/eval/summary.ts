/**
 * `talentd eval`'s results (docs/eval.md): the runs, and per talent its effect — findings of its rules per run
 * and the check's pass rate, with and without talentd, over every run of the tasks that name it (the spread,
 * min–max per run, when a task ran more than once). The text a person reads and the document scripts read.
 */
import type { Finding } from "../check";
import type { ArmEffect } from "../../projects/measuredEffect";

export type Arm = "with" | "without";

export interface EvalRun {
  task: string;
  arm: Arm;
  run: number;
  findings: Pick<Finding, "rule" | "talent" | "file" | "line" | "severity">[];
  check: "pass" | "fail" | null;
  durationMs: number;
  /** Whether a task was prepared with the key during the run (always false without talentd). */
  invoked: boolean;
  /** The resolutions prepared during the run (the `with` arm). */
  resolutions: string[];
  timedOut: boolean;
  /** The agent's exit code (null: killed at the timeout). */
  exit: number | null;
  /** The end of the agent's output when it exited non-zero (local only: never uploaded). */
  output?: string;
}

export interface TalentEffect {
  talent: string;
  tasks: string[];
  with: ArmEffect;
  without: ArmEffect;
  /** Runs of the `with` arm in which the agent never prepared a task. */
  neverInvoked: number;
}

const round = (x: number) => Math.round(x * 100) / 100;

function armEffect(runs: EvalRun[], talent: string): ArmEffect {
  const counts = runs.map((r) => r.findings.filter((f) => f.talent === talent).length);
  const checked = runs.filter((r) => r.check !== null);
  return {
    runs: runs.length,
    findingsPerRun: runs.length === 0 ? 0 : round(counts.reduce((a, b) => a + b, 0) / runs.length),
    findingsSpread: { min: counts.length ? Math.min(...counts) : 0, max: counts.length ? Math.max(...counts) : 0 },
    checkPassRate: checked.length === 0 ? null : round(checked.filter((r) => r.check === "pass").length / checked.length),
  };
}

/** Per talent named by a task: its effect over the runs of those tasks. */
export function effectsOf(tasks: { id: string; talents: string[] }[], runs: EvalRun[]): TalentEffect[] {
  const talents = [...new Set(tasks.flatMap((t) => t.talents))].sort();
  return talents.map((talent) => {
    const ids = tasks.filter((t) => t.talents.includes(talent)).map((t) => t.id);
    const of = (arm: Arm) => runs.filter((r) => r.arm === arm && ids.includes(r.task));
    return {
      talent,
      tasks: ids,
      with: armEffect(of("with"), talent),
      without: armEffect(of("without"), talent),
      neverInvoked: of("with").filter((r) => !r.invoked).length,
    };
  });
}

/** One task's arm over its runs: findings by rule (all runs), the check's pass rate, the mean duration, invocations. */
export interface TaskArm {
  task: string;
  arm: Arm;
  runs: number;
  findingsByRule: Record<string, number>;
  checkPassRate: number | null;
  meanDurationMs: number;
  /** Runs that prepared a task with the key (the `with` arm; 0 without). */
  invoked: number;
  timedOut: number;
}

/** Per task and arm, in the tasks' order, `with` first. */
export function perTask(tasks: { id: string }[], runs: EvalRun[]): TaskArm[] {
  return tasks.flatMap((t) =>
    (["with", "without"] as Arm[]).map((arm) => {
      const of = runs.filter((r) => r.task === t.id && r.arm === arm);
      const byRule: Record<string, number> = {};
      for (const f of of.flatMap((r) => r.findings)) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
      const checked = of.filter((r) => r.check !== null);
      return {
        task: t.id,
        arm,
        runs: of.length,
        findingsByRule: byRule,
        checkPassRate: checked.length === 0 ? null : round(checked.filter((r) => r.check === "pass").length / checked.length),
        meanDurationMs: of.length === 0 ? 0 : Math.round(of.reduce((n, r) => n + r.durationMs, 0) / of.length),
        invoked: of.filter((r) => r.invoked).length,
        timedOut: of.filter((r) => r.timedOut).length,
      };
    }),
  );
}

const pct = (x: number | null) => (x === null ? "-" : `${Math.round(x * 100)}%`);
const spread = (a: ArmEffect, many: boolean) => `${a.findingsPerRun}${many ? ` (${a.findingsSpread.min}–${a.findingsSpread.max})` : ""}`;

function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map(
    (r) =>
      "  " +
      r
        .map((x, i) => (i < r.length - 1 ? x.padEnd(widths[i]!) : x))
        .join("  ")
        .trimEnd(),
  );
}

/** The text: one line per run, then the effects' table. */
export function evalText(runs: EvalRun[], effects: TalentEffect[], runsPerArm: number): string[] {
  const lines = ["runs:"];
  const rows = [["task", "arm", "run", "findings", "check", "time", "talentd"]];
  for (const r of runs) {
    const byRule = new Map<string, number>();
    for (const f of r.findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
    const found = [...byRule].map(([rule, n]) => `${rule}×${n}`).join(" ");
    rows.push([
      r.task,
      r.arm,
      String(r.run),
      r.findings.length === 0 ? "0" : `${r.findings.length} (${found})`,
      r.check ?? "-",
      r.timedOut ? "timed out" : `${(r.durationMs / 1000).toFixed(1)} s`,
      r.arm === "without" ? "-" : r.invoked ? `prepared ${r.resolutions.length} task(s)` : "never invoked",
    ]);
  }
  lines.push(...columns(rows), "", "effect per talent (findings of its rules per run; check pass rate):");
  const many = runsPerArm > 1;
  const eff = [["talent", "findings with", "findings without", "check with", "check without", "runs"]];
  for (const e of effects)
    eff.push([
      e.talent,
      spread(e.with, many),
      spread(e.without, many),
      pct(e.with.checkPassRate),
      pct(e.without.checkPassRate),
      `${e.with.runs}+${e.without.runs}${e.neverInvoked > 0 ? `, ${e.neverInvoked} never invoked` : ""}`,
    ]);
  lines.push(...columns(eff));
  if (runs.length <= 10)
    lines.push("", `${runs.length} run(s): only a large difference means something (docs/eval.md "What a handful of runs shows").`);
  return lines;
}

/** What `--upload` sends: counts only — per run its findings by rule, never a file, line or code. */
export function uploadBody(tasks: { id: string; talents: string[] }[], runs: EvalRun[], effects: TalentEffect[], runsPerArm: number) {
  return {
    runsPerArm,
    tasks: tasks.map((t) => ({ id: t.id, talents: t.talents })),
    runs: runs.map((r) => {
      const findings: Record<string, number> = {};
      for (const f of r.findings) findings[f.rule] = (findings[f.rule] ?? 0) + 1;
      return {
        task: r.task,
        arm: r.arm,
        run: r.run,
        findings,
        check: r.check,
        durationMs: r.durationMs,
        invoked: r.invoked,
        timedOut: r.timedOut,
      };
    }),
    effects: effects.map((e) => ({ talent: e.talent, with: e.with, without: e.without, neverInvoked: e.neverInvoked })),
  };
}
