/**
 * The adapter holds no logic (docs/api-oauth-mcp.md "Tools"): the tool → backend table is the
 * tools table of docs/api-oauth-mcp.md, and each call becomes exactly ONE backend request, whose method and
 * path are the table's and whose payload is the arguments as given. Checked with a recording
 * backend behind the real MCP server and an in-memory SDK client.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { KEY_SCOPES } from "../../src/db/schema";
import { createMcpServer } from "../../src/mcp/server";
import type { BackendAnswer } from "../../src/mcp/toolResult";
import { TOOL_ROUTES, TOOLS, type BackendCall } from "../../src/mcp/tools";

/** docs/api-oauth-mcp.md "Tools", "backend request" column, with the key API's /api prefix and PATCH /projects/current → :id. */
const SPEC_TABLE: Record<string, string[]> = {
  svc_prepare_task: ["POST /api/prepare-task"],
  svc_deepen: ["POST /api/talents/get", "GET /api/search"],
  svc_validate: ["GET /api/validation/playbook"],
  svc_record_validation: ["POST /api/validation/reports"],
  svc_install_talents: ["PATCH /api/projects/:id/talents"],
  svc_doctor: ["GET /api/doctor"],
  svc_discover_codebase: ["GET /api/discovery/playbook"],
};

/** docs/api.md "The agent loop": the scope of each route. */
const SPEC_SCOPES: Record<string, string> = {
  svc_prepare_task: "prepare_task",
  svc_deepen: "deepen",
  svc_validate: "validate",
  svc_record_validation: "record_validation",
  svc_install_talents: "install",
  svc_doctor: "doctor",
  svc_discover_codebase: "discover",
};

async function recordingClient(answer: BackendAnswer = { status: 200, text: "{}" }) {
  const calls: { call: BackendCall; tool: string }[] = [];
  const server = createMcpServer(
    async (call, tool) => {
      calls.push({ call, tool });
      return answer;
    },
    "prj_01AAAAAAAAAAAAAAAAAAAAAAAA",
    { scopes: KEY_SCOPES, calling: false },
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(b);
  return { client, calls };
}

describe("the tool table", () => {
  test("tool → (method, path) is exactly the spec's table, and each tool carries its route's scope", () => {
    expect(TOOL_ROUTES).toEqual(SPEC_TABLE);
    expect(Object.fromEntries(TOOLS.map((t) => [t.name, t.scope as string]))).toEqual(SPEC_SCOPES);
  });

  const cases: [string, Record<string, unknown>, BackendCall][] = [
    [
      "svc_prepare_task",
      { talentIds: ["a", "b"], language: "go" },
      { method: "POST", path: "/api/prepare-task", body: { talentIds: ["a", "b"], language: "go" } },
    ],
    ["svc_prepare_task", { talentIds: [] }, { method: "POST", path: "/api/prepare-task", body: { talentIds: [] } }],
    [
      "svc_deepen",
      { uri: "talent://a/x.md", section: "Rules" },
      { method: "POST", path: "/api/talents/get", body: { uri: "talent://a/x.md", section: "Rules" } },
    ],
    [
      "svc_deepen",
      { query: "strict", k: 5, scope: "catalog" },
      { method: "GET", path: "/api/search", query: { query: "strict", k: 5, scope: "catalog" } },
    ],
    [
      "svc_validate",
      { resolutionId: "res_1", talent: "a" },
      { method: "GET", path: "/api/validation/playbook", query: { resolutionId: "res_1", talent: "a" } },
    ],
    [
      "svc_record_validation",
      {
        submissionId: "s",
        resolutionId: "res_1",
        expertiseResults: [{ id: "@o/x", verdict: "fail", evidence: ["a.ts:1"], missing: ["a test"], note: "n" }],
      },
      {
        method: "POST",
        path: "/api/validation/reports",
        body: {
          submissionId: "s",
          resolutionId: "res_1",
          expertiseResults: [{ id: "@o/x", verdict: "fail", evidence: ["a.ts:1"], missing: ["a test"], note: "n" }],
        },
      },
    ],
    [
      "svc_install_talents",
      { talents: ["a", "b"] },
      { method: "PATCH", path: "/api/projects/prj_01AAAAAAAAAAAAAAAAAAAAAAAA/talents", body: { talents: ["a", "b"] } },
    ],
    [
      "svc_install_talents",
      { talent: "a", enabled: false },
      { method: "PATCH", path: "/api/projects/prj_01AAAAAAAAAAAAAAAAAAAAAAAA/talents", body: { talent: "a" } },
    ],
    ["svc_doctor", {}, { method: "GET", path: "/api/doctor" }],
    ["svc_discover_codebase", {}, { method: "GET", path: "/api/discovery/playbook" }],
  ];
  for (const [tool, args, expected] of cases) {
    test(`${tool} ${JSON.stringify(args)} → exactly one ${expected.method} ${expected.path} with the arguments as given`, async () => {
      const { client, calls } = await recordingClient();
      await client.callTool({ name: tool, arguments: args });
      expect(calls).toHaveLength(1);
      const sent = JSON.parse(JSON.stringify(calls[0]!.call)); // undefined fields are not sent
      expect(sent).toEqual(JSON.parse(JSON.stringify(expected)));
      expect(calls[0]!.tool).toBe(tool);
      expect(TOOL_ROUTES[tool]).toContain(`${expected.method} ${expected.path.replace(/prj_[0-9A-Z]+/, ":id")}`);
    });
  }

  test("a verdict is a plain object in the schema (no `additionalProperties: {}`): a field the backend never reads is dropped by the SDK, every other field reaches it as given", async () => {
    const { client, calls } = await recordingClient();
    const result = { id: "@o/x", verdict: "pass", evidence: ["a.ts:1"], note: "n" };
    await client.callTool({
      name: "svc_record_validation",
      arguments: { submissionId: "s", resolutionId: "res_1", expertiseResults: [{ ...result, extra: 1 }] },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.call.body).toEqual({ submissionId: "s", resolutionId: "res_1", expertiseResults: [result] });
  });

  test("a backend error comes back as a tool error carrying the backend's code and status, untouched", async () => {
    const { client } = await recordingClient({
      status: 400,
      text: JSON.stringify({ error: "designation_required", message: "Designate at least one talent." }),
    });
    const r = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: [] } });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual({
      status: 400,
      error: "designation_required",
      message: "Designate at least one talent.",
    });
  });

  test("a success is the backend body as text, unchanged", async () => {
    const body = JSON.stringify({ resolutionId: "res_1", talents: [] });
    const { client } = await recordingClient({ status: 201, text: body });
    const r = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["a"] } });
    expect(r.isError).toBeFalsy();
    expect((r.content as { text: string }[])[0]!.text).toBe(body);
  });

  test("no file of the adapter reads the database", () => {
    const dir = join(import.meta.dir, "../../src/mcp");
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const src = readFileSync(join(dir, f), "utf8");
      expect(src).not.toMatch(/db\/client|drizzle|\.database\b|deps\.database/);
    }
  });
});
