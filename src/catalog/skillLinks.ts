/**
 * The link rewriting of a SKILL.md body (src/catalog/skillFormat.ts maps relative links to
 * `talent://` pointers and back through it): markdown links and link definitions outside code.
 */

/**
 * Rewrites the targets of markdown links and link definitions outside code (fences and inline
 * code spans): `map(target)` returns the new target, or null to leave it. Used both ways:
 * relative → `talent://` on import, own `talent://` → relative on export.
 */
export function mapLinkTargets(body: string, map: (target: string) => string | null): string {
  const lines = body.split("\n");
  let fence: { char: string; length: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence.char && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = { char: f[1]![0]!, length: f[1]!.length };
      continue;
    }
    lines[i] = mapLine(line, map);
  }
  return lines.join("\n");
}

/** Offsets covered by inline code spans (a backtick run up to the next run of the same length). */
function codeSpans(line: string): [number, number][] {
  const spans: [number, number][] = [];
  const runs = [...line.matchAll(/`+/g)];
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!;
    const close = runs.slice(i + 1).findIndex((r) => r[0].length === open[0].length);
    if (close < 0) continue;
    const end = runs[i + 1 + close]!;
    spans.push([open.index!, end.index! + end[0].length]);
    i = i + 1 + close;
  }
  return spans;
}

function mapLine(line: string, map: (target: string) => string | null): string {
  const def = /^( {0,3}\[[^\]]+\]:[ \t]*)(<[^>\n]*>|\S+)(.*)$/.exec(line);
  if (def) {
    const next = mapTarget(def[2]!, map);
    return next === null ? line : def[1] + next + def[3];
  }
  const spans = codeSpans(line);
  const inCode = (at: number) => spans.some(([a, b]) => at >= a && at < b);
  return line.replace(/(\]\()(<[^>\n]*>|[^\s()<>]+)(?=[\s)])/g, (whole, open: string, target: string, offset: number) => {
    if (inCode(offset)) return whole;
    const next = mapTarget(target, map);
    return next === null ? whole : open + next;
  });
}

function mapTarget(target: string, map: (target: string) => string | null): string | null {
  const angled = target.startsWith("<") && target.endsWith(">");
  const next = map(angled ? target.slice(1, -1) : target);
  if (next === null) return null;
  return angled ? `<${next}>` : next;
}
