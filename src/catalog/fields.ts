/**
 * A talent's front-matter fields, declared once (docs/design.md "A talent's fields are declared
 * once"). Each entry says how the field is read and checked (`read`: its findings named by the
 * field), whether a lazy talent rebuilds it on access (`heavy`), how the talent sheet shows it
 * (`sheet`: a fact, or a part of the line under the title), its lines in the compact form
 * (`compact`) and whether prepare-task's answer carries it beside each served talent (`prepare`).
 * The validator (validate.ts), the lazy talents (lazy.ts), the compact form, the sheet
 * (projects/views/talentSheet.tsx) and prepare's answer (resolution/prepareAnswer.ts) walk this
 * table, and `Talent` (format.ts) derives its fields' types from it: a field added here is read,
 * typed, served and shown without another list to update.
 *
 * `id` and `summary` are read before the table (a SKILL.md names them `name` and `description`);
 * `summary` is here for its place in the compact form.
 */
import { compactRuleLines, type CompactRule } from "./compact";
import { ID_PATTERN, SEMVER_PATTERN, type ConformanceTest, type Coverage, type TalentRule, type Triggers } from "./formatBase";
import { readRules, readStr, readStrList, readTests, readTriggers, type Add } from "./validateFields";
import { readCovers, readReviewed } from "./validateReview";

/** What a field's reader is given: the front matter, how to record a finding, and the fields read before it. */
export interface FieldContext {
  /** The talent fields: the front matter of a TALENT.md; those decoded from a SKILL.md's `metadata` (and its `version`). */
  fields: Record<string, unknown>;
  /** The front matter as written (for a TALENT.md, `fields` itself). */
  data: Record<string, unknown>;
  isSkill: boolean;
  /** The id and summary, read before the table. */
  id: string;
  summary: string;
  /** A finding named by the field as the TALENT.md names it. */
  add: Add;
  /** A finding named where the field was written (`metadata.rules[…]` in a SKILL.md). */
  addField: Add;
  /** The fields read so far, in the table's order. */
  got: Partial<TalentFields>;
}

/** How the sheet shows a value: text, globs as code then text, or a day. */
export type SheetValue = string | { code: string[]; text: string } | { time: string };

/** What a sheet entry may read of the talent beyond its own value. */
export interface SheetTalent {
  tokens: number;
}

/** One field's declaration. Values are typed by each entry's `read`; `never` here lets every entry's own type in. */
export interface FieldSpec {
  read(c: FieldContext): unknown;
  /** Rebuilt on access by a lazy talent (large: kept out of memory), not copied. */
  heavy?: true;
  /** On the sheet: under the title (`byline`: ` · <label> <value>`) or among the facts (`<dt>label</dt>`); null: not shown. */
  sheet?: { label: string; at?: "byline"; show(v: never, t: SheetTalent): SheetValue | null };
  /** Its lines of the compact form, in the table's order (the body follows). */
  compact?(v: never): string[];
  /** Carried beside each served talent in prepare-task's answer (after `compact`). */
  prepare?: true;
  /** A SKILL.md carries it in `metadata`, written in this form (skillFormat.ts); without it, a SKILL.md cannot say it. */
  skill?: SkillForm;
}

/**
 * How a SKILL.md's `metadata` writes a field (its values are strings; docs/talent-format.md "Agent
 * Skills folders"): a semantic `version` (completed, with a note); `text`; a `list` (JSON text, a
 * YAML list or comma-separated text); a `mapping` (JSON text or a YAML mapping); a `number` (or its
 * text); `entries` (a JSON list or a YAML list); `as-written` (the field's reader judges it).
 */
export type SkillForm = "version" | "text" | "list" | "mapping" | "number" | "entries" | "as-written";

/** A field's declarations, as a test may extend them. */
export type FieldTable = Readonly<Record<string, FieldSpec>>;

const list = (v: readonly string[], none: string) => v.join(", ") || none;

/** "Angular 21; .NET 10": each product with its versions. */
export const coversText = (covers: readonly Coverage[]): string => covers.map((c) => `${c.product} ${c.versions.join(", ")}`).join("; ");

