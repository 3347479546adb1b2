/**
 * The readers of a talent's front matter fields for the validator (validate.ts): strings, lists,
 * triggers (their globs checked), rules and tests, each finding named by its field.
 */
import { RULE_ID_PATTERN, type ConformanceTest, type TalentRule, type Triggers } from "./formatBase";
import { proveDetectors, readDetectors } from "./detect";
import { blockingProblem, readMeasured } from "./measured";
import { controlProblem } from "../lib/controls";

/** Records a finding on a field. */
export type Add = (field: string, problem: string) => void;

/**
 * Every string of the front matter (keys and values, at any depth) free of control characters:
 * the client prints titles, checks and patterns on members' terminals. Findings name the field
 * (`rules[TS-001].title`, `triggers.files[0]`).
 */
export function checkControls(v: unknown, field: string, add: Add): void {
  if (typeof v === "string") {
    const problem = controlProblem(v, { bidi: true });
    if (problem) add(field || "front matter", problem);
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => {
      const id = x !== null && typeof x === "object" && typeof (x as { id?: unknown }).id === "string" ? (x as { id: string }).id : "";
      checkControls(x, `${field}[${RULE_ID_PATTERN.test(id) ? id : i}]`, add);
    });
  } else if (v !== null && typeof v === "object") {
    for (const [key, x] of Object.entries(v)) {
      const problem = controlProblem(key, { bidi: true });
      if (problem) add(`${field}${field ? "." : ""}${JSON.stringify(key)}`, `key ${problem}`);
      else checkControls(x, field ? `${field}.${key}` : key, add);
    }
  }
}

/** A string field: trimmed, "" when missing (and a finding when required). */
export function readStr(data: Record<string, unknown>, field: string, max: number, add: Add, required = true): string {
  const v = data[field];
  if (v === undefined || v === null || v === "") {
    if (required) add(field, "missing");
    return "";
  }
  if (typeof v !== "string") {
    add(field, "must be a string");
    return "";
  }
  if (v.length > max) add(field, `too long (${v.length} > ${max} characters)`);
  return v.trim();
}

/** A list of strings field ([] when missing), each matching `pattern` when given. */
export function readStrList(data: Record<string, unknown>, field: string, add: Add, pattern?: RegExp, what?: string): string[] {
  const v = data[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    add(field, "must be a list of strings");
    return [];
  }
  if (pattern) for (const x of v as string[]) if (!pattern.test(x)) add(field, `"${x}" is not ${what}`);
  return v as string[];
}

/** `triggers`: files (globs, each checked) and keywords. */
export function readTriggers(v: unknown, add: (field: string, problem: string) => void): Triggers {
  const out: Triggers = { files: [], keywords: [] };
  if (v === undefined || v === null) return out;
  if (typeof v !== "object" || Array.isArray(v)) {
    add("triggers", "must be a mapping with files and keywords");
    return out;
  }
  const t = v as Record<string, unknown>;
  for (const key of Object.keys(t)) if (key !== "files" && key !== "keywords") add(`triggers.${key}`, "unknown field");
  for (const key of ["files", "keywords"] as const) {
    const list = t[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || list.some((x) => typeof x !== "string" || x.trim() === "")) {
      add(`triggers.${key}`, "must be a list of non-empty strings");
      continue;
    }
    out[key] = list as string[];
  }
  for (const g of out.files) {
    const problem = globProblem(g);
    if (problem) add("triggers.files", `"${g}" ${problem}`);
  }
  for (const k of out.keywords) if (k !== k.toLowerCase()) add("triggers.keywords", `"${k}" must be lower-case`);
  return out;
}

/** Why a file glob is unusable, or null. Shared with expertise trigger confirmation. */
export function globProblem(glob: string): string | null {
  if (glob.length > 200) return "is too long";
  if (glob.startsWith("/")) return "must be relative (no leading /)";
  if (glob.split("/").includes("..")) return "must not contain ..";
  let depth = 0;
  for (const ch of glob) {
    if (ch === "{" || ch === "[") depth++;
    if (ch === "}" || ch === "]") depth--;
    if (depth < 0) return "has unbalanced brackets";
  }
  if (depth !== 0) return "has unbalanced brackets";
  try {
    new Bun.Glob(glob);
  } catch {
    return "is not a valid glob";
  }
  return null;
}

