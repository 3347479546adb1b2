/**
 * The Activity tab's filters as SQL over `trace_events` (docs/design.md "The Activity tab leads with
 * the outcome"): by client (the raw labels of one tool's name, or no label), by result and by talent.
 * A `fail` is a call that recorded a fail verdict or reported findings on a rule that blocks a commit;
 * an `error` a call that failed (status 400 or more); `ok` any other.
 */
import type { InValue } from "@libsql/client";

export const RESULTS = ["fail", "error", "ok"] as const;
export type ResultFilter = (typeof RESULTS)[number];

export interface TraceFilter {
  /** Raw client labels (null: calls without one); an empty list matches nothing. */
  clients?: readonly (string | null)[];
  result?: ResultFilter;
  talent?: string;
}

/** A call that recorded an outcome the Activity tab calls a fail (from its trace detail). */
export const FAIL_SQL = `((kind = 'record_validation' AND json_extract(detail, '$.summary.fail') > 0)
  OR (kind = 'report_findings' AND json_extract(detail, '$.blocking') IS NOT NULL))`;

/** The talent named by a call: entered, left, prepared, audited, or served by its resolution. */
const TALENT_SQL = `(EXISTS (SELECT 1 FROM json_each(talents_entered) WHERE value = ?1t)
  OR EXISTS (SELECT 1 FROM json_each(talents_left) WHERE value = ?1t)
  OR (detail IS NOT NULL AND (json_extract(detail, '$.talent') = ?1t
    OR EXISTS (SELECT 1 FROM json_each(detail, '$.talents') WHERE value = ?1t)
    OR EXISTS (SELECT 1 FROM json_each(detail, '$.blocking') WHERE json_extract(value, '$.talent') = ?1t)))
  OR (resolution_id IS NOT NULL AND EXISTS (SELECT 1 FROM resolution_items ri WHERE ri.resolution_id = trace_events.resolution_id AND ri.talent_id = ?1t)))`;

/** The filter's conditions (each starting with AND) and their arguments, in order. */
export function filterSql(f: TraceFilter | undefined): { sql: string; args: InValue[] } {
  if (!f) return { sql: "", args: [] };
  const parts: string[] = [];
  const args: InValue[] = [];
  if (f.clients) {
    const labels = f.clients.filter((c): c is string => c !== null);
    const either = [
      ...(labels.length > 0 ? [`client IN (${labels.map(() => "?").join(", ")})`] : []),
      ...(f.clients.includes(null) ? ["client IS NULL"] : []),
    ];
    parts.push(either.length > 0 ? `(${either.join(" OR ")})` : "0");
    args.push(...labels);
  }
  if (f.result === "fail") parts.push(FAIL_SQL);
  else if (f.result === "error") parts.push("status >= 400");
  else if (f.result === "ok") parts.push(`status < 400 AND NOT ${FAIL_SQL}`);
  if (f.talent) {
    // the one talent is bound once per mention (positional arguments)
    const mentions = TALENT_SQL.split("?1t").length - 1;
    parts.push(TALENT_SQL.replaceAll("?1t", "?"));
    for (let i = 0; i < mentions; i++) args.push(f.talent);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), args };
}
