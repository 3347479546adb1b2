/**
 * `GET /.well-known/mcp/server.json`: this instance described in the MCP registry's server.json
 * format (schema of 2025-12-11), ready to publish to a private registry. The MCP URL is a
 * template, `{project_id}` a variable the person fills in; the bare `/mcp` endpoint (project from
 * the bearer) is the second remote. Authentication: OAuth (the protected-resource metadata) or a
 * project key as a bearer header. Public, CORS `*`, cacheable: a function of the configuration.
 */
import { Elysia } from "elysia";
import pkg from "../../package.json" with { type: "json" };
import type { Config } from "../config";
import { oauthJson, preflight } from "../oauth/errors";
import { resourceMetadataUrl } from "../oauth/resource";

/** The schema the document follows. */
export const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/** Where the document is served. */
export const SERVER_JSON_PATH = "/.well-known/mcp/server.json";

/** The registry name: BASE_URL's host reversed (`talentd.example.com` → `com.example.talentd`), then `/talentd`. */
export function registryName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "").replace(/:/g, "-");
  const reversed = /^[\d.]+$/.test(host) || !host.includes(".") ? host : host.split(".").reverse().join(".");
  return `${reversed}/talentd`;
}

/** The server.json of this instance. */
export function serverJson(config: Pick<Config, "baseUrl" | "keysEnabled">): Record<string, unknown> {
  const base = config.baseUrl;
  const bearer = {
    name: "Authorization",
    description: config.keysEnabled
      ? "Optional: `Bearer <project key>` (a key of the project). Without it, the client signs in with OAuth."
      : "Leave out: the client signs in with OAuth (project keys are disabled on this instance).",
    isRequired: false,
    isSecret: true,
  };
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: registryName(base),
    description: pkg.description.slice(0, 100),
    version: pkg.version,
    websiteUrl: base,
    remotes: [
      {
        type: "streamable-http",
        url: `${base}/mcp/{project_id}`,
        variables: {
          project_id: {
            description: "The project's id (prj_…), shown on its page in talentd",
            isRequired: true,
            placeholder: "prj_01J…",
          },
        },
        headers: [bearer],
      },
      { type: "streamable-http", url: `${base}/mcp`, headers: [bearer] },
    ],
    _meta: {
      "io.modelcontextprotocol.registry/publisher-provided": {
        authentication: {
          oauth: { authorizationServer: base, protectedResourceMetadata: resourceMetadataUrl(base, "{project_id}") },
          bearer: config.keysEnabled ? "project key" : null,
        },
      },
    },
  };
}

/** The route of the document (and its CORS preflight). */
export function serverJsonRoutes(config: Config) {
  const body = serverJson(config);
  return new Elysia()
    .get(SERVER_JSON_PATH, () => oauthJson(body, 200, { "cache-control": "public, max-age=300" }))
    .options(SERVER_JSON_PATH, preflight);
}
