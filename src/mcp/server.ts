/**
 * The MCP server of one request (a fresh server per request, built by the factory that SDK v2's
 * `createMcpHandler` calls for both protocol eras: 2026-07-28 requests and the 2025 handshake).
 * It registers the seven tools, the talents-as-resources handlers, the Skills extension's
 * methods and the loop's two prompts; every tool, resource and skills handler turns into one
 * backend request through `call` and hands the answer back (a tool result: toolResult.ts).
 */
import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CacheHint,
  type CallToolResult,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import * as z from "zod";
import pkg from "../../package.json" with { type: "json" };
import { PROMPTS } from "./prompts";
import { TOOLS, TOOLS_BY_NAME } from "./tools";
import { allows, instructionsFor, promptsFor, type CallerView } from "./view";
import { lateAnswer } from "../http/answer";
import { type BackendAnswer, type CallBackend, parse, toolResultJson, toToolResult } from "./toolResult";
import { isObject } from "../lib/json";

export const SERVER_INFO = { name: "talentd", version: pkg.version };

/**
 * A backend error on a resource or skills request, as a JSON-RPC error carrying the backend
 * code: 400 and 404 are -32602 (what the resources and skills specifications name for an
 * unknown URI or a bad cursor), a refusal of the credentials (401, 403) -32600, anything else
 * -32603.
 */
function resourceError(a: BackendAnswer, uri?: string): ProtocolError {
  const body = (parse(a.text) ?? {}) as { error?: string; message?: string };
  const code =
    a.status === 404 || a.status === 400
      ? ProtocolErrorCode.InvalidParams
      : a.status === 401 || a.status === 403
        ? ProtocolErrorCode.InvalidRequest
        : ProtocolErrorCode.InternalError;
  // a resources/read miss names the URI (data.uri), as the resources specification asks
  return new ProtocolError(code, `${body.error ?? "backend_error"}: ${body.message ?? a.text}`, {
    status: a.status,
    ...body,
    ...(uri === undefined ? {} : { uri }),
  });
}

/** The MCP Skills extension (SEP-2640), as the capability declares it. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * Caching hints (SEP-2549 `ttlMs`, `cacheScope`) of what follows a project's selection (its
 * resources, its skills): the selection may change at any time and this stateless server cannot
 * tell anyone, so nothing is promised fresh (0); the answer depends on the credentials: private.
 */
const NOT_CACHED = { ttlMs: 0, cacheScope: "private" } as const;

/** The params of a method the SDK does not know are read here, so a bad one is -32602 naming the field. */
const ANY_PARAMS = { params: z.unknown() };

/** The params of a request as an object (absent = {}); -32602 otherwise. */
function paramsOf(request: { params?: unknown }): Record<string, unknown> {
  const p = request.params;
  if (p === undefined || p === null) return {};
  if (typeof p !== "object" || Array.isArray(p)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "params must be an object");
  return p as Record<string, unknown>;
}

/** A string param (`required`: present and non-empty); -32602 otherwise. */
function stringParam(params: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = params[name];
  if (v === undefined || v === null) {
    if (required) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `params.${name} is required`);
    return undefined;
  }
  if (typeof v !== "string" || (required && v === ""))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `params.${name} must be a string`);
  return v;
}

/** The body of a 2xx backend answer, or the JSON-RPC error of a refusal. */
function answerOf(a: BackendAnswer, uri?: string): Record<string, unknown> {
  if (a.status >= 400) throw resourceError(a, uri);
  const body = parse(a.text);
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new ProtocolError(ProtocolErrorCode.InternalError, "the backend answered something that is not a JSON object");
  return body as Record<string, unknown>;
}

/** A string as it appears inside a JSON string literal. */
const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);

const withCursor = (next: unknown) => (typeof next === "string" ? { nextCursor: next } : {});

/**
 * The talents of a listing of designable talents, as MCP resources: the project's active public
 * talents and its organization's active expertises (`talent://@org/slug`, read as skills below).
 */
function asResources(body: unknown): { uri: string; name: string; title?: string; description?: string; mimeType: string }[] {
  const b = body as Record<string, unknown> | unknown[] | null;
  const list = Array.isArray(b) ? b : Array.isArray(b?.talents) ? b.talents : [];
  // a listing item names its uri, or its id (talent://<id> reads a talent's main file)
  const uriOf = (t: Record<string, unknown>) =>
    typeof t?.uri === "string" ? t.uri : typeof t?.id === "string" ? `talent://${t.id}` : null;
  return (list as Record<string, unknown>[])
    .filter((t) => uriOf(t) !== null)
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
/** The schema of a tool called outside the caller's scopes: its arguments are not read (the route refuses first). */
const NO_ARGUMENTS = z.object({});
/** The prompts' argument schemas, built once per process too. */
const PROMPT_SCHEMAS = new Map(PROMPTS.map((p) => [p.name, z.object(p.argsSchema)]));

/**
 * One JSON Schema validator for every per-request server: the SDK builds a new Ajv instance
 * in each server's constructor otherwise (docs/performance.md). It only caches compiled
 * schemas, so sharing it is safe.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** What stays the same for a whole build (the templates): an hour, for anyone. */
const STABLE_PER_BUILD: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };
/** What stays the same for a build and one set of credentials (the tools and prompts its scopes allow): an hour, private. */
const STABLE_PER_CREDENTIALS: CacheHint = { ttlMs: 3_600_000, cacheScope: "private" };
/**
 * Caching hints of the 2026-07-28 cacheable results (docs/api-oauth-mcp.md "Caching"). The lists
 * of tools, prompts and templates change only with a new build. A project's resources follow its
 * selection, which may change at any time and this stateless server notifies nobody: 0, and
 * private (they depend on the credentials). Same for a read of a talent file (the catalog may be
 * reloaded) and for the discover result (it names the credentials' view of the server).
 */
