/**
 * The SQL fragments that SQLite and PostgreSQL write differently (docs/design.md "PostgreSQL: one
 * SQL text per dialect"): a field of JSON kept in a text column, the elements of a JSON array, a
 * string aggregate, a count of the rows where a condition holds, epoch milliseconds as ISO text.
 * A statement that needs one is built once per dialect when its module loads (`bothDialects`) and
 * picked by `database.dialect` when it runs: SQLite's text stays the one it always was, and no
 * request builds SQL for either.
 */

export type Dialect = "sqlite" | "postgres";

export interface SqlDialect {
  name: Dialect;
  /** The value at `path` of the JSON text `expr`: text (a number on SQLite), JSON text for an object or array, null when absent. */
  jsonField(expr: string, path: readonly string[]): string;
  /** The number at `path` of the JSON text `expr` (null when absent). */
  jsonNumber(expr: string, path: readonly string[]): string;
  /**
   * A FROM item over the elements of the JSON array at `path` of `expr` (the whole text when `path`
   * is empty), named `alias`, with one column `value`: the element as text when `as` is "text"
   * (strings compared with `=`), as JSON to read fields of with `jsonField(alias + ".value", …)`.
   * `expr` appears more than once in PostgreSQL's text: a parameter is numbered (`?2`), never a bare `?`.
   */
  jsonEach(expr: string, alias: string, path?: readonly string[], as?: "text" | "json"): string;
  /**
   * The values of `expr` joined by the SQL string `separator` (a fragment: a literal or `newline`), in
   * the order of `orderBy` when given (else in no stated order).
   */
  stringAgg(expr: string, separator: string, orderBy?: string): string;
  /** A line feed as a SQL expression. */
  newline: string;
  /** 1 where `condition` holds, else 0 (SQLite's booleans are those numbers; PostgreSQL's are not). */
  flag(condition: string): string;
  /** How many rows `condition` holds for (null over no rows, as sum is). */
  countWhere(condition: string): string;
}

const jsonPath = (path: readonly string[]) => `'$${path.map((p) => `.${p}`).join("")}'`;
const pgPath = (path: readonly string[]) => `'{${path.join(",")}}'`;
/**
 * A JSON text as jsonb. A parameter is typed text first: typed jsonb by the cast alone, Bun's driver
 * would send the JavaScript string as a JSON string (one scalar), not as the JSON it holds.
 */
const jsonb = (expr: string) => (/^\?\d*$/.test(expr) ? `(${expr})::text::jsonb` : `(${expr})::jsonb`);

export const SQLITE: SqlDialect = {
  name: "sqlite",
  jsonField: (expr, path) => `json_extract(${expr}, ${jsonPath(path)})`,
  jsonNumber: (expr, path) => `json_extract(${expr}, ${jsonPath(path)})`,
  jsonEach: (expr, alias, path = []) => `json_each(${expr}${path.length > 0 ? `, ${jsonPath(path)}` : ""}) ${alias}`,
  stringAgg: (expr, separator, orderBy) => `group_concat(${expr}, ${separator}${orderBy ? ` ORDER BY ${orderBy}` : ""})`,
  newline: "char(10)",
  flag: (condition) => condition,
  countWhere: (condition) => `sum(${condition})`,
};

/** JSON text columns are text on PostgreSQL too (src/db/schema-pg/derive.ts): each read casts to jsonb. */
export const POSTGRES: SqlDialect = {
  name: "postgres",
  jsonField: (expr, path) => `(${jsonb(expr)} #>> ${pgPath(path)})`,
  jsonNumber: (expr, path) => `(${jsonb(expr)} #>> ${pgPath(path)})::numeric`,
  jsonEach: (expr, alias, path = [], as = "text") => {
    const fn = as === "text" ? "jsonb_array_elements_text" : "jsonb_array_elements";
    const v = path.length > 0 ? `${jsonb(expr)} #> ${pgPath(path)}` : jsonb(expr);
    // as SQLite's json_each: an absent value has no elements, an object its members' values, a scalar itself
    const elements = `CASE WHEN ${v} IS NULL THEN '[]'::jsonb WHEN jsonb_typeof(${v}) = 'array' THEN ${v}
      WHEN jsonb_typeof(${v}) = 'object' THEN jsonb_path_query_array(${v}, '$.*') ELSE jsonb_build_array(${v}) END`;
    return `${fn}(${elements}) AS ${alias}(value)`;
  },
  stringAgg: (expr, separator, orderBy) => `string_agg((${expr})::text, ${separator}${orderBy ? ` ORDER BY ${orderBy}` : ""})`,
  newline: "chr(10)",
  flag: (condition) => `CASE WHEN ${condition} THEN 1 ELSE 0 END`,
  countWhere: (condition) => `sum(CASE WHEN ${condition} THEN 1 ELSE 0 END)`,
};

/** A statement (or anything) built for each dialect, once: pick it with `database.dialect`. */
export function bothDialects<T>(build: (d: SqlDialect) => T): Record<Dialect, T> {
  return { sqlite: build(SQLITE), postgres: build(POSTGRES) };
}
