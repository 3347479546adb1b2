/**
 * The expertise lifecycle (docs/api-expertises.md, "Lifecycle"): one table, read by the service
 * and by the tests, so the documentation, the code and the tests cannot disagree.
 *
 *   draft      never published (no version)
 *   published  has versions, not served
 *   active     serves its latest published version
 *   inactive   deactivated: not served; its versions stay readable for pinned resolutions
 *
 * Deletion (DELETE …/:id) is not a state of this table: a deleted expertise is gone (404) from
 * every route and never served, whatever state it was in.
 */
import type { ExpertiseStatus } from "../db/schema";
import { AppError } from "../http/errors";

export const LIFECYCLE_OPERATIONS = ["publish", "activate", "deactivate", "reactivate"] as const;
export type LifecycleOperation = (typeof LIFECYCLE_OPERATIONS)[number];

/** operation → from → to. A missing entry is an impossible move (409 invalid_transition). */
export const LIFECYCLE_MOVES: Record<LifecycleOperation, Partial<Record<ExpertiseStatus, ExpertiseStatus>>> = {
  // publish snapshots the working version into version N+1 from any state; an active expertise
  // stays active and serves N+1 from then on.
  publish: { draft: "published", published: "published", active: "active", inactive: "inactive" },
  activate: { published: "active" },
  deactivate: { active: "inactive" },
  reactivate: { inactive: "active" },
};

/** Why a move is impossible, for the 409 message. */
const WHY: Partial<Record<`${LifecycleOperation}:${ExpertiseStatus}`, string>> = {
  "activate:draft": "it has no published version yet: publish it first",
  "activate:active": "it is already active",
  "activate:inactive": "it was deactivated: use reactivate",
  "deactivate:draft": "it is not active",
  "deactivate:published": "it is not active",
  "deactivate:inactive": "it is already inactive",
  "reactivate:draft": "it was never deactivated (and has no published version yet)",
  "reactivate:published": "it was never activated: use activate",
  "reactivate:active": "it is already active",
};

/** The operations possible from a state. */
export function allowedOperations(status: ExpertiseStatus): LifecycleOperation[] {
  return LIFECYCLE_OPERATIONS.filter((op) => LIFECYCLE_MOVES[op][status] !== undefined);
}

/** The next state, or 409 invalid_transition `{status, operation, allowed}`. */
export function nextStatus(status: ExpertiseStatus, operation: LifecycleOperation): ExpertiseStatus {
  const next = LIFECYCLE_MOVES[operation][status];
  if (next) return next;
  const why = WHY[`${operation}:${status}`] ?? "this move is not in the lifecycle";
  throw new AppError("invalid_transition", `Cannot ${operation} an expertise that is ${status}: ${why}.`, {
    status,
    operation,
    allowed: allowedOperations(status),
  });
}
