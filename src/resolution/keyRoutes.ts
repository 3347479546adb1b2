/**
 * The key routes of the agent loop that resolution serves (routes.ts), one descriptor each
 * (http/keyRoute.ts): designable, prepare-task, reads and search, playbook, reports, install,
 * doctor, discovery. Their guards and trace kinds, their OpenAPI entries, the MCP tools and the
 * next steps an answer words (wording.ts) are read from here; src/keyRoutes.ts lists them with
 * the other domains' key routes.
 */
import type * as Zod from "zod";
import { ADDS, READ_ONLY, REPEATABLE, type KeyRoute, type ToolFace } from "../http/keyRoute";
import { a, arr, I, ids, int, o, obj, S, str, TalentFile } from "../http/schema";
import { DESIGNABLE, DISCOVERY, DOCTOR, INSTALLED, PLAYBOOK, PREPARED, REPORT } from "./keyAnswers";

// A plain object: `.passthrough()` would publish `additionalProperties: {}`, a schema that
// constrains nothing (the MCP Inspector's --strict check flags it). The backend reads no other
// field of a verdict, so the SDK dropping unknown ones changes nothing it records.
const verdict = (z: typeof Zod) =>
  z.object({
    id: z.string().describe("The expertise (or talent) id, e.g. @acme/payments, as listed by svc_validate."),
    verdict: z.enum(["pass", "fail", "not_applicable"]).describe("Your final verdict for this expertise."),
    evidence: z
      .array(z.string())
      .optional()
      .describe('Where the rules are met or violated, as "path:line" (e.g. "src/pay.ts:42"). Required for fail unless missing is given.'),
    missing: z.array(z.string()).optional().describe("Elements the rules require that the work lacks."),
    note: z.string().optional().describe("Optional short explanation."),
  });

