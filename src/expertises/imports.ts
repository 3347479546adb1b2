/**
 * Import of existing agent rule files as expertise drafts: pure functions, no database. Each file
 * (AGENTS.md, CLAUDE.md, GEMINI.md, `.cursor/rules/*.mdc`, `.cursorrules`,
 * `.github/copilot-instructions.md`, `.github/instructions/*.instructions.md`, or any other
 * Markdown) becomes a TALENT.md text: the title from its first heading (else the file name), one
 * advisory rule per imperative bullet or numbered item, triggers from the front matter's `globs`,
 * `alwaysApply` or `applyTo` (else the folder the file sits in), and the original text kept
 * verbatim as the body. The route (routes.ts) writes the drafts; nothing here is published.
 */
import type { Triggers } from "../catalog/format";
import { hasUnseen } from "../catalog/contentUnseen";
import { globProblem } from "../catalog/validateFields";
import { SLUG_MAX } from "./model";
import { plain, readsAsRule } from "./importWords";

export { isImperative } from "./importWords";

/** The limits of one import request (docs/design.md "Importing rule files"). */
export const IMPORT_LIMITS = {
  files: 20,
  fileBytes: 128 * 1024,
  totalBytes: 1024 * 1024,
  /** Rules taken from one file; the items after it are left in the body (a note says so). */
  rules: 50,
  pathLength: 300,
} as const;

export type ImportFormat =
  | "agents-md"
  | "claude-md"
  | "gemini-md"
  | "cursor-rule"
  | "cursorrules"
  | "copilot-instructions"
  | "copilot-path-instructions"
  | "markdown";

/** A file as the request carries it. */
export interface ImportFile {
  path: string;
  content: string;
}

export interface ImportedRule {
  id: string;
  severity: "advisory";
  title: string;
  check: string;
}

/** What one file becomes, before its slug is made unique in the organization. */
export interface ImportDraft {
  path: string;
  format: ImportFormat;
  slug: string;
  title: string;
  summary: string;
  triggers: Triggers;
  rules: ImportedRule[];
  /** What the person should know: rules left out, no trigger found, a glob dropped. */
  notes: string[];
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The format of a file, by its name (an upload carries no folder). */
export function formatOf(path: string): ImportFormat {
  const name = baseName(path);
  const lower = name.toLowerCase();
  if (lower === "agents.md") return "agents-md";
  if (lower === "claude.md" || lower === "claude.local.md") return "claude-md";
  if (lower === "gemini.md") return "gemini-md";
  if (lower.endsWith(".mdc")) return "cursor-rule";
  if (lower === ".cursorrules") return "cursorrules";
  if (lower === "copilot-instructions.md") return "copilot-instructions";
  if (lower.endsWith(".instructions.md")) return "copilot-path-instructions";
  return "markdown";
}

/** Why a path is refused, or null. Paths are relative, with `/` (a `\` is taken as one). */
export function importPathProblem(path: string): string | null {
  if (path.length === 0) return "must not be empty";
  if (path.length > IMPORT_LIMITS.pathLength) return `too long (${path.length} > ${IMPORT_LIMITS.pathLength} characters)`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path) || hasUnseen(path)) return "must not contain control or invisible characters";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "must be relative (the client sends paths from the current folder)";
  if (path.split("/").some((s) => s === "..")) return "must not contain .. segments";
  return null;
}

/** A path as written: `\` → `/`, no leading `./`. */
export function normalizePath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
}

// ---- front matter (read leniently: Cursor writes `globs: *.ts`, which YAML reads as an alias) ----

/** `key: value` lines and `- item` lists of a front matter block; values unquoted, lists kept as lists. */
export function readLooseFrontMatter(text: string): { fields: Record<string, string | string[]>; body: string; bodyStart: number } {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const empty = { fields: {}, body: src, bodyStart: 0 };
  if (!src.startsWith("---\n")) return empty;
  const end = src.indexOf("\n---", 3);
  if (end < 0) return empty;
  const lines = src.slice(4, end).split("\n");
  const fields: Record<string, string | string[]> = {};
  let last: string | null = null;
  for (const line of lines) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    const item = /^\s+-\s+(.*)$/.exec(line);
    if (kv) {
      last = kv[1]!;
      const v = kv[2]!.trim();
      fields[last] = v.startsWith("[") && v.endsWith("]") ? splitList(v.slice(1, -1)) : unquote(v);
    } else if (item && last) {
      const prev = fields[last];
      fields[last] = [...(Array.isArray(prev) ? prev : prev ? [prev] : []), unquote(item[1]!.trim())];
    }
  }
  const after = src.indexOf("\n", end + 4);
  return { fields, body: after < 0 ? "" : src.slice(after + 1), bodyStart: after < 0 ? src.length : after + 1 };
}

