/** The security-events log: sign-ins, failures, lockouts, password changes, key lifecycle. */
import { desc, lt } from "drizzle-orm";
import type { Database } from "../db/client";
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

/** Records one security event in its own write. */
export async function recordSecurityEvent(database: Database, e: SecurityEventInput): Promise<void> {
  await database.write((tx) =>
    tx.insert(securityEvents).values({
      id: newId("sev"),
      kind: e.kind,
      userId: e.userId ?? null,
      email: e.email ?? null,
      ip: e.ip ?? null,
      userAgent: e.userAgent ?? null,
      detail: e.detail ?? null,
      createdAt: Date.now(),
    }),
  );
}

/** Newest first; `before` is the createdAt cursor of the previous page. */
export async function listSecurityEvents(database: Database, limit: number, before?: number) {
  const q = database.db.select().from(securityEvents);
  const rows = await (before ? q.where(lt(securityEvents.createdAt, before)) : q).orderBy(desc(securityEvents.createdAt)).limit(limit);
  return rows;
}
