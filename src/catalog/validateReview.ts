/**
 * The review fields of a talent's front matter (docs/talent-format.md "Review: reviewed and
 * covers"): `reviewed`, the day a person last checked the talent against its stack's current
 * docs, and `covers`, the products and versions it is written for.
 */
import type { Coverage } from "./formatBase";
import type { Add } from "./validateFields";

export const REVIEWED_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
export const MAX_COVERS = 12;
export const MAX_COVER_VERSIONS = 12;

/** A `YYYY-MM-DD` text naming a real calendar day. */
export function isCalendarDay(text: string): boolean {
  const m = REVIEWED_PATTERN.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** `reviewed`: a calendar day, undefined when absent. A YAML date value (unquoted, read as a Date by some parsers) is accepted. */
export function readReviewed(v: unknown, add: Add): string | undefined {
  if (v === undefined || v === null) return undefined;
  const text = v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString().slice(0, 10) : v;
  if (typeof text !== "string" || !isCalendarDay(text)) {
    add("reviewed", `must be a day written YYYY-MM-DD (got ${JSON.stringify(v)})`);
    return undefined;
  }
  return text;
}

/**
 * `covers`: a list of `{product, versions}`. Versions are strings: a YAML number would turn
 * `3.10` into 3.1, so a number is refused with the quoting that keeps it.
 */
export function readCovers(v: unknown, add: Add): Coverage[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length === 0) {
    add("covers", 'must be a non-empty list of {product, versions} (e.g. [{product: ".NET", versions: ["10"]}])');
    return undefined;
  }
  if (v.length > MAX_COVERS) add("covers", `at most ${MAX_COVERS} products (has ${v.length})`);
  const out: Coverage[] = [];
  const seen = new Set<string>();
  v.forEach((raw, i) => {
    const at = `covers[${i}]`;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      add(at, "must be a mapping with product and versions");
      return;
    }
    const c = raw as Record<string, unknown>;
    for (const key of Object.keys(c)) if (key !== "product" && key !== "versions") add(`${at}.${key}`, "unknown field (product, versions)");
    const product = typeof c.product === "string" ? c.product.trim() : "";
    if (!product) add(`${at}.product`, "missing: the product's name as its support table writes it (e.g. .NET, Angular)");
    else if (product.length > 60 || product.includes("\n")) add(`${at}.product`, "must be one line of at most 60 characters");
    else if (seen.has(product.toLowerCase())) add(`${at}.product`, `"${product}" is named twice`);
    seen.add(product.toLowerCase());
    const versions = readVersions(c.versions, `${at}.versions`, add);
    if (product && versions) out.push({ product, versions });
  });
  return out;
}

function readVersions(v: unknown, at: string, add: Add): string[] | undefined {
  if (!Array.isArray(v) || v.length === 0) {
    add(at, 'must be a non-empty list of versions as strings (e.g. ["10"])');
    return undefined;
  }
  if (v.length > MAX_COVER_VERSIONS) add(at, `at most ${MAX_COVER_VERSIONS} versions (has ${v.length})`);
  const out: string[] = [];
  v.forEach((x, j) => {
    if (typeof x === "number") add(`${at}[${j}]`, `must be a string: quote it ("${x}"), a YAML number drops digits (3.10 is 3.1)`);
    else if (typeof x !== "string" || !/^[0-9A-Za-z][0-9A-Za-z.+-]{0,23}$/.test(x.trim()))
      add(`${at}[${j}]`, `${JSON.stringify(x)} is not a version (letters, digits, . + -; at most 24 characters)`);
    else out.push(x.trim());
  });
  return out;
}