const CACHE_HINTS_BY_METHOD = {
  "tools/list": STABLE_PER_CREDENTIALS,
  "prompts/list": STABLE_PER_CREDENTIALS,
  "resources/templates/list": STABLE_PER_BUILD,
  "resources/list": NOT_CACHED,
  "resources/read": NOT_CACHED,
  "server/discover": NOT_CACHED,
};

/**
 * Builds the server of one request; `projectId` is the bearer's project (for the install route). `view`: the caller's
 * scopes (view.ts): tools/list, the prompts and the instructions offer what they allow; a request that calls a tool
 * registers every tool, so a call outside the scopes reaches its route and comes back as a tool error in words.
 */
export function createMcpServer(call: CallBackend, projectId: string, view: CallerView): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: instructionsFor(view, TOOLS),
    capabilities: { resources: {}, prompts: {}, extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } },
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
    cacheHints: CACHE_HINTS_BY_METHOD,
  });
  const none = !TOOLS.some((t) => allows(view, t));
  for (const tool of TOOLS) {
    if (!view.calling && !none && !allows(view, tool)) continue;
    // a tool outside the scopes takes any arguments: its route refuses the scope before it reads them
    const inputSchema = allows(view, tool) ? INPUT_SCHEMAS.get(tool.name)! : NO_ARGUMENTS;
    const registered = server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema, annotations: tool.annotations },
      async (args: Record<string, unknown>) => toToolResult(await call(tool.toRequest(args, projectId), tool.name)),
    );
    // scopes that allow no tool still answer tools/list (an empty list): the tools are there, disabled
    if (none && !view.calling) registered.disable();
  }
  registerResources(server, call);
  registerSkills(server, call);
  for (const prompt of promptsFor(view, PROMPTS)) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: PROMPT_SCHEMAS.get(prompt.name)! },
      (args) => ({
        description: prompt.description,
        // the SDK validated the arguments against the schema: strings, or absent
        messages: [{ role: "user", content: { type: "text", text: prompt.render(args as Record<string, string | undefined>) } }],
      }),
    );
  }
  announceOnlyWhatIsTrue(server);
  return server;
}

/**
 * Resources through the low-level server: the high-level one parses URIs with URL, which drops
 * the "@" of private expertise URIs (talent://@org/slug/…).
 */
function registerResources(server: McpServer, call: CallBackend): void {
  server.server.setRequestHandler("resources/list", async () => {
    const a = await call({ method: "GET", path: "/api/prepare-task/designable" }, "resources/list");
    if (a.status >= 400) throw resourceError(a);
    return { resources: asResources(parse(a.text)) };
  });
  server.server.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  // resources/read: a skill:// URI reads a skill file (its text is exactly the bytes the skill's
  // digest covers), anything else a talent file
  // (params read here, not by the SDK's schema, whose refusal of a non-string uri is -32603)
  server.server.setRequestHandler("resources/read", ANY_PARAMS, async (params) => {
    const uri = stringParam(paramsOf({ params }), "uri", true)!;
    if (uri.startsWith("skill://")) {
      const a = await call({ method: "GET", path: "/api/skills/file", query: { uri } }, "resources/read");
      const f = answerOf(a, uri);
      return { contents: [{ uri: String(f.uri), mimeType: String(f.mimeType), text: String(f.text) }], ...NOT_CACHED };
    }
    const skill = expertiseSkillUri(uri);
    if (skill !== null) {
      // an active expertise, served as the Skills extension serves it (its published version)
      const a = await call({ method: "GET", path: "/api/skills/file", query: { uri: skill } }, "resources/read");
      // a refusal names the URI the agent asked for, not the skill file it became
      const asked = a.status >= 400 ? { status: a.status, text: a.text.replaceAll(jsonInner(skill), jsonInner(uri)) } : a;
      const f = answerOf(asked, uri);
      return { contents: [{ uri, mimeType: String(f.mimeType), text: String(f.text) }] };
    }
    const a = await call({ method: "POST", path: "/api/talents/get", body: { uri } }, "resources/read");
    if (a.status >= 400) throw resourceError(a, uri);
    const files = ((parse(a.text) as { files?: { uri?: string; content?: string }[] } | undefined)?.files ?? []).filter(
      (f) => typeof f.content === "string",
    );
    return { contents: files.map((f) => ({ uri: f.uri ?? uri, mimeType: "text/markdown", text: f.content! })) };
  });
}

