/** Front matter: the YAML block between `---` lines at the top of TALENT.md and SKILL.md. */
import type * as YamlModule from "yaml";

/** Splits `---\nYAML\n---\nbody`; null when there is no front matter. */
export function splitFrontMatter(text: string): { yaml: string; body: string; bodyLine: number } | null {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!src.startsWith("---\n")) return null;
  const end = src.indexOf("\n---", 4);
  if (end < 0) return null;
  const after = src.indexOf("\n", end + 4);
  const yaml = src.slice(4, end + 1);
  const body = after < 0 ? "" : src.slice(after + 1);
  return { yaml, body, bodyLine: yaml.split("\n").length + 2 };
}

/**
 * Parses front matter with Bun's native YAML parser (fast: start-up indexes every talent);
 * on failure, or on a repeated top-level key, the `yaml` package gives the precise message, at the
 * line and column of the whole file (`firstLine`: the file's line the YAML starts at; 2 after `---`).
 */
export function parseFrontMatterYaml(yaml: string, firstLine = 1): { value: unknown } | { error: string } {
  let value: unknown;
  let failed = false;
  try {
    value = Bun.YAML.parse(yaml);
  } catch {
    failed = true;
  }
  const keys = yaml.match(/^[A-Za-z_][\w-]*(?=\s*:)/gm) ?? [];
  if (!failed && new Set(keys).size === keys.length) return { value };
  // loaded only here: it is a large module, and only a failing file needs its messages
  const { parse: parseYaml, YAMLParseError } = require("yaml") as typeof YamlModule;
  try {
    return { value: parseYaml(yaml, { prettyErrors: false, uniqueKeys: true }) };
  } catch (e) {
    const at = e instanceof YAMLParseError ? ` at ${positionOf(yaml, errorOffset(yaml, e.pos[0], e.message), firstLine)}` : "";
    const msg = (e as Error).message.split("\n")[0];
    return { error: `invalid YAML${at}: ${msg}` };
  }
}

/** "line L, column C" of an offset of the YAML text, counted in the whole file (1-based). */
function positionOf(yaml: string, offset: number, firstLine: number): string {
  const before = yaml.slice(0, Math.max(0, Math.min(offset, yaml.length)));
  const lineStart = before.lastIndexOf("\n") + 1;
  const line = firstLine + (before.match(/\n/g)?.length ?? 0);
  return `line ${line}, column ${before.length - lineStart + 1}`;
}

/**
 * Where to point at: the parser notices an unclosed `{` or `[` only where the next line starts, so
 * such an error points at the bracket left open (the line the author has to fix).
 */
function errorOffset(yaml: string, offset: number, message: string): number {
  const close = /end with an? ([}\]])/.exec(message)?.[1];
  if (!close) return offset;
  const open = close === "}" ? "{" : "[";
  let depth = 0;
  for (let i = Math.min(offset, yaml.length) - 1; i >= 0; i--) {
    if (yaml[i] === close) depth++;
    else if (yaml[i] === open && depth-- === 0) return i;
  }
  return offset;
}