const unquote = (v: string) => (/^(["']).*\1$/.test(v) ? v.slice(1, -1) : v);
const splitList = (v: string) =>
  v
    .split(",")
    .map((x) => unquote(x.trim()))
    .filter((x) => x !== "");

/** A field as a list of globs: a list, or a comma-separated text. */
function globList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : splitList(v)).map((g) => g.trim()).filter((g) => g !== "");
}

// ---- title, rules ------------------------------------------------------------------------------

/** Lines of the text outside fenced code blocks (a fence's own lines and content become ""). */
export function proseLines(body: string): string[] {
  let fence: string | null = null;
  return body.split("\n").map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length) fence = null;
      return "";
    }
    if (m) {
      fence = m[1]!;
      return "";
    }
    return line;
  });
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/**
 * An ATX heading's text (up to 3 spaces, 1 to 6 `#`, white space, the text less its closing `#`s
 * and white space), or null: read by hand, as `/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/` read it, since
 * that pattern backtracked cubically over a run of spaces inside the heading.
 */
export function headingText(line: string): string | null {
  let i = 0;
  while (i < 3 && isSpace(line[i])) i++;
  let hashes = 0;
  while (line[i + hashes] === "#") hashes++;
  if (hashes < 1 || hashes > 6 || !isSpace(line[i + hashes])) return null;
  const spaces = i + hashes;
  i = spaces;
  while (isSpace(line[i])) i++;
  // only white space after the #s: the text is its last character, when one is left after the first
  if (i >= line.length) return i - spaces >= 2 ? line[i - 1]! : null;
  let end = line.length;
  while (end > i && isSpace(line[end - 1])) end--;
  while (end > i && line[end - 1] === "#") end--;
  while (end > i && isSpace(line[end - 1])) end--;
  return line.slice(i, Math.max(end, i + 1));
}

/** The first ATX heading's text, or null. */
export function firstHeading(body: string): string | null {
  for (const line of proseLines(body)) {
    const text = headingText(line);
    if (text !== null) return plain(text);
  }
  return null;
}

/** A bullet or numbered item with its continuation lines: its text and the body lines it spans (0-based). */
export interface ListItem {
  text: string;
  lines: number[];
}

/** Bullet and numbered items with their continuation lines, in order. */
export function listItems(body: string): string[] {
  return listItemsAt(body).map((i) => i.text);
}

/** Bullet and numbered items with the lines of the body each spans. */
export function listItemsAt(body: string): ListItem[] {
  const items: ListItem[] = [];
  let current: { indent: number; parts: string[]; lines: number[] } | null = null;
  const flush = () => {
    if (current) items.push({ text: current.parts.join(" "), lines: current.lines });
    current = null;
  };
  for (const [n, line] of proseLines(body).entries()) {
    // trimmed first: `\s+(.*\S)\s*$` backtracked quadratically over a marker followed by spaces only
    const m = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(\S.*)$/.exec(line.trimEnd());
    if (m) {
      flush();
      current = { indent: m[1]!.length, parts: [m[2]!.trim()], lines: [n] };
    } else if (current && line.trim() !== "" && /^\s+/.test(line) && !/^\s*#/.test(line)) {
      current.parts.push(line.trim());
      current.lines.push(n);
    } else flush();
  }
  flush();
  return items;
}

/** An item that did not become a rule: its first line (of the body, 0-based), text, why, and the lines it spans. */
export interface LeftItem {
  line: number;
  text: string;
  reason: string;
  lines: number[];
}

export const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/** A rule's one-line title: the item's first sentence when the whole is longer than a title may be. */
function titleOf(text: string): string {
  if (text.length <= 160) return text;
  const sentence = /^(.{20,159}?[.!?])\s/.exec(text)?.[1];
  return sentence ?? cut(text, 160);
}

/** The prefix of generated rule ids: the slug's initials, upper-case, 2 to 4 characters, starting with a letter. */
export function rulePrefix(slug: string): string {
  const words = slug.split("-").filter((w) => /^[a-z]/.test(w));
  let p = words
    .map((w) => w[0]!)
    .join("")
    .toUpperCase()
    .slice(0, 4);
  const first = (words[0] ?? "").replace(/[^a-z0-9]/g, "").toUpperCase();
  if (p.length < 2) p = `${p}${first.slice(p.length, 2)}`;
  if (p.length < 2) p = `${p}RL`.slice(0, 2);
  return /^[A-Z]/.test(p) ? p : `R${p}`.slice(0, 4);
}

/**
 * The rules of a body: each item that reads as a rule (an instruction or an obligation, importWords.ts) once,
 * numbered from 001, advisory; `left`, the items that did not become one, with why (lines of the body, 0-based).
 */
