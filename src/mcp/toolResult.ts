/**
 * A backend answer as an MCP tool result (docs/api-oauth-mcp.md "What a tool result carries"): the
 * body for the model (text, and the same object as `structuredContent`), what the backend noted
 * for `_meta` beside it, an error status as a tool error.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { BackendCall } from "./tools";
import { isObject } from "../lib/json";

/** A backend answer: status and the body as text (JSON for every key-API route). */
export interface BackendAnswer {
  status: number;
  text: string;
  /** True when the backend labelled the body application/json (its own JSON.stringify output). */
  json?: boolean;
  /** What the backend noted for the tool result's `_meta` (machine-only fields, http/keyRoute.ts), never shown to the model. */
  meta?: Record<string, unknown>;
}

/** Sends one request to the backend; `tool` names the MCP operation (for traces). */
export type CallBackend = (call: BackendCall, tool: string) => Promise<BackendAnswer>;

export const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * toToolResult's result as JSON text. A success whose body is a JSON object (as the backend wrote
 * it) is written around that text — `structuredContent` is the text itself — without parsing it
 * and serializing it again: for a ~16 KB discovery answer that was ~40% of the fast path's CPU
 * (docs/performance.md "MCP adapter").
 */
export function toolResultJson(a: BackendAnswer): string {
  if (a.status < 400 && a.json && a.text.startsWith("{")) {
    const meta = a.meta ? `,"_meta":${JSON.stringify(a.meta)}` : "";
    return `{"content":[{"type":"text","text":${JSON.stringify(a.text)}}],"structuredContent":${a.text}${meta}}`;
  }
  return JSON.stringify(toToolResult(a));
}

/**
 * A backend answer as a tool result: the body as text and, when it is a JSON object, as
 * `structuredContent` too; what the backend noted for `_meta` (an attestation, digests) beside them, for
 * the client's code and not its model; an error status makes it a tool error (`isError`, a result, not a
 * JSON-RPC error: the agent reads it and corrects its call) carrying the status and backend code.
 */
export function toToolResult(a: BackendAnswer): CallToolResult {
  const body = parse(a.text);
  if (a.status < 400)
    return {
      content: [{ type: "text", text: a.text }],
      ...(isObject(body) ? { structuredContent: body } : {}),
      ...(a.meta ? { _meta: a.meta } : {}),
    };
  const structured = isObject(body) ? { status: a.status, ...body } : { status: a.status, error: "backend_error", message: a.text };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}
