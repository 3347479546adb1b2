/**
 * Reading the audit log: filters (actor, action, object kind, time window) and keyset paging,
 * newest first, for the page and `GET /web/orgs/current/audit-log`; the same filters, oldest
 * first, for the export (export.ts).
 */
import type { Database } from "../db/client";
import { validationFailed } from "../http/errors";
import { badCursor, intParam, strParam } from "../http/query";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import { iso } from "../lib/time";

/** What a reader may filter on (all optional; `from` inclusive, `to` exclusive, in milliseconds). */
export interface AuditFilters {
  actor?: string;
  action?: string;
  objectKind?: string;
  from?: number;
  to?: number;
}

/** One entry as stored (raw SQL row). */
export interface AuditRow {
  id: string;
  at: number;
  actor_kind: string;
  actor_id: string;
  actor_label: string;
  action: string;
  object_kind: string;
  object_id: string;
  before: string | null;
  after: string | null;
}

/** The columns every reader selects, in this order (the export reads them as arrays). */
export const AUDIT_COLUMNS = "id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id, before, after";

/** A time parameter: an ISO 8601 date-time (or date); anything else → 400 naming it. */
function timeParam(query: Record<string, unknown>, name: string): number | undefined {
  const raw = strParam(query, name, 40);
  if (raw === undefined) return undefined;
  const t = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(t))
    throw validationFailed([{ path: name, message: "must be an ISO 8601 date or date-time" }]);
  return t;
}

/** The filters of a query string (the route, the page and the export share them); a bad one → 400. */
export function parseFilters(query: Record<string, unknown>): AuditFilters {
  return {
    actor: strParam(query, "actor", 200),
    action: strParam(query, "action", 100),
    objectKind: strParam(query, "objectKind", 100),
    from: timeParam(query, "from"),
    to: timeParam(query, "to"),
  };
}

/** The WHERE clause and its arguments of an organization's entries under `f` (an actor matches its id or label). */
export function whereOf(organizationId: string, f: AuditFilters): { where: string; args: (string | number)[] } {
  const parts = ["organization_id = ?"];
  const args: (string | number)[] = [organizationId];
  if (f.actor) {
    parts.push("(actor_id = ? OR actor_label = ?)");
    args.push(f.actor, f.actor);
  }
  if (f.action) {
    parts.push("action = ?");
    args.push(f.action);
  }
  if (f.objectKind) {
    parts.push("object_kind = ?");
    args.push(f.objectKind);
  }
  if (f.from !== undefined) {
    parts.push("at >= ?");
    args.push(f.from);
  }
  if (f.to !== undefined) {
    parts.push("at < ?");
    args.push(f.to);
  }
  return { where: parts.join(" AND "), args };
}

/** An entry as answered (JSON, the page, the JSONL export). */
export function entryView(r: AuditRow) {
  return {
    id: r.id,
    at: iso(r.at),
    actor: { kind: r.actor_kind, id: r.actor_id, label: r.actor_label },
    action: r.action,
    object: { kind: r.object_kind, id: r.object_id },
    before: r.before === null ? null : (JSON.parse(r.before) as Record<string, unknown>),
    after: r.after === null ? null : (JSON.parse(r.after) as Record<string, unknown>),
  };
}

export type AuditEntryView = ReturnType<typeof entryView>;

/** One page of entries, newest first, and the cursor of the next (null at the end). */
export async function listAuditEntries(
  database: Database,
  organizationId: string,
  f: AuditFilters,
  page: { limit: number; cursor?: string },
): Promise<{ entries: AuditEntryView[]; nextCursor: string | null }> {
  const before = page.cursor ? (decodeCursor("after", page.cursor) ?? badCursor()) : null;
  const { where, args } = whereOf(organizationId, f);
  const rows = await database.all<AuditRow>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE ${where}${before ? " AND id < ?" : ""} ORDER BY id DESC LIMIT ?`,
    [...args, ...(before ? [before] : []), page.limit + 1],
  );
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  return { entries: shown.map(entryView), nextCursor: more ? encodeCursor("after", shown.at(-1)!.id) : null };
}

/** The page size of a query string: 1 to 200, 50 by default. */
export function limitOf(query: Record<string, unknown>): number {
  return intParam(query, "limit", 1, 200, 50);
}
