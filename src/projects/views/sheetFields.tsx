/** @jsxImportSource hono/jsx */
/** The talent sheet's declared fields (catalog/fields.ts): the line under the title and the facts, each as its declaration shows it. */
import { sheetRows, TALENT_FIELDS, type FieldTable, type SheetTalent, type SheetValue } from "../../catalog/fields";

function Value(props: { v: SheetValue }) {
  const { v } = props;
  if (typeof v === "string") return <>{v}</>;
  if ("time" in v) return <time datetime={v.time}>{v.time}</time>;
  return (
    <>
      {v.code.map((g) => (
        <code>{g} </code>
      ))}
      {v.text}
    </>
  );
}

/** ` · Reviewed 2026-12-02 · Covers: EF Core 10; .NET 10` after the sheet's version: each part only when the talent says it. */
export function SheetByline(props: { t: SheetTalent; fields?: FieldTable }) {
  return (
    <>
      {sheetRows(props.t, "byline", props.fields ?? TALENT_FIELDS).map((r) => (
        <span class={r.key}>
          {` · ${r.label} `}
          <Value v={r.value} />
        </span>
      ))}
    </>
  );
}

/** The facts list: roles, languages, triggers, what it requires and conflicts with, its budget. */
export function SheetFacts(props: { t: SheetTalent; fields?: FieldTable }) {
  return (
    <dl class="facts">
      {sheetRows(props.t, "facts", props.fields ?? TALENT_FIELDS).map((r) => (
        <>
          <dt>{r.label}</dt>
          <dd>
            <Value v={r.value} />
          </dd>
        </>
      ))}
    </dl>
  );
}
