/**
 * What `talentd check` tells the server after it ran (docs/design.md "Rule effectiveness"): how
 * many findings each rule that ran produced, by talent — `{talentId: {ruleId: n}}` — and nothing
 * else: no path, no line, no code, so no part of the diff leaves the machine. A rule that ran and
 * found nothing is counted as 0. `--no-report` or TALENTD_REPORT=0 turns it off; a report the
 * server refuses never changes the check's exit code.
 */
import type { CheckResult, ServedObligation } from "./check";
import { call, type ServerOptions } from "./api";

/** The body of `POST /api/findings`. */
export interface FindingsBody {
  resolutionId?: string;
  counts: Record<string, Record<string, number>>;
}

/** Whether this run reports: not with `--no-report`, nor with TALENTD_REPORT set to 0, false, no or off. */
export function reportsFindings(flags: Record<string, unknown>, env: Record<string, string | undefined>): boolean {
  if (flags["no-report"]) return false;
  const v = env.TALENTD_REPORT?.trim().toLowerCase();
  return !(v === "0" || v === "false" || v === "no" || v === "off");
}

/**
 * The counts of a check: every rule whose detectors ran (0), plus one per finding and per rule a
 * finding names in `also` (each under the talent that served it). `taskResolution`: the resolution
 * the task was given, when the caller named one.
 */
export function findingsBody(obligations: readonly ServedObligation[], result: CheckResult, taskResolution?: string): FindingsBody {
  const counts: Record<string, Record<string, number>> = {};
  const ran = new Set(result.rulesRun);
  const talentOf = new Map<string, string>();
  for (const o of obligations) {
    for (const r of o.rules) {
      if (!r.detect || r.detect.length === 0) continue;
      if (!talentOf.has(r.id)) talentOf.set(r.id, o.id);
      if (ran.has(r.id)) (counts[o.id] ??= {})[r.id] = 0;
    }
  }
  const add = (talent: string, rule: string) => {
    const byRule = (counts[talent] ??= {});
    byRule[rule] = (byRule[rule] ?? 0) + 1;
  };
  for (const f of result.findings) {
    add(f.talent, f.rule);
    for (const other of f.also ?? []) add(talentOf.get(other) ?? f.talent, other);
  }
  return { ...(taskResolution ? { resolutionId: taskResolution } : {}), counts };
}

/**
 * The longest a check waits for its report (ms), below the server's timeout when that is shorter: the counts are a courtesy
 * to the server, and a hook must not hold a commit for them the way it waits for the rules themselves.
 */
export const REPORT_TIMEOUT_MS = 2000;

/** Sends the counts; resolves to a line to show when the server did not take them (null when it did or there was nothing to send). */
export async function sendFindings(server: ServerOptions, body: FindingsBody): Promise<string | null> {
  if (Object.keys(body.counts).length === 0) return null;
  try {
    await call({ ...server, timeoutMs: Math.min(server.timeoutMs, REPORT_TIMEOUT_MS) }, "POST", "/api/findings", body);
    return null;
  } catch (e) {
    return `talentd check: the findings' counts were not reported (${(e as Error).message}); the check itself stands`;
  }
}
