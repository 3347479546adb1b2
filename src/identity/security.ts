/** The security-events log: sign-ins, failures, lockouts, password changes, key lifecycle. */
import { desc, eq, lt } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { securityEvents } from "../db/schema";
import { newId } from "../lib/ids";

export interface SecurityEventInput {
  kind: string;
  userId?: string | null;
  email?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  detail?: Record<string, unknown>;
}

/**
 * Records one security event: in its own write given the database, or inside the caller's
 * transaction given one (so the event and what it records commit together, or neither does).
 */
export async function recordSecurityEvent(target: Database | Tx, e: SecurityEventInput): Promise<void> {
  const insert = (tx: Tx) =>
    tx.insert(securityEvents).values({
      id: newId("sev"),
      kind: e.kind,
      userId: e.userId ?? null,
      email: e.email ?? null,
      ip: e.ip ?? null,
      userAgent: e.userAgent ?? null,
      detail: e.detail ?? null,
      createdAt: Date.now(),
    });
  if ("write" in target) await target.write(insert);
  else await insert(target);
}

/**
 * Newest first; `before` is the createdAt cursor of the previous page (events strictly older).
 * A page never splits a millisecond: a full page also takes every other event of its last
 * event's millisecond (so it may hold a few more than `limit`), else the next page, starting
 * strictly before that millisecond, would skip them.
 */
export async function listSecurityEvents(database: Database, limit: number, before?: number) {
  const q = database.db.select().from(securityEvents);
  const rows = await (before ? q.where(lt(securityEvents.createdAt, before)) : q)
    .orderBy(desc(securityEvents.createdAt), desc(securityEvents.id))
    .limit(limit);
  if (rows.length === limit) {
    const seen = new Set(rows.map((r) => r.id));
    const sameMs = await database.db
      .select()
      .from(securityEvents)
      .where(eq(securityEvents.createdAt, rows.at(-1)!.createdAt))
      .orderBy(desc(securityEvents.id));
    for (const r of sameMs) if (!seen.has(r.id)) rows.push(r);
  }
  return rows;
}
