/**
 * The Activity tab's filters as SQL over `trace_events` (docs/design.md "The Activity tab leads with
 * the outcome"): by client (the raw labels of one tool's name, or no label), by result and by talent.
 * A `fail` is a call that recorded a fail verdict or reported findings on a rule that blocks a commit;
 * an `error` a call that failed (status 400 or more); `ok` any other.
 */
import type { InValue } from "@libsql/client";
import { bothDialects, POSTGRES, type Dialect } from "../db/sqlDialect";

export const RESULTS = ["fail", "error", "ok"] as const;
export type ResultFilter = (typeof RESULTS)[number];

export interface TraceFilter {
  /** Raw client labels (null: calls without one); an empty list matches nothing. */
  clients?: readonly (string | null)[];
  result?: ResultFilter;
  talent?: string;
}

/** A call that recorded an outcome the Activity tab calls a fail (from its trace detail), per dialect. */
export const FAIL = bothDialects(
  (d) => `((kind = 'record_validation' AND ${d.jsonNumber("detail", ["summary", "fail"])} > 0)
  OR (kind = 'report_findings' AND ${d.jsonField("detail", ["blocking"])} IS NOT NULL))`,
);

/** The talent named by a call: entered, left, prepared, audited, or served by its resolution. */
const TALENT = {
  // SQLite's text as the Activity tab has always sent it
  sqlite: `(EXISTS (SELECT 1 FROM json_each(talents_entered) WHERE value = ?1t)
  OR EXISTS (SELECT 1 FROM json_each(talents_left) WHERE value = ?1t)
  OR (detail IS NOT NULL AND (json_extract(detail, '$.talent') = ?1t
    OR EXISTS (SELECT 1 FROM json_each(detail, '$.talents') WHERE value = ?1t)
    OR EXISTS (SELECT 1 FROM json_each(detail, '$.blocking') WHERE json_extract(value, '$.talent') = ?1t)))
  OR (resolution_id IS NOT NULL AND EXISTS (SELECT 1 FROM resolution_items ri WHERE ri.resolution_id = trace_events.resolution_id AND ri.talent_id = ?1t)))`,
  postgres: `(EXISTS (SELECT 1 FROM ${POSTGRES.jsonEach("talents_entered", "e")} WHERE e.value = ?1t)
  OR EXISTS (SELECT 1 FROM ${POSTGRES.jsonEach("talents_left", "l")} WHERE l.value = ?1t)
  OR (detail IS NOT NULL AND (${POSTGRES.jsonField("detail", ["talent"])} = ?1t
    OR EXISTS (SELECT 1 FROM ${POSTGRES.jsonEach("detail", "t", ["talents"])} WHERE t.value = ?1t)
    OR EXISTS (SELECT 1 FROM ${POSTGRES.jsonEach("detail", "b", ["blocking"], "json")}
      WHERE ${POSTGRES.jsonField("b.value", ["talent"])} = ?1t)))
  OR (resolution_id IS NOT NULL AND EXISTS (SELECT 1 FROM resolution_items ri
    WHERE ri.resolution_id = trace_events.resolution_id AND ri.talent_id = ?1t)))`,
};

/** The filter's conditions (each starting with AND) and their arguments, in order. */
export function filterSql(f: TraceFilter | undefined, dialect: Dialect = "sqlite"): { sql: string; args: InValue[] } {
  if (!f) return { sql: "", args: [] };
  const parts: string[] = [];
  const args: InValue[] = [];
  if (f.clients) {
    const labels = f.clients.filter((c): c is string => c !== null);
    const either = [
      ...(labels.length > 0 ? [`client IN (${labels.map(() => "?").join(", ")})`] : []),
      ...(f.clients.includes(null) ? ["client IS NULL"] : []),
    ];
    parts.push(either.length > 0 ? `(${either.join(" OR ")})` : dialect === "sqlite" ? "0" : "false");
    args.push(...labels);
  }
  if (f.result === "fail") parts.push(FAIL[dialect]);
  else if (f.result === "error") parts.push("status >= 400");
  else if (f.result === "ok") parts.push(`status < 400 AND NOT ${FAIL[dialect]}`);
  if (f.talent) {
    // the one talent is bound once per mention (positional arguments)
    const talent = TALENT[dialect];
    const mentions = talent.split("?1t").length - 1;
    parts.push(talent.replaceAll("?1t", "?"));
    for (let i = 0; i < mentions; i++) args.push(f.talent);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), args };
}
