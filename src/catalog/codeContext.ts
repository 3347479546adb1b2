/**
 * What a detector sees of a line (docs/talent-format.md "Detectors"): the line with its comments
 * blanked out (line, block, JSX `{/* *\/}`, Rust `///`, Python `#` and docstrings), and whether
 * it sits in test code inside a product file (Rust `#[cfg(test)]`/`#[test]` items, Python
 * `def test_…`/`class Test…`). One pass over the file per check, by a small lexer per language
 * family; strings are kept (a detector may look for what a string holds) but never read as comments.
 */

type Family = "js" | "html" | "c" | "rust" | "go" | "python" | "hash" | "sql";

interface Syntax {
  line: string[];
  /** `#` starts a comment only at the start of a line or after a blank (shell, YAML, Dockerfile). */
  lineAfterBlank?: boolean;
  block: [string, string][];
  /** Quotes whose string ends at the end of the line. */
  quotes: string[];
  /** Quotes whose string may span lines. */
  multi: string[];
  /** `'x'` is a character literal, a lone `'` a lifetime or label (Rust, Go). */
  chars?: boolean;
  /** Python: triple quotes; a triple-quoted string that starts a statement is a docstring (a comment). */
  triple?: boolean;
}

const C_BLOCK: [string, string][] = [["/*", "*/"]];
const SYNTAX: Record<Family, Syntax> = {
  js: { line: ["//"], block: C_BLOCK, quotes: ['"', "'"], multi: ["`"] },
  html: { line: ["//"], block: [...C_BLOCK, ["<!--", "-->"]], quotes: ['"', "'"], multi: ["`"] },
  c: { line: ["//"], block: C_BLOCK, quotes: ['"', "'"], multi: [] },
  rust: { line: ["//"], block: C_BLOCK, quotes: [], multi: ['"'], chars: true },
  go: { line: ["//"], block: C_BLOCK, quotes: ['"'], multi: ["`"], chars: true },
  python: { line: ["#"], block: [], quotes: ['"', "'"], multi: [], triple: true },
  hash: { line: ["#"], lineAfterBlank: true, block: [], quotes: ['"', "'"], multi: [] },
  sql: { line: ["--"], block: C_BLOCK, quotes: ["'"], multi: [] },
};

const EXT: Record<string, Family> = {};
const families: [Family, string][] = [
  ["js", "ts tsx js jsx mjs cjs mts cts"],
  ["html", "vue svelte astro html htm"],
  ["c", "java cs kt kts scala swift c h cc cpp hpp css scss less dart proto groovy gradle php"],
  ["rust", "rs"],
  ["go", "go"],
  ["python", "py pyi"],
  ["hash", "sh bash zsh yaml yml toml tf tfvars hcl rb r pl conf ini cfg env properties dockerfile"],
  ["sql", "sql"],
];
for (const [f, exts] of families) for (const e of exts.split(" ")) EXT[e] = f;

/** The comment syntax of a path, from its extension or name (Dockerfile, Makefile); null: none known. */
export function familyOf(path: string): Family | null {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (/^(?:Dockerfile|Containerfile|Makefile|\.env|\.gitignore|requirements.*\.txt)/i.test(name)) return "hash";
  const dot = name.lastIndexOf(".");
  return dot < 0 ? null : (EXT[name.slice(dot + 1).toLowerCase()] ?? null);
}

/** The characters where a comment or a string may start, per syntax (ASCII codes): everything else is skipped. */
function starts(s: Syntax): Uint8Array {
  const table = new Uint8Array(128);
  const mark = (c: string): void => void (table[c.charCodeAt(0)] = 1);
  mark("\n");
  for (const l of s.line) mark(l[0]!);
  for (const [open] of s.block) mark(open[0]!);
  for (const q of [...s.quotes, ...s.multi]) mark(q);
  if (s.chars || s.triple) mark("'"), mark('"');
  return table;
}

