/**
 * The MCP adapter over a real socket with the real SDK client and a project key:
 * tools as in the spec, the four-step loop on a project with one private expertise (checked
 * through the web routes), traces naming the client, resources, and the HTTP refusals of
 * `/mcp*` (challenge header, scope, audience, Origin, methods).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv2020 from "ajv/dist/2020";
import { createKey, orgWithProject, publishedExpertiseOf, talentMd, testEnv, type WebClient } from "../helpers";
import { CLIENT_INFO, connectWithBearer, liveEnv, MemoryOAuthProvider, toolJson, type LiveEnv } from "../mcp-support";

/** The 401 challenge names the scopes the MCP resource takes (MCP authorization 2026-07-28). */
const ALL_SCOPES = 'scope="prepare_task validate record_validation deepen doctor catalog discover install"';

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
const mcpUrl = (projectId?: string) => (projectId ? `${live.base}/mcp/${projectId}` : `${live.base}/mcp`);

/** An org with a project, `install` installed, an active private expertise (when asked), and a key. */
async function setup(opts: { install?: string[]; tools?: string[]; expertise?: boolean } = {}) {
  const o = await orgWithProject(live.env);
  let expertiseRef: string | null = null;
  if (opts.expertise) {
    expertiseRef = await makeExpertise(o.owner, o.org.slug, "payments");
  }
  const install = [...(opts.install ?? []), ...(expertiseRef ? [expertiseRef] : [])];
  if (install.length > 0) {
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: install });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  }
  const key = await createKey(o.owner, o.project.id, opts.tools ?? ALL);
  return { ...o, key: key.value, expertiseRef };
}

/** Creates, publishes and activates an expertise of the owner's active organization; returns `@org/slug`. */
async function makeExpertise(owner: WebClient, orgSlug: string, slug: string): Promise<string> {
  const { ref } = await publishedExpertiseOf(owner, slug, talentMd(slug, {}, "Refunds go through the ledger."));
  expect(ref).toBe(`@${orgSlug}/${slug}`);
  return ref;
}

