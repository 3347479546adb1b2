/**
 * The content check's scanners (docs/design.md "What the content check refuses, and how fast"):
 * what used to be one regular expression with several unbounded parts (`curl[^\n]*https?://[^\n]*
 * -o …`), which backtracked polynomially on a long line, is here a walk over the line: each part
 * found with a pattern of one unbounded part at most, from where the previous part ended, and the
 * earliest occurrence of each part taken (it leaves the most room for the next). Every function is
 * linear in the line's length and decides as the pattern it replaced (a test compares them on
 * generated lines).
 */

/** The first match of a global pattern at or after `from`. */
function find(re: RegExp, text: string, from: number): RegExpExecArray | null {
  re.lastIndex = from;
  return re.exec(text);
}

const end = (m: RegExpExecArray) => m.index + m[0].length;

/**
 * The first URL at or after a position that only moves forward: searched again only once the
 * position has passed the one found, so a line is searched once however many starts ask.
 */
function urlsFrom(line: string): (from: number) => RegExpExecArray | null {
  let found: RegExpExecArray | null | undefined;
  return (from) => {
    if (found === undefined || (found !== null && found.index < from)) found = find(URL_START, line, from);
    return found;
  };
}

const FETCHER = /\b(curl|wget)\b/g;
const URL_START = /https?:\/\//g;
const SHELL_AFTER_PIPE = /\s*(sudo\s+)?(ba|z|da|k)?sh\b/y;
const SHELL_OF_FETCH = /\b(ba|z)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)\b/g;
const SHELL_OF_PROCESS = /\b(ba|z)?sh\s+<\(\s*(curl|wget)\b/g;
const INVOKE = /\b(iex|Invoke-Expression)\b/gi;
const DOWNLOAD = /\b(iwr|Invoke-WebRequest|DownloadString|irm|Invoke-RestMethod)\b/gi;
const URL_START_ANY_CASE = /https?:\/\//gi;
const HAS_URL = /https?:\/\//i;
const OUTPUT_FLAG = /-o|-O|--output/g;
const THEN_RUN = /(&&|;)\s*(chmod\s+\+x|\.\/|sh\s|bash\s)/g;

/** `curl … https://… | sh`: a fetch, a URL in the same pipe stage, and a shell (maybe under sudo) as the next stage. */
function fetchPipedToShell(line: string): number {
  const urlFrom = urlsFrom(line);
  for (let from = 0; ; ) {
    const fetch = find(FETCHER, line, from);
    if (!fetch) return -1;
    const bar = line.indexOf("|", end(fetch));
    const stop = bar < 0 ? line.length : bar;
    const url = urlFrom(end(fetch));
    if (url && url.index < stop && bar >= 0) {
      SHELL_AFTER_PIPE.lastIndex = bar + 1;
      if (SHELL_AFTER_PIPE.test(line)) return fetch.index;
    }
    // every later fetch before this bar has the same next stage and less room for a URL
    if (bar < 0) return -1;
    from = bar + 1;
  }
}

/** `sh -c "$(curl https://…)"`, `bash <(curl https://…)`: a start, then a URL before the next `)`. */
function shellOfFetch(line: string, start: RegExp): number {
  const urlFrom = urlsFrom(line);
  for (let from = 0; ; ) {
    const s = find(start, line, from);
    if (!s) return -1;
    const paren = line.indexOf(")", end(s));
    const stop = paren < 0 ? line.length : paren;
    const url = urlFrom(end(s));
    if (url && url.index < stop) return s.index;
    // a start holds no `)`: every later one before this `)` has less room for a URL
    if (paren < 0) return -1;
    from = paren + 1;
  }
}

/** `iex (iwr https://…)`: an invocation, then a download, then a URL. */
function invokeDownload(line: string): number {
  const invoke = find(INVOKE, line, 0);
  const download = invoke && find(DOWNLOAD, line, end(invoke));
  const url = download && find(URL_START_ANY_CASE, line, end(download));
  return invoke && url ? invoke.index : -1;
}

/** Where the output name after a flag can have ended at the earliest: past the flag, its spaces and one character. */
function outputEnd(line: string, flag: RegExpExecArray): number {
  if (flag[0] === "--output") return flag.index + 4; // "-o" inside it, then "u"
  let i = end(flag);
  while (i < line.length && /\s/.test(line[i]!)) i++;
  return i < line.length ? i + 1 : -1;
}

/** `curl https://… -o x && chmod +x x`: a fetch, a URL, an output flag with a name, then `&&` or `;` and a run. */
function downloadThenRun(line: string): number {
  const fetch = find(FETCHER, line, 0);
  const url = fetch && find(URL_START, line, end(fetch));
  const flag = url && find(OUTPUT_FLAG, line, end(url));
  if (!fetch || !flag) return -1;
  const after = outputEnd(line, flag);
  return after >= 0 && find(THEN_RUN, line, after) ? fetch.index : -1;
}

/** Where the first pipe-to-shell or download-and-execute of a URL starts on a line, or -1. */
export function pipeToShellAt(line: string): number {
  if (!HAS_URL.test(line)) return -1; // every form needs a URL
  for (const at of [
    () => fetchPipedToShell(line),
    () => shellOfFetch(line, SHELL_OF_FETCH),
    () => shellOfFetch(line, SHELL_OF_PROCESS),
    () => invokeDownload(line),
    () => downloadThenRun(line),
  ]) {
    const i = at();
    if (i >= 0) return i;
  }
  return -1;
}

/** Every match of a global pattern, in order. */
const all = (re: RegExp, text: string) => [...text.matchAll(re)];

/** The `a`s followed, `within` characters at most after their end, by a `b` (both lists in order, walked once). */
function followed(a: RegExpExecArray[], b: RegExpExecArray[], within: number, firstOnly: boolean): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let k = 0;
  for (const x of a) {
    const from = end(x);
    while (k < b.length && b[k]!.index < from) k++;
    if (k < b.length && b[k]!.index <= from + within) {
      out.push(x);
      if (firstOnly) break;
    }
  }
  return out;
}

