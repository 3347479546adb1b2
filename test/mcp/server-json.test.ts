/**
 * `GET /.well-known/mcp/server.json`: the instance in the MCP registry's server.json format
 * (schema 2025-12-11), checked by Ajv against the schema's required fields and constraints as
 * written below (name pattern and length, description length, version without ranges, remotes of
 * type streamable-http with a URL, variables and headers); the template's URL, filled in, is a
 * working MCP endpoint that answers the 401 challenge its metadata names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import pkg from "../../package.json" with { type: "json" };
import { registryName } from "../../src/mcp/serverJson";
import { orgWithProject, testEnv, type TestEnv } from "../helpers";

/** The parts of the registry's server.schema.json (2025-12-11) a remote-only server.json must meet. */
const input = {
  type: "object",
  properties: {
    description: { type: "string" },
    isRequired: { type: "boolean" },
    isSecret: { type: "boolean" },
    format: { enum: ["string", "number", "boolean", "filepath"] },
    value: { type: "string" },
    default: { type: "string" },
    placeholder: { type: "string" },
    choices: { type: "array", items: { type: "string" } },
  },
};
const REGISTRY_SHAPE = {
  type: "object",
  required: ["$schema", "name", "description", "version"],
  properties: {
    $schema: { const: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" },
    name: { type: "string", pattern: "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", minLength: 3, maxLength: 200 },
    description: { type: "string", minLength: 1, maxLength: 100 },
    version: { type: "string", maxLength: 255, not: { pattern: "^[\\^~><=]|\\.x$|\\*|^latest$" } },
    websiteUrl: { type: "string", format: "uri" },
    remotes: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["type", "url"],
        properties: {
          type: { enum: ["streamable-http", "sse"] },
          url: { type: "string" },
          variables: { type: "object", additionalProperties: input },
          headers: {
            type: "array",
            items: { allOf: [input, { type: "object", required: ["name"], properties: { name: { type: "string" } } }] },
          },
        },
      },
    },
    _meta: { type: "object" },
  },
};

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ BASE_URL: "https://talentd.example.com" });
});
afterAll(() => env.close());

describe("registry metadata: GET /.well-known/mcp/server.json", () => {
  test("the document meets the server.json schema of 2025-12-11 (required fields and constraints); public, CORS, cacheable", async () => {
    const r = await env.request("/.well-known/mcp/server.json");
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("cache-control")).toBe("public, max-age=300");
    const doc = await r.json();
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const valid = ajv.validate(REGISTRY_SHAPE, doc);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(doc.name).toBe("com.example.talentd/talentd");
    expect(doc.version).toBe(pkg.version);
    expect(doc.remotes).toEqual([
      expect.objectContaining({
        type: "streamable-http",
        url: "https://talentd.example.com/mcp/{project_id}",
        variables: { project_id: expect.objectContaining({ isRequired: true }) },
      }),
      expect.objectContaining({ type: "streamable-http", url: "https://talentd.example.com/mcp" }),
    ]);
    expect(doc.remotes[0].headers[0]).toMatchObject({ name: "Authorization", isRequired: false, isSecret: true });
    expect(doc._meta["io.modelcontextprotocol.registry/publisher-provided"].authentication.oauth).toEqual({
      authorizationServer: "https://talentd.example.com",
      protectedResourceMetadata: "https://talentd.example.com/.well-known/oauth-protected-resource/mcp/{project_id}",
    });
  });

  test("the URL template filled with a project id is that project's MCP endpoint: its 401 challenge names the metadata the document names", async () => {
    const o = await orgWithProject(env);
    const doc = await (await env.request("/.well-known/mcp/server.json")).json();
    const filled = (doc.remotes[0].url as string).replace("{project_id}", o.project.id);
    const r = await env.app.handle(
      new Request(filled, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      }),
    );
    expect(r.status).toBe(401);
    const metadata = doc._meta["io.modelcontextprotocol.registry/publisher-provided"].authentication.oauth.protectedResourceMetadata;
    expect(r.headers.get("www-authenticate")).toContain(`resource_metadata="${metadata.replace("{project_id}", o.project.id)}"`);
  });

  test("names: BASE_URL's host reversed; an address or a single label stays as it is", () => {
    expect(registryName("https://talentd.example.com")).toBe("com.example.talentd/talentd");
    expect(registryName("http://127.0.0.1:8787")).toBe("127.0.0.1/talentd");
    expect(registryName("http://localhost:8787")).toBe("localhost/talentd");
    expect(registryName("http://[::1]:8787")).toBe("--1/talentd");
  });
});
