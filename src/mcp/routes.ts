/**
 * `/mcp` and `/mcp/:projectId`: MCP over Streamable HTTP (docs/api-oauth-mcp.md), both protocol eras
 * (2026-07-28 and the 2025 handshake), stateless, one fresh server per request.
 * In order, every request (docs/api-oauth-mcp.md):
 *   0. :projectId looks like a project id                                   → 404
 *   1. the host the client used (X-Forwarded-Host, else Host) is BASE_URL's → 421 naming BASE_URL
 *      (otherwise an OAuth client fails later, inside itself, on a resource mismatch)
 *   2. Origin, when sent, must be BASE_URL's (DNS-rebinding protection)      → 403
 *   3. bearer (project key or OAuth access token) valid for this URL        → 401 + resource_metadata
 *      (then the key guard's own 403 not_a_member / organization_not_approved / 404)
 *   4. a tools/call needs the tool's scope                                  → 403 insufficient_scope
 *   5. POST → a plain 2025-era tools/call straight to its backend request (server.ts fastToolCall,
 *      the SDK's answer without building its server); a 2026-07-28 request (its `_meta`
 *      envelope) to SDK v2's `createMcpHandler` (server/discover, the envelope and header checks,
 *      the UnsupportedProtocolVersion error, 404 for removed methods); any other 2025-era request
 *      to a fresh server over SDK v2's web-standard transport (JSON responses). GET → 405 (no
 *      server-initiated messages in stateless mode); DELETE → the transport (200).
 * Tool calls become requests to the key API through `app.handle` with the caller's own
 * Authorization header; the adapter itself reads no database.
 */
import { Elysia } from "elysia";
import type { CoreDeps as AppDeps } from "../deps";
import type { KeyPrincipal } from "../auth/key";
import { authenticateBearer } from "../auth/principal";
import { requestIdOf } from "../http/edge";
import { AppError, errorResponse } from "../http/errors";
import { markMcpCall, mcpMetaOf } from "../http/keyRoute";
import { mcpResource, OAUTH_SCOPES, PROJECT_ID_PATTERN, resourceMetadataUrl } from "../oauth/resource";
import { onFirstUse } from "../lib/onFirstUse";
import { clientLabel, sessionIdFor } from "./client";

/** The `_meta` key of the client's name and version in a 2026-07-28 request (the SDK's CLIENT_INFO_META_KEY; not imported: the SDK loads on first use). */
const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";
import type { BackendAnswer, CallBackend } from "./toolResult";
import type { BackendCall } from "./tools";
import type { CallerView } from "./view";

/** What the per-request server of a request needs, handed to the SDK's factory as `authInfo.extra`. */
interface RequestScope {
  call: CallBackend;
  projectId: string;
  /** The caller's scopes, and whether the request calls a tool (view.ts). */
  view: CallerView;
}

/** The scope handed to the SDK as `authInfo.extra` (`{ ...scope }`), read back by shape. */
function isRequestScope(x: unknown): x is RequestScope {
  if (typeof x !== "object" || x === null) return false;
  return "call" in x && typeof x.call === "function" && "projectId" in x && typeof x.projectId === "string" && "view" in x;
}

/**
 * The MCP SDK is loaded on the first /mcp request, not at start: it is the largest module
 * graph of the binary (start-up with the shipped catalog 270 → ~150 ms; docs/performance.md).
 * One handler per process serves the 2026-07-28 era (a fresh server per request from the factory);
 * 2025-era requests (the `initialize` handshake, then plain requests) get a fresh server over the
 * SDK's web-standard transport with JSON responses, as `isLegacyRequest`'s documentation composes.
 */
const loadSdk = onFirstUse(async () => {
  const [{ createMcpServer, fastToolCall }, sdk] = await Promise.all([import("./server"), import("@modelcontextprotocol/server")]);
  const factory = ({ authInfo }: { authInfo?: { extra?: Record<string, unknown> } }) => {
    const scope = authInfo?.extra;
    if (!isRequestScope(scope)) throw new Error("an MCP request reached the server factory without its scope");
    return createMcpServer(scope.call, scope.projectId, scope.view);
  };
  const modern = sdk.createMcpHandler(factory, { legacy: "reject" });
  return {
    createMcpServer,
    fastToolCall,
    modern,
    isLegacyRequest: sdk.isLegacyRequest,
    Transport: sdk.WebStandardStreamableHTTPServerTransport,
  };
});

/** The tools' table (with their zod schemas: zod is not loaded at start either). */
const toolsModule = onFirstUse(() => import("./tools"));

