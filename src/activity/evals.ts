/**
 * Eval summaries (docs/eval.md, docs/api.md "Evals"): `talentd eval --upload` sends per run the findings' counts
 * by rule, the check's result, the duration and whether the agent invoked talentd, and per talent its effect.
 * Checked field by field and stored as rebuilt from the checked fields (anything else, anywhere, is refused:
 * no file, line, code or diff can be stored); listed per project, newest first. Also the resolutions a key
 * prepared, which eval reads before and after a run to tell whether the agent invoked talentd.
 */
import type { Database } from "../db/client";
import { validationFailed, type Issue } from "../http/errors";
import { newId } from "../lib/ids";
import { iso } from "../lib/time";
import { isObject } from "../lib/json";
import type { ArmEffect, EvalSummary } from "../projects/measuredEffect";

export const EVAL_MAX_TASKS = 200;
export const EVAL_MAX_RUNS = 2_000;
const NAME = /^[A-Za-z0-9@][A-Za-z0-9@/._-]{0,99}$/;
const RULE = /^[A-Z][A-Z0-9]{0,15}-\d{1,6}$/;

type Obj = Record<string, unknown>;

/** A reader of one body that collects issues instead of throwing at the first. */
function reader(issues: Issue[]) {
  const fail = (path: string, message: string) => void issues.push({ path, message });
  const only = (v: Obj, path: string, fields: string[]) => {
    for (const k of Object.keys(v)) if (!fields.includes(k)) fail(path ? `${path}.${k}` : k, `not a field (fields: ${fields.join(", ")})`);
  };
  const int = (v: unknown, path: string, min: number, max: number): number => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) fail(path, `must be a whole number from ${min} to ${max}`);
    return typeof v === "number" ? v : 0;
  };
  const num = (v: unknown, path: string, max: number): number => {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > max) fail(path, `must be a number from 0 to ${max}`);
    return typeof v === "number" ? v : 0;
  };
  const name = (v: unknown, path: string): string => {
    if (typeof v !== "string" || !NAME.test(v)) fail(path, "must be an id (letters, digits, @ / . _ -; at most 100)");
    return typeof v === "string" ? v : "";
  };
  const list = (v: unknown, path: string, max: number): unknown[] => {
    if (!Array.isArray(v)) fail(path, "must be a list");
    else if (v.length > max) fail(path, `at most ${max} entries`);
    return Array.isArray(v) ? v.slice(0, max) : [];
  };
  const object = (v: unknown, path: string, fields: string[]): Obj => {
    if (!isObject(v)) {
      fail(path, `must be an object (fields: ${fields.join(", ")})`);
      return {};
    }
    only(v, path, fields);
    return v;
  };
  return { fail, int, num, name, list, object };
}

