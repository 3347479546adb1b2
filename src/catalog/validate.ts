/**
 * The one validator of the talent format, used by the catalog loader, `talentd talents lint`
 * and the expertise publication. It checks one talent on its own; links between talents
 * (requires, conflicts, pointers into other talents) are checked by the index.
 */
import type * as YamlModule from "yaml";
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
import { proveDetectors, readDetectors } from "./detect";

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
}

const TALENT_FIELDS = new Set([
  "id", "title", "summary", "version", "roles", "languages", "triggers", "requires", "conflicts", "budget", "rules", "tests",
]);
const SKILL_FIELDS = new Set(["name", "description", "license", "allowed-tools", "metadata", "compatibility"]);

/** Splits `---\nYAML\n---\nbody`; null when there is no front matter. */
export function splitFrontMatter(text: string): { yaml: string; body: string; bodyLine: number } | null {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!src.startsWith("---\n")) return null;
  const end = src.indexOf("\n---", 4);
  if (end < 0) return null;
  const after = src.indexOf("\n", end + 4);
  const yaml = src.slice(4, end + 1);
  const body = after < 0 ? "" : src.slice(after + 1);
  return { yaml, body, bodyLine: yaml.split("\n").length + 2 };
}

/** Validates one talent folder; returns the talent (null if any finding) and every finding. */
export function validateTalent(src: TalentSource): ValidationResult {
  const isSkill = src.files["TALENT.md"] === undefined && src.files["SKILL.md"] !== undefined;
  const mainFile = isSkill ? "SKILL.md" : "TALENT.md";
  const file = src.label(mainFile);
  const findings: Finding[] = [];
  const add = (field: string, problem: string): void => {
    findings.push({ file, field, problem });
  };
  const text = src.files[mainFile];
  if (text === undefined) {
    add("file", "missing TALENT.md (or SKILL.md)");
    return { talent: null, findings };
  }
  const split = splitFrontMatter(text);
  if (!split) {
    add("front matter", "missing: the file must start with a YAML block between --- lines");
    return { talent: null, findings };
  }
  const parsed = parseFrontMatterYaml(split.yaml);
  if ("error" in parsed) {
    add("front matter", parsed.error);
    return { talent: null, findings };
  }
  const fm = parsed.value;
  if (fm === null || typeof fm !== "object" || Array.isArray(fm)) {
    add("front matter", "must be a YAML mapping");
    return { talent: null, findings };
  }
  const data = fm as Record<string, unknown>;
  const allowed = isSkill ? SKILL_FIELDS : TALENT_FIELDS;
  for (const key of Object.keys(data)) if (!allowed.has(key)) add(key, "unknown field");

  const str = (field: string, max: number, required = true): string => {
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
  };
  const strList = (field: string, pattern?: RegExp, what?: string): string[] => {
    const v = data[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
      add(field, "must be a list of strings");
      return [];
    }
    if (pattern) for (const x of v as string[]) if (!pattern.test(x)) add(field, `"${x}" is not ${what}`);
    return v as string[];
  };

  let id: string;
  let title: string;
  let summary: string;
  let version = "0.0.0";
  let roles: string[] = [];
  let languages: string[] = [];
  let triggers: Triggers = { files: [], keywords: [] };
  let requires: string[] = [];
  let conflicts: string[] = [];
  let budget = 4000;
  const rules: TalentRule[] = [];
  const tests: ConformanceTest[] = [];

  if (isSkill) {
    id = str("name", 64);
    title = id;
    summary = str("description", 1024);
  } else {
    id = str("id", 64);
    title = str("title", 80);
    summary = str("summary", 300);
    version = str("version", 64);
    if (version && !SEMVER_PATTERN.test(version)) add("version", `"${version}" is not a semantic version (MAJOR.MINOR.PATCH)`);
    if (data.roles === undefined) add("roles", "missing");
    roles = strList("roles", /^[a-z0-9-]+$/, "a role name (lower-case letters, digits, -)");
    if (data.roles !== undefined && roles.length === 0 && Array.isArray(data.roles)) add("roles", "needs at least one role");
    languages = strList("languages");
    triggers = readTriggers(data.triggers, add);
    requires = strList("requires", ID_PATTERN, "a talent id");
    conflicts = strList("conflicts", ID_PATTERN, "a talent id");
    if (requires.includes(id)) add("requires", "a talent cannot require itself");
    if (conflicts.includes(id)) add("conflicts", "a talent cannot conflict with itself");
    for (const r of requires) if (conflicts.includes(r)) add("conflicts", `"${r}" is both required and in conflict`);
    if (data.budget === undefined) add("budget", "missing");
    else if (typeof data.budget !== "number" || !Number.isInteger(data.budget) || data.budget < 100 || data.budget > 4000) {
      add("budget", `must be an integer from 100 to 4000 (got ${JSON.stringify(data.budget)})`);
    } else budget = data.budget;
    readRules(data.rules, rules, add);
    readTests(data.tests, rules, tests, add);
  }
  if (id) {
    if (!ID_PATTERN.test(id)) add(isSkill ? "name" : "id", `"${id}" is not a valid id (1–64 chars, lower-case letters and digits separated by single -)`);
    else if (id !== src.folder) add(isSkill ? "name" : "id", `"${id}" ≠ folder name "${src.folder}"`);
  }

  const uri = src.uri ?? `talent://${src.folder}`;
  const files = new Map<string, TalentFile>();
  for (const [path, content] of Object.entries(src.files)) files.set(path, { path, content, digest: digestOf(content) });
  const body = split.body.trim();
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
  if (!isSkill && tokens > budget) add("budget", `compact form is ${tokens} tokens, over its budget of ${budget}`);

  if (findings.length > 0) return { talent: null, findings };
  return {
    findings,
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

/**
 * Parses front matter with Bun's native YAML parser (fast: start-up indexes every talent);
 * on failure, or on a repeated top-level key, the `yaml` package gives the precise message.
 */
export function parseFrontMatterYaml(yaml: string): { value: unknown } | { error: string } {
  let value: unknown;
  let failed = false;
  try {
    value = Bun.YAML.parse(yaml);
  } catch {
    failed = true;
  }
  const keys = yaml.match(/^[A-Za-z_][\w-]*(?=\s*:)/gm) ?? [];
  if (!failed && new Set(keys).size === keys.length) return { value };
  // loaded only here: it is a large module, and only a failing file needs its messages
  const { parse: parseYaml, YAMLParseError } = require("yaml") as typeof YamlModule;
  try {
    return { value: parseYaml(yaml, { prettyErrors: false, uniqueKeys: true }) };
  } catch (e) {
    const line = e instanceof YAMLParseError && e.linePos ? ` at line ${e.linePos[0].line + 1}` : "";
    const msg = (e as Error).message.split("\n")[0];
    return { error: `invalid YAML${line}: ${msg}` };
  }
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

function readRules(v: unknown, rules: TalentRule[], add: (field: string, problem: string) => void): void {
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
    for (const key of Object.keys(r)) if (!["id", "severity", "title", "check", "detect"].includes(key)) add(`${at}.${key}`, "unknown field");
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
    const check = typeof r.check === "string" ? r.check.trim() : "";
    if (!check) add(`${label}.check`, "missing");
    else if (check.length > 600) add(`${label}.check`, `too long (${check.length} > 600 characters)`);
    const detect = readDetectors(r.detect, label, add, globProblem);
    rules.push({ id, severity: r.severity as TalentRule["severity"], title, check, ...(detect.length > 0 ? { detect } : {}) });
  });
}

function readTests(
  v: unknown,
  rules: TalentRule[],
  tests: ConformanceTest[],
  add: (field: string, problem: string) => void,
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
    // every detector is proven by the rule's conformance tests (DESIGN §15)
    if (r.id) proveDetectors(r, tests, `rules[${r.id}]`, add);
  }
}
