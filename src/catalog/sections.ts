/**
 * Sections of talent files (the `section` of a deepen read). A section is named by a heading an
 * agent can see: a markdown heading of the file, or — for a talent's main file, whose served
 * form is the compact block — a heading of that block (the title, "Rules", the body's
 * headings). Matching is case-insensitive; leading `#`s and surrounding spaces are ignored.
 */
import { RULES_HEADING } from "./compact";
import { renderCompact, type CompactParts } from "./fields";

export type { CompactParts };

const normalise = (heading: string) =>
  heading
    .trim()
    .replace(/^#+\s*/, "")
    .trim()
    .toLowerCase();

interface Heading {
  line: number;
  level: number;
  text: string;
}

/** The markdown headings (ATX, outside code fences) of a text, in order. */
function scanHeadings(lines: string[]): Heading[] {
  const out: Heading[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.push({ line: i, level: m[1]!.length, text: m[2]! });
  }
  return out;
}

/** The headings of a markdown text, in order (what `extractSection` can find). */
export function markdownHeadings(markdown: string): string[] {
  return scanHeadings(markdown.split("\n")).map((h) => h.text);
}

/** The part of a markdown text under the first heading named `section` (case-insensitive), or null. */
export function extractSection(markdown: string, section: string): string | null {
  const lines = markdown.split("\n");
  const want = normalise(section);
  const headings = scanHeadings(lines);
  const at = headings.findIndex((h) => h.text.toLowerCase() === want);
  if (at < 0) return null;
  const start = headings[at]!;
  const end = headings.slice(at + 1).find((h) => h.level <= start.level);
  return lines.slice(start.line, end?.line).join("\n").trimEnd() + "\n";
}

/** The headings an agent sees in a compact block, in order: the title, "Rules" (when it has rules), the body's headings. */
export function compactHeadings(p: CompactParts): string[] {
  return [p.title, ...(p.rules.length > 0 ? [RULES_HEADING] : []), ...markdownHeadings(p.body)];
}

/**
 * The section of a compact block under `section`, the first heading of that name in the
 * block's order: the title → the whole block; "Rules" → the rule lines as the block shows
 * them; a body heading → that part of the body. Null when the block has no such heading.
 */
export function compactSection(p: CompactParts, section: string): string | null {
  const want = normalise(section);
  if (want === p.title.trim().toLowerCase()) return renderCompact(p);
  if (p.rules.length > 0 && want === RULES_HEADING.toLowerCase()) {
    // the block's own lines: what rendering the rules adds to the title and summary
    const head = renderCompact({ ...p, rules: [], body: "" });
    return renderCompact({ ...p, body: "" })
      .slice(head.length)
      .replace(/^\n/, "");
  }
  return extractSection(p.body, section);
}
