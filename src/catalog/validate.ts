/**
 * The one validator of the talent format, used by the catalog loader, `talentd talents lint`
 * and the expertise publication. It checks one talent on its own; links between talents
 * (requires, conflicts, pointers into other talents) are checked by the index.
 */
import { digestOf } from "../lib/crypto";
import {
  estimateTokens,
  ID_PATTERN,
  POINTER_PATTERN,
  RULE_ID_PATTERN,
  SEMVER_PATTERN,
  type ConformanceTest,
  type Finding,
  type Talent,
  type TalentFile,
  type TalentRule,
  type Triggers,
} from "./format";
import { renderCompact } from "./compact";
import { parseFrontMatterYaml, splitFrontMatter } from "./frontMatter";
import {
  mapSkillFrontMatter,
  relativeLinksToPointers,
  SKILL_COMPATIBILITY_MAX,
  SKILL_DESCRIPTION_MAX,
  SKILL_NAME_MAX,
  TALENT_METADATA_KEYS,
} from "./skillFormat";

export { parseFrontMatterYaml, splitFrontMatter };
import { proveDetectors, readDetectors } from "./detect";
import { blockingProblem, readMeasured } from "./measured";
import { controlProblem } from "../lib/controls";

export interface TalentSource {
  /** Folder name (public talents) or slug (expertises): the id the talent must carry. */
  folder: string;
  /** Relative path → text content. */
  files: Record<string, string>;
  /** How findings name a file, e.g. `talents/<folder>/TALENT.md`. */
  label: (path: string) => string;
  kind?: "talent" | "expertise";
  /** URI of the talent; default `talent://<folder>`. For expertises `talent://@org/slug`. */
  uri?: string;
}

export interface ValidationResult {
  talent: Talent | null;
  findings: Finding[];
  /** SKILL.md only: what has no talent field (kept in SKILL.md), as `not mapped: …` problems. They refuse nothing. */
  notes: Finding[];
}

const TALENT_FIELDS = new Set([
  "id",
  "title",
  "summary",
  "version",
  "roles",
  "languages",
  "triggers",
  "requires",
  "conflicts",
  "budget",
  "rules",
  "tests",
]);

type Add = (field: string, problem: string) => void;

/**
 * Every string of the front matter (keys and values, at any depth) free of control characters:
 * the client prints titles, checks and patterns on members' terminals. Findings name the field
 * (`rules[TS-001].title`, `triggers.files[0]`).
 */
