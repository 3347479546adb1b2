/**
 * Agent Skills interop (docs/talent-format.md, "Agent Skills folders"; docs/design.md).
 *
 * Reading: a `SKILL.md` front matter is mapped to talent fields. The six fields of the Agent
 * Skills specification stay what they are (`name` = id, `description` = summary); the talent's
 * own fields travel in `metadata` (a map of strings: lists and structures as JSON text), and a
 * top-level `version` is accepted too. Relative links of the body become `talent://` pointers.
 * What has no talent field is named as a note (`talents lint`), never silently dropped.
 *
 * Writing: every talent has one canonical SKILL.md folder, the same bytes whether served over
 * the MCP Skills extension or written by `talentd talents export`. Its front matter holds only
 * the six Agent Skills fields (what the reference validator accepts), every value a quoted
 * string in block style (what a strict YAML parser accepts, and what any YAML parser reads back
 * as exactly the `frontmatter` object published beside it).
 */
import { keptByIdentity } from "../lib/kept";
import { digestOf } from "../lib/crypto";
import { TALENT_FIELDS, type FieldTable } from "./fields";
import { ID_PATTERN, SEMVER_PATTERN, type Talent } from "./format";
import { parseFrontMatterYaml, splitFrontMatter } from "./frontMatter";
import { mapLinkTargets } from "./skillLinks";

export const SKILL_FILE = "SKILL.md";
/** The top-level fields the Agent Skills specification defines. */
export const AGENT_SKILLS_FIELDS: readonly string[] = ["name", "description", "license", "compatibility", "allowed-tools", "metadata"];
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
export const SKILL_COMPATIBILITY_MAX = 500;

const DECLARED: FieldTable = TALENT_FIELDS;

/** The talent fields a SKILL.md carries in `metadata`, in the order they are written: `version`, then the declaration's (fields.ts). */
export const TALENT_METADATA_KEYS: readonly string[] = [
  "version",
  ...Object.entries(DECLARED)
    .filter(([key, spec]) => spec.skill && key !== "version")
    .map(([key]) => key),
];

/** A problem (`field`, `problem`) of a front matter, without the file name. */
export interface FieldProblem {
  field: string;
  problem: string;
}

/** The talent fields read from a SKILL.md front matter: what could be decoded, what could not, what is not mapped. */
export interface MappedSkill {
  /** Talent field name → decoded value (lists as arrays, triggers as an object, budget a number). */
  fields: Record<string, unknown>;
  /** Where each field was found, for findings (`metadata.rules`, `version`). */
  labels: Partial<Record<string, string>>;
  /** Values that cannot be decoded: errors, as a malformed TALENT.md field is. */
  problems: FieldProblem[];
  /** What has no talent field (kept in SKILL.md, not in the talent). */
  notes: FieldProblem[];
}

const notMapped = (why: string) => `not mapped: ${why}`;

/**
 * Reads talent fields from a SKILL.md front matter (already a mapping). Lenient in form (a list
 * may be JSON text, a YAML list, or comma-separated text), strict in content: the validator
 * checks the decoded values as it checks TALENT.md's.
 */
export function mapSkillFrontMatter(fm: Record<string, unknown>): MappedSkill {
  const out: MappedSkill = { fields: {}, labels: {}, problems: [], notes: [] };
  const metadata = fm.metadata;
  let meta: Record<string, unknown> = {};
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata !== "object" || Array.isArray(metadata))
      out.problems.push({ field: "metadata", problem: "must be a mapping of keys to values" });
    else meta = metadata as Record<string, unknown>;
  }
  for (const key of Object.keys(fm)) {
    if (AGENT_SKILLS_FIELDS.includes(key) || key === "version") continue;
    out.notes.push({ field: key, problem: notMapped("not an Agent Skills field (served and exported under metadata)") });
  }
  for (const key of ["license", "compatibility", "allowed-tools"]) {
    if (fm[key] !== undefined)
      out.notes.push({ field: key, problem: notMapped("kept in SKILL.md; not part of the talent talentd serves") });
  }

  for (const [key, raw] of Object.entries(meta)) {
    if (!TALENT_METADATA_KEYS.includes(key)) {
      out.notes.push({ field: `metadata.${key}`, problem: notMapped("no talent field of that name (kept in SKILL.md)") });
      continue;
    }
    decodeField(out, key, raw, `metadata.${key}`);
  }
  if (fm.version !== undefined) {
    if (meta.version !== undefined) out.notes.push({ field: "version", problem: notMapped("metadata.version is the one used") });
    else decodeField(out, "version", fm.version, "version");
  }
  return out;
}

