/**
 * Triggers of an expertise: the deterministic proposal computed from its working content, and
 * the validation of the set an owner/admin confirms (docs/api-expertises.md, "Triggers").
 *
 * The proposal is a pure function of the TALENT.md text: the same content always gives the same
 * proposal, in the same order, each trigger with a short `why` naming where it was found.
 */
import { mapSkillFrontMatter } from "../catalog/skillFormat";
import { globProblem, parseFrontMatterYaml, splitFrontMatter } from "../catalog/validate";
import { controlProblem } from "../lib/controls";
import type { Triggers } from "../catalog/format";
import type { Issue } from "../http/errors";
import { FENCE_GLOBS, KNOWN_EXTENSIONS, KNOWN_FILES, LANGUAGE_GLOBS, STOPWORDS } from "./triggerTables";

export interface ProposedTrigger {
  value: string;
  why: string;
}

export interface TriggerProposal {
  files: ProposedTrigger[];
  keywords: ProposedTrigger[];
}

/** Bounds of a proposal and of a confirmed set. */
export const MAX_PROPOSED_FILES = 20;
export const MAX_PROPOSED_KEYWORDS = 20;
export const MAX_TRIGGER_FILES = 50;
export const MAX_TRIGGER_KEYWORDS = 50;
export const MAX_KEYWORD_LENGTH = 80;

interface Occurrence {
  value: string;
  why: string;
}