/** The comment and string ranges of `text` ([start, end) each), in order. */
function classify(text: string, s: Syntax): { comments: [number, number][]; strings: [number, number][] } {
  const comments: [number, number][] = [];
  const strings: [number, number][] = [];
  const n = text.length;
  const table = starts(s);
  const until = (close: string, from: number): number => {
    const at = text.indexOf(close, from);
    return at < 0 ? n : at + close.length;
  };
  let i = 0;
  while (i < n) {
    for (let c = text.charCodeAt(i); i < n && (c > 127 || table[c] === 0); c = text.charCodeAt(++i));
    if (i >= n) break;
    const ch = text[i]!;
    if (ch === "\n") {
      i++;
      continue;
    }
    const line = s.line.find((l) => text.startsWith(l, i));
    const shebang = i === 0 && text.startsWith("#!");
    if (line && !shebang && (!s.lineAfterBlank || i === 0 || /\s/.test(text[i - 1]!))) {
      const end = until("\n", i) - 1;
      comments.push([i, end]);
      i = end;
      continue;
    }
    const block = s.block.find(([open]) => text.startsWith(open, i));
    if (block) {
      const end = until(block[1], i + block[0].length);
      comments.push([i, end]);
      i = end;
      continue;
    }
    if (s.triple && (text.startsWith('"""', i) || text.startsWith("'''", i))) {
      const end = until(text.slice(i, i + 3), i + 3);
      const lineStart = text.lastIndexOf("\n", i - 1) + 1;
      (/^\s*[rRbBuUfF]{0,2}$/.test(text.slice(lineStart, i)) ? comments : strings).push([i, end]);
      i = end;
      continue;
    }
    if (s.chars && ch === "'") {
      const m = /^'(?:\\.[^']{0,8}|[^\\'\n])'/.exec(text.slice(i, i + 12));
      if (m) strings.push([i, i + m[0].length]);
      i += m ? m[0].length : 1;
      continue;
    }
    if (s.quotes.includes(ch) || s.multi.includes(ch)) {
      const multi = s.multi.includes(ch);
      const q = ch.charCodeAt(0);
      let j = i + 1;
      for (let c = text.charCodeAt(j); j < n && c !== q && (multi || c !== 10); c = text.charCodeAt(j)) j += c === 92 ? 2 : 1;
      const end = Math.min(n, text.charCodeAt(j) === q ? j + 1 : j);
      strings.push([i, end]);
      i = end;
      continue;
    }
    i++;
  }
  return { comments, strings };
}