const READ = /\b(read|cat|open|upload|send|post|copy|collect)\b/g;
const CREDENTIAL = /\.env\b|id_rsa|id_ed25519|\.ssh\/|\.aws\/credentials|\.npmrc|\.netrc|\.pgpass|\.git-credentials|\.kube\/config/g;
const HAS_CREDENTIAL = new RegExp(CREDENTIAL.source);
const SEND = /\b(to|curl|wget|fetch|http|webhook|upload|send|post)\b/g;
const EXFILTRATE = /\bexfiltrate\b/g;
const DESTINATION = /\b(to|into|via|through) (https?:|\S+?\.\w{2})/g;

/** A credential or environment file read to be sent (`cat ~/.ssh/id_rsa … curl`), each part within 80 characters: where, or null. */
export function credentialSentAt(text: string): RegExpExecArray | null {
  if (!HAS_CREDENTIAL.test(text)) return null;
  const credentials = all(CREDENTIAL, text);
  if (credentials.length === 0) return null;
  const sent = followed(credentials, all(SEND, text), 80, false);
  return sent.length === 0 ? null : (followed(all(READ, text), sent, 80, true)[0] ?? null);
}

/** `exfiltrate … to <host>` within 80 characters: where, or null. */
export function exfiltrationAt(text: string): RegExpExecArray | null {
  if (!text.includes("exfiltrate")) return null;
  const verbs = all(EXFILTRATE, text);
  return verbs.length === 0 ? null : (followed(verbs, all(DESTINATION, text), 80, true)[0] ?? null);
}

/** The length of the run of backticks starting at `i`. */
function backticks(line: string, i: number): number {
  let j = i;
  while (line.charCodeAt(j) === 96) j++;
  return j - i;
}

/**
 * The line with its inline code spans blanked (a URL there is code, not a link to follow), as
 * ``/(`+)[^`]*?\1/g`` blanked them: an opening run closes at the next run of backticks when that one
 * is at least as long; otherwise the run's first half pairs with its second.
 */
export function proseOf(line: string): string {
  let i = line.indexOf("`");
  if (i < 0) return line;
  const spans: [number, number][] = [];
  while (i >= 0) {
    const k = backticks(line, i);
    const next = line.indexOf("`", i + k);
    if (next >= 0 && backticks(line, next) >= k) {
      spans.push([i, next + k]);
      i = line.charCodeAt(next + k) === 96 ? next + k : line.indexOf("`", next + k);
    } else if (k >= 2) {
      const pair = 2 * Math.floor(k / 2);
      spans.push([i, i + pair]);
      i = pair < k ? i + pair : next;
    } else i = next;
  }
  let out = "";
  let at = 0;
  for (const [a, b] of spans) {
    out += line.slice(at, a) + " ".repeat(b - a);
    at = b;
  }
  return out + line.slice(at);
}

/** Per ASCII code: 1 base64 (letters, digits, + and /), 2 hex digit, 4 word character (letters, digits, _). */
const CLASSES = (() => {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[A-Za-z0-9+/]/.test(ch)) t[c]! |= 1;
    if (/[0-9a-fA-F]/.test(ch)) t[c]! |= 2;
    if (/\w/.test(ch)) t[c]! |= 4;
  }
  return t;
})();
const classOf = (line: string, i: number): number => {
  const c = line.charCodeAt(i);
  return c < 128 ? CLASSES[c]! : 0;
};

/** The end of the run of characters of class `bit` that starts at `i`. */
function runEnd(line: string, i: number, bit: number): number {
  let j = i;
  while (j < line.length && (classOf(line, j) & bit) !== 0) j++;
  return j;
}

/**
 * Base64 runs of 160 characters or more (their `=` padding, up to two, counted in the length) and
 * hex runs of 128 or more between word boundaries: scanned by hand in one pass each, as
 * `/[A-Za-z0-9+/]{160,}={0,2}/` and `/\b[0-9a-fA-F]{128,}\b/` find them.
 */
export function blobsOf(line: string): { index: number; length: number; what: "base64" | "hex" }[] {
  const out: { index: number; length: number; what: "base64" | "hex" }[] = [];
  if (line.length < 128) return out;
  for (let i = 0; i < line.length; ) {
    const j = (classOf(line, i) & 1) === 0 ? i + 1 : runEnd(line, i, 1);
    if (j - i >= 160) {
      let pad = 0;
      while (pad < 2 && line.charCodeAt(j + pad) === 0x3d) pad++;
      out.push({ index: i, length: j - i + pad, what: "base64" });
    }
    i = j;
  }
  for (let i = 0; i < line.length; ) {
    const j = (classOf(line, i) & 2) === 0 ? i + 1 : runEnd(line, i, 2);
    const bounded = (i === 0 || (classOf(line, i - 1) & 4) === 0) && (j === line.length || (classOf(line, j) & 4) === 0);
    if (j - i >= 128 && bounded) out.push({ index: i, length: j - i, what: "hex" });
    i = j;
  }
  return out;
}
