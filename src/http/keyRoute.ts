/**
 * What a key route is, as data (docs/design.md "One descriptor per key route"): its method, path,
 * scope and trace kind, its OpenAPI entry, and — where the MCP adapter offers it — the tool that
 * reaches it. The routes' guards and traces, the OpenAPI document and the MCP tools are all
 * derived from the descriptors (beside their handlers, listed in src/keyRoutes.ts), and so is every
 * sentence that tells a caller which operation to call next (http/wording.ts), in its own channel.
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
  /**
   * The MCP tool annotations: whether a call changes the project (readOnlyHint), can remove anything (destructiveHint),
   * gives the same state when repeated (idempotentHint); none reaches beyond this service (openWorldHint false).
   */
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
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

/**
 * Fields of a key answer meant for programs, not for the model an MCP client shows answers to
 * (docs/api-oauth-mcp.md "What a tool result carries"), by the `_meta` key they take over MCP.
 * A key-API caller gets them in the body, as documented; over MCP the body leaves them out and
 * the adapter puts them in the tool result's `_meta`.
 */
export const MACHINE_FIELDS = { attestation: "talentd/attestation" } as const;

/**
 * The `_meta` key of the digests (`sha256:…`) of what a prepare or a playbook names, `{<id>: digest}`:
 * over MCP they leave the talents and obligations they belong to (opaque to a model).
 */
export const DIGESTS_META = "talentd/digests";

/** The `_meta` of the tool result of a backend request the MCP adapter made, noted by the route (a per-request note). */
const metaOf = new WeakMap<Request, Record<string, unknown>>();

/** Notes `_meta` entries for the tool result of an MCP backend request (ignored for any other request). */
export function noteMcpMeta(request: Request, meta: Record<string, unknown>): void {
  if (!throughMcp.has(request)) return;
  metaOf.set(request, { ...metaOf.get(request), ...meta });
}

/** The `_meta` entries noted for a backend request the MCP adapter made, if any. */
export function mcpMetaOf(request: Request): Record<string, unknown> | undefined {
  return metaOf.get(request);
}

/**
 * A key answer as its channel gets it: unchanged over the key API; over MCP without its machine
 * fields (MACHINE_FIELDS), which are noted for the tool result's `_meta` instead.
 */
export function forChannel<T extends Record<string, unknown>>(request: Request, body: T): T {
  if (!throughMcp.has(request)) return body;
  const out: Record<string, unknown> = { ...body };
  const meta: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(MACHINE_FIELDS)) {
    if (out[field] === undefined) continue;
    meta[key] = out[field];
    delete out[field];
  }
  if (Object.keys(meta).length > 0) noteMcpMeta(request, meta);
  return out as T;
}

/** MCP tool annotations: a read changes nothing (calling it again is harmless). */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
/** A write that adds a record each call (a new resolution), removing nothing. */
export const ADDS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
/** A write that, repeated with the same arguments, leaves the same state (an install, a replayable report). */
export const REPEATABLE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
