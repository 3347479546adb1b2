/**
 * The retention purge deletes past activity (trace events and their kept hourly counts), which the
 * activity memos hold as settled: the settled day and hour counts (activity/daily.ts) and the
 * insights' settled periods (activity/dayMemo.ts). They register here how to forget, and the
 * purge (ops/housekeeping.ts) tells them after it deleted rows, whoever called it: the write says
 * so, not its caller. Here, below both, so housekeeping need not import the activity domain.
 */
import type { Database } from "./client";

/** How a memo of settled activity forgets a database's periods. */
export type ForgetActivity = (database: Database) => void;

const forgetters: ForgetActivity[] = [];

/** Registers a memo of settled activity (once, at module load) to be told of each purge. */
export function onActivityPurged(forget: ForgetActivity): void {
  forgetters.push(forget);
}

/** Past activity of `database` was deleted: every registered memo forgets what it kept of it. */
export function activityPurged(database: Database): void {
  for (const forget of forgetters) forget(database);
}