describe("MCP with a project key (the SDK client over Streamable HTTP)", () => {
  test("initialize names the server and the loop; tools/list is exactly the spec's seven tools with their parameters", async () => {
    const s = await setup();
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    expect(client.getServerVersion()?.name).toBe("talentd");
    expect(client.getInstructions()).toContain("svc_prepare_task");
    const { tools } = await client.listTools();
    const params = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {}).sort()]));
    expect(params).toEqual({
      svc_prepare_task: ["language", "maxTokens", "talentIds"],
      svc_deepen: ["k", "maxTokens", "query", "resolutionId", "scope", "section", "uri"],
      svc_validate: ["resolutionId", "talent"],
      svc_record_validation: ["expertiseResults", "resolutionId", "submissionId"],
      svc_install_talents: ["talent", "talents"],
      svc_doctor: [],
      svc_discover_codebase: ["languages", "offset"],
    });
    const required = Object.fromEntries(tools.map((t) => [t.name, [...(t.inputSchema.required ?? [])].sort()]));
    expect(required).toMatchObject({
      svc_prepare_task: ["talentIds"],
      svc_validate: ["resolutionId"],
      svc_record_validation: ["expertiseResults", "resolutionId", "submissionId"],
    });
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(80);
    await client.close();
  });

  test("capabilities say what the server does: tools, resources, prompts and the Skills extension with directoryRead; no listChanged (a stateless server never sends list_changed), no subscribe", async () => {
    const s = await setup();
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const capabilities = {
      tools: {},
      resources: {},
      prompts: {},
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
    };
    expect(client.getServerCapabilities()).toEqual(capabilities);
    // the raw initialize answer too: the key is absent, not false
    const raw = await fetch(mcpUrl(s.project.id), {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT_INFO },
      }),
    });
    const text = await raw.text();
    expect(text).not.toContain("listChanged");
    expect(JSON.parse(text).result.capabilities).toEqual(capabilities);
    await client.close();
  });

  test("every tool's inputSchema passes the Inspector's strict checks: valid JSON Schema 2020-12 (Ajv strict), no additionalProperties that is an empty object, every property with a type and a description", async () => {
    const s = await setup();
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);
    const problems: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
      if (node === null || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      const extra = o.additionalProperties;
      if (extra !== undefined && typeof extra === "object" && extra !== null && Object.keys(extra).length === 0)
        problems.push(`${path}.additionalProperties is {}`);
      if (o.type === "object" && (o.properties === null || typeof o.properties !== "object"))
        problems.push(`${path}: an object without properties`);
      for (const [name, prop] of Object.entries((o.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof prop.type !== "string") problems.push(`${path}.properties.${name}: no type`);
        if (typeof prop.description !== "string" || prop.description.length < 10)
          problems.push(`${path}.properties.${name}: no description`);
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`);
    };
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const t of tools) {
      walk(t.inputSchema, `${t.name}.inputSchema`);
      const { $schema, ...schema } = t.inputSchema as Record<string, unknown>;
      expect(`${t.name}: ${$schema}`).toBe(`${t.name}: https://json-schema.org/draft/2020-12/schema`);
      expect(() => ajv.compile(schema)).not.toThrow();
    }
    expect(problems).toEqual([]);
    await client.close();
  });

  for (const [tool, route, install] of [
    ["svc_doctor", "/api/doctor", ["react-hooks"]],
    ["svc_discover_codebase", "/api/discovery/playbook", []],
  ] as const) {
    test(`${tool} reaches GET ${route} and answers what the key API answers, its procedure and advice worded for MCP (wording follows the channel)`, async () => {
      const s = await setup({ install: [...install] });
      const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
      const {
        procedure: mcpSteps,
        advice: mcpAdvice,
        more: mcpMore,
        ...viaMcp
      } = toolJson(await client.callTool({ name: tool, arguments: {} }));
      const {
        procedure: apiSteps,
        advice: apiAdvice,
        more: apiMore,
        ...direct
      } = await (await live.env.request(route, { headers: { authorization: `Bearer ${s.key}` } })).json();
      expect(viaMcp).toEqual(direct);
      // the same steps, advice and pointer to the rest of the index, one naming tools, the other routes
      expect(mcpSteps?.length).toBe(apiSteps?.length);
      expect(typeof mcpAdvice).toBe(typeof apiAdvice);
      expect(typeof mcpMore).toBe(typeof apiMore);
      expect(`${mcpSteps?.join("\n")} ${mcpAdvice} ${mcpMore ?? ""}`).not.toContain("/api/");
      await client.close();
    });
  }

  test("the end-to-end loop: prepare → validate → validate with talent → record, on a project with one private expertise; records and traces visible on the web routes", async () => {
    const s = await setup({ install: ["typescript-strict"], expertise: true });
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);

    const prepared = await client.callTool({
      name: "svc_prepare_task",
      arguments: { talentIds: ["typescript-strict", s.expertiseRef!], language: "typescript" },
    });
    expect(prepared.isError).toBeFalsy();
    const p = toolJson(prepared);
    expect(p.resolutionId).toMatch(/^res_/);
    expect(p.talents.map((t: { id: string }) => t.id)).toEqual(["typescript-strict", s.expertiseRef]);

    const index = toolJson(await client.callTool({ name: "svc_validate", arguments: { resolutionId: p.resolutionId } }));
    expect(index.obligations.map((o: { id: string }) => o.id).sort()).toEqual([s.expertiseRef, "typescript-strict"].sort());
    expect(index.obligations.find((o: { id: string }) => o.id === s.expertiseRef).verdictRequired).toBe(true);

    const detail = toolJson(
      await client.callTool({ name: "svc_validate", arguments: { resolutionId: p.resolutionId, talent: "typescript-strict" } }),
    );
    expect(detail.detail.rules.length).toBeGreaterThan(0);
    expect(detail.detail.rules[0].check).toBeString();

    const report = {
      submissionId: "mcp-sub-1",
      resolutionId: p.resolutionId,
      expertiseResults: [{ id: s.expertiseRef!, verdict: "fail", evidence: ["src/payments/refund.ts:12"] }],
    };
    const recorded = await client.callTool({ name: "svc_record_validation", arguments: report });
    expect(recorded.isError).toBeFalsy();
    const replay = toolJson(await client.callTool({ name: "svc_record_validation", arguments: report }));
    expect(replay.replayed).toBe(true);

    const reports = await s.owner.get(`/web/projects/${s.project.id}/resolutions/${p.resolutionId}/reports`);
    expect(reports.status).toBe(200);
    expect(reports.body.reports).toHaveLength(1);
    expect(JSON.stringify(reports.body.reports[0])).toContain("src/payments/refund.ts:12");

    const traces = (await s.owner.get(`/web/projects/${s.project.id}/traces?limit=50`)).body.events as {
      kind: string;
      via: string;
      client: string;
      author: { type: string };
    }[];
    const kinds = traces.map((e) => e.kind);
    for (const k of ["prepare_task", "validate", "record_validation"]) expect(kinds).toContain(k);
    for (const e of traces.filter((x) => ["prepare_task", "validate", "record_validation"].includes(x.kind))) {
      expect(e.via).toBe("mcp");
      expect(e.client).toBe(`${CLIENT_INFO.name}/${CLIENT_INFO.version}`);
      expect(e.author.type).toBe("key");
    }
    await client.close();
  });

  test("svc_prepare_task with empty talentIds → a tool error carrying designation_required (no fallback guesses)", async () => {
    const s = await setup({ install: ["typescript-strict"] });
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const r = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: [] } });
    expect(r.isError).toBe(true);
    expect(toolJson(r)).toMatchObject({ status: 400, error: "designation_required" });
    await client.close();
  });

  test("svc_install_talents installs through the key route (the bearer's project); an unknown id is refused; svc_deepen reads and searches", async () => {
    const s = await setup();
    const client = await connectWithBearer(mcpUrl(), s.key);
    const r = toolJson(
      await client.callTool({ name: "svc_install_talents", arguments: { talents: ["typescript-strict", "javascript-base"] } }),
    );
    expect(r.installed.sort()).toEqual(["javascript-base", "typescript-strict"]);
    const installed = (await s.owner.get(`/web/projects/${s.project.id}/installed`)).body.talents.map(
      (t: { id: string; state: string }) => `${t.id}:${t.state}`,
    );
    expect(installed.sort()).toEqual(["javascript-base:active", "typescript-strict:active"]);
    const bad = await client.callTool({ name: "svc_install_talents", arguments: { talent: "no-such-talent" } });
    expect(bad.isError).toBe(true);
    expect(toolJson(bad).error).toBe("unknown_talents");

    const found = toolJson(await client.callTool({ name: "svc_deepen", arguments: { query: "strict", scope: "active" } }));
    expect(found.results.map((x: { id: string }) => x.id)).toContain("typescript-strict");
    expect(JSON.stringify(found)).not.toContain("compact");
    const read = toolJson(await client.callTool({ name: "svc_deepen", arguments: { uri: "talent://typescript-strict" } }));
    expect(read.files[0].uri).toBe("talent://typescript-strict");
    expect(read.files[0].content).toContain("typescript-strict");
    await client.close();
  });

  test("resources list the project's active talents and its active expertises (talent://@org/slug), each readable; a disabled expertise is neither listed nor readable; svc_deepen still reads an expertise pinned", async () => {
    const s = await setup({ install: ["typescript-strict"], expertise: true });
    const disabled = await makeExpertise(s.owner, s.org.slug, "ledger");
    expect((await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: [disabled] })).status).toBe(201);
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/${disabled}`, { enabled: false })).body.state).toBe("disabled");
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([`talent://${s.expertiseRef}`, "talent://typescript-strict"]);
    expect(resources.find((r) => r.uri === "talent://typescript-strict")).toMatchObject({
      name: "typescript-strict",
      mimeType: "text/markdown",
    });
    expect(resources.find((r) => r.uri === `talent://${s.expertiseRef}`)).toMatchObject({
      name: s.expertiseRef,
      mimeType: "text/markdown",
    });
    const ts = await client.readResource({ uri: "talent://typescript-strict" });
    expect((ts.contents[0] as { text: string }).text).toContain("typescript-strict");
    // a catalog talent the project has not enabled reads as its preview, as svc_deepen reads it
    const preview = await client.readResource({ uri: "talent://sql-base" });
    expect((preview.contents[0] as { text: string }).text).toContain("a preview, not installed in this project");
    // the listed expertise reads at its published version; the "@" of its uri survives the adapter
    // (the SDK's URL parsing would drop it)
    for (const uri of [`talent://${s.expertiseRef}`, `talent://${s.expertiseRef}/TALENT.md`]) {
      const ex = await client.readResource({ uri });
      expect(ex.contents).toHaveLength(1);
      expect(ex.contents[0]).toMatchObject({ uri, mimeType: "text/markdown" });
      expect((ex.contents[0] as { text: string }).text).toContain("Refunds go through the ledger.");
    }
    await expect(client.readResource({ uri: `talent://${s.expertiseRef}/missing.md` })).rejects.toThrow(
      `talent://${s.expertiseRef}/missing.md`,
    );
    await expect(client.readResource({ uri: `talent://${disabled}` })).rejects.toThrow(/not_found/);
    await expect(client.readResource({ uri: "talent://@other-org/payments" })).rejects.toThrow(/not_found/);
    const p = toolJson(await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: [s.expertiseRef!] } }));
    const ex = toolJson(
      await client.callTool({ name: "svc_deepen", arguments: { uri: `talent://${s.expertiseRef}`, resolutionId: p.resolutionId } }),
    );
    expect(ex.files[0].uri).toBe(`talent://${s.expertiseRef}`);
    expect(ex.files[0].content).toContain("Refunds go through the ledger.");
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["talent://{+path}", "skill://{+path}"]);
    await client.close();
  });

  test("svc_deepen with query and resolutionId searches what that resolution served (scope implied); an unknown or another project's resolutionId → not_found; another scope beside it → validation_failed", async () => {
    const s = await setup({ install: ["typescript-strict", "javascript-base"] });
    const other = await setup({ install: ["sql-base"] });
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const otherClient = await connectWithBearer(mcpUrl(other.project.id), other.key);
    const p = toolJson(await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["typescript-strict"] } }));
    const foreign = toolJson(await otherClient.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["sql-base"] } }));
    const deepen = (args: Record<string, unknown>) => client.callTool({ name: "svc_deepen", arguments: args });
    const served = toolJson(await deepen({ query: "script", resolutionId: p.resolutionId }));
    expect(served.scope).toBe("resolution");
    expect(served.results.map((x: { id: string }) => x.id)).toEqual(["typescript-strict"]);
    expect(
      toolJson(await deepen({ query: "script" }))
        .results.map((x: { id: string }) => x.id)
        .sort(),
    ).toEqual(["javascript-base", "typescript-strict"]);
    for (const resolutionId of [foreign.resolutionId, `res_${"0".repeat(26)}`]) {
      const r = await deepen({ query: "sql", resolutionId });
      expect(r.isError).toBe(true);
      expect(toolJson(r)).toMatchObject({ status: 404, error: "not_found" });
      expect(JSON.stringify(r)).not.toContain("sql-base");
    }
    const both = await deepen({ query: "script", resolutionId: p.resolutionId, scope: "catalog" });
    expect(both.isError).toBe(true);
    expect(toolJson(both)).toMatchObject({ status: 400, error: "validation_failed" });
    await client.close();
    await otherClient.close();
  });

  test('svc_deepen section "Rules" reads the rules as the compact form shows them, live and pinned (an expertise through its resolution); a missing heading → not_found listing the sections', async () => {
    const s = await setup({ install: ["typescript-strict"], expertise: true });
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const p = toolJson(
      await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["typescript-strict", s.expertiseRef!] } }),
    );
    const compactOf = (id: string) => p.talents.find((t: { id: string }) => t.id === id).compact as string;
    const live = toolJson(
      await client.callTool({ name: "svc_deepen", arguments: { uri: "talent://typescript-strict", section: "Rules" } }),
    );
    expect(live.files[0].content).toStartWith("## Rules\n");
    expect(compactOf("typescript-strict")).toContain(live.files[0].content);
    const pinned = toolJson(
      await client.callTool({
        name: "svc_deepen",
        arguments: { uri: `talent://${s.expertiseRef}`, section: "rules", resolutionId: p.resolutionId },
      }),
    );
    expect(pinned.files[0]).toMatchObject({ pinned: true, section: "rules" });
    expect(pinned.files[0].content).toStartWith("## Rules\n- [AB-001]");
    expect(compactOf(s.expertiseRef!)).toContain(pinned.files[0].content);
    const miss = await client.callTool({
      name: "svc_deepen",
      arguments: { uri: `talent://${s.expertiseRef}`, section: "Nope", resolutionId: p.resolutionId },
    });
    expect(miss.isError).toBe(true);
    expect(toolJson(miss)).toMatchObject({ status: 404, error: "not_found", sections: ["Title of payments", "Rules"] });
    expect(toolJson(miss).message).toContain('Its sections: "Title of payments", "Rules".');
    await client.close();
  });

  test("a key without the tool's scope → a tool error naming the scope and who grants it (a key cannot step up: no HTTP 403)", async () => {
    const s = await setup({ tools: ["validate"] });
    const client = await connectWithBearer(mcpUrl(s.project.id), s.key);
    const r = await client.callTool({ name: "svc_doctor", arguments: {} });
    expect(r.isError).toBe(true);
    expect(toolJson(r)).toMatchObject({ status: 403, error: "insufficient_scope", requiredScope: "doctor" });
    expect(toolJson(r).message).toBe(
      'This key does not carry the "doctor" scope this needs. Any member of the project can create a key with it in the ' +
        "project's Keys tab of the dashboard.",
    );
    const raw = await fetch(mcpUrl(s.project.id), {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_record_validation", arguments: {} } }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("www-authenticate")).toBeNull();
    await client.close();
  });
});

