/**
 * What a key route is, as data (docs/architecture.md "Key-route descriptors"): its method, path,
 * scope and trace kind, its OpenAPI entry, and — where the MCP adapter offers it — the tool that
 * reaches it. The routes' guards and traces, the OpenAPI document and the MCP tools are all
 * derived from the descriptors (http/keyRoutes.ts), and so is every sentence that tells a caller
 * which operation to call next (http/wording.ts), in the caller's own channel.
 */
import type * as Zod from "zod";
import type { KeyScope } from "../db/schema";
import type { QueryParam, Schema } from "./schema";

/** How a caller reached the key API: directly (`api`), or through the MCP adapter's tools (`mcp`). */
export type Channel = "api" | "mcp";

/** One request to the backend (the key API), built from a tool's arguments. */
export interface BackendCall {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
}

/** The MCP face of a route: the tool an agent calls, and how its arguments become the request. */
export interface ToolFace {
  name: string;
  title: string;
  /** What an agent reads to know when to call the tool. */
  description: string;
  /** The input schema (zod is handed in: it is loaded with the MCP adapter, never at start). */
  input(z: typeof Zod): Zod.ZodRawShape;
  /** The request a call becomes; `projectId` is the bearer's project (never an argument). */
  toRequest(args: Record<string, unknown>, projectId: string): BackendCall;
}

/** One route of the key API. */
export interface KeyRoute {
  method: "GET" | "POST" | "PATCH" | "PUT";
  /** The route as registered (`/api/projects/:id/talents`). */
  path: string;
  /** The key/token scope the route's guard requires. */
  scope: KeyScope;
  /** The kind of its trace events. */
  kind: string;
  summary: string;
  query?: QueryParam[];
  body?: Schema;
  /** The success status (default 200). */
  ok?: number;
  /** Error statuses beyond 401, 403 and 404 (what every key route may answer). */
  errors?: number[];
  /** The JSON schema of the success answer. */
  answer: Schema;
  /** The tool whose calls become this route. */
  tool?: ToolFace;
  /** The tool (of another route) whose calls may become this route too, by name. */
  reachedBy?: string;
}

/** `METHOD /path`, the key of a route in the trace-kind maps and the OpenAPI answers. */
export const routeKey = (r: Pick<KeyRoute, "method" | "path">): string => `${r.method} ${r.path}`;

/** The route guard's option of a route: the scope it requires. */
export const guardOf = (r: KeyRoute): { key: KeyScope } => ({ key: r.scope });

/** What the trace of a key route records of its descriptor: its kind and the scope it requires. */
export interface TracedRoute {
  kind: string;
  scope: KeyScope;
}

/** Trace kinds and scopes by `METHOD /path` of some routes (an argument of journal/trace.ts keyApiTracer). */
export function traceKinds(routes: KeyRoute[]): Record<string, TracedRoute> {
  return Object.fromEntries(routes.map((r) => [routeKey(r), { kind: r.kind, scope: r.scope }]));
}

/**
 * Requests the MCP adapter made (mcp/routes.ts marks them as it builds them). A mark on the
 * request object itself, not a header: an outside caller cannot set it, and all it changes is
 * the wording of an answer anyway.
 */
const throughMcp = new WeakSet<Request>();

/** Marks a backend request built by the MCP adapter; returns it. */
export function markMcpCall(request: Request): Request {
  throughMcp.add(request);
  return request;
}

/** The channel a request came through. */
export function channelOf(request: Request): Channel {
  return throughMcp.has(request) ? "mcp" : "api";
}