export const TALENT_FIELDS = {
  title: {
    read(c): string {
      const title = c.isSkill && !given(c, "title") ? c.id : readStr(c.fields, "title", 80, c.addField);
      if (title.includes("\n")) c.addField("title", "must be one line");
      return title;
    },
    compact: (v: string) => [`# ${v}`],
    skill: "text",
  },
  summary: { read: (c): string => c.summary, compact: (v: string) => [v] },
  version: {
    read(c): string {
      if (c.isSkill && !given(c, "version")) return "0.0.0";
      const version = readStr(c.fields, "version", 64, c.addField);
      if (version && !SEMVER_PATTERN.test(version)) c.addField("version", `"${version}" is not a semantic version (MAJOR.MINOR.PATCH)`);
      return version;
    },
    skill: "version",
  },
  roles: {
    read(c): string[] {
      if (!c.isSkill && c.data.roles === undefined) c.add("roles", "missing");
      const roles = readStrList(c.fields, "roles", c.addField, /^[a-z0-9-]+$/, "a role name (lower-case letters, digits, -)");
      if (!c.isSkill && c.data.roles !== undefined && roles.length === 0 && Array.isArray(c.data.roles))
        c.add("roles", "needs at least one role");
      return roles;
    },
    sheet: { label: "Roles", show: (v: string[]) => list(v, "—") },
    skill: "list",
  },
  languages: {
    read: (c): string[] => readStrList(c.fields, "languages", c.addField),
    sheet: { label: "Languages", show: (v: string[]) => list(v, "any") },
    skill: "list",
  },
  triggers: {
    read: (c): Triggers => readTriggers(c.fields.triggers, c.addField),
    sheet: {
      label: "Triggers",
      show: (v: Triggers) => ({ code: v.files, text: v.keywords.length ? ` · ${v.keywords.join(", ")}` : "" }),
    },
    skill: "mapping",
  },
  requires: {
    read: (c): string[] => readStrList(c.fields, "requires", c.addField, ID_PATTERN, "a talent id"),
    sheet: { label: "Requires", show: (v: string[]) => list(v, "—") },
    skill: "list",
  },
  conflicts: {
    read(c): string[] {
      const conflicts = readStrList(c.fields, "conflicts", c.addField, ID_PATTERN, "a talent id");
      const requires = c.got.requires ?? [];
      if (requires.includes(c.id)) c.addField("requires", "a talent cannot require itself");
      if (conflicts.includes(c.id)) c.addField("conflicts", "a talent cannot conflict with itself");
      for (const r of requires) if (conflicts.includes(r)) c.addField("conflicts", `"${r}" is both required and in conflict`);
      return conflicts;
    },
    sheet: { label: "Conflicts with", show: (v: string[]) => list(v, "—") },
    skill: "list",
  },
  budget: {
    read(c): number {
      const v = c.fields.budget;
      if (!given(c, "budget")) {
        if (!c.isSkill) c.add("budget", "missing");
      } else if (typeof v !== "number" || !Number.isInteger(v) || v < 100 || v > 4000) {
        c.addField("budget", `must be an integer from 100 to 4000 (got ${JSON.stringify(v)})`);
      } else return v;
      return 4000;
    },
    sheet: { label: "Budget", show: (v: number, t: SheetTalent) => `${t.tokens} of ${v} tokens` },
    skill: "number",
  },
  rules: {
    read(c): TalentRule[] {
      const rules: TalentRule[] = [];
      if (!c.isSkill || given(c, "rules")) readRules(c.fields.rules, rules, c.addField, (c.got.roles ?? []).includes("security"));
      return rules;
    },
    heavy: true,
    compact: (v: readonly CompactRule[]) => compactRuleLines(v),
    skill: "entries",
  },
  tests: {
    read(c): ConformanceTest[] {
      const tests: ConformanceTest[] = [];
      if (!c.isSkill || given(c, "rules") || given(c, "tests"))
        readTests(c.fields.tests, c.got.rules ?? [], tests, c.addField, c.got.triggers?.files ?? []);
      return tests;
    },
    heavy: true,
    skill: "entries",
  },
  reviewed: {
    read: (c): string | undefined => readReviewed(c.fields.reviewed, c.addField),
    sheet: { label: "Reviewed", at: "byline", show: (v: string) => ({ time: v }) },
    skill: "as-written",
  },
  covers: {
    read: (c): Coverage[] | undefined => readCovers(c.fields.covers, c.addField),
    sheet: { label: "Covers:", at: "byline", show: (v: Coverage[]) => (v.length > 0 ? coversText(v) : null) },
    skill: "entries",
  },
} satisfies FieldTable;

function given(c: FieldContext, key: string): boolean {
  return c.fields[key] !== undefined && c.fields[key] !== null;
}

