/** The `svc_deepen` tool (http/keyRoutes.ts): one tool over two key routes, the read (with uri) and the search (with query). */
import { READ_ONLY, type ToolFace } from "./keyRoute";

/** The tool both deepen routes share; neither uri nor query goes to the read route, whose refusal names both. */
export const deepenTool: ToolFace = {
  name: "svc_deepen",
  title: "Read or search talents",
  annotations: READ_ONLY,
  description:
    "During a task, when the served guidance points further (talent:// links) or you need a talent you were not served. " +
    "With uri: reads that one talent file (optionally one markdown section); a catalog talent not installed in the project " +
    "reads as a preview (summary, triggers, rules). With query: literal, case-insensitive search that returns " +
    "pointers (id, uri, summary), never content — then read what you need with uri. Read only what the task needs. " +
    "Pass the task's resolutionId to read exactly what was served to it (files of a private expertise are readable only this way).",
  input: (z) => ({
    uri: z
      .string()
      .optional()
      .describe(
        "A talent file to read, e.g. talent://typescript-strict/references/strict-flags.md (from a pointer in the guidance or a search " +
          "result).",
      ),
    section: z
      .string()
      .optional()
      .describe(
        'With uri: return only the section under this heading (case-insensitive): a markdown heading of the file; for a talent\'s main file (talent://<id>), any heading of its compact block, e.g. its title, "Rules", or a heading of the guidance.',
      ),
    query: z
      .string()
      .optional()
      .describe("Without uri: the literal text to search for in talent ids, titles, summaries, keywords and rules."),
    k: z.number().int().min(1).max(50).optional().describe("With query: the maximum number of pointers (default 10)."),
    scope: z
      .enum(["catalog", "installed", "active", "resolution"])
      .optional()
      .describe(
        "With query: where to search — the whole public catalog, the project's installed talents, its active talents, or what the " +
          "resolution given in resolutionId served (the scope implied by resolutionId; another scope with it is refused).",
      ),
    maxTokens: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("With uri: an optional cap on this answer (tokens); past it, files are listed to read next."),
    resolutionId: z
      .string()
      .optional()
      .describe(
        "The resolutionId of the current task (from svc_prepare_task): reads are pinned to what it served, and a query searches what " +
          "it served. Optional.",
      ),
  }),
  // neither uri nor query: the read route's refusal, which names both ("give uri … or query …")
  toRequest: (a) =>
    a.uri !== undefined || a.query === undefined
      ? {
          method: "POST",
          path: "/api/talents/get",
          body: { uri: a.uri, section: a.section, resolutionId: a.resolutionId, maxTokens: a.maxTokens },
        }
      : {
          method: "GET",
          path: "/api/search",
          query: {
            query: a.query as string | undefined,
            k: a.k as number | undefined,
            scope: a.scope as string | undefined,
            resolutionId: a.resolutionId as string | undefined,
          },
        },
};