/** What the adapter needs of the app: its request handler (the backend). */
export interface Backend {
  handle(request: Request): Promise<Response>;
}

/** CORS of a 401, so a browser-based client can read the challenge. */
const CHALLENGE_CORS = { "access-control-allow-origin": "*", "access-control-expose-headers": "www-authenticate" };

function jsonRpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown; clientInfo?: unknown; _meta?: Record<string, unknown> };
}

/** The JSON-RPC messages of a parsed POST body (one or a batch). */
function messagesOf(body: unknown): JsonRpcMessage[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is JsonRpcMessage => typeof m === "object" && m !== null);
}

/** The host a client used: the first X-Forwarded-Host (a reverse proxy's), else Host, else the URL's. */
function hostUsed(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-host");
  if (forwarded) return forwarded.split(",")[0]!.trim();
  return request.headers.get("host") ?? new URL(request.url).host;
}

/** `host[:port]` as a URL of `protocol` spells it (lower case, default port dropped), or null when it is not one. */
function normalHost(host: string, protocol: string): string | null {
  if (host === "" || /[\s/\\?#@]/.test(host)) return null;
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return null;
  }
}

/**
 * 421 when the client reached this server by another host than BASE_URL's: its OAuth discovery
 * would end on a resource (BASE_URL/mcp/…) that is not the URL it used, and fail inside the
 * client with no word about BASE_URL. Not a security check (the headers are the client's).
 */
function misdirected(request: Request, base: string, projectId: string | null): Response | null {
  const expected = new URL(base);
  const used = hostUsed(request);
  if (normalHost(used, expected.protocol) === expected.host) return null;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]!.trim();
  const scheme = proto === "http" || proto === "https" ? `${proto}:` : new URL(request.url).protocol;
  const mcpUrl = projectId === null ? `${base}/mcp` : `${base}/mcp/${projectId}`;
  const message =
    `This server's public URL is ${base} (set by BASE_URL). ` +
    `Connect your agent to ${mcpUrl}, or restart talentd with BASE_URL=${scheme}//${used.slice(0, 200)}.`;
  return errorResponse(new AppError("misdirected_request", message, { baseUrl: base, mcpUrl }), requestIdOf(request));
}

/**
 * Hands a request to the SDK: a plain 2025-era tools/call to the fast path, a 2026-07-28 request
 * to the handler, anything else to a fresh server over the web-standard transport (an initialize
 * answer then carries the session id naming `initializedBy`, the client's label).
 */
async function dispatch(request: Request, body: unknown, scope: RequestScope, initializedBy: string | null): Promise<Response> {
  const sdk = await loadSdk();
  const fast = await sdk.fastToolCall(request, body, scope.call, scope.projectId);
  if (fast) return fast;
  if (!(await sdk.isLegacyRequest(request, body)))
    return sdk.modern.fetch(request, { authInfo: { token: "", clientId: "", scopes: [], extra: { ...scope } }, parsedBody: body });
  const server = sdk.createMcpServer(scope.call, scope.projectId, scope.view);
  const transport = new sdk.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const res = await transport.handleRequest(request, { parsedBody: body });
    if (!initializedBy || res.status !== 200) return res;
    const headers = new Headers(res.headers);
    headers.set("mcp-session-id", sessionIdFor(initializedBy));
    return new Response(res.body, { status: res.status, headers });
  } finally {
    // after this turn: closing at once aborted the handler's controller the SDK had not yet
    // released (an AbortError with its stack for every call)
    setImmediate(() => void server.close());
  }
}

