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
import { LANGUAGE_GLOBS, STOPWORDS } from "./triggerTables";

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

/** Adds `value` once: the first reason found is kept. */
class Collector {
  readonly #items = new Map<string, string>();
  add(o: Occurrence): void {
    if (!this.#items.has(o.value)) this.#items.set(o.value, o.why);
  }
  /** In order of first discovery (the traversal order is fixed, so this is deterministic). */
  inOrder(limit: number): ProposedTrigger[] {
    return [...this.#items.entries()].slice(0, limit).map(([value, why]) => ({ value, why }));
  }
}

const clip = (s: string, n = 60) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

/**
 * Proposes triggers from the text of TALENT.md or SKILL.md (front matter may be missing or broken: the
 * proposal then reads what it can). Only what the author declared, never words of prose (a `res.json`
 * in a sentence is no glob of JSON files), in this order:
 *  files: front matter `triggers.files`; the globs of the `languages`; the rules' detector `files`;
 *  keywords: front matter `triggers.keywords`; the `languages`; the words of the id and of the title
 *         (not stop words).
 */
export function proposeTriggers(content: string): TriggerProposal {
  const src = proposalSource(content);
  return { files: proposeFiles(src).inOrder(MAX_PROPOSED_FILES), keywords: proposeKeywords(src).inOrder(MAX_PROPOSED_KEYWORDS) };
}

/**
 * The triggers written in the front matter (`triggers`, or a SKILL.md's `metadata.triggers`), normalized;
 * null when none are written or they do not pass the confirmation's checks. They count as confirmed.
 */
export function declaredTriggers(content: string): Triggers | null {
  const { triggers } = proposalSource(content);
  if (triggers.files === undefined && triggers.keywords === undefined) return null;
  const { triggers: normalized, issues } = normalizeTriggers({ files: triggers.files, keywords: triggers.keywords });
  return issues.length === 0 ? normalized : null;
}

/** The non-empty strings of a list (nothing for anything else). */
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : []);

/** What a proposal reads of the text: the front matter's fields as far as they parse. */
interface ProposalSource {
  triggers: Record<string, unknown>;
  languages: string[];
  rules: Record<string, unknown>[];
  id: string;
  title: string;
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
  // a SKILL.md carries the talent fields in metadata (catalog/skillFormat.ts)
  if (fm.name !== undefined && fm.id === undefined) {
    const fields = mapSkillFrontMatter(fm).fields;
    fm = { ...fields, id: fm.name, title: fields.title ?? fm.name };
  }
  const objects = (v: unknown) => (Array.isArray(v) ? v : []).filter((r): r is Record<string, unknown> => !!r && typeof r === "object");
  return {
    triggers: (fm.triggers && typeof fm.triggers === "object" ? fm.triggers : {}) as Record<string, unknown>,
    languages: strings(fm.languages).map((l) => l.trim().toLowerCase()),
    rules: objects(fm.rules),
    id: typeof fm.id === "string" ? fm.id : "",
    title: typeof fm.title === "string" ? fm.title : "",
  };
}

/** File globs: declared, by language, then the globs the rules' detectors apply to. */
function proposeFiles({ triggers, languages, rules }: ProposalSource): Collector {
  const files = new Collector();
  const addGlob = (glob: string, why: string): void => {
    if (!globProblem(glob)) files.add({ value: glob, why });
  };
  for (const g of strings(triggers.files)) addGlob(g.trim(), "declared in the front matter (triggers.files)");
  for (const lang of languages) for (const g of LANGUAGE_GLOBS[lang] ?? []) addGlob(g, `language "${lang}" in the front matter`);
  for (const r of rules) {
    const id = typeof r.id === "string" ? r.id : "?";
    const detectors = Array.isArray(r.detect) ? r.detect : [];
    detectors.forEach((d, i) => {
      const globs = d && typeof d === "object" ? strings((d as Record<string, unknown>).files) : [];
      for (const g of globs) if (!g.trim().startsWith("!")) addGlob(g.trim(), `files of rule ${id}'s detector ${i + 1}`);
    });
  }
  return files;
}

/** Keywords: declared, languages, then the words of the id and the title. */
function proposeKeywords({ triggers, languages, id, title }: ProposalSource): Collector {
  const keywords = new Collector();
  for (const k of strings(triggers.keywords)) {
    const kw = k.trim().toLowerCase();
    if (kw.length <= MAX_KEYWORD_LENGTH) keywords.add({ value: kw, why: "declared in the front matter (triggers.keywords)" });
  }
  for (const lang of languages) keywords.add({ value: lang, why: `language "${lang}" in the front matter` });
  for (const w of words(id)) keywords.add({ value: w, why: `in the id "${id}"` });
  for (const w of words(title)) keywords.add({ value: w, why: `in the title "${clip(title)}"` });
  return keywords;
}

/** Lower-case words worth a keyword: ≥ 3 characters, not a stop word, not a number. */
function words(s: string): string[] {
  const out: string[] = [];
  for (const m of s.toLowerCase().matchAll(/[a-z][a-z0-9]*(?:[+#][a-z0-9]+)*/g)) {
    const w = m[0];
    if (w.length >= 3 && w.length <= MAX_KEYWORD_LENGTH && !STOPWORDS.has(w)) out.push(w);
  }
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
