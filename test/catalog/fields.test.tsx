/**
 * A talent's fields are declared once (src/catalog/fields.ts): the validator, the compact form, the
 * sheet and prepare-task's answer walk the declaration. A field added to a copy of it is read,
 * shown and served; every field of the shipped declaration shows where its entry says.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  preparedFields,
  readFields,
  sheetRows,
  TALENT_FIELDS,
  type FieldContext,
  type FieldTable,
  type SheetValue,
} from "../../src/catalog/fields";
import { skillFolderOf } from "../../src/catalog/skillFormat";
import { validateTalent } from "../../src/catalog/validate";
import { readStr } from "../../src/catalog/validateFields";
import { SheetByline, SheetFacts } from "../../src/projects/views/sheetFields";
import { servedTalentsJson } from "../../src/resolution/prepareAnswer";
import { createKey, orgWithProject, talentMd, testEnv, withKey, type TestEnv } from "../helpers";

/** The declaration with a test-only field: a ticket reference, on the sheet, in the compact form and in prepare's answer. */
const WITH_TICKET = {
  ...TALENT_FIELDS,
  ticket: {
    read: (c: FieldContext): string | undefined => readStr(c.fields, "ticket", 20, c.addField, false) || undefined,
    sheet: { label: "Ticket", show: (v: string) => v },
    compact: (v: string | undefined) => (v ? ["", `Ticket: ${v}`] : []),
    prepare: true,
  },
} satisfies FieldTable;

const source = (over: Record<string, string>) => ({
  folder: "ticketed",
  files: { "TALENT.md": talentMd("ticketed", over) },
  label: (p: string) => `x/ticketed/${p}`,
});

describe("a field added to the declaration is read, checked, shown on the sheet, compacted and served", () => {
  test("the declaration's copy with a ticket field: the talent carries it, its compact form, sheet and prepare entry show it", () => {
    const r = validateTalent(source({ ticket: "OPS-12" }), { fields: WITH_TICKET });
    expect(r.findings).toEqual([]);
    const t = r.talent!;
    expect(Reflect.get(t, "ticket")).toBe("OPS-12");
    // after the rule lines (the table's order), before the body
    expect(t.compact).toContain("- [AB-003] (advisory) Do the third thing.\n\nTicket: OPS-12\n\nDo the thing well.\n");
    expect(String(<SheetFacts t={t} fields={WITH_TICKET} />)).toContain("<dt>Ticket</dt><dd>OPS-12</dd>");
    expect(preparedFields(t, WITH_TICKET)).toEqual({ ticket: "OPS-12" });
    const served = JSON.parse(
      servedTalentsJson(
        {},
        "ticket-test",
        [{ id: t.id, kind: "talent", talent: t, version: t.version, expertiseId: null }],
        true,
        WITH_TICKET,
      ),
    );
    expect(Object.keys(served[0])).toEqual(["id", "kind", "version", "digest", "uri", "compact", "ticket"]);
    expect(served[0].ticket).toBe("OPS-12");
  });

  test("the field's reader checks it like any other: a finding names it, and the shipped declaration refuses it as unknown", () => {
    const long = validateTalent(source({ ticket: "X".repeat(30) }), { fields: WITH_TICKET });
    expect(long.findings.map((f) => `${f.field}: ${f.problem}`)).toEqual(["ticket: too long (30 > 20 characters)"]);
    const shipped = validateTalent(source({ ticket: "OPS-12" }));
    expect(shipped.findings.map((f) => `${f.field}: ${f.problem}`)).toEqual(["ticket: unknown field"]);
  });

  test("a talent without the optional field has no such key, shows no such fact, and its compact form is the shipped one", () => {
    const t = validateTalent(source({}), { fields: WITH_TICKET }).talent!;
    expect("ticket" in t).toBe(false);
    expect(String(<SheetFacts t={t} fields={WITH_TICKET} />)).not.toContain("Ticket");
    expect(t.compact).toBe(validateTalent(source({})).talent!.compact);
  });

  test("readFields reads in the table's order: a reader sees the fields before it (conflicts judge requires)", () => {
    const findings: string[] = [];
    const add = (field: string, problem: string) => void findings.push(`${field}: ${problem}`);
    const fields = {
      title: "T",
      version: "1.0.0",
      roles: ["backend"],
      requires: ["a"],
      conflicts: ["a"],
      budget: 500,
      rules: [],
      tests: [],
    };
    readFields({ fields, data: fields, isSkill: true, id: "x", summary: "S", add, addField: add, got: {} });
    expect(findings).toContain('conflicts: "a" is both required and in conflict');
  });
});

/** The text a sheet value shows. */
const shown = (v: SheetValue): string[] => (typeof v === "string" ? [v] : "time" in v ? [v.time] : [...v.code, v.text.replace(/^ · /, "")]);
const escape = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("every field of the shipped declaration shows where its entry says", () => {
  test("each field with `sheet` is on /catalog/<id> with its label and value, for shipped talents that set it", async () => {
    const { owner } = await orgWithProject(env, "Fields");
    const catalog = env.state.catalog!;
    const keys = Object.entries(TALENT_FIELDS as FieldTable)
      .filter(([, s]) => s.sheet)
      .map(([k]) => k);
    for (const key of keys) {
      const t = catalog.list.find((x) =>
        sheetRows(x, "facts")
          .concat(sheetRows(x, "byline"))
          .some((r) => r.key === key),
      );
      expect(t, `a shipped talent sets ${key}`).toBeDefined();
      const html = await (await owner.call("GET", `/catalog/${t!.id}`, undefined, { accept: "text/html" })).text();
      const row = [...sheetRows(t!, "facts"), ...sheetRows(t!, "byline")].find((r) => r.key === key)!;
      expect(html).toContain(escape(row.label));
      for (const part of shown(row.value)) expect(html).toContain(escape(part));
    }
    expect(String(<SheetByline t={catalog.get("ef-core")!} />)).toContain(" · Covers: EF Core 10; .NET 10");
  });

  test("each field with `compact` is in the compact form prepare-task serves, and each with `prepare` beside it", async () => {
    const o = await orgWithProject(env, "Fields2");
    const t = env.state.catalog!.get("typescript-strict")!;
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [t.id] });
    const key = (await createKey(o.owner, o.project.id, ["prepare_task"])).value;
    const r = await withKey(env, key, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: [t.id] }),
    });
    const served = (await r.json()).talents[0];
    for (const [k, spec] of Object.entries(TALENT_FIELDS as FieldTable)) {
      const v: unknown = Reflect.get(t, k);
      if (spec.compact) for (const line of spec.compact(v as never)) expect(served.compact).toContain(line);
      if (spec.prepare) expect(served[k]).toEqual(v);
    }
    expect(served.compact).toBe(t.compact);
  });

  test("each field with `skill` is in the canonical SKILL.md's metadata (empty lists left out), version first, then the table's order", () => {
    const t = env.state.catalog!.get("ef-core")!;
    const metadata = skillFolderOf(t).frontmatter.metadata!;
    const declared = Object.entries(TALENT_FIELDS as FieldTable)
      .filter(([k, s]) => s.skill && k !== "version")
      .map(([k]) => k);
    // an empty list is left out (ef-core conflicts with nothing)
    const empty = (v: unknown) => Array.isArray(v) && v.length === 0;
    expect(Object.keys(metadata)).toEqual(["version", ...declared.filter((k) => !empty(Reflect.get(t, k)))]);
    expect(t.conflicts).toEqual([]);
    expect(metadata.covers).toBe(JSON.stringify(t.covers));
    expect(metadata.budget).toBe(String(t.budget));
  });
});
