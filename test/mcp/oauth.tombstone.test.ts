import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { exchangeCode, issueCode } from "../../src/oauth/grants";
import { mcpResource } from "../../src/oauth/resource";
import { orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("an OAuth access token of a deleted project", () => {
  test("→ 404 as for a key (docs/api.md 'Key API': the project must still exist), not 401", async () => {
    const { owner, project } = await orgWithProject(env);
    const now = Date.now();
    await env.database.client.execute({
      sql: "INSERT INTO oauth_clients (id, name, redirect_uris, metadata, created_at) VALUES ('ocl_t', 'Test client', ?, '{}', ?)",
      args: [JSON.stringify(["http://127.0.0.1:9/cb"]), now],
    });
    const verifier = "v".repeat(64);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const resource = mcpResource(env.config.baseUrl, project.id);
    const code = await issueCode(env.database, {
      clientId: "ocl_t",
      userId: owner.userId,
      projectId: project.id,
      redirectUri: "http://127.0.0.1:9/cb",
      codeChallenge: challenge,
      scopes: ["doctor"],
      resource,
    });
    const tokens = await exchangeCode(env.database, {
      clientId: "ocl_t",
      code,
      codeVerifier: verifier,
      redirectUri: "http://127.0.0.1:9/cb",
      resource,
    });
    const call = () => env.request("/api/doctor", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await call()).status).toBe(200);
    expect((await owner.del(`/web/projects/${project.id}`)).status).toBe(200);
    const r = await call();
    expect(r.status).toBe(404);
    expect((await r.json()).error).toBe("not_found");
    // an unknown access token is still the one 401
    const forged = await env.request("/api/doctor", { headers: { authorization: `Bearer ${tokens.access_token.slice(0, -8)}AAAAAAAA` } });
    expect(forged.status).toBe(401);
  });
});