type Declared = typeof TALENT_FIELDS;
type Values = { [K in keyof Declared]: ReturnType<Declared[K]["read"]> };
type OptionalKey = { [K in keyof Values]: undefined extends Values[K] ? K : never }[keyof Values];

/** The declared fields of a talent, typed by their readers (a reader that may return undefined makes the field optional). */
export type TalentFields = { [K in Exclude<keyof Values, OptionalKey>]: Values[K] } & {
  [K in OptionalKey]?: Exclude<Values[K], undefined>;
};

type TakesIts<F, V> = F extends (v: infer P, ...rest: never[]) => unknown ? ([V] extends [P] ? true : false) : true;
type SheetTakes<K extends keyof Declared> = Declared[K] extends { sheet: { show: infer S } }
  ? TakesIts<S, Exclude<Values[K], undefined>>
  : true;
type CompactTakes<K extends keyof Declared> = Declared[K] extends { compact: infer C } ? TakesIts<C, Values[K]> : true;
type Mismatched = { [K in keyof Declared]: [SheetTakes<K>, CompactTakes<K>] extends [true, true] ? never : K }[keyof Declared];
// a sheet or compact renderer that does not take its field's value (as its reader returns it) fails to compile here
const renderersTakeTheirValues: [Mismatched] extends [never] ? true : Mismatched = true;

/** The fields a lazy talent rebuilds on access. */
export type HeavyField = { [K in keyof Declared]: Declared[K] extends { heavy: true } ? K : never }[keyof Declared];

type CompactKey = { [K in keyof Declared]: Declared[K] extends { compact: unknown } ? K : never }[keyof Declared];
/** What the compact form is rendered from: each field with compact lines (typed as its renderer takes it), and the body. */
export type CompactParts = { [K in CompactKey]: Declared[K] extends { compact: (v: infer V) => string[] } ? V : never } & { body: string };

const entries = (fields: FieldTable) => Object.entries(fields);

/** Reads every declared field in the table's order; a field whose reader returns undefined is left out. */
export function readFields(c: FieldContext, fields: FieldTable = TALENT_FIELDS): TalentFields {
  const got: Record<string, unknown> = c.got;
  for (const [key, spec] of entries(fields)) {
    const v = spec.read(c);
    if (v !== undefined) got[key] = v;
  }
  // every field of the table was read (the optional ones when given)
  return c.got as TalentFields;
}

/** The front-matter keys a TALENT.md may have: `id` and the declared fields. */
export const frontMatterKeys = (fields: FieldTable = TALENT_FIELDS): Set<string> => new Set(["id", ...Object.keys(fields)]);

/** The declared fields a lazy talent copies (every one but the heavy ones). */
export const lightKeys = (fields: FieldTable = TALENT_FIELDS): string[] =>
  entries(fields)
    .filter(([, s]) => !s.heavy)
    .map(([k]) => k);

/** The compact form: each field's compact lines in the table's order, then the body with its pointers (docs/talent-format.md). */
export function renderCompact(parts: CompactParts, fields: FieldTable = TALENT_FIELDS): string {
  const values: Record<string, unknown> = parts;
  const lines = entries(fields).flatMap(([key, spec]) => spec.compact?.(values[key] as never) ?? []);
  if (parts.body) lines.push("", parts.body);
  return lines.join("\n") + "\n";
}

/** A field as the sheet shows it. */
export interface SheetRow {
  key: string;
  label: string;
  value: SheetValue;
}

/** The declared fields the sheet shows at `at` (`facts`, or `byline` under the title), for a talent that has them. */
export function sheetRows(t: SheetTalent, at: "facts" | "byline", fields: FieldTable = TALENT_FIELDS): SheetRow[] {
  return entries(fields).flatMap(([key, spec]) => {
    // read by key, not spread: a lazy talent's heavy fields stay unread
    const v: unknown = Reflect.get(t, key);
    if (!spec.sheet || (spec.sheet.at ?? "facts") !== at || v === undefined) return [];
    const value = spec.sheet.show(v as never, t);
    return value === null ? [] : [{ key, label: spec.sheet.label, value }];
  });
}

/** The declared fields prepare-task's answer carries beside a served talent (those with `prepare`, when the talent has them). */
export function preparedFields(t: object, fields: FieldTable = TALENT_FIELDS): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of entries(fields)) {
    const v: unknown = spec.prepare ? Reflect.get(t, key) : undefined;
    if (v !== undefined) out[key] = v;
  }
  return out;
}