/** `rules`: each with an id, a title, a check and its detectors, appended to `rules`. */
export function readRules(v: unknown, rules: TalentRule[], add: (field: string, problem: string) => void, security = false): void {
  if (v === undefined || v === null) {
    add("rules", "missing (3 to 12 rules)");
    return;
  }
  if (!Array.isArray(v)) {
    add("rules", "must be a list");
    return;
  }
  if (v.length < 3 || v.length > 12) add("rules", `needs 3 to 12 rules (has ${v.length})`);
  const seen = new Set<string>();
  v.forEach((raw, i) => {
    const at = `rules[${i}]`;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      add(at, "must be a mapping with id, severity, title, check");
      return;
    }
    const r = raw as Record<string, unknown>;
    for (const key of Object.keys(r))
      if (!["id", "severity", "title", "check", "detect", "blocks", "measured"].includes(key)) add(`${at}.${key}`, "unknown field");
    const id = typeof r.id === "string" ? r.id : "";
    if (!id) add(`${at}.id`, "missing");
    else if (!RULE_ID_PATTERN.test(id)) add(`${at}.id`, `"${id}" is not a rule id like TS-001`);
    else if (seen.has(id)) add(`${at}.id`, `duplicate rule id "${id}"`);
    seen.add(id);
    const label = id ? `rules[${id}]` : at;
    if (r.severity !== "blocking" && r.severity !== "advisory") add(`${label}.severity`, "must be blocking or advisory");
    const title = typeof r.title === "string" ? r.title.trim() : "";
    if (!title) add(`${label}.title`, "missing");
    else if (title.length > 160) add(`${label}.title`, `too long (${title.length} > 160 characters)`);
    else if (title.includes("\n")) add(`${label}.title`, "must be one line");
    const check = typeof r.check === "string" ? r.check.trim() : "";
    if (!check) add(`${label}.check`, "missing");
    else if (check.length > 600) add(`${label}.check`, `too long (${check.length} > 600 characters)`);
    const detect = readDetectors(r.detect, label, add, globProblem);
    const measured = readMeasured(r.measured, label, add);
    if (r.blocks !== undefined && r.blocks !== true)
      add(`${label}.blocks`, "must be true (or absent: the detectors' findings are advisory)");
    const rule: TalentRule = { id, severity: r.severity as TalentRule["severity"], title, check, ...(detect.length > 0 ? { detect } : {}) };
    if (measured) rule.measured = measured;
    if (r.blocks === true) rule.blocks = true;
    const problem = blockingProblem(rule, security);
    if (problem) add(`${label}.blocks`, problem);
    rules.push(rule);
  });
}

/** `tests`: the conformance tests, each of a rule of this talent; every detector proven by them. */
export function readTests(
  v: unknown,
  rules: TalentRule[],
  tests: ConformanceTest[],
  add: (field: string, problem: string) => void,
  triggerFiles: string[],
): void {
  if (v !== undefined && v !== null && !Array.isArray(v)) {
    add("tests", "must be a list");
    return;
  }
  const list = (v ?? []) as unknown[];
  const ruleIds = new Set(rules.map((r) => r.id));
  list.forEach((raw, i) => {
    const at = `tests[${i}]`;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      add(at, "must be a mapping with rule, pass, fail");
      return;
    }
    const t = raw as Record<string, unknown>;
    for (const key of Object.keys(t)) if (!["rule", "pass", "fail"].includes(key)) add(`${at}.${key}`, "unknown field");
    const rule = typeof t.rule === "string" ? t.rule : "";
    if (!rule) add(`${at}.rule`, "missing");
    else if (!ruleIds.has(rule)) add(`${at}.rule`, `"${rule}" is not a rule of this talent`);
    for (const k of ["pass", "fail"] as const) {
      if (typeof t[k] !== "string" || (t[k] as string).trim() === "") add(`${at}.${k}`, "missing");
    }
    tests.push({ rule, pass: String(t.pass ?? ""), fail: String(t.fail ?? "") });
  });
  for (const r of rules) {
    if (r.severity === "blocking" && r.id && !tests.some((t) => t.rule === r.id)) {
      add("tests", `blocking rule ${r.id} has no conformance test`);
    }
    // every detector is proven by the rule's conformance tests
    if (r.id) proveDetectors(r, tests, `rules[${r.id}]`, add, triggerFiles);
  }
}
