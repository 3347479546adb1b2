/**
 * The project's Activity tab in words (a view over the journal: every event stays recorded and
 * shown): what each call did as a sentence, its result as words from the error code its trace
 * keeps, and the calls of one agent action — designable, prepare, validate of one `talentd check`
 * or hook run — grouped by the run id the client sends, else under their resolution.
 */
import type { TraceEvent } from "../journal/journal";

/** A line of the Activity tab: the action's head call and every call of it (the head included), newest first. */
export interface ActivityRow {
  head: TraceEvent;
  steps: TraceEvent[];
}

/** The longest gap (ms) between a designable call and the prepare_task of the same run. */
export const RUN_GAP_MS = 120_000;

const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const names = (ids: string[]): string => ids.join(", ");

/** Error codes in words; any other code is shown with spaces for underscores. */
const CODE_WORDS: Record<string, string> = {
  unknown_talents: "unknown talent",
  invalid_token: "refused: key or token not valid",
  unauthenticated: "refused: no valid key",
  forbidden: "refused",
  not_found: "not found",
  validation_failed: "invalid request",
  rate_limited: "too many calls",
  payload_too_large: "request too large",
  designation_required: "no talent designated",
  internal_error: "server error",
};

/** The result of a call in words: "ok", or its error code said plainly (never a bare status). */
export function resultWords(e: TraceEvent): string {
  if (e.status < 400) return "ok";
  const code = typeof e.detail?.error === "string" ? e.detail.error : null;
  // the scope the route requires, as its trace recorded it (its descriptor, listed in src/keyRoutes.ts)
  if (code === "insufficient_scope") return e.scope ? `refused: missing scope ${e.scope}` : "refused: missing scope";
  if (code) return CODE_WORDS[code] ?? code.replaceAll("_", " ");
  return e.status >= 500 ? "server error" : "failed";
}

/** The verdict counts of a report's summary, e.g. "1 fail, 2 pass". */
function verdicts(summary: unknown): string {
  const s = (summary ?? {}) as Record<string, unknown>;
  const parts = (["fail", "pass", "not_applicable"] as const)
    .filter((k) => typeof s[k] === "number" && (s[k] as number) > 0)
    .map((k) => `${s[k]} ${k.replace("_", " ")}`);
  return parts.length > 0 ? `: ${parts.join(", ")}` : "";
}

/** What a call did, as a sentence without its subject ("prepared a task with typescript-strict"). */
export function sentenceOf(e: TraceEvent): string {
  const d = e.detail ?? {};
  const changed = [
    e.talentsEntered.length > 0 ? `added ${names(e.talentsEntered)}` : "",
    e.talentsLeft.length > 0 ? `removed ${names(e.talentsLeft)}` : "",
  ].filter(Boolean);
  switch (e.kind) {
    case "prepare_task": {
      const talents = list(d.talents);
      // what the project's context budget cut: designated and frozen, listed by id, not served
      const cut = list(d.notServed);
      const over = cut.length > 0 ? `; over the context budget, not served: ${names(cut)}` : "";
      return (talents.length > 0 ? `prepared a task with ${names(talents)}` : "prepared a task") + over;
    }
    case "designable":
      return "listed the talents its paths designate";
    case "validate":
      return typeof d.talent === "string" ? `read the audit playbook of ${d.talent}` : "read the audit playbook";
    case "record_validation":
      return `recorded verdicts${verdicts(d.summary)}`;
    case "read":
      return "read talent content";
    case "search":
      return "searched the talents' content";
    case "doctor":
      return "checked the project's setup";
    case "catalog":
      return "listed the catalog";
    case "discover":
      return "looked for talents to install";
    case "report_findings": {
      if (typeof d.findings !== "number" || typeof d.rules !== "number") return "reported detector findings (counts only)";
      const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
      return `reported ${plural(d.findings, "detector finding")} on ${plural(d.rules, "rule")} (counts only)`;
    }
    case "hook_rules":
      return "read the project's hook rules";
    case "hook_rules_set":
      return typeof d.changed === "number" ? `changed ${d.changed} hook rule${d.changed === 1 ? "" : "s"}` : "set the project's hook rules";
    case "eval_upload":
      return typeof d.runs === "number" ? `uploaded an eval of ${d.runs} run${d.runs === 1 ? "" : "s"} (counts only)` : "uploaded an eval";
    case "resolutions":
      return "listed the resolutions it prepared";
    case "install":
      return changed.length > 0 ? `installed ${names(e.talentsEntered)}` : "asked to install talents";
    default:
      return [e.kind.replaceAll("_", " "), ...changed].join(": ");
  }
}

/**
 * The rows of a page of events (newest first). The calls a client sent with one run id
 * (`X-Talentd-Run`) by the same author form one row, headed by its prepare_task. Calls without a
 * run id are grouped by a guess: the calls with one resolution id by the same author form one row,
 * headed by its prepare_task; a designable call just before a prepare_task of the same author and
 * client (within RUN_GAP_MS) joins that row. Every event is in exactly one row.
 */
export function groupRows(events: TraceEvent[]): ActivityRow[] {
  const rows: ActivityRow[] = [];
  const byRun = new Map<string, ActivityRow>();
  const byResolution = new Map<string, ActivityRow>();
  const lastRun = new Map<string, ActivityRow>();
  for (const e of events) {
    const who = `${e.authorType}:${e.authorId}\0${e.client ?? ""}`;
    if (e.runId) {
      const runKey = `${e.runId}\0${who}`;
      const row = byRun.get(runKey);
      if (!row) {
        const created = { head: e, steps: [e] };
        byRun.set(runKey, created);
        rows.push(created);
      } else {
        row.steps.push(e);
        if (e.kind === "prepare_task") row.head = e;
      }
      continue;
    }
    const key = e.resolutionId ? `${e.resolutionId}\0${e.authorType}:${e.authorId}` : null;
    let row = key ? byResolution.get(key) : undefined;
    if (!row && e.kind === "designable") {
      const run = lastRun.get(who);
      const oldest = run?.steps.at(-1);
      const joins = run && oldest && run.head.kind === "prepare_task" && !run.steps.some((s) => s.kind === "designable");
      if (joins && oldest.createdAt - e.createdAt <= RUN_GAP_MS) row = run;
    }
    if (row) {
      row.steps.push(e);
      if (e.kind === "prepare_task") row.head = e;
    } else {
      row = { head: e, steps: [e] };
      rows.push(row);
      if (key) byResolution.set(key, row);
    }
    if (key) lastRun.set(who, row);
  }
  return rows;
}
