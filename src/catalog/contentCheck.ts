/**
 * The content check: what in a talent's text could steer the agent it is served to rather than
 * guide its code. Run on every text of a talent (its main file, front matter included, and every
 * reference file) wherever a talent enters: `talents lint`, the start-up load of the catalog and
 * TALENTS_DIR, every expertise write. Two weights:
 * - refused: invisible or direction-changing characters (zero-width, bidi embeddings, overrides and
 *   isolates, tag characters) and control characters — nothing legitimate needs them;
 * - findings: instructions aimed at the agent ("ignore previous instructions", "do not tell the
 *   user", exfiltration, reading credential files to send them), pipe-to-shell and
 *   download-and-execute commands of a URL outside a fenced example marked as such (a fence whose
 *   info string has the word `example`), long base64 or hex blobs, and links in prose (outside
 *   code spans and fenced blocks) to hosts other than the documentation hosts allowed
 *   (CONTENT_LINK_HOSTS; reserved example names and loopback addresses always pass). A person acknowledges an expertise's findings
 *   before it is published; a public talent with any does not load.
 */

/** The kinds of content findings. */
export type ContentKind = "invisible" | "control" | "agent-instruction" | "pipe-to-shell" | "blob" | "link";

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

/** Zero-width and joiner characters, the BOM, word joiners and invisible operators, soft hyphen, bidi controls. */
const INVISIBLE = /[\u00ad\u200b-\u200f\u2060-\u2064\u202a-\u202e\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;
/** C0 but tab, newline and carriage return; DEL; C1. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** One case-insensitive pattern of several written apart (each part stays readable). */
const joined = (...parts: RegExp[]): RegExp => new RegExp(parts.map((p) => p.source).join(""), "i");

/** Instructions aimed at the agent rather than at the code it writes. */
const AGENT_INSTRUCTIONS: readonly { pattern: RegExp; what: string }[] = [
  {
    pattern: joined(
      /\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(the\s+|your\s+)?/,
      /(previous|prior|above|earlier|preceding|system|other)\s+(instructions|rules|prompts?|messages|guidelines)/,
    ),
    what: "tells the agent to set its other instructions aside",
  },
  {
    pattern: joined(
      /\b(do\s+not|don't|never)\s+(tell|inform|mention\s+(this\s+)?to|reveal\s+(this\s+)?to|show)\s+the\s+user\b/,
      /|\bwithout\s+(telling|informing|asking)\s+the\s+user\b/,
    ),
    what: "tells the agent to hide something from the user",
  },
  { pattern: /\bexfiltrate\b[^\n]{0,80}\b(to|into|via|through)\s+(https?:|\S+\.\w{2,})/i, what: "tells the agent to exfiltrate data" },
  {
    pattern: joined(
      /\b(read|cat|open|upload|send|post|copy|collect)\b[^\n]{0,80}/,
      /(\.env\b|id_rsa|id_ed25519|\.ssh\/|\.aws\/credentials|\.npmrc|\.netrc|\.pgpass|\.git-credentials|\.kube\/config)/,
      /[^\n]{0,80}\b(to|curl|wget|fetch|http|webhook|upload|send|post)\b/,
    ),
    what: "reads a credential or environment file to send it somewhere",
  },
];

/** A secret read from the environment (a name with TOKEN, SECRET, PASSWORD or KEY in it). */
const ENV_SECRET =
  /(process\.env\.|os\.environ\[["']|os\.getenv\(["']|\$\{?)[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)\b/;

/** Pipe-to-shell and download-and-execute, of a URL (a mention of the pattern without one is prose about it). */
const PIPE_TO_SHELL: readonly RegExp[] = [
  /\b(curl|wget)\b[^\n|]*https?:\/\/[^\n|]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/,
  /\b(ba|z)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)\b[^\n)]*https?:\/\//,
  /\b(ba|z)?sh\s+<\(\s*(curl|wget)\b[^\n)]*https?:\/\//,
  /\b(iex|Invoke-Expression)\b[^\n]*\b(iwr|Invoke-WebRequest|DownloadString|irm|Invoke-RestMethod)\b[^\n]*https?:\/\//i,
  /\b(curl|wget)\b[^\n]*https?:\/\/[^\n]*(-o|-O|--output)\s*\S+[^\n]*(&&|;)\s*(chmod\s+\+x|\.\/|sh\s|bash\s)/,
];

const BASE64_BLOB = /[A-Za-z0-9+/]{160,}={0,2}/g;
const HEX_BLOB = /\b[0-9a-fA-F]{128,}\b/g;
const URL = /\bhttps?:\/\/([^\s/?#)\]>"'`\\]+)/g;

const hex = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** Names reserved for examples and tests (RFC 2606, RFC 6761) and loopback addresses: never a real destination. */
const RESERVED_HOST = /(^|\.)(example|test|invalid|localhost)$|^(example\.(com|net|org)|127(\.\d{1,3}){3}|0\.0\.0\.0|\[::1\])$/;

/** Whether `host` (as written in a URL: maybe a port, user info, trailing punctuation) is allowed. */
function allowedHost(host: string, allowed: readonly string[]): boolean {
  const h = host
    .toLowerCase()
    .replace(/^.*@/, "")
    .replace(/[.,;:!]+$/, "")
    .replace(/:\d*$/, "")
    .replace(/^www\./, "");
  if (RESERVED_HOST.test(h) || h.endsWith(".example.com")) return true;
  return allowed.some((a) => h === a || h.endsWith(`.${a}`));
}

/** The line with its inline code spans blanked (a URL there is code, not a link to follow). */
const proseOf = (line: string): string => line.replace(/(`+)[^`]*?\1/g, (m) => " ".repeat(m.length));

/** The lines of a text with, for each, whether it lies inside a fenced block marked as an example. */
function linesWithFences(text: string): { line: string; example: boolean; code: boolean }[] {
  const out: { line: string; example: boolean; code: boolean }[] = [];
  let fence: { marker: string; example: boolean } | null = null;
  for (const line of text.split("\n")) {
    const m = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
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
    if (inTests || /^\s*-?\s*(pattern|unless)\s*:/.test(line)) out.add(i);
  }
  return out;
}

/**
 * Every content finding of one text, in order of position. `linkHosts`: hosts allowed besides
 * DEFAULT_LINK_HOSTS. `samples`: 0-based lines that hold code samples (frontMatterSampleLines),
 * checked as a marked example is.
 */
export function checkContent(text: string, opts: { linkHosts?: readonly string[]; samples?: ReadonlySet<number> } = {}): ContentFinding[] {
  const hosts = opts.linkHosts?.length ? [...DEFAULT_LINK_HOSTS, ...opts.linkHosts] : DEFAULT_LINK_HOSTS;
  const out: ContentFinding[] = [];
  linesWithFences(text).forEach((l, i) => {
    const sample = opts.samples?.has(i) ?? false;
    const { line } = l;
    const example = l.example || sample;
    const code = l.code || sample;
    const at = (index: number, kind: ContentKind, refused: boolean, message: string) =>
      out.push({ kind, refused, line: i + 1, column: index + 1, message });
    for (const m of line.matchAll(INVISIBLE)) {
      if (m[0] === "\ufeff" && i === 0 && m.index === 0) continue; // a byte order mark opening the file
      at(m.index, "invisible", true, `an invisible or direction-changing character (${hex(m[0])})`);
    }
    for (const m of line.matchAll(CONTROL)) at(m.index, "control", true, `a control character (${hex(m[0])})`);
    for (const { pattern, what } of AGENT_INSTRUCTIONS) {
      const m = pattern.exec(line);
      if (m) at(m.index, "agent-instruction", false, `an instruction aimed at the agent: ${what} ("${m[0].slice(0, 60)}")`);
    }
    const secret = ENV_SECRET.exec(line);
    const destination = secret ? [...line.matchAll(URL)].find((u) => !allowedHost(u[1]!, hosts)) : undefined;
    if (secret && destination)
      at(
        secret.index,
        "agent-instruction",
        false,
        `an instruction aimed at the agent: sends a secret of the environment to ${destination[1]}`,
      );
    if (!example) {
      for (const pattern of PIPE_TO_SHELL) {
        const m = pattern.exec(line);
        if (m) {
          at(
            m.index,
            "pipe-to-shell",
            false,
            "a download piped to a shell or executed (mark a fenced example with `example` in its info string)",
          );
          break;
        }
      }
    }
    for (const m of line.matchAll(BASE64_BLOB)) at(m.index, "blob", false, `a base64 blob of ${m[0].length} characters`);
    for (const m of line.matchAll(HEX_BLOB)) at(m.index, "blob", false, `a hex blob of ${m[0].length} characters`);
    if (!code) {
      for (const m of proseOf(line).matchAll(URL)) {
        if (!allowedHost(m[1]!, hosts)) at(m.index, "link", false, `a link to ${m[1]}, not a documentation host (CONTENT_LINK_HOSTS)`);
      }
    }
  });
  return out;
}
