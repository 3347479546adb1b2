/**
 * Control characters in text that reaches a terminal. A terminal obeys the C0 and C1 controls it
 * is sent (ESC[8m hides what follows, ESC]52 writes the clipboard, CR overwrites a line), and the
 * bidi overrides reorder what a reader sees. The client prints server text only through
 * `printable`; the talent validator refuses such characters with `controlProblem`.
 * Small and dependency-free: the client loads it without the server's modules.
 */

/** C0 but tab and newline, DEL, C1, and the bidi embeddings, overrides and isolates. */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of UNPRINTABLE (it escapes every C0 control itself). */
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string): string => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");

/** The text with every control character but tab and newline shown as `\u001b` (visible, inert). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** JSON text with DEL, C1 and bidi controls written as \u escapes: the same value, nothing a terminal obeys. */
export function printableJson(json: string): string {
  return json.replace(RAW_IN_JSON, escaped);
}

/** Bidi marks (LRM, RLM, ALM), embeddings, overrides and isolates. */
const BIDI = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text without bidi controls: a name someone else chose (an OAuth client's) cannot reorder
 * what is shown around it or hide its own letters' order. Pages also isolate it (`<bdi>`, ui/parts.tsx `Isolated`).
 */
export function withoutBidi(text: string): string {
  return text.replace(BIDI, "");
}

/**
 * Why `text` may not be a talent's text, or null: a C0 control (tab and newline allowed; CR too
 * when `cr`, for files with Windows line ends), DEL or a C1 control; a bidi control when `bidi`.
 */
export function controlProblem(text: string, opts: { cr?: boolean; bidi?: boolean } = {}): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const control = (c < 0x20 && c !== 0x09 && c !== 0x0a && !(opts.cr && c === 0x0d)) || (c >= 0x7f && c <= 0x9f);
    const bidi = opts.bidi === true && ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069));
    if (control || bidi) {
      const what = control ? "a control character" : "a bidirectional-text control";
      return `contains ${what} (U+${c.toString(16).toUpperCase().padStart(4, "0")} at character ${i + 1}): write plain text`;
    }
  }
  return null;
}
