/**
 * Both protocol eras on one endpoint (docs/api-oauth-mcp.md "Protocol versions"), through a
 * project key over a real socket: SDK v2's client pinned to 2026-07-28 and the same client in
 * its default 2025 handshake; then the 2026-07-28 refusals as raw HTTP (header/body mismatch,
 * an unsupported version, a removed method, the error id echoed) and the caching hints.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { loopProject } from "../activity-support";
import { liveEnv, type LiveEnv } from "../mcp-support";
import pkg from "../../package.json" with { type: "json" };

let live: LiveEnv;
let key: string;
let projectId: string;
let resolutionId: string;
let owner: Awaited<ReturnType<typeof loopProject>>["owner"];
beforeAll(async () => {
  live = await liveEnv();
  const s = await loopProject(live.env);
  key = s.key;
  projectId = s.project.id;
  owner = s.owner;
  resolutionId = await s.prepare(["typescript-strict"]);
});
afterAll(async () => {
  await live.close();
});

const MODERN = "2026-07-28";
const url = () => new URL(`${live.base}/mcp/${projectId}`);

/** SDK v2's client through the key: pinned to 2026-07-28, or its default 2025 handshake. */
async function v2Client(era: "modern" | "legacy"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url(), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const client = new Client(
    { name: "v2-agent", version: "2.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(transport);
  return client;
}

const envelope = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
});

/** A raw 2026-07-28 POST: the headers the body implies unless `headers` says otherwise. */
async function post(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}, id: unknown = 41) {
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const r = await fetch(url(), {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: envelope(), ...params } }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

describe("both eras on /mcp/<project> with SDK v2's client", () => {
  for (const era of ["modern", "legacy"] as const) {
    test(`${era}: tools are listed with JSON Schema 2020-12 inputs; a call returns the key API's JSON as structuredContent beside the text; a refused call is an isError result`, async () => {
      const client = await v2Client(era);
      try {
        expect(client.getServerVersion()?.name).toBe("talentd");
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([
          "svc_deepen",
          "svc_discover_codebase",
          "svc_doctor",
          "svc_install_talents",
          "svc_prepare_task",
          "svc_record_validation",
          "svc_validate",
        ]);
        for (const t of tools) expect(t.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
        const ok = await client.callTool({ name: "svc_validate", arguments: { resolutionId } });
        expect(ok.isError).toBeFalsy();
        const text = (ok.content as { type: string; text: string }[])[0]!.text;
        expect(ok.structuredContent).toEqual(JSON.parse(text));
        expect((ok.structuredContent as { resolutionId: string }).resolutionId).toBe(resolutionId);
        const refused = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: [] } });
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toMatchObject({ status: 400, error: "designation_required" });
        const { resources } = await client.listResources();
        expect(resources.map((r) => r.uri)).toContain("talent://typescript-strict");
        const { prompts } = await client.listPrompts();
        expect(prompts.map((p) => p.name).sort()).toEqual(["audit_resolution", "prepare_task"]);
      } finally {
        await client.close();
      }
    });
  }
});

describe("the Skills extension read by SDK v2's own skills client (its shape checks and digest verification)", () => {
  for (const era of ["modern", "legacy"] as const) {
    test(`${era}: skills/list, skills/get, resources/directory/read and every file of a skill pass the client's checks`, async () => {
      const client = await v2Client(era);
      try {
        const skills = new SkillsClient(client);
        expect(skills.supported).toBe(true);
        expect(skills.directoryRead).toBe(true);
        const listing = await skills.list();
        const uris = listing.skills.map((s) => s.uri);
        expect(uris).toContain("skill://typescript-strict/SKILL.md");
        if (era === "modern") expect(`${listing.ttlMs} ${listing.cacheScope}`).toBe("0 private");
        const { skill } = await skills.get("skill://typescript-strict/SKILL.md");
        expect(skill.frontmatter.name).toBe("typescript-strict");
        const files = skill.resources === "dynamic" ? [] : skill.resources;
        expect(files.length).toBeGreaterThan(1);
        for (const f of files) {
          const read = await skills.read(skill, f.uri);
          expect(read.verified).toBe(true);
        }
        const dir = await skills.readDirectory("skill://typescript-strict");
        expect(dir.resources.map((r) => r.uri)).toContain("skill://typescript-strict/SKILL.md");
      } finally {
        await client.close();
      }
    });
  }
});

