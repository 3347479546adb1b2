/**
 * The MCP server of one request (STYLE 8: a fresh server per request over the web-standard
 * transport). It registers the seven tools, the talents-as-resources handlers, the Skills
 * extension's methods and the loop's two prompts; every tool, resource and skills handler turns
 * into one backend request through `call` and hands the answer back as is.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { normalizeObjectSchema, objectFromShape, safeParseAsync } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  ErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { PROMPTS } from "./prompts";
import { LOOP, TOOLS, TOOLS_BY_NAME, type BackendCall } from "./tools";
import { lateAnswer } from "../http/answer";

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
  const text =
    body && typeof body === "object" && !Array.isArray(body)
      ? JSON.stringify({ status: a.status, ...body })
      : JSON.stringify({ status: a.status, error: "backend_error", message: a.text });
  return { isError: true, content: [{ type: "text", text }] };
}

/**
 * A backend error on a resource or skills request, as a JSON-RPC error carrying the backend
 * code: 400 and 404 are -32602 (what the resources and skills specifications name for an
 * unknown URI or a bad cursor), a refusal of the credentials (401, 403) -32600, anything else
 * -32603.
 */
function resourceError(a: BackendAnswer): ProtocolError {
  const body = (parse(a.text) ?? {}) as { error?: string; message?: string };
  const code =
    a.status === 404 || a.status === 400
      ? ErrorCode.InvalidParams
      : a.status === 401 || a.status === 403
        ? ErrorCode.InvalidRequest
        : ErrorCode.InternalError;
  return new ProtocolError(code, `${body.error ?? "backend_error"}: ${body.message ?? a.text}`, { status: a.status, ...body });
}

/**
 * A JSON-RPC error as the SDK sends it (its `code`, `message` and `data`). Not an McpError:
 * that one prefixes its message with "MCP error <code>: ", which the client's McpError then
 * prefixes again.
 */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The MCP Skills extension (SEP-2640), as the capability declares it. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * Caching hints of the skills results (SEP-2549 `ttlMs`, `cacheScope`): a project's skills
 * change whenever its selection does and this stateless server cannot tell anyone, so nothing
 * is promised fresh (0); the answer depends on the credentials, so it is private.
 */
const CACHE_HINTS = { ttlMs: 0, cacheScope: "private" } as const;

/** A request of a method the SDK does not know: its params are read here, so a bad one is -32602, never a parse failure. */
const methodSchema = <M extends string>(method: M) => z.object({ method: z.literal(method), params: z.unknown().optional() });
/** Built once per process: zod schemas cost about a quarter of the adapter's CPU when a per-request server built them. */
const METHOD_SCHEMAS = {
  resourcesRead: methodSchema("resources/read"),
  skillsList: methodSchema("skills/list"),
  skillsGet: methodSchema("skills/get"),
  directoryRead: methodSchema("resources/directory/read"),
};

/** The params of a request as an object (absent = {}); -32602 otherwise. */
function paramsOf(request: { params?: unknown }): Record<string, unknown> {
  const p = request.params;
  if (p === undefined || p === null) return {};
  if (typeof p !== "object" || Array.isArray(p)) throw new ProtocolError(ErrorCode.InvalidParams, "params must be an object");
  return p as Record<string, unknown>;
}

/** A string param (`required`: present and non-empty); -32602 otherwise. */
function stringParam(params: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = params[name];
  if (v === undefined || v === null) {
    if (required) throw new ProtocolError(ErrorCode.InvalidParams, `params.${name} is required`);
    return undefined;
  }
  if (typeof v !== "string" || (required && v === "")) throw new ProtocolError(ErrorCode.InvalidParams, `params.${name} must be a string`);
  return v;
}

/** The body of a 2xx backend answer, or the JSON-RPC error of a refusal. */
function answerOf(a: BackendAnswer): Record<string, unknown> {
  if (a.status >= 400) throw resourceError(a);
  const body = parse(a.text);
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new ProtocolError(ErrorCode.InternalError, "the backend answered something that is not a JSON object");
  return body as Record<string, unknown>;
}

const withCursor = (next: unknown) => (typeof next === "string" ? { nextCursor: next } : {});

/**
 * The talents of a listing of designable talents, as MCP resources. Private expertises are
 * left out: the backend reads them only pinned to a resolution (svc_deepen with resolutionId).
 */
