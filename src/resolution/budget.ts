/**
 * A project's context budget: the tokens of compact forms a prepare-task serves (the rest is
 * listed by id). Read here, below the projects pages and routes that set it.
 */
import type { Database } from "../db/client";
import { keptGet } from "../db/versionMemo";

/** Tokens of compact forms a prepare-task serves when the project sets no budget of its own (docs/api.md "Context budget"). */
export const DEFAULT_CONTEXT_BUDGET = 6_000;
/** The budgets a project may set, in tokens. */
export const CONTEXT_BUDGET_LIMITS = { min: 500, max: 200_000 } as const;

/**
 * The context budget that applies to a project: its own, or DEFAULT_CONTEXT_BUDGET (read per
 * prepare-task: kept per configuration epoch).
 */
export async function contextBudgetOf(database: Database, projectId: string): Promise<number> {
  const row = await keptGet<{ b: number | null }>(database, BUDGET_SQL, [projectId]);
  return row?.b ?? DEFAULT_CONTEXT_BUDGET;
}
const BUDGET_SQL = "SELECT context_budget AS b FROM projects WHERE id = ?";
