/**
 * Which detectors may block a commit (docs/talent-format.md "Detectors", docs/precision.md): a
 * hook that blocks for nothing gets removed, so a rule's detectors block only when the rule says
 * `blocks: true` and carries its figure measured on real history, `measured: {findings, precision,
 * commits}`, that earns it: at least 20 findings at 90% precision or more, or, for a rule of a
 * security talent, no false positive over at least 20 commits it ran on. Every other detector's
 * findings are advisory. This module imports nothing else of the server.
 */

/** A rule's detectors replayed over real history: its findings, the share of them labelled true, the commits it ran on. */
export interface Measured {
  findings: number;
  /** True findings / labelled findings, 0 to 1; absent with no finding. */
  precision?: number;
  commits: number;
}

export const EARNS = { findings: 20, precision: 0.9, securityCommits: 20 } as const;

type Add = (field: string, problem: string) => void;

/** Reads `rules[i].measured`; reports what is malformed and returns undefined then. */
export function readMeasured(raw: unknown, label: string, add: Add): Measured | undefined {
  if (raw === undefined || raw === null) return undefined;
  const at = `${label}.measured`;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    add(at, "must be a mapping {findings, precision?, commits}");
    return undefined;
  }
  const o = raw as Record<string, unknown>;
  let ok = true;
  for (const key of Object.keys(o))
    if (!["findings", "precision", "commits"].includes(key)) add(`${at}.${key}`, "unknown field"), (ok = false);
  const count = (k: "findings" | "commits"): void => {
    if (typeof o[k] !== "number" || !Number.isInteger(o[k]) || (o[k] as number) < 0)
      add(`${at}.${k}`, "must be a whole number ≥ 0"), (ok = false);
  };
  count("findings");
  count("commits");
  const p = o.precision;
  if (p !== undefined && (typeof p !== "number" || p < 0 || p > 1)) add(`${at}.precision`, "must be a number from 0 to 1"), (ok = false);
  if (!ok) return undefined;
  return { findings: o.findings as number, ...(p !== undefined ? { precision: p as number } : {}), commits: o.commits as number };
}

/** Why a rule's `blocks: true` is not earned, or null when it is (or the rule does not ask to block). */
export function blockingProblem(
  rule: { severity: string; blocks?: boolean; measured?: Measured; detect?: unknown[] },
  security: boolean,
): string | null {
  if (!rule.blocks) return null;
  if (!rule.detect || rule.detect.length === 0) return "blocks only a rule with detectors";
  if (rule.severity !== "blocking") return "an advisory rule's detectors cannot block";
  const m = rule.measured;
  if (!m) return "needs the figure that earns it: measured: {findings, precision, commits} from bun run bench precision";
  const precise = m.precision !== undefined && m.precision >= EARNS.precision && m.findings >= EARNS.findings;
  const clean = security && (m.findings === 0 || m.precision === 1) && m.commits >= EARNS.securityCommits;
  if (precise || clean) return null;
  return (
    `not earned by measured (${m.findings} findings, precision ${m.precision ?? "-"}, ${m.commits} commits): ` +
    `a detector blocks with ≥ ${EARNS.findings} findings at ≥ ${EARNS.precision * 100}% precision, or, in a security talent, ` +
    `no false positive over ≥ ${EARNS.securityCommits} commits`
  );
}

/** The severity of a rule's detector findings: blocking only for a blocking rule whose `blocks: true` was validated. */
export function detectorSeverity(rule: { severity: string; blocks?: boolean }): "blocking" | "advisory" {
  return rule.severity === "blocking" && rule.blocks === true ? "blocking" : "advisory";
}