/** The main file names of a talent URI: `talent://@org/slug/TALENT.md` reads what `talent://@org/slug` reads. */
const MAIN_FILES = new Set(["TALENT.md", "SKILL.md"]);

/**
 * The `skill://` file of an expertise URI (`talent://@org/slug[/path]` → `skill://~org/slug/<path>`,
 * its main file → the skill's SKILL.md), or null for any other URI. The key API's talent reads
 * serve an expertise only pinned to a resolution; its skill files are its active, published version.
 */
export function expertiseSkillUri(uri: string): string | null {
  if (!uri.startsWith("talent://@")) return null;
  const segments = uri.slice("talent://@".length).split("/");
  if (segments.length < 2 || segments[0] === "" || segments[1] === "") return null;
  const path = segments.slice(2).join("/");
  const file = path === "" || MAIN_FILES.has(path) ? "SKILL.md" : path;
  let decoded: string[];
  try {
    decoded = file.split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  return `skill://~${segments[0]}/${segments[1]}/${decoded.map(encodeURIComponent).join("/")}`;
}

const RESOURCE_TEMPLATES = [
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
    description: "A file of a skill of this project (the MCP Skills extension), e.g. skill://<id>/SKILL.md; skills/list names them all.",
  },
];

/** The Skills extension: each request is one backend request, its answer passed on as the extension shapes it. */
function registerSkills(server: McpServer, call: CallBackend): void {
  server.server.setRequestHandler("skills/list", ANY_PARAMS, async (params) => {
    const cursor = stringParam(paramsOf({ params }), "cursor", false);
    const body = answerOf(await call({ method: "GET", path: "/api/skills", query: { cursor } }, "skills/list"));
    return { resultType: "complete", skills: body.skills, ...withCursor(body.nextCursor), ...NOT_CACHED };
  });
  server.server.setRequestHandler("skills/get", ANY_PARAMS, async (params) => {
    const uri = stringParam(paramsOf({ params }), "uri", true);
    const body = answerOf(await call({ method: "GET", path: "/api/skills/entry", query: { uri } }, "skills/get"));
    return { resultType: "complete", skill: body.skill, ...NOT_CACHED };
  });
  server.server.setRequestHandler("resources/directory/read", ANY_PARAMS, async (params) => {
    const p = paramsOf({ params });
    const uri = stringParam(p, "uri", true);
    const cursor = stringParam(p, "cursor", false);
    const body = answerOf(await call({ method: "GET", path: "/api/skills/directory", query: { uri, cursor } }, "resources/directory/read"));
    return { resultType: "complete", resources: body.resources, ...withCursor(body.nextCursor), ...NOT_CACHED };
  });
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

/** The 2025-era revisions the fast path answers (2026-07-28 requests are the SDK handler's). */
const LEGACY_VERSIONS = new Set(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < "2026"));

/** Switched off by a test to compare the two paths' answers; `answered` counts the calls it answered. */
export const fastPath = { enabled: true, answered: 0 };

const CALL_PARAMS = new Set(["name", "arguments", "_meta"]);
const mediaType = (h: string | null) => (h ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * A 2025-era `tools/call` answered without building the SDK's server (docs/performance.md: the
 * server and transport built per request, and their zod checks of each message, cost about three
 * times the backend call; SDK v2 measured no better on this era). Only the plain case: one JSON-RPC request `{jsonrpc: "2.0", id, method:
 * "tools/call", params: {name, arguments?, _meta?}}` of a known tool whose arguments pass its
 * schema, with the headers the transport demands (Accept naming both JSON and SSE, Content-Type
 * application/json, a 2025 MCP-Protocol-Version or none, no 2026-07-28 `_meta` envelope). Anything else — a batch, an
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
  if (version !== null && !LEGACY_VERSIONS.has(version)) return null;
  // a 2026-07-28 request (its _meta envelope) is the SDK's: it checks the envelope and the headers
  if (params._meta !== undefined && Object.keys(params._meta).some((k) => k.startsWith("io.modelcontextprotocol/"))) return null;
  const parsed = await INPUT_SCHEMAS.get(tool.name)!.safeParseAsync(params.arguments ?? {});
  if (!parsed.success) return null;
  let result: string;
  try {
    result = toolResultJson(await call(tool.toRequest(parsed.data as Record<string, unknown>, projectId), tool.name));
  } catch (error) {
    const failed: CallToolResult = {
      content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
      isError: true,
    };
    result = JSON.stringify(failed);
  }
  fastPath.answered++;
  // given after the backend call: for svc_prepare_task, after its commit, a turn late (http/answer.ts)
  return lateAnswer(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(body.id)}}`, 200, { "Content-Type": "application/json" });
}
