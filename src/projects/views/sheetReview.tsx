/** The talent sheet's review facts: when a person last checked the talent, and the versions it covers (docs/talent-format.md). */
import type { Talent } from "../../catalog/format";

/** "Angular 21; .NET 10" — each product with its versions. */
export function coversText(covers: Talent["covers"]): string {
  return (covers ?? []).map((c) => `${c.product} ${c.versions.join(", ")}`).join("; ");
}

/** Two rows of the sheet's facts: Reviewed and Covers ("not stated" when the talent does not say). */
export function ReviewFacts(props: { t: Pick<Talent, "reviewed" | "covers"> }) {
  const { reviewed, covers } = props.t;
  return (
    <>
      <dt>Reviewed</dt>
      <dd>{reviewed ? <time datetime={reviewed}>Reviewed {reviewed}</time> : "not stated"}</dd>
      <dt>Covers</dt>
      <dd>{covers && covers.length > 0 ? `Covers: ${coversText(covers)}` : "not stated"}</dd>
    </>
  );
}