/** The MCP routes (module comment), over the app's own request handler as the backend. */
export function mcpRoutes(deps: AppDeps, backend: Backend) {
  const base = deps.config.baseUrl;
  const origin = new URL(base).origin;

  /** The refusal of a bearer, with the challenge that sends an OAuth client to discovery. */
  function refusal(e: AppError, request: Request, projectId: string | null, principal?: KeyPrincipal): Response {
    const metadata = `resource_metadata="${resourceMetadataUrl(base, projectId)}"`;
    const id = requestIdOf(request);
    if (e.status === 401) {
      // RFC 6750 §3: no error code when the request carried no credentials at all; `scope`: what the resource takes
      const scope = `scope="${OAUTH_SCOPES.join(" ")}"`;
      const challenge = request.headers.has("authorization")
        ? `Bearer realm="talentd", error="invalid_token", ${scope}, ${metadata}`
        : `Bearer realm="talentd", ${scope}, ${metadata}`;
      return errorResponse(new AppError(e.code, e.message, e.details, { ...CHALLENGE_CORS, "www-authenticate": challenge }), id);
    }
    if (e.code === "insufficient_scope") {
      const needed = String(e.details.requiredScope);
      // a token is told the scopes to ask for so that it keeps the ones it has (step-up)
      const scope = principal?.kind === "token" ? [needed, ...principal.scopes.filter((s) => s !== needed)].join(" ") : needed;
      const challenge = `Bearer realm="talentd", error="insufficient_scope", scope="${scope}", ${metadata}`;
      return errorResponse(new AppError(e.code, e.message, e.details, { ...CHALLENGE_CORS, "www-authenticate": challenge }), id);
    }
    return errorResponse(e, id);
  }

  async function serve(request: Request, body: unknown, projectId: string | null): Promise<Response> {
    if (projectId !== null && !PROJECT_ID_PATTERN.test(projectId))
      return errorResponse(new AppError("not_found", "No such MCP endpoint."), requestIdOf(request));
    const wrongHost = misdirected(request, base, projectId);
    if (wrongHost) return wrongHost;
    const from = request.headers.get("origin");
    if (from !== null && from !== origin) return jsonRpcError(403, `Invalid Origin header: ${from.slice(0, 200)}`);

    const messages = request.method === "POST" ? messagesOf(body) : [];
    let principal: KeyPrincipal;
    try {
      principal = await authenticateBearer(deps, request, null, mcpResource(base, projectId), projectId);
    } catch (e) {
      if (e instanceof AppError) return refusal(e, request, projectId);
      throw e;
    }
    const { TOOLS_BY_NAME } = await toolsModule();
    for (const m of messages) {
      const tool = m.method === "tools/call" ? TOOLS_BY_NAME.get(String(m.params?.name)) : undefined;
      // a token is refused at HTTP with the challenge that lets its client ask for the scope (step-up); a key cannot
      // step up: its call reaches the route, whose refusal is a tool error naming the scope and who grants it
      if (tool && principal.kind === "token" && !principal.scopes.includes(tool.scope)) {
        return refusal(
          new AppError("insufficient_scope", `These credentials do not carry the "${tool.scope}" scope that ${tool.name} needs.`, {
            requiredScope: tool.scope,
          }),
          request,
          projectId,
          principal,
        );
      }
    }
    if (request.method === "GET")
      return jsonRpcError(405, "Method not allowed: this stateless server sends no server-initiated messages.", { allow: "POST, DELETE" });

    const initialize = messages.find((m) => m.method === "initialize");
    // the client names itself in initialize (2025) or in each request's _meta envelope (2026-07-28)
    const client = clientLabel(request, initialize?.params?.clientInfo ?? messages[0]?.params?._meta?.[CLIENT_INFO_META_KEY]);
    const forwarded: Record<string, string> = {
      authorization: request.headers.get("authorization") ?? "",
      accept: "application/json",
      "x-talentd-via": "mcp",
      "x-request-id": requestIdOf(request),
    };
    if (client) forwarded["x-talentd-client"] = client;
    const ua = request.headers.get("user-agent");
    if (ua) forwarded["user-agent"] = ua;

    const call = async (c: BackendCall, tool: string): Promise<BackendAnswer> => {
      const url = new URL(c.path, origin);
      for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
      const headers: Record<string, string> = { ...forwarded, "x-talentd-tool": tool };
      let payload: string | undefined;
      if (c.body !== undefined) {
        payload = JSON.stringify(c.body);
        headers["content-type"] = "application/json";
      }
      // marked as the adapter's: the answer names tools, not routes (http/wording.ts)
      const backendRequest = markMcpCall(new Request(url, { method: c.method, headers, body: payload }));
      const res = await backend.handle(backendRequest);
      const text = await res.text();
      // machine-only fields the route left out of the body for the tool result's _meta (http/keyRoute.ts)
      const meta = mcpMetaOf(backendRequest);
      return {
        status: res.status,
        text,
        json: (res.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"),
        ...(meta ? { meta } : {}),
      };
    };

    const view = { scopes: principal.scopes, calling: messages.some((m) => m.method === "tools/call") };
    return dispatch(request, body, { call, projectId: principal.projectId, view }, initialize ? client : null);
  }

  return new Elysia()
    .all("/mcp", ({ request, body }) => serve(request, body, null))
    .all("/mcp/:projectId", ({ request, body, params }) => serve(request, body, params.projectId));
}