function decodeField(out: MappedSkill, key: string, raw: unknown, label: string): void {
  const form = DECLARED[key]?.skill;
  const problem = (p: string): void => {
    out.problems.push({ field: label, problem: p });
  };
  const json = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      problem("is not valid JSON");
      return undefined;
    }
  };
  let value: unknown = raw;
  if (form === "version") {
    const v = readVersion(raw);
    if (v.note) out.notes.push({ field: label, problem: v.note });
    if (v.version === null) return;
    value = v.version;
  } else if (form === "text") {
    if (typeof raw !== "string") return problem("must be a string");
  } else if (form === "list") {
    if (typeof raw === "string") {
      const text = raw.trim();
      value = text.startsWith("[")
        ? json(text)
        : text
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== "");
      if (value === undefined) return;
    }
  } else if (form === "mapping") {
    if (typeof raw === "string") {
      if (!raw.trim().startsWith("{")) return problem('must be a JSON object {"files": [globs], "keywords": [words]} or a mapping');
      value = json(raw.trim());
      if (value === undefined) return;
    }
  } else if (form === "number") {
    if (typeof raw === "string" && /^\s*\d{1,9}\s*$/.test(raw)) value = Number(raw);
  } else if (form === "entries") {
    if (typeof raw === "string") {
      if (!raw.trim().startsWith("[")) return problem("must be a JSON list or a YAML list");
      value = json(raw.trim());
      if (value === undefined) return;
    }
  }
  out.fields[key] = value;
  out.labels[key] = label;
}