/** The summary in a body, or 400 validation_failed naming each problem. */
export function readEval(body: unknown): EvalSummary {
  const issues: Issue[] = [];
  const r = reader(issues);
  const b = r.object(body, "", ["runsPerArm", "tasks", "runs", "effects"]);
  const arm = (v: unknown, path: string): ArmEffect => {
    const a = r.object(v, path, ["runs", "findingsPerRun", "findingsSpread", "checkPassRate"]);
    const s = r.object(a.findingsSpread, `${path}.findingsSpread`, ["min", "max"]);
    return {
      runs: r.int(a.runs, `${path}.runs`, 0, EVAL_MAX_RUNS),
      findingsPerRun: r.num(a.findingsPerRun, `${path}.findingsPerRun`, 1_000_000),
      findingsSpread: {
        min: r.int(s.min, `${path}.findingsSpread.min`, 0, 1_000_000),
        max: r.int(s.max, `${path}.findingsSpread.max`, 0, 1_000_000),
      },
      checkPassRate: a.checkPassRate === null ? null : r.num(a.checkPassRate, `${path}.checkPassRate`, 1),
    };
  };
  const summary: EvalSummary = {
    runsPerArm: r.int(b.runsPerArm, "runsPerArm", 1, 50),
    tasks: r.list(b.tasks, "tasks", EVAL_MAX_TASKS).map((t, i) => {
      const x = r.object(t, `tasks.${i}`, ["id", "talents"]);
      return {
        id: r.name(x.id, `tasks.${i}.id`),
        talents: r.list(x.talents, `tasks.${i}.talents`, 100).map((y, j) => r.name(y, `tasks.${i}.talents.${j}`)),
      };
    }),
    runs: r.list(b.runs, "runs", EVAL_MAX_RUNS).map((v, i) => {
      const p = `runs.${i}`;
      const x = r.object(v, p, ["task", "arm", "run", "findings", "check", "durationMs", "invoked", "timedOut"]);
      const findings: Record<string, number> = {};
      for (const [rule, n] of Object.entries(r.object(x.findings, `${p}.findings`, Object.keys(isObject(x.findings) ? x.findings : {})))) {
        if (!RULE.test(rule)) r.fail(`${p}.findings.${rule.slice(0, 40)}`, "not a rule id");
        else findings[rule] = r.int(n, `${p}.findings.${rule}`, 0, 1_000_000);
      }
      if (x.arm !== "with" && x.arm !== "without") r.fail(`${p}.arm`, "must be with or without");
      if (x.check !== null && x.check !== "pass" && x.check !== "fail") r.fail(`${p}.check`, "must be pass, fail or null");
      if (typeof x.invoked !== "boolean") r.fail(`${p}.invoked`, "must be true or false");
      if (typeof x.timedOut !== "boolean") r.fail(`${p}.timedOut`, "must be true or false");
      return {
        task: r.name(x.task, `${p}.task`),
        arm: x.arm as "with" | "without",
        run: r.int(x.run, `${p}.run`, 1, 50),
        findings,
        check: (x.check ?? null) as "pass" | "fail" | null,
        durationMs: r.int(x.durationMs, `${p}.durationMs`, 0, 7 * 86_400_000),
        invoked: x.invoked === true,
        timedOut: x.timedOut === true,
      };
    }),
    effects: r.list(b.effects, "effects", EVAL_MAX_TASKS * 10).map((v, i) => {
      const x = r.object(v, `effects.${i}`, ["talent", "with", "without", "neverInvoked"]);
      return {
        talent: r.name(x.talent, `effects.${i}.talent`),
        with: arm(x.with, `effects.${i}.with`),
        without: arm(x.without, `effects.${i}.without`),
        neverInvoked: r.int(x.neverInvoked, `effects.${i}.neverInvoked`, 0, EVAL_MAX_RUNS),
      };
    }),
  };
  if (issues.length > 0) throw validationFailed(issues.slice(0, 20));
  return summary;
}

/** Stores a checked summary for the project (one row). */
export async function recordEval(database: Database, projectId: string, uploadedBy: string, s: EvalSummary, now = Date.now()) {
  const id = newId("evl");
  await database.writeJob({
    statements: [
      {
        sql:
          "INSERT INTO evals (id, project_id, created_at, uploaded_by, runs_per_arm, tasks, runs, summary) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        args: [id, projectId, now, uploadedBy, s.runsPerArm, s.tasks.length, s.runs.length, JSON.stringify(s)],
      },
    ],
  });
  return { evalId: id, createdAt: iso(now), runs: s.runs.length, talents: s.effects.length };
}

/** The project's evals, newest first (at most `limit`). */
export async function listEvals(database: Database, projectId: string, limit = 50) {
  const rows = await database.all<{ id: string; created_at: number; uploaded_by: string; summary: string }>(
    "SELECT id, created_at, uploaded_by, summary FROM evals WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
    [projectId, limit],
  );
  return rows.map((r) => {
    const s = JSON.parse(r.summary) as EvalSummary;
    return { evalId: r.id, createdAt: iso(r.created_at), uploadedBy: r.uploaded_by, ...s };
  });
}

const KEY_RESOLUTIONS = {
  sqlite:
    "SELECT r.id, r.created_at, r.via, (SELECT group_concat(talent_id, char(10)) FROM " +
    "(SELECT talent_id FROM resolution_items i WHERE i.resolution_id = r.id ORDER BY position)) AS talents " +
    "FROM resolutions r WHERE r.project_id = ? AND r.author_id = ? ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
  postgres:
    "SELECT r.id, r.created_at, r.via, (SELECT string_agg(talent_id, chr(10) ORDER BY position) FROM resolution_items i " +
    "WHERE i.resolution_id = r.id) AS talents FROM resolutions r WHERE r.project_id = ? AND r.author_id = ? " +
    "ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
};

/** The newest resolutions of the project prepared by this key (or token), with their talents in served order. */
export async function keyResolutions(database: Database, projectId: string, authorId: string, limit: number) {
  const rows = await database.all<{ id: string; created_at: number; via: string; talents: string | null }>(
    KEY_RESOLUTIONS[database.dialect],
    [projectId, authorId, limit],
  );
  return rows.map((r) => ({
    resolutionId: r.id,
    createdAt: iso(r.created_at),
    via: r.via,
    talents: r.talents ? r.talents.split("\n") : [],
  }));
}
