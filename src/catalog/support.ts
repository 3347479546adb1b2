/**
 * The support table (`talents/_support.yaml`): the end of support of the product versions the
 * talents' `covers` name, and which of a talent's covered versions are past it on a given day
 * (docs/talent-format.md "Review: reviewed and covers").
 */
import type { Coverage, Finding } from "./format";
import { isCalendarDay } from "./validateReview";

export const SUPPORT_FILE = "_support.yaml";

/** One row: a product's version and the last day it is supported (YYYY-MM-DD). */
export interface SupportRow {
  product: string;
  version: string;
  ends: string;
}

/** A covered version whose support ended before the day asked about. */
export interface PastSupport {
  product: string;
  version: string;
  ended: string;
}

/** Reads the table's YAML (`support: [{product, version, ends}]`); every malformed row is a problem. */
export function parseSupportTable(text: string): { rows: SupportRow[]; problems: string[] } {
  const rows: SupportRow[] = [];
  const problems: string[] = [];
  let doc: unknown;
  try {
    doc = Bun.YAML.parse(text);
  } catch (e) {
    return { rows, problems: [`invalid YAML: ${(e as Error).message.split("\n")[0]}`] };
  }
  const list = doc !== null && typeof doc === "object" && !Array.isArray(doc) ? (doc as Record<string, unknown>).support : undefined;
  if (!Array.isArray(list)) return { rows, problems: ["must be a mapping with a `support` list"] };
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const { product, version, ends } = r;
    if (typeof product !== "string" || !product.trim()) return void problems.push(`support[${i}].product: missing`);
    if (typeof version !== "string" || !version.trim()) return void problems.push(`support[${i}].version: missing (a string: quote it)`);
    if (typeof ends !== "string" || !isCalendarDay(ends)) return void problems.push(`support[${i}].ends: must be a day YYYY-MM-DD`);
    const key = `${product.trim().toLowerCase()}\0${version.trim()}`;
    if (seen.has(key)) return void problems.push(`support[${i}]: ${product} ${version} is listed twice`);
    seen.add(key);
    rows.push({ product: product.trim(), version: version.trim(), ends });
  });
  return { rows, problems };
}

/**
 * The versions of `covers` whose support ended before `today` (YYYY-MM-DD): the end day itself is
 * still supported. Products are matched without regard to case; a version the table does not
 * list is not judged (the table lists only end dates someone checked).
 */
export function pastSupport(covers: readonly Coverage[] | undefined, rows: readonly SupportRow[], today: string): PastSupport[] {
  const out: PastSupport[] = [];
  for (const c of covers ?? []) {
    for (const version of c.versions) {
      const row = rows.find((r) => r.product.toLowerCase() === c.product.toLowerCase() && r.version === version);
      if (row && row.ends < today) out.push({ product: row.product, version, ended: row.ends });
    }
  }
  return out;
}

/** Today's day in UTC, YYYY-MM-DD. */
export function utcDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * What `talents lint DIR` adds when DIR holds a support table: the table's malformed rows, a
 * talent's covered version past its end of support and a `reviewed` day after `today`, as findings.
 */
export function supportFindings(
  table: { text: string; label: string } | null,
  talents: readonly { id: string; file: string; covers?: readonly Coverage[]; reviewed?: string }[],
  today: string,
): Finding[] {
  const out: Finding[] = [];
  for (const t of talents)
    if (t.reviewed && t.reviewed > today) out.push({ file: t.file, field: "reviewed", problem: `${t.reviewed} is after today (${today})` });
  if (!table) return out;
  const { rows, problems } = parseSupportTable(table.text);
  for (const p of problems) {
    const at = p.startsWith("support") ? p.indexOf(": ") : -1;
    out.push({ file: table.label, field: at < 0 ? "support" : p.slice(0, at), problem: at < 0 ? p : p.slice(at + 2) });
  }
  for (const t of talents)
    for (const p of pastSupport(t.covers, rows, today))
      out.push({
        file: t.file,
        field: "covers",
        problem: `${p.product} ${p.version} left support on ${p.ended} (${table.label}): write the talent for a supported version`,
      });
  return out;
}