/** `text` with the ranges blanked (newlines kept, so lines keep their numbers and lengths). */
function blank(text: string, ranges: readonly [number, number][]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const [a, b] of ranges) {
    parts.push(text.slice(at, a), text.slice(a, b).replace(/[^\n]/g, " "));
    at = b;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/** A file as its detectors see it, line by line (index: line number - 1). */
export interface FileView {
  /** The line with comments blanked (same length). */
  code: string[];
  /** The line is test code (a test module or function) in a product file. */
  inTest: boolean[];
  /** `unless` expressions already tested on this file (with `$1` filled in): whether each matched. */
  excused?: Map<string, boolean>;
}

/** The view of a file's text for the detectors; without a known comment syntax, the lines as they are. */
export function viewOf(path: string, text: string): FileView {
  const family = familyOf(path);
  if (!family) {
    const lines = text.split("\n");
    return { code: lines, inTest: lines.map(() => false) };
  }
  const { comments, strings } = classify(text, SYNTAX[family]);
  const code = blank(text, comments).split("\n");
  if (family === "rust") {
    const both = [...comments, ...strings].sort((a, b) => a[0] - b[0]);
    return { code, inTest: rustTests(blank(text, both).split("\n")) };
  }
  return { code, inTest: family === "python" ? pythonTests(code) : code.map(() => false) };
}

const RUST_TEST_ATTR = /^\s*#\[(?:cfg\(test\)|test\]|[\w:]*::test\b)/;

/** Rust: an item marked `#[cfg(test)]` or `#[test]` (`#[tokio::test]`), from the attribute to its closing brace or `;`. */
function rustTests(bare: string[]): boolean[] {
  const out = bare.map(() => false);
  for (let i = 0; i < bare.length; i++) {
    if (!RUST_TEST_ATTR.test(bare[i]!)) continue;
    let depth = 0;
    let opened = false;
    let j = i;
    for (; j < bare.length; j++) {
      const l = j === i ? bare[j]!.slice(bare[j]!.indexOf("]") + 1) : bare[j]!;
      for (const ch of l) {
        if (ch === "{") depth++, (opened = true);
        else if (ch === "}") depth--;
        else if (ch === ";" && !opened) depth = -1;
        if (depth <= 0 && (opened || depth < 0)) break;
      }
      if ((opened && depth <= 0) || depth < 0) break;
    }
    for (let k = i; k <= Math.min(j, bare.length - 1); k++) out[k] = true;
    i = j;
  }
  return out;
}

const PY_TEST = /^(\s*)(?:(?:async\s+)?def\s+test_?\w*\s*\(|class\s+Test\w*\b|@pytest\.fixture\b)/;

/** Python: a `def test…`/`class Test…` (or a pytest fixture) and the lines indented under it. */
function pythonTests(code: string[]): boolean[] {
  const out = code.map(() => false);
  for (let i = 0; i < code.length; i++) {
    const m = PY_TEST.exec(code[i]!);
    if (!m) continue;
    const indent = m[1]!.length;
    out[i] = true;
    let j = i + 1;
    const blank = (l: string): boolean => l.trim() === "";
    if (code[i]!.trimStart().startsWith("@")) {
      // the fixture's other decorators and its def
      while (j < code.length && (blank(code[j]!) || /^\s*@/.test(code[j]!))) out[j++] = true;
      if (j < code.length && /^\s*(?:async\s+)?def\b/.test(code[j]!)) out[j++] = true;
    }
    for (; j < code.length; j++) {
      const l = code[j]!;
      // the body is indented deeper; a multi-line signature closes with `)` at the def's depth
      if (!blank(l) && l.length - l.trimStart().length <= indent && !/^\s*\)/.test(l)) break;
      out[j] = true;
    }
    i = j - 1;
  }
  return out;
}

/** A detector ready to run on views: its regex, what it scans beyond the default, its `unless`. */
export interface ViewDetector {
  regex: RegExp;
  scan: ReadonlySet<string>;
  unless?: string;
}

/** The first 4,000 characters of a line are matched (a minified line is not scanned to its end). */
export const LINE_MAX = 4000;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The match when the detector reports line `i` of a file (`raw`: the line as added): not in test code
 * unless it scans tests, on the line without its comments unless it scans comments, and not when
 * its `unless` finds what excuses it in the whole file (`whole`: the file's text, comments blanked).
 */
export function reportsLine(d: ViewDetector, view: FileView, i: number, raw: string, whole: () => string): RegExpExecArray | null {
  if (view.inTest[i] && !d.scan.has("tests")) return null;
  const line = d.scan.has("comments") ? raw : (view.code[i] ?? raw);
  const m = d.regex.exec(line.length > LINE_MAX ? line.slice(0, LINE_MAX) : line);
  if (!m) return null;
  return excused(d, view, m, whole) ? null : m;
}

/** Its `unless` finds what excuses the match in the whole file (an `unless` about `$1` says nothing when the group matched nothing). */
function excused(d: ViewDetector, view: FileView, m: RegExpExecArray, whole: () => string): boolean {
  if (!d.unless || (m[1] === undefined && d.unless.includes("$1"))) return false;
  // one test per file and expression: a detector of bare calls asks the same of each `log(…)` line
  const source = d.unless.replace(/\$1/g, () => escapeRegExp(m[1] ?? ""));
  const key = `${d.regex.flags}/${source}`;
  const known = (view.excused ??= new Map());
  let hit = known.get(key);
  if (hit === undefined) known.set(key, (hit = new RegExp(source, d.regex.flags).test(whole())));
  return hit;
}

/**
 * A `scan: [file]` detector's matches (docs/talent-format.md "Detectors"): its pattern over the whole
 * file, so a construct laid out over several lines (a `catch` whose empty braces sit on the next
 * lines) is seen; comments blanked unless it scans them. Each match is reported at the line it
 * starts on (0-based `line`, `end` the line it ends on), not in test code unless it scans tests, and
 * not when its `unless` excuses it.
 */
export function fileMatches(
  d: ViewDetector,
  view: FileView,
  raw: readonly string[],
  whole: () => string,
): { line: number; end: number; match: RegExpExecArray }[] {
  const text = d.scan.has("comments") ? raw.join("\n") : whole();
  const re = new RegExp(d.regex.source, `${d.regex.flags}g`);
  const out: { line: number; end: number; match: RegExpExecArray }[] = [];
  let line = 0;
  let at = 0; // the text up to `at` holds `line` newlines
  const lineOf = (index: number): number => {
    for (; at < index; at++) if (text.charCodeAt(at) === 10) line++;
    return line;
  };
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0] === "") {
      re.lastIndex++;
      continue;
    }
    const start = lineOf(m.index);
    let end = start;
    for (let k = 0; k < m[0].length; k++) if (m[0].charCodeAt(k) === 10) end++;
    if (view.inTest[start] && !d.scan.has("tests")) continue;
    if (excused(d, view, m, whole)) continue;
    out.push({ line: start, end, match: m });
  }
  return out;
}
