/**
 * The authoring form's two directions (docs/design.md "Authoring an expertise with a form"): the form's fields as a
 * TALENT.md — the same front matter and body the YAML editor saves, through the same service — and a TALENT.md as the
 * form's fields, so an expertise made (or edited) with the form opens in it again. What the form does not show
 * (version, budget, requires, conflicts, covers, reviewed, a rule's detectors, further tests) is kept from the text it
 * edits. Pure: no database.
 */
import { parseFrontMatterYaml, splitFrontMatter } from "../catalog/frontMatter";

/** One rule row of the form. */
export interface RuleFields {
  /** The rule's id when it had one (kept on save); blank for a new row. */
  id: string;
  severity: "blocking" | "advisory";
  title: string;
  check: string;
  /** The first conformance test of the rule (a blocking rule needs one). */
  pass: string;
  fail: string;
}

/** The form's fields. Lists are text, one entry per line. */
export interface AuthoringFields {
  title: string;
  summary: string;
  roles: string;
  languages: string;
  /** Path globs, one per line (`triggers.files`). */
  files: string;
  /** Words or phrases a task may mention, one per line (`triggers.keywords`). */
  keywords: string;
  rules: RuleFields[];
  /** The guidance an agent is served (the Markdown body). */
  body: string;
}

/** Rule rows the form offers: at least this many, and two blank ones after the filled ones (at most the format's 12). */
export const MIN_RULE_ROWS = 3;
export const MAX_RULE_ROWS = 12;

/** An empty form: the guidance's heading as a start. */
export function blankFields(): AuthoringFields {
  return { title: "", summary: "", roles: "backend", languages: "", files: "", keywords: "", rules: [], body: "" };
}

const lines = (text: string): string[] =>
  text
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(Boolean);
const words = (text: string): string[] => [...new Set(text.split(/[\s,]+/).filter(Boolean))];
const q = (s: string) => JSON.stringify(s);
const list = (xs: readonly string[]) => `[${xs.map(q).join(", ")}]`;

/** The prefix of a new rule's id: the slug's initials (2 to 4 upper-case letters), as the importer makes them. */
function prefixOf(slug: string): string {
  const initials = slug
    .split("-")
    .filter((w) => /^[a-z]/.test(w))
    .map((w) => w[0]!.toUpperCase())
    .join("")
    .slice(0, 4);
  return initials.length >= 2 ? initials : `${slug.replace(/[^a-z]/g, "").toUpperCase()}XX`.slice(0, 2);
}

/** Whether a rule row was filled in (a blank row is dropped). */
export const isFilled = (r: RuleFields): boolean => r.title.trim() !== "" || r.check.trim() !== "";

/**
 * The TALENT.md the fields make for `slug`. `base` is the text being edited: what the form does not show is kept
 * from it (an unreadable base keeps nothing). Rule ids are kept; a new row gets the next free id of the prefix.
 */
export function talentMdOfFields(f: AuthoringFields, slug: string, base?: string): string {
  const kept = base ? (readFront(base)?.data ?? {}) : {};
  const keptRules = new Map(
    (Array.isArray(kept.rules) ? (kept.rules as Record<string, unknown>[]) : []).map((r) => [String(r?.id ?? ""), r]),
  );
  const keptTests = Array.isArray(kept.tests) ? (kept.tests as Record<string, unknown>[]) : [];
  const rows = f.rules.filter(isFilled);
  const used = new Set(rows.map((r) => r.id).filter(Boolean));
  const prefix = prefixOf(slug);
  let n = 0;
  const nextId = () => {
    let id: string;
    do id = `${prefix}-${String(++n).padStart(3, "0")}`;
    while (used.has(id));
    used.add(id);
    return id;
  };
  const rules = rows.map((r) => ({ ...r, id: r.id || nextId() }));
  const ruleLines = rules.map((r) => {
    const detect = keptRules.get(r.id)?.detect;
    return (
      `  - id: ${r.id}\n    severity: ${r.severity}\n    title: ${q(r.title.trim())}\n    check: ${q(r.check.trim())}\n` +
      (detect !== undefined ? `    detect: ${JSON.stringify(detect)}\n` : "")
    );
  });
  // each rule's first test from its row; the further tests of kept rules stay
  const tests: { rule: string; pass: string; fail: string }[] = [];
  for (const r of rules) {
    const own = keptTests.filter((t) => t?.rule === r.id);
    if (r.pass.trim() !== "" || r.fail.trim() !== "") tests.push({ rule: r.id, pass: r.pass.trim(), fail: r.fail.trim() });
    else if (own[0]) tests.push(own[0] as (typeof tests)[number]);
    for (const t of own.slice(1)) tests.push(t as (typeof tests)[number]);
  }
  const extra = (key: string, fallback: string) => `${key}: ${kept[key] !== undefined ? JSON.stringify(kept[key]) : fallback}\n`;
  const head =
    "---\n" +
    `id: ${slug}\n` +
    `title: ${q(f.title.trim())}\n` +
    `summary: ${q(f.summary.trim())}\n` +
    extra("version", "1.0.0") +
    `roles: ${list(words(f.roles))}\n` +
    `languages: ${list(words(f.languages.toLowerCase()))}\n` +
    `triggers:\n  files: ${list(lines(f.files))}\n  keywords: ${list(lines(f.keywords).map((k) => k.toLowerCase()))}\n` +
    extra("requires", "[]") +
    extra("conflicts", "[]") +
    extra("budget", "1200") +
    (ruleLines.length > 0 ? `rules:\n${ruleLines.join("")}` : "rules: []\n") +
    (tests.length > 0
      ? `tests:\n${tests.map((t) => `  - { rule: ${t.rule}, pass: ${q(t.pass)}, fail: ${q(t.fail)} }\n`).join("")}`
      : "tests: []\n") +
    (kept.reviewed !== undefined ? extra("reviewed", "") : "") +
    (kept.covers !== undefined ? extra("covers", "") : "");
  const body = f.body.replace(/\r\n?/g, "\n").trim();
  return `${head}---\n${body === "" ? "" : `${body}\n`}`;
}

