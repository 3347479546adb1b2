/**
 * The seven tools (docs/api-oauth-mcp.md "Tools"), as data: name, scope, what an agent reads to know
 * when to call it, its input schema, and the ONE backend request a call becomes. No tool
 * computes anything: arguments are copied into a path, a query or a body.
 */
import * as z from "zod";
import type { KeyScope } from "../db/schema";

/** One request to the backend (the key API), built from a tool's arguments. */
export interface BackendCall {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  title: string;
  /** The key/token scope the backend route requires (checked again by the backend). */
  scope: KeyScope;
  description: string;
  inputSchema: z.ZodRawShape;
  /** The backend routes the tool may reach, `METHOD /path` (documentation and tests). */
  routes: string[];
  /** The request a call becomes; `projectId` is the bearer's project (never an argument). */
  toRequest(args: Record<string, unknown>, projectId: string): BackendCall;
}

/** The loop, as told to agents by the server's instructions and the tool descriptions. */
export const LOOP = [
  "1. Before a task: svc_prepare_task with the ids of the talents the work touches → compact guidance and a resolutionId.",
  "2. After the work: svc_validate with that resolutionId → the exact index of public and private obligations.",
  "3. svc_validate again with talent=<id> for the full rules and tests you need; compare each rule to your diff yourself (the diff is never sent) and fix blocking violations.",
  "4. If the index lists private expertises (verdictRequired): svc_record_validation with one final verdict per expertise, with file:line evidence or the missing elements.",
].join("\n");

// A plain object: `.passthrough()` would publish `additionalProperties: {}`, a schema that
// constrains nothing (the MCP Inspector's --strict check flags it). The backend reads no other
// field of a verdict, so the SDK dropping unknown ones changes nothing it records.
const verdict = z.object({
  id: z.string().describe("The expertise (or talent) id, e.g. @acme/payments, as listed by svc_validate."),
  verdict: z.enum(["pass", "fail", "not_applicable"]).describe("Your final verdict for this expertise."),
  evidence: z
    .array(z.string())
    .optional()
    .describe('Where the rules are met or violated, as "path:line" (e.g. "src/pay.ts:42"). Required for fail unless missing is given.'),
  missing: z.array(z.string()).optional().describe("Elements the rules require that the work lacks."),
  note: z.string().optional().describe("Optional short explanation."),
});

