/**
 * The loop as MCP prompts (docs/api-oauth-mcp.md): one to prepare a task, one to audit a resolution, so a
 * client that shows prompts lets a person start either step. A prompt is text with the
 * person's arguments copied in; it calls no backend and decides nothing (the tools do).
 */
import * as z from "zod";
import type { KeyScope } from "../db/schema";

export interface PromptSpec {
  name: string;
  /** The scope of the tool the prompt starts with: offered only to credentials that carry it (view.ts). */
  scope: KeyScope;
  title: string;
  description: string;
  /** The arguments, as the SDK publishes them in prompts/list (name, description, required). */
  argsSchema: z.ZodRawShape;
  /** The one user message of the prompt, from its arguments. */
  render(args: Record<string, string | undefined>): string;
}

const list = (text: string | undefined): string[] =>
  (text ?? "")
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");

export const PROMPTS: PromptSpec[] = [
  {
    name: "prepare_task",
    scope: "prepare_task",
    title: "Prepare a task with talentd (step 1)",
    description:
      "Before a coding task: designate the talents (conventions) the work touches, receive their guidance and a resolutionId to audit " +
      "the work against later.",
    argsSchema: {
      task: z.string().describe("The task you are about to do, in a sentence (e.g. add keyset pagination to GET /orders)."),
      talents: z
        .string()
        .optional()
        .describe(
          "Talent ids to designate, separated by commas or spaces (e.g. typescript-strict, api-pagination). Optional: otherwise the " +
            "agent chooses among the project's active talents.",
        ),
    },
    render: ({ task, talents }) => {
      const ids = list(talents);
      const designate =
        ids.length > 0
          ? `Call svc_prepare_task with talentIds ${JSON.stringify(ids)}.`
          : "Find the talents this work touches among the project's active ones (svc_deepen with a query and scope active, or the skills and resources of this server), then call svc_prepare_task with their ids as talentIds. Designate only what the work touches: only that is served and audited.";
      return [
        `I am about to do this task: ${task}`,
        "",
        "Follow this project's conventions with talentd:",
        `1. ${designate} Keep the resolutionId it returns.`,
        "2. Work by the compact guidance it serves. If it lists prerequisites, designate them too (a new svc_prepare_task). Follow a " +
          "talent:// pointer with svc_deepen (uri and the resolutionId) only where it applies.",
        "3. When the work is done, audit it against that resolutionId (the audit_resolution prompt, or svc_validate).",
      ].join("\n");
    },
  },
  {
    name: "audit_resolution",
    scope: "validate",
    title: "Audit the work with talentd (steps 2–4)",
    description:
      "After a coding task: check the work against exactly what its resolution served, fix blocking violations, and record the " +
      "verdicts private expertises need.",
    argsSchema: {
      resolutionId: z.string().describe("The resolutionId svc_prepare_task returned for this task (res_…)."),
      changes: z
        .string()
        .optional()
        .describe("What to audit (e.g. the staged changes, a commit range, some paths). Optional: the uncommitted changes otherwise."),
    },
    render: ({ resolutionId, changes }) =>
      [
        `Audit ${changes?.trim() ? changes.trim() : "my uncommitted changes"} against talentd resolution ${resolutionId}:`,
        "",
        `1. Call svc_validate with resolutionId ${JSON.stringify(resolutionId)}: it lists the public and private obligations of what was served.`,
        "2. For each talent listed, call svc_validate again with its id as talent for the rules (how to check each) and the " +
          "conformance tests. Compare every rule to the diff yourself: never send the diff anywhere. Fix each blocking violation before " +
          "finishing.",
        "3. If private expertises are listed (verdictRequired), call svc_record_validation with one final verdict per expertise, each " +
          "with file:line evidence or the missing elements. Send the first exhaustive report before fixing; after fixing and reviewing " +
          "again, send a new report with a new submissionId.",
      ].join("\n"),
  },
];
