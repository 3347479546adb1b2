/**
 * The one validator of the talent format, used by the catalog loader, `talentd talents lint`
 * and the expertise publication. It checks one talent on its own; links between talents
 * (requires, conflicts, pointers into other talents) are checked by the index.
 */
import { digestOf } from "../lib/crypto";
import { estimateTokens, ID_PATTERN, POINTER_PATTERN, type Finding, type Talent, type TalentFile } from "./format";
import { frontMatterKeys, readFields, renderCompact, TALENT_FIELDS, type FieldTable } from "./fields";
import { parseFrontMatterYaml, splitFrontMatter } from "./frontMatter";
import {
  mapSkillFrontMatter,
  relativeLinksToPointers,
  SKILL_COMPATIBILITY_MAX,
  SKILL_DESCRIPTION_MAX,
  SKILL_NAME_MAX,
  TALENT_METADATA_KEYS,
} from "./skillFormat";

export { globProblem, parseFrontMatterYaml, splitFrontMatter };
import { controlProblem } from "../lib/controls";
import { checkContent, type ContentFinding, frontMatterSampleLines } from "./contentCheck";
import { checkControls, globProblem, readStr, type Add } from "./validateFields";

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
  /**
   * The content check's findings a person may acknowledge (contentCheck.ts), when asked for and not
   * strict; refused kinds (invisible and control characters) are among `findings`.
   */
  content?: (ContentFinding & { path: string })[];
  /** SKILL.md only: what has no talent field (kept in SKILL.md), as `not mapped: …` problems. They refuse nothing. */
  notes: Finding[];
}

/** The front matter of the main file as a mapping, and the body after it; null (with the finding) when there is none. */
function readFrontMatter(text: string | undefined, add: Add): { data: Record<string, unknown>; body: string } | null {
  if (text === undefined) {
    add("file", "missing TALENT.md (or SKILL.md)");
    return null;
  }
  const split = splitFrontMatter(text);
  if (!split) {
    add("front matter", "missing: the file must start with a YAML block between --- lines");
    return null;
  }
  const parsed = parseFrontMatterYaml(split.yaml, 2);
  if ("error" in parsed) {
    add("front matter", parsed.error);
    return null;
  }
  const fm = parsed.value;
  if (fm === null || typeof fm !== "object" || Array.isArray(fm)) {
    add("front matter", "must be a YAML mapping");
    return null;
  }
  return { data: fm as Record<string, unknown>, body: split.body };
}

/** Findings on a SKILL.md's talent fields named where they were written (`metadata.rules[TS-001].check`). */
export function relabel(add: Add, labels: Partial<Record<string, string>>): Add {
  return (field, problem) => {
    const key = /^[a-z]+/.exec(field)?.[0] ?? field;
    // a field that was not written is named where it would be: in metadata
    const label = labels[key] ?? ((TALENT_METADATA_KEYS as readonly string[]).includes(key) ? `metadata.${key}` : undefined);
    add(label ? label + field.slice(key.length) : field, problem);
  };
}

/** The id and summary of a talent, the talent fields and how findings name them. */
interface Header {
  id: string;
  summary: string;
  /** The front matter itself for TALENT.md; the fields decoded from `metadata` (and a top-level `version`) for SKILL.md. */
  fields: Record<string, unknown>;
  addField: Add;
}

/** A SKILL.md's own fields (name, description, license, compatibility, allowed-tools) and its talent fields from `metadata`. */
function skillHeader(data: Record<string, unknown>, add: Add, findings: Finding[], note: (n: Omit<Finding, "file">) => void): Header {
  const mapped = mapSkillFrontMatter(data);
  for (const p of mapped.problems) add(p.field, p.problem);
  for (const n of mapped.notes) note(n);
  const id = readStr(data, "name", SKILL_NAME_MAX, add);
  const summary = readStr(data, "description", SKILL_DESCRIPTION_MAX, add);
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
  const addField = relabel(add, mapped.labels);
  // metadata values are JSON texts: what they decode to is checked too (once: a plain value was just checked)
  const said = new Set(findings.map((f) => `${f.field}\0${f.problem}`));
  checkControls(
    mapped.fields,
    "",
    relabel((field, problem) => void (said.has(`${field}\0${problem}`) || add(field, problem)), mapped.labels),
  );
  return { id, summary, fields: mapped.fields, addField };
}

/** A TALENT.md's id and summary; any field the format does not have is a finding. */
function talentHeader(data: Record<string, unknown>, add: Add, fields: FieldTable): Header {
  const known = frontMatterKeys(fields);
  for (const key of Object.keys(data)) if (!known.has(key)) add(key, "unknown field");
  return { id: readStr(data, "id", 64, add), summary: readStr(data, "summary", 300, add), fields: data, addField: add };
}

/**
 * The folder's files, the body (a SKILL.md's relative links as pointers) and its pointers; control
 * characters and broken pointers into the folder are findings.
 */
