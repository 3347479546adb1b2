/**
 * docs/performance.md: a plain `tools/call` is answered without building the SDK's server
 * (src/mcp/server.ts fastToolCall). Its answer must be the SDK's: the same calls are sent over
 * HTTP with the fast path on and off and the two answers compared (status, content type,
 * JSON-RPC body); whatever the fast path does not handle goes to the SDK; the real SDK client
 * goes through it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fastPath } from "../../src/mcp/server";
import { loopProject } from "../activity-support";
import { connectWithBearer, liveEnv, type LiveEnv } from "../mcp-support";

let live: LiveEnv;
let key: string;
let resolutionId: string;
beforeAll(async () => {
  live = await liveEnv();
  const s = await loopProject(live.env);
  key = s.key;
  resolutionId = await s.prepare(["typescript-strict"]);
});
afterAll(async () => {
  fastPath.enabled = true;
  await live.close();
});

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function post(body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${live.base}/mcp`, {
    method: "POST",
    headers: { ...HEADERS, authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return {
    status: r.status,
    type: r.headers.get("content-type"),
    session: r.headers.get("mcp-session-id"),
    body: text ? JSON.parse(text) : null,
  };
}

/** The same request with the fast path on, then off (the SDK): both answers. */
async function bothWays(body: unknown, headers: Record<string, string> = {}) {
  fastPath.enabled = true;
  const before = fastPath.answered;
  const fast = await post(body, headers);
  const tookFastPath = fastPath.answered > before;
  fastPath.enabled = false;
  const sdk = await post(body, headers);
  fastPath.enabled = true;
  return { fast, sdk, tookFastPath };
}

const call = (name: string, args?: unknown, id: unknown = 7, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
});

describe("tools/call without the SDK's server answers exactly what the SDK answers", () => {
  const same = [
    ["svc_doctor with {}", call("svc_doctor", {})],
    ["svc_doctor with no arguments and a string id", call("svc_doctor", undefined, "abc")],
    ["svc_deepen reading a talent file", call("svc_deepen", { uri: "talent://typescript-strict" })],
    ["svc_deepen searching (k, scope)", call("svc_deepen", { query: "strict", k: 3, scope: "catalog" })],
    ["svc_validate of a resolution", () => call("svc_validate", { resolutionId })],
    [
      "svc_validate of an unknown resolution (a tool error carrying the backend's 404 code)",
      call("svc_validate", { resolutionId: "res_unknown" }),
    ],
    ["svc_prepare_task of a talent not installed (the backend's 400 unknown_talents)", call("svc_prepare_task", { talentIds: ["nope"] })],
    ["an argument the schema does not name (dropped by the schema both ways)", call("svc_doctor", { extra: 1 })],
    ["with _meta", call("svc_doctor", {}, 8, { _meta: { progressToken: "p1" } })],
  ] as const;
  for (const [name, body] of same) {
    test(name, async () => {
      const { fast, sdk, tookFastPath } = await bothWays(typeof body === "function" ? body() : body);
      expect(tookFastPath).toBe(true);
      expect(fast).toEqual(sdk);
      expect(fast.status).toBe(200);
      expect(fast.type).toBe("application/json");
    });
  }

  test("with a supported MCP-Protocol-Version header, and with Content-Type application/json; charset=utf-8", async () => {
    for (const headers of [{ "mcp-protocol-version": "2025-06-18" }, { "content-type": "application/json; charset=utf-8" }] as Record<
      string,
      string
    >[]) {
      const { fast, sdk, tookFastPath } = await bothWays(call("svc_doctor", {}), headers);
      expect(tookFastPath).toBe(true);
      expect(fast).toEqual(sdk);
    }
  });
});

describe("what the fast path does not handle goes to the SDK (the specification's answers)", () => {
  const toSdk: [string, unknown, Record<string, string>?][] = [
    ["arguments the schema refuses", call("svc_prepare_task", { talentIds: "typescript-strict" })],
    ["an unknown tool", call("svc_nothing", {})],
    ["arguments that are not an object", call("svc_doctor", [1])],
    ["a batch", [call("svc_doctor", {}), call("svc_doctor", {}, 8)]],
    ["a task-augmented call", call("svc_doctor", {}, 9, { task: { ttl: 1000 } })],
    ["a notification (no id)", { jsonrpc: "2.0", method: "tools/call", params: { name: "svc_doctor", arguments: {} } }],
    ["a null id", call("svc_doctor", {}, null)],
    ["an unsupported MCP-Protocol-Version", call("svc_doctor", {}), { "mcp-protocol-version": "1999-01-01" }],
    ["an Accept without text/event-stream", call("svc_doctor", {}), { accept: "application/json" }],
    ["a Content-Type that is not JSON", call("svc_doctor", {}), { "content-type": "text/plain" }],
    [
      "a 2026-07-28 call (its _meta envelope and headers: the SDK checks them)",
      call("svc_doctor", {}, 10, {
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
      }),
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "svc_doctor" },
    ],
    [
      "a 2026-07-28 envelope without its headers (the SDK's 400)",
      call("svc_doctor", {}, 11, {
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
      }),
    ],
  ];
  for (const [name, body, headers] of toSdk) {
    test(name, async () => {
      const { fast, sdk, tookFastPath } = await bothWays(body, headers);
      expect(tookFastPath).toBe(false);
      expect(fast).toEqual(sdk);
    });
  }

  test("arguments the schema refuses: the SDK's input validation error as a tool error", async () => {
    const r = await post(call("svc_prepare_task", { talentIds: "typescript-strict" }));
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.content[0].text).toContain("Input validation error: Invalid arguments for tool svc_prepare_task");
  });

  test("a key without the tool's scope: the fast path answers the route's refusal as a tool error naming the scope (no HTTP 403)", async () => {
    const s = await loopProject(live.env, "narrow");
    const narrow = (await (
      await s.owner.call("POST", `/web/projects/${s.project.id}/keys`, { name: "narrow", tools: ["doctor"] })
    ).json()) as { value: string };
    const before = fastPath.answered;
    const r = await fetch(`${live.base}/mcp`, {
      method: "POST",
      headers: { ...HEADERS, authorization: `Bearer ${narrow.value}` },
      body: JSON.stringify(call("svc_prepare_task", { talentIds: ["typescript-strict"] })),
    });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(JSON.parse(body.result.content[0]!.text)).toMatchObject({ error: "insufficient_scope", requiredScope: "prepare_task" });
    expect(fastPath.answered).toBe(before + 1);
  });
});

test("the real SDK client's tool calls take the fast path, and get the same results as through the SDK's server", async () => {
  const client = await connectWithBearer(`${live.base}/mcp`, key);
  try {
    const before = fastPath.answered;
    const viaFast = await client.callTool({ name: "svc_validate", arguments: { resolutionId } });
    expect(fastPath.answered).toBe(before + 1);
    fastPath.enabled = false;
    const viaSdk = await client.callTool({ name: "svc_validate", arguments: { resolutionId } });
    fastPath.enabled = true;
    expect(fastPath.answered).toBe(before + 1);
    expect(viaFast).toEqual(viaSdk);
    expect(viaFast.isError).toBeUndefined();
  } finally {
    await client.close();
  }
});
