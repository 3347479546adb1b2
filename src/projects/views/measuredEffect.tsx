/** @jsxImportSource hono/jsx */
/**
 * A talent sheet's "Measured effect" (docs/eval.md): what the latest `talentd eval --upload` of the organization's
 * projects that measured the talent found — findings of its rules per run and the check's pass rate, with and
 * without talentd — with the eval's date, project and run count. Absent: a line saying how to measure it.
 */
import type { MeasuredEffect } from "../measuredEffect";

const rate = (x: number | null) => (x === null ? "no check" : `${Math.round(x * 100)}%`);
/** Findings per run, with their spread (min–max per run) when runs differed. */
export const perRun = (a: MeasuredEffect["with"]) =>
  `${a.findingsPerRun}${a.findingsSpread.min !== a.findingsSpread.max ? ` (${a.findingsSpread.min}–${a.findingsSpread.max})` : ""}`;

const runs = (m: MeasuredEffect) => `${m.with.runs}+${m.without.runs}`;
const checks = (m: MeasuredEffect) =>
  `the task's check passed ${rate(m.with.checkPassRate)} with, ${rate(m.without.checkPassRate)} without.`;
const never = (m: MeasuredEffect) =>
  m.neverInvoked > 0 ? ` (${m.neverInvoked} run${m.neverInvoked === 1 ? "" : "s"} with talentd never invoked it)` : "";

export function MeasuredEffectBlock(props: { m: MeasuredEffect | null }) {
  const m = props.m;
  return (
    <section id="measured-effect" aria-labelledby="measured-effect-h">
      <h2 id="measured-effect-h">Measured effect</h2>
      {m ? (
        <p>
          Findings of its rules per run: <strong>{perRun(m.with)}</strong> with talentd, <strong>{perRun(m.without)}</strong> without;{" "}
          {checks(m)} {runs(m)} runs in {m.projectName}, <time datetime={m.createdAt}>{m.createdAt.slice(0, 10)}</time>
          {never(m)}. A few runs show large effects only.
        </p>
      ) : (
        <p class="muted">Not measured yet: talentd eval --upload runs your agent with and without it and records the difference.</p>
      )}
    </section>
  );
}