describe("refusals of /mcp*", () => {
  const post = (
    url: string,
    headers: Record<string, string> = {},
    body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  ) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });

  test("no bearer → 401 with resource_metadata of the project (root metadata for bare /mcp), CORS exposing WWW-Authenticate", async () => {
    const s = await setup();
    const r = await post(mcpUrl(s.project.id));
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer realm="talentd", ${ALL_SCOPES}, resource_metadata="${live.base}/.well-known/oauth-protected-resource/mcp/${s.project.id}"`,
    );
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    expect((await r.json()).error).toBe("invalid_token");
    const bare = await post(mcpUrl());
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(
      `Bearer realm="talentd", ${ALL_SCOPES}, resource_metadata="${live.base}/.well-known/oauth-protected-resource"`,
    );
  });

  test('unknown, malformed and revoked keys → the same 401 body, with error="invalid_token" and the metadata URL', async () => {
    const s = await setup();
    const keyId = (await s.owner.get(`/web/projects/${s.project.id}/keys`)).body.keys[0].id;
    await s.owner.del(`/web/projects/${s.project.id}/keys/${keyId}`);
    const bodies = new Set<string>();
    for (const bearer of [s.key, "svc_pk_nope", "garbage"]) {
      const r = await post(mcpUrl(s.project.id), { authorization: `Bearer ${bearer}` });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe(
        `Bearer realm="talentd", error="invalid_token", ${ALL_SCOPES}, resource_metadata="${live.base}/.well-known/oauth-protected-resource/mcp/${s.project.id}"`,
      );
      bodies.add(await r.text());
    }
    expect(bodies.size).toBe(1);
  });

  test("a key of project A on /mcp/<B> → 401 (a key designates its project); on bare /mcp it works", async () => {
    const a = await setup();
    const b = await setup();
    const r = await post(mcpUrl(b.project.id), { authorization: `Bearer ${a.key}` });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toContain(`/mcp/${b.project.id}"`);
    expect((await post(mcpUrl(), { authorization: `Bearer ${a.key}` })).status).toBe(200);
    // nothing else about a foreign key is told: its creator gone, or its project deleted → the same 401
    await live.env.database.client.execute({ sql: "DELETE FROM members WHERE user_id = ?", args: [a.owner.userId] });
    const left = await post(mcpUrl(b.project.id), { authorization: `Bearer ${a.key}` });
    expect(`${left.status} ${(await left.json()).error}`).toBe("401 invalid_token");
    const c = await setup();
    await c.owner.del(`/web/projects/${c.project.id}`);
    const tombstoned = await post(mcpUrl(b.project.id), { authorization: `Bearer ${c.key}` });
    expect(`${tombstoned.status} ${(await tombstoned.json()).error}`).toBe("401 invalid_token");
  });

  test("the key guard's other refusals pass through: creator no longer a member → 403 not_a_member; project deleted → 404", async () => {
    const s = await setup();
    await live.env.database.client.execute({ sql: "DELETE FROM members WHERE user_id = ?", args: [s.owner.userId] });
    const gone = await post(mcpUrl(s.project.id), { authorization: `Bearer ${s.key}` });
    expect(gone.status).toBe(403);
    expect((await gone.json()).error).toBe("not_a_member");
    const t = await setup();
    await t.owner.del(`/web/projects/${t.project.id}`);
    const deleted = await post(mcpUrl(t.project.id), { authorization: `Bearer ${t.key}` });
    expect(deleted.status).toBe(404);
  });

  test("a browser Origin other than BASE_URL's → 403 before anything else (DNS rebinding); the same origin is accepted", async () => {
    const s = await setup();
    const evil = await post(mcpUrl(s.project.id), { authorization: `Bearer ${s.key}`, origin: "http://evil.example" });
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.message).toContain("Invalid Origin");
    expect((await post(mcpUrl(s.project.id), { origin: "http://evil.example" })).status).toBe(403);
    expect((await post(mcpUrl(s.project.id), { authorization: `Bearer ${s.key}`, origin: live.base })).status).toBe(200);
  });

  test("GET → 405 (no SSE stream in stateless mode, as the SDK's stateless server); DELETE → 200; a bad project id → 404", async () => {
    const s = await setup();
    const get = await fetch(mcpUrl(s.project.id), { headers: { authorization: `Bearer ${s.key}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
    const del = await fetch(mcpUrl(s.project.id), { method: "DELETE", headers: { authorization: `Bearer ${s.key}` } });
    expect(del.status).toBe(200);
    expect((await post(`${live.base}/mcp/not-a-project`, { authorization: `Bearer ${s.key}` })).status).toBe(404);
  });

  test("initialize hands out a session id that names the client; later requests are traced with it, without clientInfo", async () => {
    const s = await setup();
    const init = await post(
      mcpUrl(s.project.id),
      { authorization: `Bearer ${s.key}`, "user-agent": "ua-only" },
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "Claude Code", version: "2.0.1" } },
      },
    );
    expect(init.status).toBe(200);
    const sid = init.headers.get("mcp-session-id")!;
    expect(sid).toMatch(/^c1\./);
    const call = (headers: Record<string, string>) =>
      post(
        mcpUrl(s.project.id),
        { authorization: `Bearer ${s.key}`, "mcp-protocol-version": "2025-06-18", ...headers },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "svc_doctor", arguments: {} } },
      );
    expect((await call({ "mcp-session-id": sid, "user-agent": "ua-only" })).status).toBe(200);
    expect((await call({ "user-agent": "curl/8.0" })).status).toBe(200);
    const events = (await s.owner.get(`/web/projects/${s.project.id}/traces`)).body.events as {
      kind: string;
      client: string;
      via: string;
    }[];
    expect(
      events
        .filter((e) => e.kind === "doctor")
        .map((e) => e.client)
        .sort(),
    ).toEqual(["Claude Code/2.0.1", "curl/8.0"]);
  });
});

describe("a client that reaches /mcp by another host than BASE_URL's → 421 misdirected_request naming BASE_URL", () => {
  // listening on 127.0.0.1, BASE_URL=http://localhost:<port>: a client using 127.0.0.1 is misdirected
  let away: LiveEnv;
  let publicBase: string;
  beforeAll(async () => {
    away = await liveEnv({}, { baseUrlOf: (port) => `http://localhost:${port}` });
    publicBase = away.env.config.baseUrl;
  });
  afterAll(async () => {
    await away.close();
  });

  const expected = (used: string, path: string) =>
    `This server's public URL is ${publicBase} (set by BASE_URL). Connect your agent to ${publicBase}${path}, or restart talentd with BASE_URL=${used}.`;

  test("the SDK client (Streamable HTTP) surfaces the 421 and its message in the error it throws, with a key", async () => {
    const s = await orgWithProject(away.env);
    const key = await createKey(s.owner, s.project.id, ALL);
    const err = await connectWithBearer(`${away.base}/mcp/${s.project.id}`, key.value).catch((e) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(421);
    expect(String(err.message)).toContain("misdirected_request");
    expect(String(err.message)).toContain(expected(away.base, `/mcp/${s.project.id}`));
  });

  test("an OAuth client gets the 421 instead of starting an OAuth discovery that would end on another resource", async () => {
    const s = await orgWithProject(away.env);
    const provider = new MemoryOAuthProvider();
    const client = new Client(CLIENT_INFO);
    const err = await client
      .connect(new StreamableHTTPClientTransport(new URL(`${away.base}/mcp/${s.project.id}`), { authProvider: provider }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(421);
    expect(String(err.message)).toContain(`Connect your agent to ${publicBase}/mcp/${s.project.id}`);
    expect(provider.authorizationUrl).toBeUndefined();
    expect(provider.info).toBeUndefined(); // no dynamic registration either
  });

  test("the body is the error model's {error, message, baseUrl, mcpUrl}, on /mcp and /mcp/<id>, whatever the method or the bearer", async () => {
    const s = await orgWithProject(away.env);
    const key = await createKey(s.owner, s.project.id, ALL);
    for (const [path, method, auth] of [
      [`/mcp/${s.project.id}`, "POST", false],
      [`/mcp/${s.project.id}`, "POST", true],
      [`/mcp/${s.project.id}`, "GET", true],
      ["/mcp", "POST", false],
      ["/mcp", "DELETE", true],
    ] as const) {
      const r = await fetch(`${away.base}${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(auth ? { authorization: `Bearer ${key.value}` } : {}),
        },
        body: method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }) : undefined,
      });
      expect(`${method} ${path}: ${r.status}`).toBe(`${method} ${path}: 421`);
      expect(r.headers.get("x-request-id")).toBeString();
      expect(await r.json()).toEqual({
        error: "misdirected_request",
        message: expected(away.base, path),
        baseUrl: publicBase,
        mcpUrl: `${publicBase}${path}`,
      });
    }
  });

  test("the host is X-Forwarded-Host when present (a reverse proxy's; its first value), else Host: BASE_URL's host passes to the usual checks", async () => {
    const s = await orgWithProject(away.env);
    const key = await createKey(s.owner, s.project.id, ALL);
    const post = (headers: Record<string, string>) =>
      fetch(`${away.base}/mcp/${s.project.id}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const publicHost = new URL(publicBase).host;
    expect((await post({ "x-forwarded-host": publicHost })).status).toBe(401); // the bearer check comes next
    expect((await post({ "x-forwarded-host": publicHost, authorization: `Bearer ${key.value}` })).status).toBe(200);
    expect((await post({ "x-forwarded-host": `${publicHost}, proxy.internal:8080`, authorization: `Bearer ${key.value}` })).status).toBe(
      200,
    );
    expect((await post({ host: publicHost, authorization: `Bearer ${key.value}` })).status).toBe(200);
    const proxied = await post({ "x-forwarded-host": "talentd.example.com", "x-forwarded-proto": "https", host: publicHost });
    expect(proxied.status).toBe(421);
    expect((await proxied.json()).message).toBe(expected("https://talentd.example.com", `/mcp/${s.project.id}`));
  });

  test("hosts compare as host:port with the default port of BASE_URL's scheme normalised, case-insensitive", async () => {
    const e = await testEnv({ BASE_URL: "https://talentd.example.com" });
    try {
      const status = async (host: string) =>
        (
          await e.app.handle(
            new Request("https://talentd.example.com/mcp", {
              method: "POST",
              headers: { "x-forwarded-host": host, "content-type": "application/json" },
              body: "{}",
            }),
          )
        ).status;
      for (const host of ["talentd.example.com", "talentd.example.com:443", "TalentD.Example.COM"])
        expect(`${host}: ${await status(host)}`).toBe(`${host}: 401`);
      for (const host of [
        "talentd.example.com:8443",
        "talentd.example.com:80",
        "other.example.com",
        "talentd.example.com/evil",
        "user@talentd.example.com",
      ]) {
        expect(`${host}: ${await status(host)}`).toBe(`${host}: 421`);
      }
      // with no Host header at all (app.handle of a bare Request), the URL's host is the one used
      expect(
        (
          await e.app.handle(
            new Request("http://127.0.0.1:9/mcp", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }),
          )
        ).status,
      ).toBe(421);
      expect(
        (
          await e.app.handle(
            new Request("https://talentd.example.com:443/mcp", {
              method: "POST",
              body: "{}",
              headers: { "content-type": "application/json" },
            }),
          )
        ).status,
      ).toBe(401);
    } finally {
      e.close();
    }
  });
});

describe("concurrent requests of two projects through the adapter", () => {
  test("40 concurrent tools/call of two projects' keys: each answer is its own project's, and a refused call leaves nothing behind for the next", async () => {
    const a = await setup({ install: ["typescript-strict"] });
    const b = await setup({ install: ["typescript-strict", "javascript-base"] });
    const call = async (s: { key: string; project: { id: string } }, tool = "svc_doctor") => {
      const r = await fetch(mcpUrl(s.project.id), {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: tool, arguments: {} } }),
      });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { result: { content: { text: string }[]; isError?: boolean } };
      return { isError: body.result.isError === true, json: JSON.parse(body.result.content[0]!.text) };
    };
    const expectedInstalled = (await call(b)).json.selection.installed;
    expect(expectedInstalled).toBeGreaterThan(1);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? call(a) : call(b)).then((r) => ({ i, r }))));
    for (const { i, r } of results)
      expect(`${i}: ${r.isError} ${r.json.selection.installed}`).toBe(`${i}: false ${i % 2 === 0 ? 1 : expectedInstalled}`);
    // a tool the backend refuses (unknown talent) between two good calls: the next call is unaffected
    const refused = await fetch(mcpUrl(a.project.id), {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "svc_prepare_task", arguments: { talentIds: ["no-such-talent"] } },
      }),
    });
    expect(((await refused.json()) as { result: { isError?: boolean } }).result.isError).toBe(true);
    expect((await call(b)).json.selection.installed).toBe(expectedInstalled);
  }, 60_000);
});
