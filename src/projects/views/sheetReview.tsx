/** @jsxImportSource hono/jsx */
/** The talent sheet's review line: when a person last checked the talent, and the versions it covers (docs/talent-format.md). */
import type { Talent } from "../../catalog/format";

/** "Angular 21; .NET 10" — each product with its versions. */
export function coversText(covers: Talent["covers"]): string {
  return (covers ?? []).map((c) => `${c.product} ${c.versions.join(", ")}`).join("; ");
}

/** ` · Reviewed 2026-12-02 · Covers: EF Core 10; .NET 10` after the sheet's version; each part only when the talent says it. */
export function ReviewFacts(props: { t: Pick<Talent, "reviewed" | "covers"> }) {
  const { reviewed, covers } = props.t;
  return (
    <>
      {reviewed ? (
        <span class="reviewed">
          {" · Reviewed "}
          <time datetime={reviewed}>{reviewed}</time>
        </span>
      ) : null}
      {covers && covers.length > 0 ? <span class="covers">{` · Covers: ${coversText(covers)}`}</span> : null}
    </>
  );
}
