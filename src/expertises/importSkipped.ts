/**
 * What an import did not turn into a rule (docs/api-expertises.md "Skipped lines"): pure, beside imports.ts. The
 * import's answer and the import page list these so a person sees every line that was left out, and why.
 */
import { cut, headingText, listItemsAt, proseLines, readLooseFrontMatter, rulesOf } from "./imports";
import { readsAsRule } from "./importWords";

/** A line of the source the import turned into neither a rule nor a heading or kept prose, and why (1-based line of the file). */
export interface SkippedLine {
  line: number;
  text: string;
  reason: string;
}

/**
 * The lines of a rule file that became no rule and are not a heading or prose kept as it is: the items left out
 * (rulesOf's `left`), and each sentence outside a list that reads as a rule (only items become rules: make it an
 * item, or write the rule). Lines are the file's, from 1 (its front matter counted). Fenced code, headings, blank
 * lines and other prose are not listed.
 */
export function skippedLines(content: string, slug = "imported"): SkippedLine[] {
  const fm = readLooseFrontMatter(content);
  const offset =
    fm.body === ""
      ? 0
      : content
          .replace(/^\uFEFF/, "")
          .replace(/\r\n?/g, "\n")
          .slice(0, fm.bodyStart)
          .split("\n").length - 1;
  const { left } = rulesOf(fm.body, slug);
  const inItems = new Set(listItemsAt(fm.body).flatMap((i) => i.lines));
  const out: SkippedLine[] = left.map((l) => ({ line: l.line + 1 + offset, text: cut(l.text, 300), reason: l.reason }));
  for (const [n, line] of proseLines(fm.body).entries()) {
    const text = line.trim();
    if (text === "" || inItems.has(n) || headingText(line) !== null || /^(>|\||<|!\[|\[[^\]]*\]:)/.test(text)) continue;
    if (readsAsRule(text))
      out.push({
        line: n + 1 + offset,
        text: cut(text, 300),
        reason: "a sentence outside a list: only bullet and numbered items become rules (make it an item, or write the rule)",
      });
  }
  return out.sort((a, b) => a.line - b.line);
}