/** A SKILL.md version as a semver: `1` and `1.2` are completed with zeros, a leading `v` dropped; otherwise null with a note. */
function readVersion(raw: unknown): { version: string | null; note?: string } {
  if (typeof raw !== "string" && typeof raw !== "number")
    return { version: null, note: notMapped(`${JSON.stringify(raw)} is not a version; the talent is served as 0.0.0`) };
  const text = String(raw).trim();
  if (SEMVER_PATTERN.test(text)) {
    return typeof raw === "number" ? { version: text, note: `read as ${text} (a YAML number: quote it)` } : { version: text };
  }
  const m = /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?$/.exec(text);
  if (m) {
    const version = `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
    return { version, note: `read as ${version}` };
  }
  return { version: null, note: notMapped(`"${text.slice(0, 40)}" is not a semantic version; the talent is served as 0.0.0`) };
}

// ---- links ---------------------------------------------------------------------------------

/**
 * The relative links of a SKILL.md body as `talent://` pointers: a path of this folder's files
 * becomes `<uri>/<path>`, `../<id>/<path>` a pointer into talent `<id>` (checked by the catalog
 * like any pointer). Links that cannot be mapped are left as written and named in `notes`.
 */
export function relativeLinksToPointers(body: string, uri: string, files: ReadonlySet<string>): { body: string; notes: FieldProblem[] } {
  const notes: FieldProblem[] = [];
  const note = (target: string, why: string) => {
    notes.push({ field: "body", problem: notMapped(`link "${target.slice(0, 120)}" ${why}; left as written`) });
  };
  const rewritten = mapLinkTargets(body, (target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#") || target === "") return null;
    if (target.startsWith("/")) return (note(target, "is an absolute path"), null);
    if (/[#?]/.test(target)) return (note(target, "has a fragment or a query"), null);
    let path = target.replace(/^(\.\/)+/, "");
    try {
      path = decodeURI(path);
    } catch {
      return (note(target, "is not a valid path"), null);
    }
    if (/[\s)\]>"'`<]/.test(path)) return (note(target, "has characters a talent:// pointer cannot hold"), null);
    const up = /^\.\.\/([a-z0-9]+(?:-[a-z0-9]+)*)\/(.+)$/.exec(path);
    if (up && !up[2]!.split("/").some((s) => s === "." || s === ".." || s === "")) return `talent://${up[1]}/${up[2]}`;
    if (path.split("/").some((s) => s === "." || s === ".." || s === "")) return (note(target, "leaves the folder"), null);
    if (files.has(path)) return `${uri}/${path}`;
    return (note(target, `names no file of this folder`), null);
  });
  return { body: rewritten, notes };
}

/** A body's own `talent://` link targets (`<uri>/<path>`) as paths relative to the skill's root. */
export function pointersToRelativeLinks(body: string, uri: string): string {
  return mapLinkTargets(body, (target) =>
    target.startsWith(uri + "/") && target.length > uri.length + 1 ? target.slice(uri.length + 1) : null,
  );
}

// ---- writing -------------------------------------------------------------------------------

/** The front matter of a canonical SKILL.md: the Agent Skills fields only, strings only. */
export interface SkillFrontMatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  "allowed-tools"?: string | string[];
  metadata?: Record<string, string>;
}

export interface SkillFile {
  /** Relative to the skill's root, `/`-separated. */
  path: string;
  content: string;
  /** `sha256:<hex>` of the UTF-8 bytes of `content`. */
  digest: string;
  /** Byte length of `content` in UTF-8. */
  size: number;
}

/** A talent as an Agent Skills folder: SKILL.md first, then its other files by path. */
export interface SkillFolder {
  name: string;
  frontmatter: SkillFrontMatter;
  files: SkillFile[];
}

/** The skill name of a talent: its id, or the slug of an expertise (`@org/slug`). */
export function skillNameOf(t: Pick<Talent, "id" | "kind">): string {
  return t.kind === "expertise" ? t.id.slice(t.id.indexOf("/") + 1) : t.id;
}

const folders = keptByIdentity<Talent, SkillFolder>("A talent's SKILL.md folder");

/**
 * The canonical SKILL.md folder of a talent (cached per talent object: talents are immutable).
 * A TALENT.md talent: name, description = summary, its other fields in metadata, its body with
 * own pointers made relative. A SKILL.md talent: its front matter brought into that shape (a
 * field the specification does not define goes into metadata) and its body as written. An
 * expertise carries its publication number as version and its confirmed triggers, either way.
 * Further files are copied byte for byte.
 */
export function skillFolderOf(t: Talent): SkillFolder {
  const hit = folders.get(t);
  if (hit) return hit;
  const name = skillNameOf(t);
  let frontmatter: SkillFrontMatter;
  let body: string;
  if (t.format === "skill") {
    const split = splitFrontMatter(t.files.get(t.mainFile)?.content ?? "");
    const parsed = split ? parseFrontMatterYaml(split.yaml) : null;
    const fm =
      parsed && "value" in parsed && parsed.value && typeof parsed.value === "object" ? (parsed.value as Record<string, unknown>) : {};
    frontmatter = canonicalSkillFrontMatter(name, t.summary, fm);
    if (t.kind === "expertise") {
      // served at its published version, as a TALENT.md expertise is: the publication number
      // and the triggers confirmed for it
      const served: Record<string, string> = { version: t.version };
      if (t.triggers.files.length > 0 || t.triggers.keywords.length > 0) served.triggers = jsonText(t.triggers);
      frontmatter.metadata = { ...frontmatter.metadata, ...served };
    }
    body = (split?.body ?? "").trim();
  } else {
    frontmatter = { name, description: t.summary, metadata: talentMetadata(t) };
    body = pointersToRelativeLinks(t.body, t.uri);
  }
  const files: SkillFile[] = [skillFile(SKILL_FILE, renderSkillMd(frontmatter, body))];
  const others = [...t.files.keys()].filter((p) => p !== t.mainFile && p !== SKILL_FILE).sort();
  for (const path of others) files.push(skillFile(path, t.files.get(path)!.content));
  const folder = { name, frontmatter, files };
  folders.set(t, folder);
  return folder;
}

function skillFile(path: string, content: string): SkillFile {
  return { path, content, digest: digestOf(content), size: Buffer.byteLength(content, "utf8") };
}

/** A TALENT.md talent's fields as metadata strings: text as it is, a number as text, lists and structures as JSON; empty ones left out. */
function talentMetadata(t: Talent): Record<string, string> {
  const m: Record<string, string> = {};
  for (const key of TALENT_METADATA_KEYS) {
    const v: unknown = Reflect.get(t, key);
    if (typeof v === "string") {
      if (v) m[key] = v;
    } else if (typeof v === "number") m[key] = String(v);
    else if (Array.isArray(v)) {
      if (v.length > 0) m[key] = jsonText(v);
    } else if (v !== null && typeof v === "object" && Object.values(v).some((x) => Array.isArray(x) && x.length > 0)) m[key] = jsonText(v);
  }
  return m;
}

/** A SKILL.md front matter as written by anyone, in the canonical shape (nothing dropped). */
export function canonicalSkillFrontMatter(name: string, description: string, fm: Record<string, unknown>): SkillFrontMatter {
  const out: SkillFrontMatter = { name, description };
  const asString = (v: unknown) => (typeof v === "string" ? v : jsonText(v));
  if (fm.license !== undefined && fm.license !== null) out.license = asString(fm.license);
  if (fm.compatibility !== undefined && fm.compatibility !== null) out.compatibility = asString(fm.compatibility);
  const tools = fm["allowed-tools"];
  if (tools !== undefined && tools !== null) {
    if (Array.isArray(tools) && tools.every((x) => typeof x === "string")) {
      if (tools.length > 0) out["allowed-tools"] = [...tools];
    } else out["allowed-tools"] = asString(tools);
  }
  const metadata: Record<string, string> = {};
  const source =
    fm.metadata && typeof fm.metadata === "object" && !Array.isArray(fm.metadata) ? (fm.metadata as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v !== null) metadata[k] = asString(v);
  for (const [k, v] of Object.entries(fm)) {
    if (AGENT_SKILLS_FIELDS.includes(k) || v === undefined || v === null || k in metadata) continue;
    metadata[k] = asString(v);
  }
  if (Object.keys(metadata).length > 0) out.metadata = metadata;
  return out;
}

/** JSON text safe in any YAML scalar: the characters YAML 1.1 parsers read as breaks or BOMs escaped. */
function jsonText(v: unknown): string {
  return escapeOdd(JSON.stringify(v));
}

const ODD = /[\u007f-\u009f\u2028\u2029\ufeff]/g;
const escapeOdd = (s: string) => s.replace(ODD, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const YAML_WORDS = new Set(["y", "n", "yes", "no", "true", "false", "on", "off", "null"]);

/**
 * A YAML scalar that every parser reads back as exactly `s`, in a style a strict parser
 * accepts. A `---` inside a value is written `--\u002d`: the reference validator finds the end
 * of the front matter by the next `---` in the text, wherever it is.
 */
export function yamlScalar(s: string): string {
  if (ID_PATTERN.test(s) && /^[a-z]/.test(s) && !YAML_WORDS.has(s)) return s;
  // single quotes: no escapes, only ' doubled; for printable one-line text (and JSON text)
  if (!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|---/.test(s)) return `'${s.replace(/'/g, "''")}'`;
  return escapeOdd(JSON.stringify(s)).replace(/---/g, "--\\u002d");
}

function yamlKey(k: string): string {
  return /^[A-Za-z][A-Za-z0-9_.\/-]*$/.test(k) && !YAML_WORDS.has(k.toLowerCase()) && !k.includes("---")
    ? k
    : escapeOdd(JSON.stringify(k)).replace(/---/g, "--\\u002d");
}

/** The SKILL.md text of a front matter and a body: block style, every value a quoted string. */
export function renderSkillMd(fm: SkillFrontMatter, body: string): string {
  const lines = [`name: ${yamlScalar(fm.name)}`, `description: ${yamlScalar(fm.description)}`];
  if (fm.license !== undefined) lines.push(`license: ${yamlScalar(fm.license)}`);
  if (fm.compatibility !== undefined) lines.push(`compatibility: ${yamlScalar(fm.compatibility)}`);
  const tools = fm["allowed-tools"];
  if (typeof tools === "string") lines.push(`allowed-tools: ${yamlScalar(tools)}`);
  else if (tools !== undefined && tools.length > 0) lines.push("allowed-tools:", ...tools.map((x) => `  - ${yamlScalar(x)}`));
  if (fm.metadata && Object.keys(fm.metadata).length > 0) {
    lines.push("metadata:", ...Object.entries(fm.metadata).map(([k, v]) => `  ${yamlKey(k)}: ${yamlScalar(v)}`));
  }
  return `---\n${lines.join("\n")}\n---\n${body ? `\n${body}\n` : ""}`;
}

/** True when a main-file text is a SKILL.md (front matter with `name` and no `id`), for expertise uploads. */
export function isSkillMdText(text: string): boolean {
  const split = splitFrontMatter(text);
  if (!split) return false;
  return /^name[ \t]*:/m.test(split.yaml) && !/^id[ \t]*:/m.test(split.yaml);
}
