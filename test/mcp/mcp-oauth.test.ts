/**
 * The SDK's own OAuth client (`auth()` behind StreamableHTTPClientTransport with an
 * OAuthClientProvider) against a real listening server: discovery → registration → authorize
 * (a person signs in and consents in a browser) → token → tool call → refresh → revoke → 401
 * with the metadata challenge. Also the bare `/mcp` endpoint, where the person picks the project.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { orgWithProject } from "../helpers";
import { Browser, CLIENT_INFO, consentInBrowser, liveEnv, MemoryOAuthProvider, PASSWORD, toolJson, type LiveEnv } from "../mcp-support";

/** The 401 challenge names the scopes the MCP resource takes (MCP authorization 2026-07-28). */
const ALL_SCOPES = 'scope="prepare_task validate record_validation deepen doctor catalog discover install"';

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

const listTools = (url: string, bearer: string) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

/** Runs the SDK's flow up to the redirect, consents in a browser, and finishes it; returns a connected client. */
async function authorize(url: string, who: { email: string }, provider = new MemoryOAuthProvider(), untick: string[] = []) {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await expect(new Client(CLIENT_INFO).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const authUrl = provider.authorizationUrl!;
  const { location, code } = await consentInBrowser(
    new Browser(live.base),
    authUrl.toString(),
    { email: who.email, password: PASSWORD },
    { untick },
  );
  expect(code).toMatch(/^svc_ac_/);
  expect(location.searchParams.get("state")).toBe(provider.lastState);
  expect(location.searchParams.get("iss")).toBe(live.base);
  expect(`${location.origin}${location.pathname}`).toBe(provider.redirect);
  await first.finishAuth(code!);
  const client = new Client(CLIENT_INFO);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return { client, provider, authUrl };
}

describe("OAuth with the SDK client provider", () => {
  test("discovery → registration → authorize → token → tool call → refresh → revoke → 401 with the metadata header", async () => {
    const o = await orgWithProject(live.env);
    const url = `${live.base}/mcp/${o.project.id}`;
    const { client, provider, authUrl } = await authorize(url, o.owner);

    // what discovery and registration produced
    expect(provider.discovery?.authorizationServerUrl).toBe(live.base);
    expect(provider.discovery?.resourceMetadata?.resource).toBe(url);
    expect(provider.info?.client_id).toMatch(/^ocl_/);
    expect((provider.info as { client_secret?: string }).client_secret).toBeUndefined();
    expect(authUrl.origin + authUrl.pathname).toBe(`${live.base}/oauth/authorize`);
    expect(authUrl.searchParams.get("resource")).toBe(url);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    const first = provider.saved!;
    expect(first.access_token).toMatch(/^svc_at_/);
    expect(first.refresh_token).toMatch(/^svc_rt_/);
    expect(first.token_type).toBe("Bearer");
    expect(first.expires_in).toBe(3600);
    expect(first.scope!.split(" ").sort()).toEqual([
      "catalog",
      "deepen",
      "discover",
      "doctor",
      "install",
      "prepare_task",
      "record_validation",
      "validate",
    ]);

    // a tool call with the token
    const doctor = await client.callTool({ name: "svc_doctor", arguments: {} });
    expect(doctor.isError).toBeFalsy();
    expect(toolJson(doctor)).toBeObject();

    // refresh: rotation, the new access token works, the old refresh token is spent
    expect(await auth(provider, { serverUrl: url })).toBe("AUTHORIZED");
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await listTools(url, second.access_token)).status).toBe(200);

    // the trace names the client and the token's author
    const events = (await o.owner.get(`/web/projects/${o.project.id}/traces`)).body.events as {
      kind: string;
      via: string;
      client: string;
      author: { type: string; name: string };
    }[];
    const traced = events.find((e) => e.kind === "doctor")!;
    expect(traced).toMatchObject({ via: "mcp", client: "test-agent/1.2.3", author: { type: "token", name: "Test Agent" } });

    // revoke (RFC 7009) the refresh token: its whole grant ends
    const revoked = await fetch(`${live.base}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: second.refresh_token!, client_id: provider.info!.client_id }),
    });
    expect(revoked.status).toBe(200);
    const refused = await listTools(url, second.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer realm="talentd", error="invalid_token", ${ALL_SCOPES}, resource_metadata="${live.base}/.well-known/oauth-protected-resource/mcp/${o.project.id}"`,
    );
    // the SDK client learns it must send the person through authorization again
    provider.authorizationUrl = undefined;
    await expect(client.callTool({ name: "svc_doctor", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).toBeDefined();
  });

  test("bare /mcp: the root metadata names /mcp, the person picks the project on the consent page; the token serves /mcp only", async () => {
    const o = await orgWithProject(live.env);
    const url = `${live.base}/mcp`;
    const { client, provider } = await authorize(url, o.owner);
    expect(provider.discovery?.resourceMetadata?.resource).toBe(url);
    const r = await client.callTool({ name: "svc_install_talents", arguments: { talent: "typescript-strict" } });
    expect(toolJson(r).installed).toEqual(["typescript-strict", "javascript-base"]); // its prerequisite comes along
    const installed = (await o.owner.get(`/web/projects/${o.project.id}/installed`)).body.talents.map((t: { id: string }) => t.id);
    expect(installed.sort()).toEqual(["javascript-base", "typescript-strict"]);
    // bound to /mcp: refused on the project's own URL (another resource)
    expect((await listTools(`${live.base}/mcp/${o.project.id}`, provider.saved!.access_token)).status).toBe(401);
  });

  test("an unticked scope is not granted: the tool answers 403 insufficient_scope naming the needed scope and the held ones", async () => {
    const o = await orgWithProject(live.env);
    const url = `${live.base}/mcp/${o.project.id}`;
    const { provider } = await authorize(url, o.owner, new MemoryOAuthProvider("http://localhost:41234/cb", "Narrow"), [
      "doctor",
      "install",
    ]);
    expect(provider.saved!.scope!.split(" ")).not.toContain("doctor");
    const r = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_doctor", arguments: {} } }),
    });
    expect(r.status).toBe(403);
    expect((await r.json()).requiredScope).toBe("doctor");
    const challenge = r.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="doctor prepare_task validate record_validation deepen catalog discover"');
    expect(challenge).toContain(`resource_metadata="${live.base}/.well-known/oauth-protected-resource/mcp/${o.project.id}"`);
  });
});