function asResources(body: unknown): { uri: string; name: string; title?: string; description?: string; mimeType: string }[] {
  const b = body as Record<string, unknown> | unknown[] | null;
  const list = Array.isArray(b) ? b : Array.isArray(b?.talents) ? b.talents : [];
  // a listing item names its uri, or its id (talent://<id> reads a talent's main file)
  const uriOf = (t: Record<string, unknown>) =>
    typeof t?.uri === "string" ? t.uri : typeof t?.id === "string" ? `talent://${t.id}` : null;
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
 * The prompts' argument schemas as the SDK keeps them (`objectFromShape` of each shape), built
 * once: `registerPrompt` builds a zod object from the shape on every registration, which was an
 * eighth of the adapter's CPU with a server per request. Registered without a schema, the
 * prompt then gets this one (the SDK reads `argsSchema` to list and to validate arguments).
 */
const PROMPT_SCHEMAS = new Map(PROMPTS.map((p) => [p.name, objectFromShape(p.argsSchema)]));

/**
 * One JSON Schema validator for every per-request server: the SDK builds a new Ajv instance
 * in each server's constructor otherwise, which was about a third of the adapter's CPU time
 * under load (docs/performance.md). It only caches compiled schemas, so sharing it is safe.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** Builds the server of one request; `projectId` is the bearer's project (for the install route). */
export function createMcpServer(call: CallBackend, projectId: string): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    capabilities: { resources: {}, prompts: {}, extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } },
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
  });
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
    resourceTemplates: [
      {
        uriTemplate: "talent://{+path}",
        name: "talent-file",
        title: "A talent file",
        description: "Any file of a talent of this project, e.g. talent://<id>/references/<file>.md.",
        mimeType: "text/markdown",
      },
      {
        uriTemplate: "skill://{+path}",
        name: "skill-file",
        title: "A skill file",
        description:
          "A file of a skill of this project (the MCP Skills extension), e.g. skill://<id>/SKILL.md; skills/list names them all.",
      },
    ],
  }));
  // resources/read: a skill:// URI reads a skill file (its text is exactly the bytes the skill's
  // digest covers), anything else a talent file
  server.server.setRequestHandler(METHOD_SCHEMAS.resourcesRead, async (request) => {
    const uri = stringParam(paramsOf(request), "uri", true)!;
    if (uri.startsWith("skill://")) {
      const f = answerOf(await call({ method: "GET", path: "/api/skills/file", query: { uri } }, "resources/read"));
      return {
        resultType: "complete",
        contents: [{ uri: String(f.uri), mimeType: String(f.mimeType), text: String(f.text) }],
        ...CACHE_HINTS,
      };
    }
    const a = await call({ method: "POST", path: "/api/talents/get", body: { uri } }, "resources/read");
    if (a.status >= 400) throw resourceError(a);
    const files = ((parse(a.text) as { files?: { uri?: string; content?: string }[] } | undefined)?.files ?? []).filter(
      (f) => typeof f.content === "string",
    );
    return { contents: files.map((f) => ({ uri: f.uri ?? uri, mimeType: "text/markdown", text: f.content! })) };
  });
  // the Skills extension: each request is one backend request, its answer passed on as the
  // extension shapes it
  server.server.setRequestHandler(METHOD_SCHEMAS.skillsList, async (request) => {
    const cursor = stringParam(paramsOf(request), "cursor", false);
    const body = answerOf(await call({ method: "GET", path: "/api/skills", query: { cursor } }, "skills/list"));
    return { resultType: "complete", skills: body.skills, ...withCursor(body.nextCursor), ...CACHE_HINTS };
  });
  server.server.setRequestHandler(METHOD_SCHEMAS.skillsGet, async (request) => {
    const uri = stringParam(paramsOf(request), "uri", true);
    const body = answerOf(await call({ method: "GET", path: "/api/skills/entry", query: { uri } }, "skills/get"));
    return { resultType: "complete", skill: body.skill, ...CACHE_HINTS };
  });
  server.server.setRequestHandler(METHOD_SCHEMAS.directoryRead, async (request) => {
    const params = paramsOf(request);
    const uri = stringParam(params, "uri", true);
    const cursor = stringParam(params, "cursor", false);
    const body = answerOf(await call({ method: "GET", path: "/api/skills/directory", query: { uri, cursor } }, "resources/directory/read"));
    return { resultType: "complete", resources: body.resources, ...withCursor(body.nextCursor) };
  });
  for (const prompt of PROMPTS) {
    const registered = server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description }, ((
      args: Record<string, string | undefined>,
    ) => ({
      description: prompt.description,
      // the SDK validated the arguments against the schema: strings, or absent
      messages: [{ role: "user", content: { type: "text", text: prompt.render(args) } }],
    })) as never);
    registered.argsSchema = PROMPT_SCHEMAS.get(prompt.name)! as typeof registered.argsSchema;
  }
  announceOnlyWhatIsTrue(server);
  return server;
}

