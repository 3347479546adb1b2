/**
 * Eval summaries (docs/eval.md, `POST /api/evals`): what `talentd eval --upload` sends — per run the findings'
 * counts by rule, the check's result, the duration and whether talentd was invoked, and per talent its effect.
 * Counts only: no file, line, code or diff. Kept per project, listed newest first.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

export const evals = sqliteTable(
  "evals",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    /** The key (or token) that uploaded it, by name as it was then. */
    uploadedBy: text("uploaded_by").notNull(),
    runsPerArm: integer("runs_per_arm").notNull(),
    tasks: integer("tasks").notNull(),
    runs: integer("runs").notNull(),
    /** The summary as checked (JSON): runsPerArm, tasks, runs, effects. */
    summary: text("summary").notNull(),
  },
  (t) => [index("evals_project_created").on(t.projectId, t.createdAt)],
);