describe("2026-07-28 over raw HTTP: the refusals the revision names", () => {
  test("server/discover lists 2026-07-28 and the capabilities; results carry resultType and the server's identity", async () => {
    const r = await post("server/discover", {});
    expect(r.status).toBe(200);
    expect(r.body.result.supportedVersions).toContain(MODERN);
    expect(Object.keys(r.body.result.capabilities).sort()).toEqual(expect.arrayContaining(["prompts", "resources", "tools"]));
    const tools = await post("tools/list", {});
    expect(tools.body.result.resultType).toBe("complete");
    expect(tools.body.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("talentd");
    // one version everywhere: package.json's, as server.json and `talentd version` say
    expect(tools.body.result._meta["io.modelcontextprotocol/serverInfo"].version).toBe(pkg.version);
  });

  test("the client named in the request's _meta envelope is the client of its trace (no session id in this revision)", async () => {
    const r = await post("tools/call", { name: "svc_doctor", arguments: {} }, { "user-agent": "ua-only" });
    expect(r.status).toBe(200);
    expect(r.body.result.structuredContent).toBeDefined();
    const events = (await owner.get(`/web/projects/${projectId}/traces`)).body.events as { kind: string; client: string; via: string }[];
    expect(events.filter((e) => e.kind === "doctor").map((e) => `${e.via} ${e.client}`)).toContain("mcp raw/1");
  });

  test("an unsupported protocol version → -32022 UnsupportedProtocolVersion naming the supported ones, with the request's id", async () => {
    const r = await fetch(url(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2099-01-01",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/list", params: { _meta: envelope("2099-01-01") } }),
    });
    const body = await r.json();
    expect(body.id).toBe(77);
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(MODERN);
  });

  test("header/body mismatches → HTTP 400 -32020 with the request's id: Mcp-Method, Mcp-Name, MCP-Protocol-Version", async () => {
    const cases: [string, string, Record<string, unknown>, Record<string, string>][] = [
      ["Mcp-Method", "tools/list", {}, { "mcp-method": "prompts/list" }],
      ["Mcp-Name", "tools/call", { name: "svc_doctor", arguments: {} }, { "mcp-name": "svc_validate" }],
      ["Mcp-Name absent", "tools/call", { name: "svc_doctor", arguments: {} }, { "mcp-name": "" }],
      ["MCP-Protocol-Version", "tools/list", {}, { "mcp-protocol-version": "2025-11-25" }],
    ];
    for (const [what, method, params, headers] of cases) {
      const r = await post(method, params, headers, 9);
      expect(`${what}: ${r.status} ${r.body?.error?.code ?? r.body?.error} ${r.body?.id}`).toMatch(
        new RegExp(`^${what}: 400 -32\\d{3} 9$`),
      );
      if (what !== "MCP-Protocol-Version") expect(r.body.error.code).toBe(-32020);
    }
  });

  test("removed methods (initialize, ping, logging/setLevel, resources/subscribe) → HTTP 404 -32601; an unknown one too", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nothing"]) {
      const r = await post(method, method === "logging/setLevel" ? { level: "info" } : {});
      expect(`${method}: ${r.status} ${r.body.error.code} ${r.body.id}`).toBe(`${method}: 404 -32601 41`);
    }
  });

  test("caching hints: tools and prompts lists an hour, private (they follow the credentials' scopes), templates an hour, public; a project's resources and reads 0, private; a missing resource is -32602 naming the uri", async () => {
    const hints = async (method: string, params: Record<string, unknown> = {}) => {
      const r = await post(method, params);
      return `${method}: ${r.body.result.ttlMs} ${r.body.result.cacheScope}`;
    };
    expect(await hints("tools/list")).toBe("tools/list: 3600000 private");
    expect(await hints("prompts/list")).toBe("prompts/list: 3600000 private");
    expect(await hints("resources/templates/list")).toBe("resources/templates/list: 3600000 public");
    expect(await hints("resources/list")).toBe("resources/list: 0 private");
    expect(await hints("resources/read", { uri: "talent://typescript-strict" })).toBe("resources/read: 0 private");
    const miss = await post("resources/read", { uri: "talent://no-such-talent" });
    expect(miss.body.error.code).toBe(-32602);
    expect(miss.body.error.data.uri).toBe("talent://no-such-talent");
  });
});