/**
 * Capabilities say what the server does (docs/api-oauth-mcp.md "Skills"). The SDK announces `listChanged: true`
 * for tools and resources as soon as their handlers exist, but a server built for one request
 * and dropped after it never sends a list_changed notification. `registerCapabilities` merges
 * field by field, so an undefined `listChanged` replaces the SDK's and is left out of the JSON
 * of `initialize` (checked through the real client in test/mcp/mcp.test.ts).
 */
function announceOnlyWhatIsTrue(server: McpServer): void {
  server.server.registerCapabilities({
    tools: { listChanged: undefined },
    resources: { listChanged: undefined },
    prompts: { listChanged: undefined },
  });
}

/** Switched off by a test to compare the two paths' answers; `answered` counts the calls it answered. */
export const fastPath = { enabled: true, answered: 0 };

const CALL_PARAMS = new Set(["name", "arguments", "_meta"]);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const mediaType = (h: string | null) => (h ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * A `tools/call` answered without building the SDK's server (docs/performance.md: the server and
 * transport built per request, and their zod checks of each message, cost about three times the
 * backend call). Only the plain case: one JSON-RPC request `{jsonrpc: "2.0", id, method:
 * "tools/call", params: {name, arguments?, _meta?}}` of a known tool whose arguments pass its
 * schema, with the headers the transport demands (Accept naming both JSON and SSE, Content-Type
 * application/json, a supported MCP-Protocol-Version or none). Anything else — a batch, an
 * unknown tool, arguments the schema refuses, a task — returns null and goes to the SDK, which
 * answers it as the specification says. The answer is what the SDK sends for the same call
 * (`McpServer`'s tools/call handler: validated arguments, the handler's result, a thrown error
 * as an `isError` result; the protocol's `{result, jsonrpc, id}`; the transport's 200 with
 * Content-Type application/json): test/mcp/mcp.fastpath.test.ts compares the two.
 */
export async function fastToolCall(request: Request, body: unknown, call: CallBackend, projectId: string): Promise<Response | null> {
  if (!fastPath.enabled || request.method !== "POST" || !isObject(body)) return null;
  if (body.jsonrpc !== "2.0" || body.method !== "tools/call" || !(typeof body.id === "string" || Number.isSafeInteger(body.id)))
    return null;
  const keys = Object.keys(body);
  if (keys.length !== 4 || !keys.every((k) => k === "jsonrpc" || k === "id" || k === "method" || k === "params")) return null;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== "string" || !Object.keys(params).every((k) => CALL_PARAMS.has(k))) return null;
  if (params.arguments !== undefined && !isObject(params.arguments)) return null;
  if (params._meta !== undefined && !isObject(params._meta)) return null;
  const tool = TOOLS_BY_NAME.get(params.name);
  if (!tool) return null;
  const accept = request.headers.get("accept") ?? "";
  if (
    !accept.includes("application/json") ||
    !accept.includes("text/event-stream") ||
    mediaType(request.headers.get("content-type")) !== "application/json"
  )
    return null;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  const parsed = await safeParseAsync(
    normalizeObjectSchema(INPUT_SCHEMAS.get(tool.name)!) ?? INPUT_SCHEMAS.get(tool.name)!,
    params.arguments ?? {},
  );
  if (!parsed.success) return null;
  let result: CallToolResult;
  try {
    result = toToolResult(await call(tool.toRequest(parsed.data as Record<string, unknown>, projectId), tool.name));
  } catch (error) {
    result = { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
  }
  fastPath.answered++;
  // given after the backend call: for svc_prepare_task, after its commit, a turn late (http/answer.ts)
  return lateAnswer(JSON.stringify({ result, jsonrpc: "2.0", id: body.id }), 200, { "Content-Type": "application/json" });
}
