/**
 * A project's hook rules (docs/design.md "What blocks a commit"): per rule with a detector, what the
 * project chose its findings do in `talentd check` — block the commit, only advise, or not run.
 * A rule without a row keeps its shipped behaviour (blocking where its detector earned it).
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { projects } from "./projects";

/** What a project chose for a rule's detector findings. */
export type HookChoice = "block" | "advise" | "off";

export const projectHookRules = sqliteTable(
  "project_hook_rules",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    ruleId: text("rule_id").notNull(),
    choice: text("choice").$type<HookChoice>().notNull(),
    /** Who chose it: a person's e-mail or a key's name, as it was then. */
    updatedBy: text("updated_by").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.ruleId] })],
);
