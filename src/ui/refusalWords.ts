/**
 * A refusal's issues in a person's words (docs/design.md "Form refusals"): an API path (`domains/0`, `oidc/clientId`,
 * `requiredTalents`) becomes the words of a field ("Domain 1", "Client ID", "Required talents"), a message that
 * starts with its path starts with those words instead, and parentheses inside parentheses are flattened. The
 * alert (ui/errors.tsx), the no-JavaScript pages (ui/form.tsx `refusalOf`) and app.js (from the `data-rest` the
 * alert carries) all word an issue this way.
 */
import type { Issue } from "../http/errors";

/** Acronyms and words a path segment spells for a machine. */
const WORDS: Record<string, string> = {
  id: "ID",
  ids: "IDs",
  url: "URL",
  urls: "URLs",
  oidc: "OIDC",
  saml: "SAML",
  idp: "IdP",
  sso: "SSO",
};

/** One camelCase or snake_case segment as words: `clientId` → "client ID", `idpCert` → "IdP cert". */
function segmentWords(segment: string): string {
  return segment
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .split(" ")
    .filter(Boolean)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase())
    .join(" ");
}

/** A plural noun's one: "domains" → "domain", "talents" → "talent" (a word not ending in s stays). */
const singular = (w: string): string => (/[^s]s$/.test(w) ? w.slice(0, -1) : w);

/** The first letter in upper case. */
export const capitalized = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * A path in the words of a field: its last named segment (the field a form shows), an item numbered from 1:
 * `domains/0` → "Domain 1", `oidc/clientId` → "Client ID", `rules.0.pattern` → "Rule 1 pattern", "" → "".
 */
export function pathWords(path: string): string {
  const segments = path.split(/[/.[\]]+/).filter(Boolean);
  if (segments.length === 0) return "";
  const last = segments.length - 1;
  if (/^\d+$/.test(segments[last]!) && last > 0)
    return capitalized(`${singular(segmentWords(segments[last - 1]!))} ${Number(segments[last]) + 1}`);
  const index = segments.findLastIndex((s) => /^\d+$/.test(s));
  if (index > 0)
    return capitalized(`${singular(segmentWords(segments[index - 1]!))} ${Number(segments[index]) + 1} ${segmentWords(segments[last]!)}`);
  return capitalized(segmentWords(segments[last]!));
}

/** The ways a message may name its path at its start: `oidc/clientId`, `oidc.clientId`, `each item of domains`. */
function subjects(path: string): string[] {
  const dotted = path.replace(/\//g, ".");
  const segments = dotted.split(".").filter(Boolean);
  const parent = segments.slice(0, -1).join(".");
  const item = /^\d+$/.test(segments.at(-1) ?? "") && parent ? [`each item of ${parent}`] : [];
  return [...new Set([path, dotted, ...item])].filter(Boolean).sort((a, b) => b.length - a.length);
}

/**
 * Parentheses inside parentheses said with commas: "x (not in the catalog (nor an expertise))" → "x (not in the
 * catalog, nor an expertise)". Text with one level, or none, is returned as it is.
 */
export function flatParentheses(text: string): string {
  let depth = 0;
  let out = "";
  for (const c of text) {
    if (c === "(") {
      depth++;
      if (depth > 1) {
        out = `${out.trimEnd()}, `;
        continue;
      }
    } else if (c === ")" && depth > 0) {
      depth--;
      if (depth > 0) continue;
    }
    out += c;
  }
  return out;
}

/** An issue in words: `rest` is what it says of its field when its message starts with the path (else null). */
export interface IssueWords {
  /** The field's words from the path ("Client ID"), "" for the form as a whole. */
  field: string;
  /**
   * The message without the path it started with ("is required: text of 1 to 300 characters"),
   * or one that begins with "is" or "are"; else null.
   */
  rest: string | null;
  /** The message as said beside its field: the field's words then `rest`, or the message itself. */
  atField: string;
  /** The message as said alone (the alert, no field showing it): its field named when the message does not say it. */
  alone: string;
}

/** An issue's message in a person's words; `label`: the field's own label on the page, when known. */
export function issueWords(issue: Issue, label?: string): IssueWords {
  const message = flatParentheses(issue.message);
  const field = label ?? pathWords(issue.path);
  const subject = issue.path ? subjects(issue.path).find((s) => message.startsWith(`${s} `) || message.startsWith(`${s}:`)) : undefined;
  // a message that begins with its verb ("is required (at most 300 characters)") has its field as its subject
  const bare = field !== "" && /^(is|are) /.test(message);
  const rest = subject ? message.slice(subject.length).trimStart() : bare ? message : null;
  const atField = rest !== null ? `${field}${rest.startsWith(":") ? "" : " "}${rest}` : message;
  const alone = rest !== null || !field ? atField : `${field}: ${message}`;
  return { field, rest, atField, alone };
}