function checkControls(v: unknown, field: string, add: Add): void {
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
function readStr(data: Record<string, unknown>, field: string, max: number, add: Add, required = true): string {
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

function readStrList(data: Record<string, unknown>, field: string, add: Add, pattern?: RegExp, what?: string): string[] {
  const v = data[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    add(field, "must be a list of strings");
    return [];
  }
  if (pattern) for (const x of v as string[]) if (!pattern.test(x)) add(field, `"${x}" is not ${what}`);
  return v as string[];
}

/** Findings on a SKILL.md's talent fields named where they were written (`metadata.rules[TS-001].check`). */
function relabel(add: Add, labels: Partial<Record<string, string>>): Add {
  return (field, problem) => {
    const key = /^[a-z]+/.exec(field)?.[0] ?? field;
    // a field that was not written is named where it would be: in metadata
    const label = labels[key] ?? ((TALENT_METADATA_KEYS as readonly string[]).includes(key) ? `metadata.${key}` : undefined);
    add(label ? label + field.slice(key.length) : field, problem);
  };
}

/**
 * Validates one talent folder; returns the talent (null if any finding), every finding, and
 * the notes of a SKILL.md folder (what has no talent field: docs/talent-format.md).
 */
export function validateTalent(src: TalentSource): ValidationResult {
  const isSkill = src.files["TALENT.md"] === undefined && src.files["SKILL.md"] !== undefined;
  const mainFile = isSkill ? "SKILL.md" : "TALENT.md";
  const file = src.label(mainFile);
  const findings: Finding[] = [];
  const notes: Finding[] = [];
  const add: Add = (field, problem) => {
    findings.push({ file, field, problem });
  };
  const text = src.files[mainFile];
  if (text === undefined) {
    add("file", "missing TALENT.md (or SKILL.md)");
    return { talent: null, findings, notes };
  }
  const split = splitFrontMatter(text);
  if (!split) {
    add("front matter", "missing: the file must start with a YAML block between --- lines");
    return { talent: null, findings, notes };
  }
  const parsed = parseFrontMatterYaml(split.yaml);
  if ("error" in parsed) {
    add("front matter", parsed.error);
    return { talent: null, findings, notes };
  }
  const fm = parsed.value;
  if (fm === null || typeof fm !== "object" || Array.isArray(fm)) {
    add("front matter", "must be a YAML mapping");
    return { talent: null, findings, notes };
  }
  const data = fm as Record<string, unknown>;
  checkControls(data, "", add);
  const uri = src.uri ?? `talent://${src.folder}`;

  let id: string;
  let summary: string;
  // the talent fields and how findings name them: the front matter itself for TALENT.md, the
  // fields decoded from `metadata` (and a top-level `version`) for SKILL.md
  let fields: Record<string, unknown> = data;
  let addField: Add = add;
  if (isSkill) {
    const mapped = mapSkillFrontMatter(data);
    for (const p of mapped.problems) add(p.field, p.problem);
    for (const n of mapped.notes) notes.push({ file, ...n });
    id = readStr(data, "name", SKILL_NAME_MAX, add);
    summary = readStr(data, "description", SKILL_DESCRIPTION_MAX, add);
    if (data.license !== undefined && data.license !== null && typeof data.license !== "string") add("license", "must be a string");
    readStr(data, "compatibility", SKILL_COMPATIBILITY_MAX, add, false);
    const tools = data["allowed-tools"];
    if (
      tools !== undefined &&
      tools !== null &&
      typeof tools !== "string" &&
      !(Array.isArray(tools) && tools.every((x) => typeof x === "string"))
    ) {
      add("allowed-tools", "must be a string or a list of strings");
    }
    fields = mapped.fields;
    addField = relabel(add, mapped.labels);
    // metadata values are JSON texts: what they decode to is checked too (once: a plain value was just checked)
    const said = new Set(findings.map((f) => `${f.field}\0${f.problem}`));
    checkControls(
      fields,
      "",
      relabel((field, problem) => void (said.has(`${field}\0${problem}`) || add(field, problem)), mapped.labels),
    );
  } else {
    for (const key of Object.keys(data)) if (!TALENT_FIELDS.has(key)) add(key, "unknown field");
    id = readStr(data, "id", 64, add);
    summary = readStr(data, "summary", 300, add);
  }
  // A SKILL.md needs only name and description: its other fields are optional, and checked as
  // TALENT.md's when present.
  const given = (key: string) => fields[key] !== undefined && fields[key] !== null;
  const title = isSkill && !given("title") ? id : readStr(fields, "title", 80, addField);
  if (title.includes("\n")) addField("title", "must be one line");
  let version = "0.0.0";
  if (!isSkill || given("version")) {
    version = readStr(fields, "version", 64, addField);
    if (version && !SEMVER_PATTERN.test(version)) addField("version", `"${version}" is not a semantic version (MAJOR.MINOR.PATCH)`);
  }
  if (!isSkill && data.roles === undefined) add("roles", "missing");
  const roles = readStrList(fields, "roles", addField, /^[a-z0-9-]+$/, "a role name (lower-case letters, digits, -)");
  if (!isSkill && data.roles !== undefined && roles.length === 0 && Array.isArray(data.roles)) add("roles", "needs at least one role");
  const languages = readStrList(fields, "languages", addField);
  const triggers = readTriggers(fields.triggers, addField);
  const requires = readStrList(fields, "requires", addField, ID_PATTERN, "a talent id");
  const conflicts = readStrList(fields, "conflicts", addField, ID_PATTERN, "a talent id");
  if (requires.includes(id)) addField("requires", "a talent cannot require itself");
  if (conflicts.includes(id)) addField("conflicts", "a talent cannot conflict with itself");
  for (const r of requires) if (conflicts.includes(r)) addField("conflicts", `"${r}" is both required and in conflict`);
  let budget = 4000;
  if (!given("budget")) {
    if (!isSkill) add("budget", "missing");
  } else if (typeof fields.budget !== "number" || !Number.isInteger(fields.budget) || fields.budget < 100 || fields.budget > 4000) {
    addField("budget", `must be an integer from 100 to 4000 (got ${JSON.stringify(fields.budget)})`);
  } else budget = fields.budget;
  const rules: TalentRule[] = [];
  const tests: ConformanceTest[] = [];
  if (!isSkill || given("rules")) readRules(fields.rules, rules, addField, roles.includes("security"));
  if (!isSkill || given("rules") || given("tests")) readTests(fields.tests, rules, tests, addField, triggers.files);

  if (id) {
    if (!ID_PATTERN.test(id))
      add(isSkill ? "name" : "id", `"${id}" is not a valid id (1–64 chars, lower-case letters and digits separated by single -)`);
    else if (id !== src.folder) add(isSkill ? "name" : "id", `"${id}" ≠ folder name "${src.folder}"`);
  }

  const files = new Map<string, TalentFile>();
  for (const [path, content] of Object.entries(src.files)) files.set(path, { path, content, digest: digestOf(content) });
  let body = split.body.trim();
  const bodyProblem = controlProblem(body);
  if (bodyProblem) add("body", bodyProblem);
  for (const [path, content] of Object.entries(src.files)) {
    const problem = path === mainFile ? null : controlProblem(content, { cr: true });
    if (problem) findings.push({ file: src.label(path), field: "content", problem });
  }
  if (isSkill) {
    // the relative links of a SKILL.md become pointers an agent can follow with svc_deepen
    const linked = relativeLinksToPointers(body, uri, new Set(Object.keys(src.files)));
    body = linked.body;
    for (const n of linked.notes) notes.push({ file, ...n });
  }
  const pointers = [...new Set(body.match(POINTER_PATTERN) ?? [])].map((p) => p.replace(/[.,;:]+$/, ""));
  // Pointers into this talent's own folder are checked here; others by the index.
  for (const p of pointers) {
    if (p.startsWith(uri + "/")) {
      const path = p.slice(uri.length + 1);
      if (!src.files[path]) add("body", `pointer ${p}: no file "${path}" in this talent`);
    }
  }

  const partial = { title: title || src.folder, summary, rules, body };
  const compact = renderCompact(partial);
  const tokens = estimateTokens(compact);
  if ((!isSkill || given("budget")) && tokens > budget)
    addField("budget", `compact form is ${tokens} tokens, over its budget of ${budget}`);

  if (findings.length > 0) return { talent: null, findings, notes };
  return {
    findings,
    notes,
    talent: {
      id: src.kind === "expertise" ? uri.slice("talent://".length) : id,
      kind: src.kind ?? "talent",
      format: isSkill ? "skill" : "talent",
      title,
      summary,
      version,
      roles,
      languages,
      triggers,
      requires,
      conflicts,
      budget,
      rules,
      ruleCount: rules.length,
      tests,
      body,
      uri,
      mainFile,
      files,
      pointers,
      // rendered on each access rather than kept: ~2.5 KB a talent (docs/performance.md)
      get compact(): string {
        return renderCompact(this);
      },
      compactDigest: digestOf(compact),
      tokens,
      digest: digestOf(text),
    },
  };
}

function readTriggers(v: unknown, add: (field: string, problem: string) => void): Triggers {
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

function readRules(v: unknown, rules: TalentRule[], add: (field: string, problem: string) => void, security = false): void {
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

function readTests(
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
