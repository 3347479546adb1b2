/**
 * The MCP server of one request (STYLE 8: a fresh server per request over the web-standard
 * transport). It registers the seven tools and the talents-as-resources handlers; every
 * handler turns into one backend request through `call` and hands the answer back as is.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { LOOP, TOOLS, type BackendCall } from "./tools";

/** A backend answer: status and the body as text (JSON for every key-API route). */
export interface BackendAnswer {
  status: number;
  text: string;
}

/** Sends one request to the backend; `tool` names the MCP operation (for traces). */
export type CallBackend = (call: BackendCall, tool: string) => Promise<BackendAnswer>;

export const SERVER_INFO = { name: "talentd", version: "0.1.0" };

export const INSTRUCTIONS = `talentd serves the conventions (talents) of this project and checks your work against them. The loop:\n${LOOP}\nThe project is the one of your credentials: tools never take a project id.`;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A backend answer as a tool result: the body as text; an error status makes it a tool error carrying the backend code. */
export function toToolResult(a: BackendAnswer): CallToolResult {
  if (a.status < 400) return { content: [{ type: "text", text: a.text }] };
  const body = parse(a.text);
  const text = body && typeof body === "object" && !Array.isArray(body) ? JSON.stringify({ status: a.status, ...body }) : JSON.stringify({ status: a.status, error: "backend_error", message: a.text });
  return { isError: true, content: [{ type: "text", text }] };
}

/** A backend error on a resource request, as a JSON-RPC error carrying the backend code. */
function resourceError(a: BackendAnswer): McpError {
  const body = (parse(a.text) ?? {}) as { error?: string; message?: string };
  const code = a.status === 404 || a.status === 400 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, `${body.error ?? "backend_error"}: ${body.message ?? a.text}`, { status: a.status, ...body });
}

/**
 * The talents of a listing of designable talents, as MCP resources. Private expertises are
 * left out: the backend reads them only pinned to a resolution (svc_deepen with resolutionId).
 */
function asResources(body: unknown): { uri: string; name: string; title?: string; description?: string; mimeType: string }[] {
  const b = body as Record<string, unknown> | unknown[] | null;
  const list = Array.isArray(b) ? b : Array.isArray(b?.talents) ? b.talents : [];
  // a listing item names its uri, or its id (talent://<id> reads a talent's main file)
  const uriOf = (t: Record<string, unknown>) => (typeof t?.uri === "string" ? t.uri : typeof t?.id === "string" ? `talent://${t.id}` : null);
  return (list as Record<string, unknown>[])
    .filter((t) => uriOf(t) !== null && t.kind !== "expertise")
    .map((t) => ({
      uri: uriOf(t)!,
      name: String(t.id ?? t.uri),
      ...(typeof t.title === "string" ? { title: t.title } : {}),
      ...(typeof t.summary === "string" ? { description: t.summary } : {}),
      mimeType: "text/markdown",
    }));
}

/** Input schemas built once per process, not per request (a server is built per request). */
const INPUT_SCHEMAS = new Map(TOOLS.map((t) => [t.name, z.object(t.inputSchema)]));

/**
 * One JSON Schema validator for every per-request server: the SDK builds a new Ajv instance
 * in each server's constructor otherwise, which was about a third of the adapter's CPU time
 * under load (docs/performance.md). It only caches compiled schemas, so sharing it is safe.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** Builds the server of one request; `projectId` is the bearer's project (for the install route). */
export function createMcpServer(call: CallBackend, projectId: string): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { resources: {} }, jsonSchemaValidator: JSON_SCHEMA_VALIDATOR });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: INPUT_SCHEMAS.get(tool.name)! },
      async (args: Record<string, unknown>) => toToolResult(await call(tool.toRequest(args, projectId), tool.name)),
    );
  }
  // Resources through the low-level server: the high-level one parses URIs with URL, which
  // drops the "@" of private expertise URIs (talent://@org/slug/…).
  server.server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const a = await call({ method: "GET", path: "/api/prepare-task/designable" }, "resources/list");
    if (a.status >= 400) throw resourceError(a);
    return { resources: asResources(parse(a.text)) };
  });
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: "talent://{+path}", name: "talent-file", title: "A talent file", description: "Any file of a talent of this project, e.g. talent://<id>/references/<file>.md.", mimeType: "text/markdown" }],
  }));
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const a = await call({ method: "POST", path: "/api/talents/get", body: { uri } }, "resources/read");
    if (a.status >= 400) throw resourceError(a);
    const files = ((parse(a.text) as { files?: { uri?: string; content?: string }[] } | undefined)?.files ?? []).filter((f) => typeof f.content === "string");
    return { contents: files.map((f) => ({ uri: f.uri ?? uri, mimeType: "text/markdown", text: f.content! })) };
  });
  announceOnlyWhatIsTrue(server);
  return server;
}

/**
 * Capabilities say what the server does (DESIGN §14). The SDK announces `listChanged: true`
 * for tools and resources as soon as their handlers exist, but a server built for one request
 * and dropped after it never sends a list_changed notification. `registerCapabilities` merges
 * field by field, so an undefined `listChanged` replaces the SDK's and is left out of the JSON
 * of `initialize` (checked through the real client in test/mcp.test.ts).
 */
function announceOnlyWhatIsTrue(server: McpServer): void {
  server.server.registerCapabilities({ tools: { listChanged: undefined }, resources: { listChanged: undefined } });
}
