/** @jsxImportSource hono/jsx */
/**
 * Inline Markdown of titles, summaries and rules (docs/design.md "Inline Markdown in titles and
 * rules"): `code`, **bold**, *emphasis* and [links](https://…) become elements; everything else
 * stays text. The result is hono/jsx elements and strings, which hono escapes: no input becomes
 * HTML of its own (a `<script>` in a rule is shown as text).
 */
import type { Child } from "hono/jsx";

/** A link target shown as a link: http(s) anywhere, or a path of this site; anything else stays text. */
const safeHref = (url: string): boolean => /^https?:\/\/[^\s]+$/i.test(url) || /^\/(?!\/)[^\s]*$/.test(url);

const LINK = /^\[([^\]\n]+)\]\(([^()\s]+)\)/;

/**
 * The parts of `text`: strings and elements. A code span is taken literally (its `*` and `[` stay
 * as typed); an opening mark with no closing one stays as typed; `*` around spaces (`a * b`) is not
 * emphasis. `links`: false inside a link (a card's title), where a nested anchor would be invalid.
 */
export function inlineParts(text: string, links = true): Child[] {
  const out: Child[] = [];
  let plain = "";
  const flush = () => {
    if (plain) out.push(plain);
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i + 1) {
        flush();
        out.push(<code>{text.slice(i + 1, end)}</code>);
        i = end + 1;
        continue;
      }
    } else if (text.startsWith("**", i)) {
      const end = text.indexOf("**", i + 2);
      if (end > i + 2 && text[i + 2] !== " " && text[end - 1] !== " ") {
        flush();
        out.push(<strong>{inlineParts(text.slice(i + 2, end), links)}</strong>);
        i = end + 2;
        continue;
      }
    } else if (c === "*" && text[i + 1] !== " " && text[i + 1] !== "*") {
      const end = closingStar(text, i + 1);
      if (end > 0) {
        flush();
        out.push(<em>{inlineParts(text.slice(i + 1, end), links)}</em>);
        i = end + 1;
        continue;
      }
    } else if (c === "[" && links) {
      const m = LINK.exec(text.slice(i));
      if (m && safeHref(m[2]!)) {
        flush();
        out.push(<a href={m[2]}>{inlineParts(m[1]!, false)}</a>);
        i += m[0].length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** The `*` closing an emphasis opened before `from`: a single star after a non-space, outside code spans; -1 when none. */
function closingStar(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === "`") {
      const end = text.indexOf("`", j + 1);
      if (end < 0) return -1;
      j = end;
    } else if (text[j] === "*" && text[j + 1] !== "*" && j > from && text[j - 1] !== " ") return j;
  }
  return -1;
}

/** `text` with its inline Markdown drawn (code, bold, emphasis, links), escaped. */
export function InlineMarkdown(props: { text: string; links?: boolean }) {
  const parts = inlineParts(props.text, props.links ?? true);
  return <>{parts}</>;
}

/** `text` without its Markdown marks, for where only text goes (a page's <title>, an attribute). */
export function plainInline(text: string): string {
  const parts = inlineParts(text, true);
  const textOf = (p: Child): string =>
    typeof p === "string" ? p : Array.isArray(p) ? p.map(textOf).join("") : textOf((p as { children?: Child }).children ?? "");
  return parts.map(textOf).join("");
}