function readFiles(src: TalentSource, mainFile: string, rawBody: string, uri: string, isSkill: boolean, report: Reporter) {
  const files = new Map<string, TalentFile>();
  for (const [path, content] of Object.entries(src.files)) files.set(path, { path, content, digest: digestOf(content) });
  let body = rawBody.trim();
  const bodyProblem = controlProblem(body);
  if (bodyProblem) report.add("body", bodyProblem);
  for (const [path, content] of Object.entries(src.files)) {
    const problem = path === mainFile ? null : controlProblem(content, { cr: true });
    if (problem) report.findings.push({ file: src.label(path), field: "content", problem });
  }
  if (isSkill) {
    // the relative links of a SKILL.md become pointers an agent can follow with svc_deepen
    const linked = relativeLinksToPointers(body, uri, new Set(Object.keys(src.files)));
    body = linked.body;
    for (const n of linked.notes) report.note(n);
  }
  const pointers = [...new Set(body.match(POINTER_PATTERN) ?? [])].map((p) => p.replace(/[.,;:]+$/, ""));
  // Pointers into this talent's own folder are checked here; others by the index.
  for (const p of pointers) {
    if (p.startsWith(uri + "/")) {
      const path = p.slice(uri.length + 1);
      if (!src.files[path]) report.add("body", `pointer ${p}: no file "${path}" in this talent`);
    }
  }
  return { files, body, pointers };
}

/** What validateTalent checks beyond the format. */
export interface ValidateOptions {
  /**
   * Run the content check (contentCheck.ts) with these allowed link hosts. `strict` (public
   * talents): every finding refuses the talent; otherwise only the refused kinds do, and the others
   * come back under `content` for a person to acknowledge.
   */
  content?: { linkHosts?: readonly string[]; strict: boolean };
  /** The field declarations to read (fields.ts); a test extends them. */
  fields?: FieldTable;
}

/** The content check over every file of the folder; refusing findings go to `findings`, the rest are returned. */
function checkedContent(
  src: TalentSource,
  mainFile: string,
  opts: NonNullable<ValidateOptions["content"]>,
  findings: Finding[],
): (ContentFinding & { path: string })[] {
  const out: (ContentFinding & { path: string })[] = [];
  for (const [path, text] of Object.entries(src.files)) {
    const samples = path === mainFile ? frontMatterSampleLines(text) : undefined;
    for (const f of checkContent(text, { linkHosts: opts.linkHosts, samples })) {
      if (f.refused || opts.strict)
        findings.push({ file: src.label(path), field: "content", problem: `line ${f.line}, column ${f.column}: ${f.message}` });
      else out.push({ ...f, path });
    }
  }
  return out;
}

/** Where a validation's findings and notes go. */
interface Reporter {
  findings: Finding[];
  notes: Finding[];
  add: Add;
  note(n: Omit<Finding, "file">): void;
}

/** The id a talent must carry: its folder's name in the catalog, an expertise's own id (its slug) on the server. */
function idMismatch(id: string, src: TalentSource): string {
  if (src.kind === "expertise") return `"${id}" must be the expertise's id "${src.folder}" (the slug it was created with)`;
  return `"${id}" ≠ folder name "${src.folder}"`;
}

/**
 * Validates one talent folder; returns the talent (null if any finding), every finding, and
 * the notes of a SKILL.md folder (what has no talent field: docs/talent-format.md).
 */
export function validateTalent(src: TalentSource, opts: ValidateOptions = {}): ValidationResult {
  const isSkill = src.files["TALENT.md"] === undefined && src.files["SKILL.md"] !== undefined;
  const mainFile = isSkill ? "SKILL.md" : "TALENT.md";
  const file = src.label(mainFile);
  const findings: Finding[] = [];
  const notes: Finding[] = [];
  const add: Add = (field, problem) => {
    findings.push({ file, field, problem });
  };
  const report: Reporter = { findings, notes, add, note: (n) => notes.push({ file, ...n }) };
  const text = src.files[mainFile];
  const front = readFrontMatter(text, add);
  if (!front) return { talent: null, findings, notes };
  const { data } = front;
  checkControls(data, "", add);
  const uri = src.uri ?? `talent://${src.folder}`;
  const declared = opts.fields ?? TALENT_FIELDS;
  const header = isSkill ? skillHeader(data, add, findings, report.note) : talentHeader(data, add, declared);
  const { id, summary, addField } = header;
  // a SKILL.md needs only name and description: its other fields are optional, and checked as TALENT.md's when present
  const f = readFields({ fields: header.fields, data, isSkill, id, summary, add, addField, got: {} }, declared);
  const budgetGiven = !isSkill || (header.fields.budget !== undefined && header.fields.budget !== null);
  if (id) {
    if (!ID_PATTERN.test(id))
      add(isSkill ? "name" : "id", `"${id}" is not a valid id (1–64 chars, lower-case letters and digits separated by single -)`);
    else if (id !== src.folder) add(isSkill ? "name" : "id", idMismatch(id, src));
  }
  const { files, body, pointers } = readFiles(src, mainFile, front.body, uri, isSkill, report);
  const content = opts.content ? checkedContent(src, mainFile, opts.content, findings) : undefined;
  const compact = renderCompact({ ...f, title: f.title || src.folder, body }, declared);
  const tokens = estimateTokens(compact);
  if (budgetGiven && tokens > f.budget) addField("budget", `compact form is ${tokens} tokens, over its budget of ${f.budget}`);
  if (findings.length > 0) return { talent: null, findings, notes, content };
  return {
    findings,
    notes,
    content,
    talent: {
      id: src.kind === "expertise" ? uri.slice("talent://".length) : id,
      kind: src.kind ?? "talent",
      format: isSkill ? "skill" : "talent",
      ...f,
      ruleCount: f.rules.length,
      body,
      uri,
      mainFile,
      files,
      pointers,
      // rendered on each access rather than kept: ~2.5 KB a talent (docs/performance.md)
      get compact(): string {
        return renderCompact(this, declared);
      },
      compactDigest: digestOf(compact),
      tokens,
      digest: digestOf(text!),
    },
  };
}
