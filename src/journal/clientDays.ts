/**
 * talent_client_days' served counts (the rule-effect reads, src/activity/ruleEffect.ts): a successful prepare_task event counts
 * its resolution's designated talents once for the client of the event, on the resolution's day. Counted by the journal
 * per batch, one statement per author (whose client the batch's events share), before the batch's events are inserted
 * and in their transaction — so a validate event of the same batch finds the rows its audit trigger (migrations/0023_effect.sql)
 * updates. A trigger on each event did the same with ten upserts per prepare_task event (one per talent); one statement for a
 * batch of up to 50 events upserts each (day, talent) once (migrations/0024_client_days_batched.sql).
 */
import type { Statement } from "../db/writeJob";

/**
 * Adds `count` events' worth of served talents (each of the resolutions in the JSON array ?2) for client ?1 ('' for none).
 * A resolution that is not there (its project deleted since the call) counts nothing, as its event is not inserted either.
 */
const SERVED_SQL = `INSERT INTO talent_client_days (project_id, day, talent_id, client, served, audited)
  SELECT r.project_id, r.created_at / 86400000, d.talent_id, ?1, count(*), 0
  FROM json_each(?2) j JOIN resolutions r ON r.id = j.value JOIN designation_items d ON d.designation_id = r.designation_id
  WHERE true GROUP BY r.project_id, r.created_at / 86400000, d.talent_id
  ON CONFLICT (project_id, day, talent_id, client) DO UPDATE SET served = served + excluded.served`;

/** Whether an event counts as served: a prepare_task with its resolution, answered 2xx. */
export const countsServed = (kind: string, resolutionId: string | null, status: number): resolutionId is string =>
  kind === "prepare_task" && resolutionId !== null && status >= 200 && status <= 299;

/** The statement counting one author's served resolutions (null when there are none). */
export function servedStatement(client: string | null, resolutionIds: readonly string[]): Statement | null {
  return resolutionIds.length === 0 ? null : { sql: SERVED_SQL, args: [client ?? "", JSON.stringify(resolutionIds)] };
}