/** Adds `value` once: the first reason found is kept, later ones only count. */
class Collector {
  readonly #items = new Map<string, { why: string; order: number; weight: number; counted: boolean }>();
  #order = 0;
  /** `counted`: the weight is a number of mentions, worth showing in `why`. */
  add(o: Occurrence, weight = 1, counted = false): void {
    const cur = this.#items.get(o.value);
    if (cur) cur.weight += weight;
    else this.#items.set(o.value, { why: o.why, order: this.#order++, weight, counted });
  }
  /** In order of first discovery (the traversal order is fixed, so this is deterministic). */
  inOrder(limit: number): ProposedTrigger[] {
    return [...this.#items.entries()]
      .sort(([, a], [, b]) => a.order - b.order)
      .slice(0, limit)
      .map(([value, x]) => ({ value, why: x.why }));
  }
  /** By weight (descending), then first discovery, then value. */
  byWeight(limit: number): ProposedTrigger[] {
    return [...this.#items.entries()]
      .sort(([va, a], [vb, b]) => b.weight - a.weight || a.order - b.order || (va < vb ? -1 : 1))
      .slice(0, limit)
      .map(([value, x]) => ({ value, why: x.counted && x.weight > 1 ? `${x.why}; ${x.weight} weighted mentions` : x.why }));
  }
}

const clip = (s: string, n = 60) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

/**
 * Proposes triggers from the text of TALENT.md or SKILL.md (front matter may be missing or broken: the
 * proposal then reads what it can). Sources, in this order:
 *  files: front matter `triggers.files`; `languages`; code-fence languages; paths and globs
 *         mentioned in rules (title, check, tests) and the body (inline code and plain text);
 *  keywords: front matter `triggers.keywords`; `languages`; words of the title, of the rule
 *         titles and of the body's headings, ranked by how often they occur in the whole text.
 */
export function proposeTriggers(content: string): TriggerProposal {
  const src = proposalSource(content);
  return { files: proposeFiles(src).inOrder(MAX_PROPOSED_FILES), keywords: proposeKeywords(src).byWeight(MAX_PROPOSED_KEYWORDS) };
}

/** The non-empty strings of a list (nothing for anything else). */
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : []);

/** What a proposal reads of the text: the front matter's fields as far as they parse, the body and its lines. */
interface ProposalSource {
  triggers: Record<string, unknown>;
  languages: string[];
  rules: Record<string, unknown>[];
  tests: Record<string, unknown>[];
  title: string;
  body: string;
  bodyLines: string[];
  /** The line of TALENT.md the body starts at. */
  bodyLine: number;
}

function proposalSource(content: string): ProposalSource {
  const text = content.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const split = splitFrontMatter(text);
  let fm: Record<string, unknown> = {};
  if (split) {
    const parsed = parseFrontMatterYaml(split.yaml);
    if ("value" in parsed && parsed.value && typeof parsed.value === "object" && !Array.isArray(parsed.value)) {
      fm = parsed.value as Record<string, unknown>;
    }
  }
  const body = split ? split.body : text;
  // a SKILL.md carries the talent fields in metadata (catalog/skillFormat.ts)
  if (fm.name !== undefined && fm.id === undefined) {
    const fields = mapSkillFrontMatter(fm).fields;
    fm = { ...fields, title: fields.title ?? fm.name };
  }
  const objects = (v: unknown) => (Array.isArray(v) ? v : []).filter((r): r is Record<string, unknown> => !!r && typeof r === "object");
  return {
    triggers: (fm.triggers && typeof fm.triggers === "object" ? fm.triggers : {}) as Record<string, unknown>,
    languages: strings(fm.languages).map((l) => l.trim().toLowerCase()),
    rules: objects(fm.rules),
    tests: objects(fm.tests),
    title: typeof fm.title === "string" ? fm.title : "",
    body,
    bodyLines: body.split("\n"),
    bodyLine: split ? split.bodyLine : 1,
  };
}

/** File globs: declared, by language, by code fence, then paths and globs mentioned in the rules, tests and body. */
function proposeFiles({ triggers, languages, rules, tests, bodyLines, bodyLine }: ProposalSource): Collector {
  const files = new Collector();
  const addGlob = (glob: string, why: string): void => {
    if (!globProblem(glob)) files.add({ value: glob, why });
  };
  for (const g of strings(triggers.files)) addGlob(g.trim(), "declared in the front matter (triggers.files)");
  for (const lang of languages) for (const g of LANGUAGE_GLOBS[lang] ?? []) addGlob(g, `language "${lang}" in the front matter`);
  // Code fences, with their line numbers in TALENT.md.
  let inFence = false;
  bodyLines.forEach((line, i) => {
    const m = /^\s*(`{3,}|~{3,})\s*([A-Za-z0-9_+#.-]*)/.exec(line);
    if (!m) return;
    if (inFence) {
      inFence = false;
      return;
    }
    inFence = true;
    const tag = m[2]!.toLowerCase();
    for (const g of FENCE_GLOBS[tag] ?? []) addGlob(g, `code fence "${m[1]}${m[2]}" at line ${bodyLine + i}`);
  });
  // Paths and globs mentioned in the rules, the tests and the body.
  const mentionSources: [string, string][] = [];
  for (const r of rules) {
    const id = typeof r.id === "string" ? r.id : "?";
    for (const k of ["title", "check"] as const) if (typeof r[k] === "string") mentionSources.push([r[k] as string, `rule ${id} (${k})`]);
  }
  for (const t of tests) {
    const rule = typeof t.rule === "string" ? t.rule : "?";
    for (const k of ["pass", "fail"] as const)
      if (typeof t[k] === "string") mentionSources.push([t[k] as string, `test of ${rule} (${k})`]);
  }
  inFence = false;
  bodyLines.forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) {
      inFence = !inFence;
      return;
    }
    if (!inFence) mentionSources.push([line, `body line ${bodyLine + i}`]);
  });
  for (const [src, where] of mentionSources) {
    for (const token of pathCandidates(src)) {
      for (const [glob, how] of globsForPath(token)) addGlob(glob, `${how} "${clip(token, 50)}" in ${where}`);
    }
  }
  return files;
}

/**
 * Keywords: declared, languages, then words of the title, the rule titles and the headings,
 * ranked by how often they occur in the whole text.
 */
function proposeKeywords({ triggers, languages, rules, title, body, bodyLines, bodyLine }: ProposalSource): Collector {
  let inFence = false;
  const keywords = new Collector();
  for (const k of strings(triggers.keywords)) {
    const kw = k.trim().toLowerCase();
    if (kw.length <= MAX_KEYWORD_LENGTH) keywords.add({ value: kw, why: "declared in the front matter (triggers.keywords)" }, 1000);
  }
  for (const lang of languages) keywords.add({ value: lang, why: `language "${lang}" in the front matter` }, 500);
  // Candidate words come from the title, rule titles and headings; their weight is how often
  // they occur anywhere in the text (title and rule titles count double).
  const candidates: [string, string][] = [];
  if (title) for (const w of words(title)) candidates.push([w, `in the title "${clip(title)}"`]);
  for (const r of rules) {
    if (typeof r.title === "string")
      for (const w of words(r.title)) candidates.push([w, `in the title of rule ${typeof r.id === "string" ? r.id : "?"}`]);
  }
  bodyLines.forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) {
      inFence = !inFence;
      return;
    }
    const h = !inFence && /^#{1,6}\s+(.+)$/.exec(line);
    if (h) for (const w of words(h[1]!)) candidates.push([w, `in the heading "${clip(h[1]!.trim())}" (line ${bodyLine + i})`]);
  });
  const counts = new Map<string, number>();
  const countIn = (s: string, weight: number) => {
    for (const w of words(s)) counts.set(w, (counts.get(w) ?? 0) + weight);
  };
  countIn(title, 2);
  for (const r of rules) {
    if (typeof r.title === "string") countIn(r.title, 2);
    if (typeof r.check === "string") countIn(r.check, 1);
  }
  countIn(body, 1);
  // A plural whose singular also occurs counts as the singular ("tables" → "table").
  const fold = (w: string): string => (w.endsWith("s") && !w.endsWith("ss") && counts.has(w.slice(0, -1)) ? w.slice(0, -1) : w);
  for (const [w, n] of [...counts]) {
    const f = fold(w);
    if (f !== w) {
      counts.set(f, (counts.get(f) ?? 0) + n);
      counts.delete(w);
    }
  }
  const seen = new Set<string>();
  for (const [raw, why] of candidates) {
    const w = counts.has(raw) ? raw : fold(raw);
    if (seen.has(w)) continue;
    seen.add(w);
    keywords.add({ value: w, why }, counts.get(w) ?? 1, true);
  }
  return keywords;
}

/** Lower-case words worth a keyword: ≥ 4 characters, not a stop word, not a number. */
function words(s: string): string[] {
  const out: string[] = [];
  for (const m of s.toLowerCase().matchAll(/[a-z][a-z0-9]*(?:[-+#][a-z0-9]+)*/g)) {
    const w = m[0];
    if (w.length >= 4 && w.length <= MAX_KEYWORD_LENGTH && !STOPWORDS.has(w)) out.push(w);
  }
  return out;
}

/** Tokens of `s` that look like file paths or globs: inline code spans and slash-paths. */
function pathCandidates(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/`([^`\n]{1,200})`/g)) {
    const inner = m[1]!.trim();
    if (!/\s/.test(inner)) out.push(inner);
  }
  const plain = s.replace(/`[^`\n]*`/g, " ");
  for (const m of plain.matchAll(
    /(?:^|[\s("'[])((?:\.{0,2}[\w*.{},-]+\/)+[\w*.{},-]*|[\w-]*\*[\w*.{},-]*|[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s)"'\],;:!?])/g,
  )) {
    out.push(m[1]!.replace(/[.,;:]+$/, ""));
  }
  return out;
}

/** A folder name worth a glob: plain words (a leading dot allowed, as in `.github`). */
const FOLDER_SEGMENT = /^\.?[A-Za-z0-9_][A-Za-z0-9_-]*$/;

/** Looks like a file name: a known name or a known extension. */
function fileLike(name: string): { known: boolean; ext: string } | null {
  if (KNOWN_FILES.has(name)) return { known: true, ext: "" };
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  return ext !== "" && KNOWN_EXTENSIONS.has(ext) ? { known: false, ext } : null;
}

/** The globs a mentioned path suggests, each with how it was derived. */
function globsForPath(token: string): [string, string][] {
  if (token.includes("://") || token.startsWith("@") || token.length > 200) return [];
  const path = token.replace(/^\.\//, "");
  if (path.startsWith("/") || path.split("/").includes("..")) return [];
  const segments = path.split("/").filter(Boolean);
  if (segments.length === 0) return [];
  const folders = path.endsWith("/") ? segments : segments.slice(0, -1);
  const name = path.endsWith("/") ? "" : segments.at(-1)!;
  if (/[*?{[]/.test(path)) {
    // Only globs that name files: folders of plain words (or ** / *) and a final part with a
    // letter; a bare `*.ext`; never `*`, `**`, `**/*`, nor a pattern of identifiers (`getBy*`).
    const foldersOk = folders.every((f) => f === "**" || f === "*" || FOLDER_SEGMENT.test(f));
    const nameOk = name === "" || /^[\w.*?{},[\]-]+$/.test(name);
    const meaningful = /[A-Za-z0-9]/.test(name) || folders.some((f) => FOLDER_SEGMENT.test(f));
    if (foldersOk && nameOk && meaningful && (folders.length > 0 || /^\*\.[\w{},.-]+$/.test(name))) return [[path, "glob"]];
    return [];
  }
  // "package.json/go.mod" uses / as "or": each part that looks like a file counts on its own.
  if (folders.some((f) => fileLike(f))) {
    return segments.flatMap((seg) => (fileLike(seg) ? globsForPath(seg) : []));
  }
  if (!folders.every((f) => FOLDER_SEGMENT.test(f))) return [];
  if (name === "") return [[`${folders.join("/")}/**`, "folder"]];
  const file = fileLike(name);
  if (!file) return [];
  const out: [string, string][] = [file.known ? [`**/${name}`, "file"] : [`**/*.${file.ext}`, "path"]];
  if (folders.length > 0) out.push([`${folders.join("/")}/**`, "folder of"]);
  return out;
}

/** Validates and normalizes a confirmed trigger set; throws nothing, returns the issues. */
export function normalizeTriggers(input: { files?: unknown; keywords?: unknown }): { triggers: Triggers; issues: Issue[] } {
  const issues: Issue[] = [];
  const list = (field: "files" | "keywords", max: number): string[] => {
    const v = input[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      issues.push({ path: field, message: "must be a list of strings" });
      return [];
    }
    if (v.length > max) issues.push({ path: field, message: `at most ${max} entries (got ${v.length})` });
    const out: string[] = [];
    v.forEach((x, i) => {
      if (typeof x !== "string" || x.trim() === "") {
        issues.push({ path: `${field}[${i}]`, message: "must be a non-empty string" });
        return;
      }
      // confirmed triggers reach the client's terminal (`prepare` names the glob that matched)
      const control = controlProblem(x, { bidi: true });
      if (control) issues.push({ path: `${field}[${i}]`, message: control });
      else out.push(x.trim());
    });
    return out;
  };
  const files = list("files", MAX_TRIGGER_FILES);
  files.forEach((g, i) => {
    const problem = globProblem(g);
    if (problem) issues.push({ path: `files[${i}]`, message: `"${g}" ${problem}` });
  });
  const keywords = list("keywords", MAX_TRIGGER_KEYWORDS).map((k) => k.toLowerCase().replace(/\s+/g, " "));
  keywords.forEach((k, i) => {
    if (k.length > MAX_KEYWORD_LENGTH)
      issues.push({ path: `keywords[${i}]`, message: `too long (${k.length} > ${MAX_KEYWORD_LENGTH} characters)` });
  });
  if (issues.length === 0 && files.length + keywords.length === 0) {
    issues.push({ path: "", message: "confirm at least one trigger (a file glob or a keyword)" });
  }
  return { triggers: { files: [...new Set(files)], keywords: [...new Set(keywords)] }, issues };
}
