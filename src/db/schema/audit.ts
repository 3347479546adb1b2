/**
 * The organization's audit log (src/audit/): who changed what in an organization. Append-only:
 * a trigger refuses UPDATE (migration `audit`'s hand-written end); DELETE is for the retention
 * purge only (src/ops/housekeeping.ts). Activity data, not configuration: no epoch trigger.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./tenancy";

export const AUDIT_ACTOR_KINDS = ["user", "key", "system"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

export const auditEntries = sqliteTable(
  "audit_entries",
  {
    /** `aud_` + a ULID: the entries' order (keyset paging, the export). */
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Milliseconds since the epoch, server time at the change. */
    at: integer("at").notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorId: text("actor_id").notNull(),
    /** What the actor was called at the time (an e-mail, a key's name): kept, not joined. */
    actorLabel: text("actor_label").notNull(),
    /** e.g. `member.role_changed`, `key.created` (docs/api.md "The audit log"). */
    action: text("action").notNull(),
    objectKind: text("object_kind").notNull(),
    objectId: text("object_id").notNull(),
    /** JSON text of the object's relevant fields before and after the change (null: none). */
    before: text("before"),
    after: text("after"),
  },
  (t) => [index("audit_entries_org_idx").on(t.organizationId, t.id), index("audit_entries_at_idx").on(t.at)],
);
