/**
 * The content check: what in a talent's text could steer the agent it is served to rather than
 * guide its code. Run on every text of a talent (its main file, front matter included, and every
 * reference file) wherever a talent enters: `talents lint`, the start-up load of the catalog and
 * TALENTS_DIR, every expertise write. Two weights:
 * - refused: what a person cannot see (contentUnseen.ts: zero-width characters, variation selectors
 *   outside an emoji, bidi controls, tag characters, every default-ignorable code point, line and
 *   paragraph separators) and control characters — nothing legitimate needs them —; a line longer
 *   than LINE_CAP, and a text the check could not finish within CHECK_BUDGET_MS;
 * - findings: instructions aimed at the agent ("ignore previous instructions", "do not tell the
 *   user", exfiltration, reading credential files to send them), pipe-to-shell and
 *   download-and-execute commands of a URL outside a fenced example marked as such (a fence whose
 *   info string has the word `example`), long base64 or hex blobs, and links in prose (outside
 *   code spans and fenced blocks) to hosts other than the documentation hosts allowed
 *   (CONTENT_LINK_HOSTS; reserved example names and loopback addresses always pass). A person acknowledges an expertise's findings
 *   before it is published; a public talent with any does not load.
 * Instructions are matched in the folded text (contentNormal.ts) of a line joined to the next one;
 * every check is linear in the line's length (contentScan.ts), so a text costs time in proportion
 * to its size (docs/design.md "What the content check refuses, and how fast").
 */
import { foldForPhrases, type Folded } from "./contentNormal";
import { blobsOf, credentialSentAt, exfiltrationAt, pipeToShellAt, proseOf } from "./contentScan";
import { unseenIn } from "./contentUnseen";

/** The kinds of content findings. */
export type ContentKind = "invisible" | "control" | "agent-instruction" | "pipe-to-shell" | "blob" | "link" | "line-length" | "time-budget";

/** One finding: where (1-based line and column of the text given), what, and whether it refuses the text. */
export interface ContentFinding {
  kind: ContentKind;
  refused: boolean;
  line: number;
  column: number;
  message: string;
}

/** The documentation hosts links may point to (and their subdomains); CONTENT_LINK_HOSTS adds to them. */
export const DEFAULT_LINK_HOSTS: readonly string[] = [
  "developer.mozilla.org",
  "docs.python.org",
  "peps.python.org",
  "go.dev",
  "pkg.go.dev",
  "doc.rust-lang.org",
  "rust-lang.github.io",
  "docs.rs",
  "typescriptlang.org",
  "nodejs.org",
  "react.dev",
  "nextjs.org",
  "docs.github.com",
  "owasp.org",
  "rfc-editor.org",
  "datatracker.ietf.org",
  "w3.org",
  "learn.microsoft.com",
  "docs.spring.io",
  "kotlinlang.org",
  "docs.djangoproject.com",
  "fastapi.tiangolo.com",
  "docs.pytest.org",
  "docs.sqlalchemy.org",
  "alembic.sqlalchemy.org",
  "vuejs.org",
  "angular.dev",
  "semver.org",
  "conventionalcommits.org",
  "12factor.net",
  "postgresql.org",
  "sqlite.org",
  "kubernetes.io",
  "docs.docker.com",
  "developer.hashicorp.com",
  "opentelemetry.io",
  "prometheus.io",
  "json-schema.org",
  "spec.openapis.org",
  "swagger.io",
  "pnpm.io",
  "docs.npmjs.com",
  "eslint.org",
  "testing-library.com",
  "playwright.dev",
  "agentskills.io",
  "modelcontextprotocol.io",
  "example.com",
  "example.org",
  "localhost",
];

/** The longest line the check reads (UTF-16 code units): a longer one is refused, its patterns not run. */
export const LINE_CAP = 16_384;
/** The time one text may take; past it the rest of the text is refused unchecked. */
export const CHECK_BUDGET_MS = 1000;

