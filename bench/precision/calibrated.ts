/**
 * The precision harness's calibrated mode (PRECISION_CALIBRATE=1, docs/precision.md): per repository, `talentd
 * calibrate`'s rule (src/client/calibrate.ts proposalOf) applied to the CALIBRATE_HISTORY first-parent commits before
 * the replayed window, then the window's blocked commits counted again with the rules it proposes to advise: what a
 * team that ran `talentd hook install` (which calibrates first) would have been blocked by.
 */
import { proposalOf } from "../../src/client/calibrate";
import { blockedBy, gitIn, replay, type Replay, type stackTalents } from "./replay";

/** The commits calibration reads before the window (calibrate's default history). */
export const CALIBRATE_HISTORY = 200;

type Talents = ReturnType<typeof stackTalents>;

/** The rules calibration on `history` would make advise. */
export function relaxedBy(history: Replay, talents: Talents): string[] {
  const ruleTalent = new Map<string, { security: boolean; now: "blocking" | "advisory" }>();
  for (const t of talents)
    for (const r of t.obligation.rules)
      if (r.detect?.length) ruleTalent.set(r.id, { security: t.security, now: r.detect[0]!.severity ?? r.severity });
  const blocked = new Map<string, Set<string>>();
  for (const f of history.findings) {
    if (f.severity !== "blocking") continue;
    for (const rule of [f.rule, ...(f.also ?? [])]) {
      let set = blocked.get(rule);
      if (!set) blocked.set(rule, (set = new Set()));
      set.add(f.commit);
    }
  }
  const out: string[] = [];
  for (const [rule, commits] of blocked) {
    const t = ruleTalent.get(rule);
    if (!t) continue;
    const p = proposalOf({ blocked: commits.size, ranOn: history.ran.get(rule) ?? 0, now: t.now, security: t.security });
    if (p.proposal === "advise") out.push(rule);
  }
  return out.sort();
}

/** The window's commits still blocked once `relaxed` rules only advise. */
export function blockedAfter(window: Replay, relaxed: readonly string[]): { blocked: number; by: string } {
  const off = new Set(relaxed);
  const still = window.findings.filter((f) => f.severity === "blocking" && ![f.rule, ...(f.also ?? [])].every((r) => off.has(r)));
  return { blocked: new Set(still.map((f) => f.commit)).size, by: blockedBy(still) };
}

/** Calibrates on the `history` commits before the window (from its oldest commit's first parent), or null when the snapshot has none. */
export function calibrationBefore(
  repo: string,
  gitDir: string,
  talents: Talents,
  head: string,
  windowSize: number,
  history = CALIBRATE_HISTORY,
): Replay | null {
  let before: string;
  try {
    before = gitIn(gitDir, ["rev-list", "--first-parent", "--skip", String(windowSize), "-n", "1", head]).trim();
  } catch {
    return null;
  }
  if (!before) return null;
  try {
    return replay(repo, gitDir, talents, history, before);
  } catch {
    return null; // a snapshot without those objects
  }
}