/** `svc_deepen`, one tool over the read (with uri) and the search (with query); with neither, the read, whose refusal names both. */
const deepenTool: ToolFace = {
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

/** The key routes of resolution, by name. */
export const RESOLUTION_KEY_ROUTES = {
  designable: {
    method: "GET",
    path: "/api/prepare-task/designable",
    scope: "prepare_task",
    kind: "designable",
    summary: "The talents the project can designate (relevant first)",
    answer: DESIGNABLE,
  },
  prepareTask: {
    method: "POST",
    path: "/api/prepare-task",
    scope: "prepare_task",
    kind: "prepare_task",
    summary: "Designate talents; a frozen resolution",
    body: obj({ talentIds: ids, language: str(), maxTokens: int(1, 1_000_000) }, ["talentIds"]),
    ok: 201,
    errors: [400],
    answer: PREPARED,
    tool: {
      name: "svc_prepare_task",
      title: "Prepare a task (step 1)",
      annotations: ADDS,
      description:
        "Step 1 of the loop — call BEFORE starting a coding task. Designate the talents (rule sets) the work touches, by id, and " +
        "receive their compact guidance plus a resolutionId; keep the resolutionId for svc_validate after the work. " +
        "Nothing is guessed: an empty talentIds fails with designation_required, and ids that are not installed and active in this " +
        "project fail with unknown_talents (use svc_doctor, svc_discover_codebase, svc_install_talents). " +
        "Dependencies you did not designate are not served; they come back under prerequisites so you can designate them.",
      input: (z) => ({
        talentIds: z
          .array(z.string())
          .describe(
            'Ids of the talents to apply, e.g. ["typescript-strict"]; "@org/slug" for a private expertise of your organization. Must not be empty.',
          ),
        language: z.string().optional().describe("The main language of the task (e.g. typescript). Optional."),
        maxTokens: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Optional cap on the guidance served now (tokens): what fits in designation order, the rest listed to read later."),
      }),
      toRequest: (a) => ({
        method: "POST",
        path: "/api/prepare-task",
        body: { talentIds: a.talentIds, language: a.language, maxTokens: a.maxTokens },
      }),
    },
  },
  read: {
    method: "POST",
    path: "/api/talents/get",
    scope: "deepen",
    kind: "read",
    summary: "Read talent files (1–20 uris), or search",
    body: obj({
      uri: str(),
      uris: arr(obj({ uri: str() }), { maxItems: 20 }),
      resolutionId: str(),
      section: str(),
      query: str(),
      maxTokens: int(1, 1_000_000),
    }),
    errors: [400, 404],
    answer: o({ files: a(TalentFile), notServed: a(o({ uri: S, section: S, tokens: I })), overBudget: S }),
    tool: deepenTool,
  },
  search: {
    method: "GET",
    path: "/api/search",
    scope: "deepen",
    kind: "search",
    summary: "Literal search: pointers, never content",
    query: [
      { name: "query", schema: str(), required: true },
      { name: "k", schema: int(1, 50) },
      { name: "scope", schema: str({ enum: ["catalog", "installed", "active", "resolution"] }) },
      { name: "resolutionId", schema: str() },
    ],
    errors: [400, 404],
    answer: o({ scope: S, results: a(o({ id: S, uri: S, summary: S })) }),
    reachedBy: "svc_deepen",
  },
  playbook: {
    method: "GET",
    path: "/api/validation/playbook",
    scope: "validate",
    kind: "validate",
    summary: "The audit playbook of a resolution",
    query: [
      { name: "resolutionId", schema: str(), required: true },
      { name: "talent", schema: str() },
    ],
    errors: [400, 404],
    answer: PLAYBOOK,
    tool: {
      name: "svc_validate",
      title: "Audit playbook (steps 2 and 3)",
      annotations: READ_ONLY,
      description:
        "Steps 2 and 3 of the loop — call AFTER the work. With the resolutionId from svc_prepare_task it returns the exact index of " +
        "the public and private obligations of what was served. " +
        "Then call it again with talent=<id> for the full rules of that talent (how to check each one) and its conformance tests, " +
        "compare each rule to your diff yourself (the diff is never sent), and fix blocking violations before finishing.",
      input: (z) => ({
        resolutionId: z.string().describe("The resolutionId returned by svc_prepare_task (res_…)."),
        talent: z.string().optional().describe("A talent or expertise id of the resolution: answers only its detailed rules and tests."),
      }),
      toRequest: (a) => ({
        method: "GET",
        path: "/api/validation/playbook",
        query: { resolutionId: a.resolutionId as string, talent: a.talent as string | undefined },
      }),
    },
  },
  reports: {
    method: "POST",
    path: "/api/validation/reports",
    scope: "record_validation",
    kind: "record_validation",
    summary: "Record one verdict per private expertise (replayable)",
    body: obj(
      {
        submissionId: str(),
        resolutionId: str(),
        expertiseResults: arr(
          obj(
            {
              id: str(),
              verdict: str({ enum: ["pass", "fail", "not_applicable"] }),
              evidence: arr(str()),
              missing: arr(str()),
              note: str(),
            },
            ["id", "verdict"],
          ),
        ),
      },
      ["submissionId", "resolutionId", "expertiseResults"],
    ),
    ok: 201,
    errors: [400, 404, 409],
    answer: REPORT,
    tool: {
      name: "svc_record_validation",
      title: "Record verdicts (step 4)",
      annotations: REPEATABLE,
      description:
        "Step 4 of the loop — only when svc_validate lists private expertises (verdictRequired). Records ONE final verdict per private " +
        "expertise of the resolution, each with file:line evidence or the missing elements. " +
        "Send the first exhaustive report before fixing a blocking violation; after fixing and reviewing again, send a second report " +
        "with a NEW submissionId. Reuse a submissionId only to retry the identical report.",
      input: (z) => ({
        submissionId: z
          .string()
          .describe(
            "Your stable id for this report (e.g. a UUID). The same id with the same payload is a safe retry; never reuse it for a " +
              "different report.",
          ),
        resolutionId: z.string().describe("The resolutionId returned by svc_prepare_task."),
        expertiseResults: z
          .array(verdict(z))
          .describe("Exactly one result per private expertise of the resolution; results for its public talents are accepted too."),
      }),
      toRequest: (a) => ({
        method: "POST",
        path: "/api/validation/reports",
        body: { submissionId: a.submissionId, resolutionId: a.resolutionId, expertiseResults: a.expertiseResults },
      }),
    },
  },
  install: {
    method: "PATCH",
    path: "/api/projects/:id/talents",
    scope: "install",
    kind: "install",
    summary: "Install talents with their prerequisites (atomic group), or disable them",
    body: obj({ talent: str(), talents: ids, enabled: { type: "boolean" } }),
    errors: [400, 404, 409],
    answer: INSTALLED,
    tool: {
      name: "svc_install_talents",
      title: "Install talents",
      annotations: REPEATABLE,
      description:
        "Installs talents in this project's selection so later tasks can designate them (an existing resolution never changes). Give " +
        "one id in talent, or several in talents: a list is installed atomically (all or none). " +
        "Their prerequisites (requires) come along in the same group; a group holding a conflict, or conflicting with an active " +
        "talent of the project, is refused (selection_conflict). " +
        "With an organization allow-list, other talents are refused (not_allowed_by_policy). " +
        "Ids absent from the catalog are refused. This tool only installs; disabling or removing talents is done in the dashboard.",
      input: (z) => ({
        talent: z.string().optional().describe("One talent id to install, e.g. typescript-strict."),
        talents: z.array(z.string()).optional().describe("Several bare talent ids, installed as one atomic group."),
      }),
      toRequest: (a, projectId) => ({
        method: "PATCH",
        path: `/api/projects/${encodeURIComponent(projectId)}/talents`,
        body: { talent: a.talent, talents: a.talents },
      }),
    },
  },
  doctor: {
    method: "GET",
    path: "/api/doctor",
    scope: "doctor",
    kind: "doctor",
    summary: "Missing prerequisites and conflicts of the selection",
    query: [{ name: "include", schema: str({ enum: ["selection"] }) }],
    errors: [400],
    answer: DOCTOR,
    tool: {
      name: "svc_doctor",
      title: "Check the selection",
      annotations: READ_ONLY,
      description:
        "Checks this project's talent selection: missing prerequisites (talents required by installed ones) and conflicts. Call it " +
        "when svc_prepare_task refuses ids or lists prerequisites, or when you are unsure the selection is sound.",
      input: () => ({}),
      toRequest: () => ({ method: "GET", path: "/api/doctor" }),
    },
  },
  discovery: {
    method: "GET",
    path: "/api/discovery/playbook",
    scope: "discover",
    kind: "discover",
    summary: "Discovery procedure, the selection and a compact catalog index (relevant first, within a token budget)",
    query: [
      { name: "languages", schema: str() },
      { name: "offset", schema: int(0, 1_000_000) },
    ],
    errors: [400],
    answer: DISCOVERY,
    tool: {
      name: "svc_discover_codebase",
      title: "Discover which talents fit",
      annotations: READ_ONLY,
      description:
        "When the project's selection is empty, or you do not know which talents exist: returns the discovery procedure, the project's " +
        "selection and a compact catalog index (relevant first, within a token budget) to decide which talents fit this codebase. It " +
        "activates nothing — follow it, then install with svc_install_talents.",
      input: (z) => ({
        languages: z
          .array(z.string())
          .optional()
          .describe('The codebase\'s languages, e.g. ["typescript", "python"]: they rank the index. Optional.'),
        offset: z.number().int().min(0).optional().describe("Where the index goes on: the catalog.next of a previous answer. Optional."),
      }),
      toRequest: (a) => {
        const query = { languages: (a.languages as string[] | undefined)?.join(","), offset: a.offset as number | undefined };
        const given = query.languages !== undefined || query.offset !== undefined;
        return { method: "GET", path: "/api/discovery/playbook", ...(given ? { query } : {}) };
      },
    },
  },
} satisfies Record<string, KeyRoute>;
