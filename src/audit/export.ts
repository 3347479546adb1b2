/**
 * The audit log's export, JSONL or CSV, streamed: a ReadableStream whose pull() reads one
 * keyset page of EXPORT_PAGE entries (oldest first) and hands it on as one chunk, and is called
 * again only when the client has taken it. Memory is bounded by that backpressure, whatever the
 * log's size (bench/auditexport.ts: 1,000,000 entries; docs/performance.md "Audit export").
 *
 * Each page is read in a later event-loop turn than the last one (a macrotask, not a microtask):
 * the reader's page query is synchronous on a local file, and a client taking pages as fast as
 * they come would otherwise chain every pull in one turn and hold the thread for the whole log.
 * Pages follow `audit_entries_org_idx` (organization, id) from the last id (no OFFSET, no sort,
 * whatever the filters: a time window through the `at` index would sort its whole range per page).
 *
 * The database writes each page's lines itself (SQLite's json_object, or the same text built on
 * PostgreSQL; the CSV quoting) and hands over the page as one BLOB: two values cross into
 * JavaScript per page, not ten per entry. Entries read as row objects and formatted here left
 * the collector behind (~45 MiB of garbage not yet collected reading 1,000,000 rows on the
 * native connection; the same with raw arrays).
 */
import type { Database } from "../db/client";
import type { Dialect } from "../db/sqlDialect";
import { type AuditFilters, whereOf } from "./query";

/** Entries read per pull. */
export const EXPORT_PAGE = 500;

