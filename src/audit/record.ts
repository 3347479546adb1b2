/**
 * Writing the organization's audit log: `record(tx, entry)` is called inside the transaction of
 * the change it describes, so a change and its entry commit together (or neither does).
 */
import type { Tx } from "../db/client";
import { auditEntries, type AuditActorKind } from "../db/schema";
import { newId } from "../lib/ids";

/** Who made a change: a signed-in person, a project key (or OAuth token), or the service itself. */
export interface AuditActor {
  kind: AuditActorKind;
  id: string;
  /** What to show: the person's e-mail, the key's name; kept as it was at the time. */
  label: string;
}

/** One change to record. `before`/`after`: the fields that changed (omitted where nothing is told). */
export interface AuditEntryInput {
  organizationId: string;
  actor: AuditActor;
  action: string;
  object: { kind: string; id: string };
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** The service's own changes (housekeeping, start-up): no person, no key. */
export const SYSTEM_ACTOR: AuditActor = { kind: "system", id: "system", label: "talentd" };

/** The actor of a signed-in person's change. */
export function userActor(user: { id: string; email: string }): AuditActor {
  return { kind: "user", id: user.id, label: user.email };
}

/** Appends one entry in the caller's transaction. */
export async function record(tx: Tx, entry: AuditEntryInput): Promise<void> {
  await tx.insert(auditEntries).values({
    id: newId("aud"),
    organizationId: entry.organizationId,
    at: Date.now(),
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorLabel: entry.actor.label,
    action: entry.action,
    objectKind: entry.object.kind,
    objectId: entry.object.id,
    before: entry.before ? JSON.stringify(entry.before) : null,
    after: entry.after ? JSON.stringify(entry.after) : null,
  });
}

/** Where a change is recorded and by whom: what a service that records takes from its route. */
export interface AuditBy {
  organizationId: string;
  actor: AuditActor;
}

/** The actor of a project key's (or an OAuth token's) change: its id and name. */
export function keyActor(principal: { id: string; name: string }): AuditActor {
  return { kind: "key", id: principal.id, label: principal.name };
}
