/**
 * What the uploaded evals measured (docs/eval.md, `POST /api/evals`): the stored summary's shape, and per talent the
 * effect the newest eval of an organization's projects found — the Rules page (src/activity/rulesPage.tsx) shows all
 * of them, a talent's sheet its own. Read here, below activity, so the talent sheet can show it too.
 */
import type { Database } from "../db/client";
import { iso } from "../lib/time";

/** One arm's effect on a talent (`talentd eval`'s client/eval/summary.ts measures it). */
export interface ArmEffect {
  runs: number;
  findingsPerRun: number;
  /** Fewest and most findings of the talent's rules in one run. */
  findingsSpread: { min: number; max: number };
  /** Passed checks over runs with a check (null: no task of the talent has a check). */
  checkPassRate: number | null;
}
export interface EvalSummary {
  runsPerArm: number;
  tasks: { id: string; talents: string[] }[];
  runs: {
    task: string;
    arm: "with" | "without";
    run: number;
    findings: Record<string, number>;
    check: "pass" | "fail" | null;
    durationMs: number;
    invoked: boolean;
    timedOut: boolean;
  }[];
  effects: { talent: string; with: ArmEffect; without: ArmEffect; neverInvoked: number }[];
}

/** A talent's effect as the latest eval that measured it found (the Rules page's "Measured effect"). */
export interface MeasuredEffect {
  talent: string;
  evalId: string;
  createdAt: string;
  projectId: string;
  projectName: string;
  runsPerArm: number;
  with: ArmEffect;
  without: ArmEffect;
  neverInvoked: number;
}

/** Per talent, its effect in the newest eval of the organization's projects that measured it (the last 200 evals read). */
export async function latestEffects(database: Database, organizationId: string, talentId?: string): Promise<MeasuredEffect[]> {
  const rows = await database.all<{ id: string; created_at: number; project_id: string; name: string; summary: string }>(
    "SELECT e.id, e.created_at, e.project_id, p.name, e.summary FROM evals e JOIN projects p ON p.id = e.project_id " +
      "WHERE p.organization_id = ? ORDER BY e.created_at DESC, e.id DESC LIMIT 200",
    [organizationId],
  );
  const out = new Map<string, MeasuredEffect>();
  for (const r of rows) {
    const s = JSON.parse(r.summary) as EvalSummary;
    for (const e of s.effects) {
      if (out.has(e.talent) || (talentId !== undefined && e.talent !== talentId)) continue;
      out.set(e.talent, {
        talent: e.talent,
        evalId: r.id,
        createdAt: iso(r.created_at),
        projectId: r.project_id,
        projectName: r.name,
        runsPerArm: s.runsPerArm,
        with: e.with,
        without: e.without,
        neverInvoked: e.neverInvoked,
      });
    }
  }
  return [...out.values()].sort((a, b) => (a.talent < b.talent ? -1 : 1));
}