export const EXPORT_FORMATS = ["jsonl", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const CSV_COLUMNS = ["id", "at", "actor_kind", "actor_id", "actor_label", "action", "object_kind", "object_id", "before", "after"];
const CSV_HEADER = new TextEncoder().encode(`${CSV_COLUMNS.join(",")}\r\n`);

/** `at` (milliseconds) as the ISO 8601 text `iso()` writes, in SQL. */
const ISO_AT = {
  sqlite: "strftime('%Y-%m-%dT%H:%M:%S', at / 1000, 'unixepoch') || printf('.%03dZ', at % 1000)",
  postgres:
    `to_char(timestamp 'epoch' + (at / 1000) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' ` +
    "|| lpad((at % 1000)::text, 3, '0') || 'Z'",
};

/** A character by its code: `char(n)` on SQLite, `chr(n)` on PostgreSQL. */
const ch = (d: Dialect, n: number) => `${d === "sqlite" ? "char" : "chr"}(${n})`;

/**
 * A value a spreadsheet would run as a formula (it begins with =, +, -, @, a tab or CR) gets a leading
 * apostrophe, so a key name or label such as `=HYPERLINK(…)` reads as text when the file is opened there.
 */
function defused(d: Dialect, column: string): string {
  return `CASE WHEN substr(${column}, 1, 1) IN ('=', '+', '-', '@', ${ch(d, 9)}, ${ch(d, 13)}) THEN '''' || ${column} ELSE ${column} END`;
}

/** A CSV field in SQL (RFC 4180): quoted, its quotes doubled, when it holds a comma, a quote, CR or LF; NULL → empty. */
function csvField(d: Dialect, column: string): string {
  const value = defused(d, column);
  const quoted = `'"' || replace(${value}, '"', '""') || '"'`;
  const special = d === "sqlite" ? `${column} GLOB '*[",' || char(13, 10) || ']*'` : `${column} ~ ('[",' || chr(13) || chr(10) || ']')`;
  return `CASE WHEN ${column} IS NULL THEN '' WHEN ${special} THEN ${quoted} ELSE ${value} END`;
}

/**
 * A JSON object in SQL on PostgreSQL, written as SQLite's json_object writes it (no spaces, keys in
 * order): `fields` are [key, SQL text value] or [key, SQL JSON text, "raw"]; NULL is written null.
 */
function pgJsonObject(fields: [string, string, "raw"?][]): string {
  const parts = fields.map(([k, v, raw], i) => `'${i === 0 ? "{" : ","}"${k}":' || coalesce(${raw ? v : `to_json(${v})::text`}, 'null')`);
  return `(${parts.join(" || ")} || '}')`;
}

/** One entry as a line, in SQL: a JSON object of the JSON route's shape, or a CRLF-terminated CSV record. */
const LINE: Record<Dialect, Record<ExportFormat, string>> = {
  sqlite: {
    jsonl: `json_object('id', id, 'at', ${ISO_AT.sqlite}, 'actor', json_object('kind', actor_kind, 'id', actor_id, 'label', actor_label),
    'action', action, 'object', json_object('kind', object_kind, 'id', object_id),
    'before', json(before), 'after', json(after)) || char(10)`,
    csv: CSV_COLUMNS.map((c) => (c === "at" ? ISO_AT.sqlite : csvField("sqlite", c))).join(" || ',' || ") + " || char(13,10)",
  },
  postgres: {
    jsonl: `${pgJsonObject([
      ["id", "id"],
      ["at", ISO_AT.postgres],
      [
        "actor",
        pgJsonObject([
          ["kind", "actor_kind"],
          ["id", "actor_id"],
          ["label", "actor_label"],
        ]),
        "raw",
      ],
      ["action", "action"],
      [
        "object",
        pgJsonObject([
          ["kind", "object_kind"],
          ["id", "object_id"],
        ]),
        "raw",
      ],
      ["before", "before", "raw"],
      ["after", "after", "raw"],
    ])} || chr(10)`,
    csv: CSV_COLUMNS.map((c) => (c === "at" ? ISO_AT.postgres : csvField("postgres", c))).join(" || ',' || ") + " || chr(13) || chr(10)",
  },
};

/** A page as SQLite hands it over: its lines as one BLOB, its last id and its size. */
interface Page {
  body: Uint8Array | ArrayBuffer | null;
  last: string | null;
  n: number;
}

/** The next event-loop turn (a macrotask: pending I/O and timers run before it). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The page query of an export (tests check its plan). */
export function pageQuery(format: ExportFormat, where: string, after: boolean, dialect: Dialect = "sqlite"): string {
  if (dialect === "postgres")
    return `SELECT convert_to(string_agg(line, '' ORDER BY id), 'UTF8') AS body, max(id) AS last, count(*) AS n FROM (
       SELECT id, ${LINE.postgres[format]} AS line FROM audit_entries
       WHERE ${where}${after ? " AND id > ?" : ""} ORDER BY id LIMIT ${EXPORT_PAGE}) AS page`;
  return `SELECT CAST(group_concat(line, '' ORDER BY id) AS BLOB) AS body, max(id) AS last, count(*) AS n FROM (
       SELECT id, ${LINE.sqlite[format]} AS line FROM audit_entries INDEXED BY audit_entries_org_idx
       WHERE ${where}${after ? " AND id > ?" : ""} ORDER BY id LIMIT ${EXPORT_PAGE})`;
}

/** What the route adds to an export's body. */
export interface ExportHooks {
  /** Called once when the stream ends: read to its end, cancelled (the client went away) or failed. */
  ended?: () => void;
  /** Awaited before each page after the first, with the ms the last page's query took. */
  pause?: (pageMs: number) => Promise<void>;
}

/**
 * The export's body: the entries of `organizationId` under `f`, oldest first, one page per pull,
 * each in its own event-loop turn (after `hooks.pause`).
 */
export function exportStream(
  database: Database,
  organizationId: string,
  f: AuditFilters,
  format: ExportFormat,
  hooks: ExportHooks = {},
): ReadableStream<Uint8Array> {
  const { where, args } = whereOf(organizationId, f);
  const first = pageQuery(format, where, false, database.dialect);
  const next = pageQuery(format, where, true, database.dialect);
  let last: string | null = null;
  let started = false;
  let over = false;
  let pageMs = 0;
  const end = () => {
    if (over) return;
    over = true;
    hooks.ended?.();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (started) {
            await hooks.pause?.(pageMs);
            await nextTurn();
          } else if (format === "csv") controller.enqueue(CSV_HEADER);
          started = true;
          if (over) return; // cancelled while waiting for the turn
          const t = performance.now();
          const p = (await database.get<Page>(last === null ? first : next, last === null ? args : [...args, last]))!;
          pageMs = performance.now() - t;
          if (p.body) controller.enqueue(p.body instanceof Uint8Array ? p.body : new Uint8Array(p.body));
          last = p.last ?? last;
          if (Number(p.n) < EXPORT_PAGE) {
            controller.close();
            end();
          }
        } catch (e) {
          end();
          throw e;
        }
      },
      cancel: end,
    },
    { highWaterMark: 0 },
  );
}
