/** The refusal of a body past BODY_LIMIT (the edge's, src/http/edge.ts): what it says, and its shape on /mcp. */
import { AppError, errorResponse } from "./errors";

/** 413 payload_too_large naming the limit (BODY_LIMIT), in bytes and in the unit a person reads. */
export function payloadTooLarge(limit: number): AppError {
  const readable = limit >= 1024 * 1024 ? `${+(limit / 1024 / 1024).toFixed(1)} MiB` : `${+(limit / 1024).toFixed(1)} KiB`;
  return new AppError(
    "payload_too_large",
    `The request body is larger than ${limit} bytes (${readable}), this server's limit (BODY_LIMIT): send less in one request.`,
    { limit },
  );
}

/**
 * The 413 of a body declared past the limit: the error model's JSON, or on `/mcp` a JSON-RPC error (an MCP client shows
 * its message; the key API's text is the same).
 */
export function tooLargeResponse(request: Request, limit: number, id: string): Response {
  const err = payloadTooLarge(limit);
  if (!/^\/mcp(\/|$)/.test(new URL(request.url).pathname)) return errorResponse(err, id);
  const body = { jsonrpc: "2.0", error: { code: -32600, message: err.message, data: { limit } }, id: null };
  return new Response(JSON.stringify(body), {
    status: 413,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": id },
  });
}
