/**
 * The seven tools (docs/api-oauth-mcp.md "Tools"), as data: name, scope, what an agent reads to know
 * when to call it, its input schema, and the ONE backend request a call becomes. Read from the
 * key-route descriptors (src/keyRoutes.ts lists them), which carry each tool beside the route it becomes.
 * No tool computes anything: arguments are copied into a path, a query or a body.
 */
import * as z from "zod";
import type { KeyScope } from "../db/schema";
import { type BackendCall, routeKey, type ToolFace } from "../http/keyRoute";
import { KEY_ROUTE_LIST } from "../keyRoutes";

export type { BackendCall };

export interface ToolSpec {
  name: string;
  title: string;
  /** The key/token scope the backend route requires (checked again by the backend). */
  scope: KeyScope;
  description: string;
  /** MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint). */
  annotations: ToolFace["annotations"];
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
  "3. svc_validate again with talent=<id> for the full rules and tests you need; compare each rule to your diff yourself (the diff is " +
    "never sent) and fix blocking violations.",
  "4. If the index lists private expertises (verdictRequired): svc_record_validation with one final verdict per expertise, with " +
    "file:line evidence or the missing elements.",
].join("\n");

/** The routes a tool reaches: its own, and those that name it in reachedBy. */
const routesOfTool = (name: string) => KEY_ROUTE_LIST.filter((r) => r.tool?.name === name || r.reachedBy === name);

/** Every tool, in the order of the descriptors. */
export const TOOLS: ToolSpec[] = KEY_ROUTE_LIST.flatMap((r) =>
  r.tool
    ? [
        {
          name: r.tool.name,
          title: r.tool.title,
          scope: r.scope,
          description: r.tool.description,
          annotations: r.tool.annotations,
          inputSchema: r.tool.input(z),
          routes: routesOfTool(r.tool.name).map(routeKey),
          toRequest: r.tool.toRequest,
        },
      ]
    : [],
);

/** Tool name → spec. */
export const TOOLS_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));

/** Tool name → the routes it reaches: the tools table of docs/api-oauth-mcp.md, checked by a test. */
export const TOOL_ROUTES: Record<string, string[]> = Object.fromEntries(TOOLS.map((t) => [t.name, t.routes]));