/** C0 but tab, newline and carriage return; DEL; C1. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** One pattern of several written apart (each part stays readable). */
const joined = (...parts: RegExp[]): RegExp => new RegExp(parts.map((p) => p.source).join(""));

const SET_ASIDE = joined(
  /\b(ignore|disregard|forget|override) (all |any )?(the |your )?/,
  /(previous|prior|above|earlier|preceding|system|other) (instructions|rules|prompts?|messages|guidelines)/,
);
const HIDE = joined(
  /\b(do not|don't|never) (tell|inform|mention (this )?to|reveal (this )?to|show) the user\b/,
  /|\bwithout (telling|informing|asking) the user\b/,
);

/** Instructions aimed at the agent rather than at the code it writes, as phrases of the folded text. */
const AGENT_PHRASES: readonly { find: (text: string) => { index: number; 0: string } | null; what: string }[] = [
  { find: (t) => SET_ASIDE.exec(t), what: "tells the agent to set its other instructions aside" },
  { find: (t) => HIDE.exec(t), what: "tells the agent to hide something from the user" },
  { find: exfiltrationAt, what: "tells the agent to exfiltrate data" },
  { find: credentialSentAt, what: "reads a credential or environment file to send it somewhere" },
];

/** A secret read from the environment (a name with TOKEN, SECRET, PASSWORD or KEY in it). */
const ENV_SECRET =
  /(process\.env\.|os\.environ\[["']|os\.getenv\(["']|\$\{?)[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)\b/;

const URL = /\bhttps?:\/\/([^\s/?#)\]>"'`\\]+)/g;

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** Names reserved for examples and tests (RFC 2606, RFC 6761) and loopback addresses: never a real destination. */
const RESERVED_HOST = /(^|\.)(example|test|invalid|localhost)$|^(example\.(com|net|org)|127(\.\d{1,3}){3}|0\.0\.0\.0|\[::1\])$/;

/** A host as written in a URL without its user info, trailing punctuation, port and `www.` (by hand: no pattern backtracks over it). */
function bareHost(host: string): string {
  let h = host.toLowerCase();
  h = h.slice(h.lastIndexOf("@") + 1);
  let end = h.length;
  while (end > 0 && ".,;:!".includes(h[end - 1]!)) end--;
  h = h.slice(0, end);
  const colon = h.lastIndexOf(":");
  if (colon >= 0 && /^\d*$/.test(h.slice(colon + 1))) h = h.slice(0, colon);
  return h.startsWith("www.") ? h.slice(4) : h;
}

/** Whether `host` (as written in a URL: maybe a port, user info, trailing punctuation) is allowed. */
function allowedHost(host: string, allowed: readonly string[]): boolean {
  const h = bareHost(host);
  if (RESERVED_HOST.test(h) || h.endsWith(".example.com")) return true;
  return allowed.some((a) => h === a || h.endsWith(`.${a}`));
}

/** The lines of a text with, for each, whether it lies inside a fenced block marked as an example. */
function linesWithFences(text: string): { line: string; example: boolean; code: boolean }[] {
  const out: { line: string; example: boolean; code: boolean }[] = [];
  let fence: { marker: string; example: boolean } | null = null;
  for (const line of text.split("\n")) {
    const m = line.length <= LINE_CAP ? /^\s*(`{3,}|~{3,})(.*)$/.exec(line) : null;
    if (m && !fence) {
      fence = { marker: m[1]!, example: /\bexample\b/i.test(m[2]!) };
      out.push({ line, example: fence.example, code: true });
      continue;
    }
    if (m && fence && m[1]!.startsWith(fence.marker[0]!) && m[1]!.length >= fence.marker.length && m[2]!.trim() === "") {
      out.push({ line, example: fence.example, code: true });
      fence = null;
      continue;
    }
    out.push({ line, example: fence?.example ?? false, code: fence !== null });
  }
  return out;
}

/**
 * The lines of a main file's front matter that hold code samples rather than prose: the
 * conformance `tests` (pass and fail samples), detector patterns, and a SKILL.md's `metadata`
 * (where an exported talent's rules and tests travel). A fail sample shows the
 * violation on purpose, so it is an example as a marked fence is.
 */
export function frontMatterSampleLines(text: string): Set<number> {
  const lines = text.split("\n");
  const out = new Set<number>();
  if (lines[0]?.trim() !== "---") return out;
  let inTests = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "---") break;
    // a SKILL.md's `metadata` carries a talent's rules and tests as strings (skillFormat.ts)
    if (/^\S/.test(line)) inTests = /^(tests|metadata)\s*:/.test(line);
    if (inTests || /^\s*(?:-\s*)?(pattern|unless)\s*:/.test(line)) out.add(i);
  }
  return out;
}

/** The options of one check: allowed hosts besides the default, sample lines, and (tests) a clock and budget. */
export interface CheckOptions {
  linkHosts?: readonly string[];
  samples?: ReadonlySet<number>;
  clock?: () => number;
  budgetMs?: number;
}

type At = (index: number, kind: ContentKind, refused: boolean, message: string) => void;

/** What a phrase written plainly does not hold: anything outside ASCII but typographic apostrophes and a no-break space. */
const DISGUISED = /[^\x00-\x7f\u2018\u2019\u00a0]/;

/** What a person cannot see and control characters: on every line, whatever its length. */
function checkCharacters(line: string, first: boolean, at: At): void {
  for (const u of unseenIn(line)) {
    if (u.codePoint === 0xfeff && first && u.index === 0) continue; // a byte order mark opening the file
    at(u.index, "invisible", true, `an invisible or direction-changing character (${hex(u.codePoint)}): ${u.what}`);
  }
  for (const m of line.matchAll(CONTROL)) at(m.index, "control", true, `a control character (${hex(m[0].codePointAt(0)!)})`);
}

/** The instructions to the agent that start on a line, in its folded text joined to the next line's. */
function checkPhrases(line: string, folded: Folded, next: { line: string; folded: Folded } | null, at: At): void {
  if (folded.text === "") return;
  const joined = next && next.folded.text !== "" ? `${folded.text} ${next.folded.text}` : folded.text;
  for (const { find, what } of AGENT_PHRASES) {
    const m = find(joined);
    if (!m || m.index >= folded.text.length) continue; // none, or it starts on the next line (found there)
    const stop = m.index + m[0].length;
    const across = stop > folded.text.length;
    const written = across
      ? `${line.slice(folded.origin(m.index))}\n${next!.line.slice(0, next!.folded.origin(stop - folded.text.length - 1))}`
      : line.slice(folded.origin(m.index), folded.origin(stop));
    const notes = [across ? "across two lines" : "", DISGUISED.test(written) ? "written with look-alike or invisible characters" : ""];
    const note = notes.filter((n) => n !== "").join(", ");
    at(
      folded.origin(m.index),
      "agent-instruction",
      false,
      `an instruction aimed at the agent: ${what} ("${m[0].slice(0, 60)}")${note ? `, ${note}` : ""}`,
    );
  }
}

/** A secret of the environment sent to a host not allowed; pipe-to-shell; blobs; links in prose. */
function checkPatterns(line: string, l: { example: boolean; code: boolean }, hosts: readonly string[], at: At): void {
  const secret = ENV_SECRET.exec(line);
  const destination = secret ? [...line.matchAll(URL)].find((u) => !allowedHost(u[1]!, hosts)) : undefined;
  if (secret && destination)
    at(
      secret.index,
      "agent-instruction",
      false,
      `an instruction aimed at the agent: sends a secret of the environment to ${destination[1]}`,
    );
  const pipe = l.example ? -1 : pipeToShellAt(line);
  if (pipe >= 0)
    at(pipe, "pipe-to-shell", false, "a download piped to a shell or executed (mark a fenced example with `example` in its info string)");
  for (const b of blobsOf(line)) at(b.index, "blob", false, `a ${b.what} blob of ${b.length} characters`);
  if (!l.code) {
    for (const m of proseOf(line).matchAll(URL)) {
      if (!allowedHost(m[1]!, hosts)) at(m.index, "link", false, `a link to ${m[1]}, not a documentation host (CONTENT_LINK_HOSTS)`);
    }
  }
}

/** A word some phrase needs (in the folded text): a line without one, beside a line without one, is not matched. */
const TRIGGER = new RegExp(
  [
    /ignore|disregard|forget|override|user|exfiltrate/,
    /|\.env|id_rsa|id_ed25519|\.ssh\/|\.aws\/|\.npmrc|\.netrc|\.pgpass|\.git-credentials|\.kube\//,
  ]
    .map((p) => p.source)
    .join(""),
  "i",
);
const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * The lines' folded texts, made on first need, and whether each holds a trigger word: an ASCII line
 * is asked as written (its fold only lower-cases it and collapses its white space), any other folded first.
 */
function phraseLines(lines: string[]): { folded(i: number): Folded | null; hot(i: number): boolean } {
  const folded = new Map<number, Folded | null>();
  const hot = new Map<number, boolean>();
  const foldedOf = (i: number): Folded | null => {
    if (!folded.has(i)) {
      const line = lines[i];
      folded.set(i, line === undefined || line.length > LINE_CAP ? null : foldForPhrases(line));
    }
    return folded.get(i)!;
  };
  const hotOf = (i: number): boolean => {
    if (!hot.has(i)) {
      const line = lines[i];
      const ok = line !== undefined && line.length <= LINE_CAP;
      hot.set(i, ok && (NOT_ASCII.test(line) ? TRIGGER.test(foldedOf(i)!.text) : TRIGGER.test(line)));
    }
    return hot.get(i)!;
  };
  return { folded: foldedOf, hot: hotOf };
}

/**
 * Every content finding of one text, in order of line. `linkHosts`: hosts allowed besides
 * DEFAULT_LINK_HOSTS. `samples`: 0-based lines that hold code samples (frontMatterSampleLines),
 * checked as a marked example is. A line over LINE_CAP is refused (its characters are still
 * checked); past CHECK_BUDGET_MS the rest of the text is refused unchecked.
 */
export function checkContent(text: string, opts: CheckOptions = {}): ContentFinding[] {
  const hosts = opts.linkHosts?.length ? [...DEFAULT_LINK_HOSTS, ...opts.linkHosts] : DEFAULT_LINK_HOSTS;
  const clock = opts.clock ?? (() => performance.now());
  const budget = opts.budgetMs ?? CHECK_BUDGET_MS;
  const started = clock();
  const out: ContentFinding[] = [];
  const lines = linesWithFences(text);
  const phrases = phraseLines(lines.map((l) => l.line));
  for (let i = 0; i < lines.length; i++) {
    const at: At = (index, kind, refused, message) => out.push({ kind, refused, line: i + 1, column: index + 1, message });
    if (i > 0 && clock() - started > budget) {
      at(
        0,
        "time-budget",
        true,
        `the check stopped here, past its time budget of ${budget} ms: the text was not checked past it; split it up`,
      );
      break;
    }
    const l = lines[i]!;
    const sample = opts.samples?.has(i) ?? false;
    checkCharacters(l.line, i === 0, at);
    if (l.line.length > LINE_CAP) {
      const size = l.line.length.toLocaleString("en");
      at(
        LINE_CAP,
        "line-length",
        true,
        `a line of ${size} characters, past the content check's cap of ${LINE_CAP.toLocaleString("en")}: break it up`,
      );
      continue;
    }
    if (phrases.hot(i) || phrases.hot(i + 1)) {
      const next = phrases.folded(i + 1);
      checkPhrases(l.line, phrases.folded(i)!, next ? { line: lines[i + 1]!.line, folded: next } : null, at);
    }
    checkPatterns(l.line, { example: l.example || sample, code: l.code || sample }, hosts, at);
  }
  return out;
}