/** The front matter of a TALENT.md as an object, and its body; null when it has none or it is not YAML. */
function readFront(content: string): { data: Record<string, unknown>; body: string } | null {
  const split = splitFrontMatter(content);
  if (!split) return null;
  const parsed = parseFrontMatterYaml(split.yaml, 2);
  if ("error" in parsed || parsed.value === null || typeof parsed.value !== "object" || Array.isArray(parsed.value)) return null;
  return { data: parsed.value as Record<string, unknown>, body: split.body };
}

const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const textList = (v: unknown, sep: string): string => (Array.isArray(v) ? v.map(text).filter(Boolean).join(sep) : "");

/**
 * The form's fields of a TALENT.md, or null when the form cannot show it (no front matter, not YAML, or an Agent
 * Skills SKILL.md): the page then offers only the YAML editor.
 */
export function fieldsOfTalentMd(content: string): AuthoringFields | null {
  const front = readFront(content);
  if (!front) return null;
  const d = front.data;
  const triggers = (d.triggers && typeof d.triggers === "object" ? d.triggers : {}) as Record<string, unknown>;
  const tests = Array.isArray(d.tests) ? (d.tests as Record<string, unknown>[]) : [];
  const rules = (Array.isArray(d.rules) ? (d.rules as Record<string, unknown>[]) : []).map((r): RuleFields => {
    const test = tests.find((t) => t?.rule === r?.id);
    return {
      id: text(r?.id),
      severity: r?.severity === "blocking" ? "blocking" : "advisory",
      title: text(r?.title),
      check: text(r?.check),
      pass: text(test?.pass),
      fail: text(test?.fail),
    };
  });
  return {
    title: text(d.title),
    summary: text(d.summary),
    roles: textList(d.roles, ", "),
    languages: textList(d.languages, ", "),
    files: textList(triggers.files, "\n"),
    keywords: textList(triggers.keywords, "\n"),
    rules,
    body: front.body.replace(/\n+$/, ""),
  };
}

/** The form's fields as posted: `title`, …, and the rule rows `rule_<n>_<field>` for n below `ruleCount`. */
export function fieldsOfForm(body: unknown): AuthoringFields {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const s = (k: string) => (typeof b[k] === "string" ? (b[k] as string).replace(/\r\n?/g, "\n") : "");
  const count = Math.min(Math.max(Number(b.ruleCount) || 0, 0), MAX_RULE_ROWS);
  const rules: RuleFields[] = [];
  for (let n = 0; n < count; n++) {
    const p = (f: string) => s(`rule_${n}_${f}`);
    rules.push({
      id: /^[A-Z][A-Z0-9]{1,9}-[0-9]{3}$/.test(p("id")) ? p("id") : "",
      severity: p("severity") === "blocking" ? "blocking" : "advisory",
      title: p("title"),
      check: p("check"),
      pass: p("pass"),
      fail: p("fail"),
    });
  }
  return {
    title: s("title"),
    summary: s("summary"),
    roles: s("roles"),
    languages: s("languages"),
    files: s("files"),
    keywords: s("keywords"),
    rules,
    body: s("body"),
  };
}
