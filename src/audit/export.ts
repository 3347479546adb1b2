/**
 * The audit log's export, JSONL or CSV, streamed: a ReadableStream whose pull() reads one
 * keyset page of EXPORT_PAGE entries (oldest first) and hands it on as one chunk, and is called
 * again only when the client has taken it. Memory is bounded by that backpressure, whatever the
 * log's size (bench/auditexport.ts: 1,000,000 entries; docs/performance.md "Audit export").
 */
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { AUDIT_COLUMNS, type AuditFilters, type AuditRow, whereOf } from "./query";

/** Entries read per pull. */
export const EXPORT_PAGE = 500;

export const EXPORT_FORMATS = ["jsonl", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const CSV_HEADER = "id,at,actor_kind,actor_id,actor_label,action,object_kind,object_id,before,after\r\n";

/** One CSV field (RFC 4180): quoted, its quotes doubled, when it holds a comma, a quote, CR or LF. */
export function csvField(v: string | null): string {
  if (v === null) return "";
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** One entry as a CSV record (CRLF-terminated). */
function csvLine(r: AuditRow): string {
  return `${csvField(r.id)},${iso(r.at)},${csvField(r.actor_kind)},${csvField(r.actor_id)},${csvField(r.actor_label)},${csvField(
    r.action,
  )},${csvField(r.object_kind)},${csvField(r.object_id)},${csvField(r.before)},${csvField(r.after)}\r\n`;
}

/** One entry as a JSON line, the shape of the JSON route's entries (before/after are stored as JSON text). */
function jsonLine(r: AuditRow): string {
  const s = JSON.stringify;
  return `{"id":${s(r.id)},"at":"${iso(r.at)}","actor":{"kind":${s(r.actor_kind)},"id":${s(r.actor_id)},"label":${s(
    r.actor_label,
  )}},"action":${s(r.action)},"object":{"kind":${s(r.object_kind)},"id":${s(r.object_id)}},"before":${r.before ?? "null"},"after":${
    r.after ?? "null"
  }}\n`;
}

/** The export's body: the entries of `organizationId` under `f`, oldest first, one page per pull. */
export function exportStream(database: Database, organizationId: string, f: AuditFilters, format: ExportFormat): ReadableStream<Uint8Array> {
  const { where, args } = whereOf(organizationId, f);
  const first = `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${where} ORDER BY id LIMIT ${EXPORT_PAGE}`;
  const next = `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${where} AND id > ? ORDER BY id LIMIT ${EXPORT_PAGE}`;
  const line = format === "csv" ? csvLine : jsonLine;
  const encoder = new TextEncoder();
  let last: string | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let text = "";
        if (!started && format === "csv") text = CSV_HEADER;
        started = true;
        const rows = await database.all<AuditRow>(last === null ? first : next, last === null ? args : [...args, last]);
        for (const r of rows) text += line(r);
        if (rows.length > 0) last = rows[rows.length - 1]!.id;
        if (text) controller.enqueue(encoder.encode(text));
        if (rows.length < EXPORT_PAGE) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}