export const TOOLS: ToolSpec[] = [
  {
    name: "svc_prepare_task",
    title: "Prepare a task (step 1)",
    scope: "prepare_task",
    description:
      "Step 1 of the loop — call BEFORE starting a coding task. Designate the talents (rule sets) the work touches, by id, and receive their compact guidance plus a resolutionId; keep the resolutionId for svc_validate after the work. " +
      "Nothing is guessed: an empty talentIds fails with designation_required, and ids that are not installed and active in this project fail with unknown_talents (use svc_doctor, svc_discover_codebase, svc_install_talents). " +
      "Dependencies you did not designate are not served; they come back under prerequisites so you can designate them.",
    inputSchema: {
      talentIds: z
        .array(z.string())
        .describe(
          'Ids of the talents to apply, e.g. ["typescript-strict"]; "@org/slug" for a private expertise of your organization. Must not be empty.',
        ),
      language: z.string().optional().describe("The main language of the task (e.g. typescript). Optional."),
    },
    routes: ["POST /api/prepare-task"],
    toRequest: (a) => ({ method: "POST", path: "/api/prepare-task", body: { talentIds: a.talentIds, language: a.language } }),
  },
  {
    name: "svc_deepen",
    title: "Read or search talents",
    scope: "deepen",
    description:
      "During a task, when the served guidance points further (talent:// links) or you need a talent you were not served. " +
      "With uri: reads that one talent file (optionally one markdown section). With query: literal, case-insensitive search that returns pointers (id, uri, summary), never content — then read what you need with uri. Read only what the task needs. " +
      "Pass the task's resolutionId to read exactly what was served to it (files of a private expertise are readable only this way).",
    inputSchema: {
      uri: z
        .string()
        .optional()
        .describe(
          "A talent file to read, e.g. talent://typescript-strict/references/strict-flags.md (from a pointer in the guidance or a search result).",
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
          "With query: where to search — the whole public catalog, the project's installed talents, its active talents, or what the resolution given in resolutionId served (the scope implied by resolutionId; another scope with it is refused).",
        ),
      resolutionId: z
        .string()
        .optional()
        .describe(
          "The resolutionId of the current task (from svc_prepare_task): reads are pinned to what it served, and a query searches what it served. Optional.",
        ),
    },
    routes: ["POST /api/talents/get", "GET /api/search"],
    toRequest: (a) =>
      a.uri !== undefined
        ? { method: "POST", path: "/api/talents/get", body: { uri: a.uri, section: a.section, resolutionId: a.resolutionId } }
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
  },
  {
    name: "svc_validate",
    title: "Audit playbook (steps 2 and 3)",
    scope: "validate",
    description:
      "Steps 2 and 3 of the loop — call AFTER the work. With the resolutionId from svc_prepare_task it returns the exact index of the public and private obligations of what was served. " +
      "Then call it again with talent=<id> for the full rules of that talent (how to check each one) and its conformance tests, compare each rule to your diff yourself (the diff is never sent), and fix blocking violations before finishing.",
    inputSchema: {
      resolutionId: z.string().describe("The resolutionId returned by svc_prepare_task (res_…)."),
      talent: z
        .string()
        .optional()
        .describe("A talent or expertise id of the resolution: adds its detailed rules and tests to the answer."),
    },
    routes: ["GET /api/validation/playbook"],
    toRequest: (a) => ({
      method: "GET",
      path: "/api/validation/playbook",
      query: { resolutionId: a.resolutionId as string, talent: a.talent as string | undefined },
    }),
  },
  {
    name: "svc_record_validation",
    title: "Record verdicts (step 4)",
    scope: "record_validation",
    description:
      "Step 4 of the loop — only when svc_validate lists private expertises (verdictRequired). Records ONE final verdict per private expertise of the resolution, each with file:line evidence or the missing elements. " +
      "Send the first exhaustive report before fixing a blocking violation; after fixing and reviewing again, send a second report with a NEW submissionId. Reuse a submissionId only to retry the identical report.",
    inputSchema: {
      submissionId: z
        .string()
        .describe(
          "Your stable id for this report (e.g. a UUID). The same id with the same payload is a safe retry; never reuse it for a different report.",
        ),
      resolutionId: z.string().describe("The resolutionId returned by svc_prepare_task."),
      expertiseResults: z
        .array(verdict)
        .describe("Exactly one result per private expertise of the resolution; results for its public talents are accepted too."),
    },
    routes: ["POST /api/validation/reports"],
    toRequest: (a) => ({
      method: "POST",
      path: "/api/validation/reports",
      body: { submissionId: a.submissionId, resolutionId: a.resolutionId, expertiseResults: a.expertiseResults },
    }),
  },
  {
    name: "svc_install_talents",
    title: "Install talents",
    scope: "install",
    description:
      "Installs talents in this project's selection so later tasks can designate them (an existing resolution never changes). Give one id in talent, or several in talents: a list is installed atomically (all or none). " +
      "Their prerequisites (requires) come along in the same group; a group whose prerequisites include a conflict is refused (selection_conflict). " +
      "Ids absent from the catalog are refused. This tool only installs; disabling or removing talents is done in the dashboard.",
    inputSchema: {
      talent: z.string().optional().describe("One talent id to install, e.g. typescript-strict."),
      talents: z.array(z.string()).optional().describe("Several bare talent ids, installed as one atomic group."),
    },
    routes: ["PATCH /api/projects/:id/talents"],
    toRequest: (a, projectId) => ({
      method: "PATCH",
      path: `/api/projects/${encodeURIComponent(projectId)}/talents`,
      body: { talent: a.talent, talents: a.talents },
    }),
  },
  {
    name: "svc_doctor",
    title: "Check the selection",
    scope: "doctor",
    description:
      "Checks this project's talent selection: missing prerequisites (talents required by installed ones) and conflicts. Call it when svc_prepare_task refuses ids or lists prerequisites, or when you are unsure the selection is sound.",
    inputSchema: {},
    routes: ["GET /api/doctor"],
    toRequest: () => ({ method: "GET", path: "/api/doctor" }),
  },
  {
    name: "svc_discover_codebase",
    title: "Discover which talents fit",
    scope: "discover",
    description:
      "When the project's selection is empty, or you do not know which talents exist: returns the discovery procedure, the project's selection and a compact catalog index (relevant first, within a token budget) to decide which talents fit this codebase. It activates nothing — follow it, then install with svc_install_talents.",
    inputSchema: {
      languages: z
        .array(z.string())
        .optional()
        .describe('The codebase\'s languages, e.g. ["typescript", "python"]: they rank the index. Optional.'),
      offset: z.number().int().min(0).optional().describe("Where the index goes on: the catalog.next of a previous answer. Optional."),
    },
    routes: ["GET /api/discovery/playbook"],
    toRequest: (a) => ({
      method: "GET",
      path: "/api/discovery/playbook",
      query: { languages: (a.languages as string[] | undefined)?.join(","), offset: a.offset as number | undefined },
    }),
  },
];

/** Tool name → spec. */
export const TOOLS_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));

/** Tool name → the routes it reaches: the tools table of docs/api-oauth-mcp.md, checked by a test. */
export const TOOL_ROUTES: Record<string, string[]> = Object.fromEntries(TOOLS.map((t) => [t.name, t.routes]));
