/**
 * Errors say what is wrong, over the key API and to an agent through the real SDK client: a body past BODY_LIMIT names
 * the limit (never an empty 413), an over-long id is called too long, too many evidence items is one issue naming the
 * limit, svc_deepen with neither uri nor query says to give one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject } from "../helpers";
import { connectWithBearer, liveEnv, toolJson, type LiveEnv } from "../mcp-support";

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
const LIMIT = 65536;

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv({ BODY_LIMIT: String(LIMIT) });
});
afterAll(async () => {
  await live.close();
});

async function setup() {
  const o = await orgWithProject(live.env);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  const key = (await createKey(o.owner, o.project.id, ALL)).value;
  const api = async (method: string, path: string, body: unknown) => {
    const r = await fetch(`${live.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, text, body: text ? JSON.parse(text) : null };
  };
  return { ...o, key, api };
}

describe("errors say what is wrong", () => {
  test("a body past BODY_LIMIT → 413 naming the limit, over the key API and over MCP (never Bun's empty 413), however far past", async () => {
    const s = await setup();
    for (const size of [LIMIT + 10, LIMIT + 200_000, 5_000_000]) {
      const r = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"], pad: "x".repeat(size) });
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ error: "payload_too_large", limit: LIMIT });
      expect(r.body.message).toBe(
        `The request body is larger than ${LIMIT} bytes (64 KiB), this server's limit (BODY_LIMIT): send less in one request.`,
      );
    }
    const client = await connectWithBearer(`${live.base}/mcp/${s.project.id}`, s.key);
    const error = await client
      .callTool({ name: "svc_prepare_task", arguments: { talentIds: ["typescript-strict"], language: "x".repeat(3 * LIMIT) } })
      .then(
        () => null,
        (e: Error) => e.message,
      );
    expect(error).toContain(`The request body is larger than ${LIMIT} bytes (64 KiB), this server's limit (BODY_LIMIT)`);
    // the raw answer on /mcp is a JSON-RPC error
    const raw = await fetch(`${live.base}/mcp/${s.project.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(2 * LIMIT) } }),
    });
    expect(raw.status).toBe(413);
    expect(await raw.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, data: { limit: LIMIT } } });
    await client.close();
  });

  test("an over-long id is 'id too long (at most 200 characters)' at its index, for prepare-task and install", async () => {
    const s = await setup();
    const long = "a".repeat(5000);
    const prepared = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict", long] });
    expect(prepared.status).toBe(400);
    expect(prepared.body.issues).toEqual([{ path: "talentIds[1]", message: "id too long (at most 200 characters)" }]);
    const one = await s.api("PATCH", "/api/projects/current/talents", { talent: long });
    expect(one.body.issues).toEqual([{ path: "talent", message: "id too long (at most 200 characters)" }]);
    const many = await s.api("PATCH", "/api/projects/current/talents", { talents: ["lone", long] });
    expect(many.body.issues).toEqual([{ path: "talents[1]", message: "id too long (at most 200 characters)" }]);
  });

  test("too many evidence items is one issue naming the limit, not also 'a fail needs evidence'", async () => {
    const s = await setup();
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const r = await s.api("POST", "/api/validation/reports", {
      submissionId: "s1",
      resolutionId: p.body.resolutionId,
      expertiseResults: [{ id: "@x/y", verdict: "fail", evidence: Array.from({ length: 2000 }, (_, i) => `src/a.ts:${i + 1}`) }],
    });
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual([{ path: "expertiseResults[0].evidence", message: "at most 100 items (got 2000)" }]);
  });

  test("svc_deepen with neither uri nor query: 'give uri … or query …', over MCP and the key API alike", async () => {
    const s = await setup();
    const client = await connectWithBearer(`${live.base}/mcp/${s.project.id}`, s.key);
    const r = await client.callTool({ name: "svc_deepen", arguments: {} });
    expect(r.isError).toBe(true);
    expect(toolJson(r).issues).toEqual([
      { path: "", message: "give uri (a talent:// uri to read) or query (a text to search for); uris reads several at once" },
    ]);
    expect((await s.api("POST", "/api/talents/get", {})).body.issues[0].message).toStartWith("give uri (a talent:// uri to read) or query");
    await client.close();
  });
});
