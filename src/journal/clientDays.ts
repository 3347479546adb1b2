/**
 * talent_client_days' served counts (the rule-effect reads, src/activity/ruleEffect.ts): a successful prepare_task event counts
 * its resolution's designated talents once for the client of the event, on the resolution's day. Counted by the journal
 * per batch, one statement per author (whose client the batch's events share), before the batch's events are inserted
 * and in their transaction — so a validate event of the same batch finds the rows its audit trigger (migrations/0023_effect.sql)
 * updates. A trigger on each event did the same with ten upserts per prepare_task event (one per talent); one statement for a
 * batch of up to 50 events upserts each (day, talent) once (migrations/0024_client_days_batched.sql).
 */
import { POSTGRES, SQLITE, type Dialect } from "../db/sqlDialect";
import type { Statement } from "../db/writeJob";

/**
 * Counts the resolutions of the JSON array ?2 served to client ?1 ('' for none): the resolutions grouped by project, day and
 * designation first, then each group's talents upserted once with its count. Writer CPU per prepare_task event (the
 * resolution and event inserts alone: ~45 µs): the trigger ~25 µs, this ~10 in batches of 8 events and ~4 in batches of 50
 * (grouping every event's talents instead: ~17 in batches of 8). A resolution that is not there (its project deleted since the
 * call) counts nothing, as its event is not inserted either.
 */
const SERVED = {
  sqlite: `INSERT INTO talent_client_days (project_id, day, talent_id, client, served, audited)
  SELECT g.project_id, g.day, d.talent_id, ?1, g.n, 0
  FROM (SELECT r.project_id, r.created_at / 86400000 AS day, r.designation_id, count(*) AS n
    FROM ${SQLITE.jsonEach("?2", "j")} JOIN resolutions r ON r.id = j.value GROUP BY 1, 2, 3) g
  JOIN designation_items d ON d.designation_id = g.designation_id
  WHERE true
  ON CONFLICT (project_id, day, talent_id, client) DO UPDATE SET served = served + excluded.served`,
  // one row per key (PostgreSQL's upsert refuses to touch a row twice, which two designations sharing a talent would),
  // and the table's column named apart from excluded's
  postgres: `INSERT INTO talent_client_days (project_id, day, talent_id, client, served, audited)
  SELECT g.project_id, g.day, d.talent_id, ?1, sum(g.n), 0
  FROM (SELECT r.project_id, r.created_at / 86400000 AS day, r.designation_id, count(*) AS n
    FROM ${POSTGRES.jsonEach("?2", "j")} JOIN resolutions r ON r.id = j.value GROUP BY 1, 2, 3) g
  JOIN designation_items d ON d.designation_id = g.designation_id
  GROUP BY g.project_id, g.day, d.talent_id
  ON CONFLICT (project_id, day, talent_id, client) DO UPDATE SET served = talent_client_days.served + excluded.served`,
};

/** Whether an event counts as served: a prepare_task with its resolution, answered 2xx. */
export const countsServed = (kind: string, resolutionId: string | null, status: number): resolutionId is string =>
  kind === "prepare_task" && resolutionId !== null && status >= 200 && status <= 299;

/** The statement counting one author's served resolutions (null when there are none). */
export function servedStatement(client: string | null, resolutionIds: readonly string[], dialect: Dialect = "sqlite"): Statement | null {
  return resolutionIds.length === 0 ? null : { sql: SERVED[dialect], args: [client ?? "", JSON.stringify(resolutionIds)] };
}