export function rulesOf(body: string, slug: string): { rules: ImportedRule[]; skipped: number; left: LeftItem[] } {
  const prefix = rulePrefix(slug);
  const seen = new Map<string, string>();
  const rules: ImportedRule[] = [];
  const left: LeftItem[] = [];
  let skipped = 0;
  for (const item of listItemsAt(body)) {
    const raw = item.text;
    const at = { line: item.lines[0]!, text: raw, lines: item.lines };
    if (!readsAsRule(raw)) {
      left.push({ ...at, reason: "not an instruction: it neither opens with a verb nor says must, should, never or always" });
      continue;
    }
    const text = plain(raw.replace(/^\[[ xX]\]\s+/, ""));
    const twin = seen.get(text.toLowerCase());
    if (twin) {
      left.push({ ...at, reason: `the same as rule ${twin}` });
      continue;
    }
    if (rules.length >= IMPORT_LIMITS.rules) {
      skipped++;
      seen.set(text.toLowerCase(), "(over the limit)");
      left.push({ ...at, reason: `over the limit of ${IMPORT_LIMITS.rules} rules per file` });
      continue;
    }
    const id = `${prefix}-${String(rules.length + 1).padStart(3, "0")}`;
    seen.set(text.toLowerCase(), id);
    rules.push({ id, severity: "advisory", title: titleOf(text), check: cut(text, 600) });
  }
  return { rules, skipped, left };
}

// ---- triggers, names ---------------------------------------------------------------------------

/** The folder a file's rules apply to: its own, less the tool's folder (`.cursor/rules`, `.github/instructions`, `.github`). */
export function baseFolder(path: string): string {
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  const tool = /(^|\/)(\.cursor\/rules|\.github\/instructions|\.github)(\/.*)?$/.exec(dir);
  return tool ? dir.slice(0, tool.index) : dir;
}

/** The triggers of a file: its front matter's globs (`globs`, `applyTo`; `alwaysApply: true` → every file), else its folder. */
export function triggersOf(
  path: string,
  format: ImportFormat,
  fields: Record<string, string | string[]>,
): { triggers: Triggers; notes: string[] } {
  const notes: string[] = [];
  const folder = baseFolder(path);
  const under = (g: string) => (folder === "" ? g : `${folder}/${g}`);
  let globs: string[] = [];
  if (format === "cursor-rule") {
    globs = globList(fields.globs);
    if (globs.length === 0 && String(fields.alwaysApply).toLowerCase() === "true") globs = ["**"];
  } else if (format === "copilot-path-instructions") globs = globList(fields.applyTo);
  else globs = ["**"];
  if (globs.length === 0) {
    notes.push(
      "No globs in the front matter: the tool applies this file when the agent asks for it; write triggers, or ask for a proposal.",
    );
  }
  const files: string[] = [];
  for (const g of globs) {
    const glob = under(g.replace(/^\/+/, ""));
    const problem = globProblem(glob);
    if (problem) notes.push(`The glob "${g}" was left out: it ${problem}.`);
    else if (!files.includes(glob)) files.push(glob);
  }
  return { triggers: { files, keywords: [] }, notes };
}

/** A slug from a file's path: its folders and name, lower-case, without the tools' folders and suffixes. */
export function slugOf(path: string): string {
  const name = baseName(path)
    .replace(/\.instructions\.md$/i, "")
    .replace(/\.(mdc|md|markdown|txt)$/i, "")
    .replace(/^\.+/, "");
  const folder = baseFolder(path);
  const slug = `${folder}-${name}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX - 4)
    .replace(/-+$/, "");
  return slug === "" ? "imported" : slug;
}

/** A title from the file name when the text has no heading: `react-hooks.mdc` → "React hooks", with its folder. */
function titleFromName(path: string): string {
  const name = baseName(path)
    .replace(/\.instructions\.md$/i, "")
    .replace(/\.(mdc|markdown|txt)$/i, "")
    .replace(/^\.+/, "")
    .replace(/[-_]+/g, " ")
    .trim();
  const folder = baseFolder(path);
  const title = name.charAt(0).toUpperCase() + name.slice(1);
  return folder === "" ? title : `${title} (${folder})`;
}

const FORMAT_NAMES: Record<ImportFormat, string> = {
  "agents-md": "AGENTS.md",
  "claude-md": "Claude Code memory file",
  "gemini-md": "Gemini CLI context file",
  "cursor-rule": "Cursor project rule",
  cursorrules: "Cursor rules file",
  "copilot-instructions": "Copilot repository instructions",
  "copilot-path-instructions": "Copilot path instructions",
  markdown: "Markdown rules",
};

/** What one file becomes (its slug not yet unique in the organization). */
export function draftOf(file: ImportFile): ImportDraft {
  const path = normalizePath(file.path);
  const format = formatOf(path);
  const fm = readLooseFrontMatter(file.content);
  const slug = slugOf(path);
  const description = typeof fm.fields.description === "string" ? fm.fields.description : "";
  const { triggers, notes } = triggersOf(path, format, fm.fields);
  const { rules, skipped } = rulesOf(fm.body, slug);
  if (rules.length === 0) notes.push("No imperative bullet or numbered item: the draft has no rules yet; write them from the body.");
  if (skipped > 0)
    notes.push(`${skipped} more item${skipped === 1 ? "" : "s"} left in the body: at most ${IMPORT_LIMITS.rules} rules per file.`);
  const origin = `Imported from ${path} (${FORMAT_NAMES[format]})`;
  return {
    path,
    format,
    slug,
    title: cut(firstHeading(fm.body) ?? titleFromName(path), 80),
    summary: cut(description.trim() !== "" ? `${description.trim()} (${origin}.)` : `${origin}.`, 300),
    triggers,
    rules,
    notes,
  };
}
