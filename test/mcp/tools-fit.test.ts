/**
 * The tools fit the caller (docs/api-oauth-mcp.md "Tools fit the caller"), read by the real SDK v2 client: tools/list,
 * the prompts and the server's instructions offer what the key's scopes allow; every tool carries its annotations; a
 * tool outside the scopes, called anyway, is a tool error naming the scope and who grants it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TOOLS } from "../../src/mcp/tools";
import { ALL_SCOPES } from "../client-support";
import { createKey, orgWithProject } from "../helpers";
import { connectWithBearer, liveEnv, toolJson, type LiveEnv } from "../mcp-support";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

async function clientWith(scopes: string[]) {
  const o = await orgWithProject(live.env);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  const key = (await createKey(o.owner, o.project.id, scopes)).value;
  return connectWithBearer(`${live.base}/mcp/${o.project.id}`, key);
}

describe("tools fit the caller", () => {
  test("a key with two scopes is offered their two tools, the prompts they start, and instructions naming only them", async () => {
    const client = await clientWith(["prepare_task", "validate"]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["svc_prepare_task", "svc_validate"]);
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(["audit_resolution", "prepare_task"]);
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("svc_prepare_task");
    expect(instructions).toContain("These credentials are offered svc_prepare_task, svc_validate.");
    for (const hidden of ["svc_record_validation", "svc_install_talents", "svc_deepen", "svc_doctor", "svc_discover_codebase"])
      expect(instructions).not.toContain(hidden);
    await client.close();
  });

  test("a key with one scope that starts no prompt: one tool, no prompt", async () => {
    const client = await clientWith(["install"]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["svc_install_talents"]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    await client.close();
  });

  test("a key whose scopes allow no tool (catalog): tools/list answers an empty list", async () => {
    const client = await clientWith(["catalog"]);
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });

  test("every tool carries annotations: reads are read-only; prepare adds a resolution each call; install and a report repeat harmlessly; none is destructive or open-world", async () => {
    const client = await clientWith(ALL_SCOPES);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOLS.length);
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of ["svc_validate", "svc_deepen", "svc_doctor", "svc_discover_codebase"])
      expect(hints[name]).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(hints.svc_prepare_task).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    for (const name of ["svc_install_talents", "svc_record_validation"])
      expect(hints[name]).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    await client.close();
  });

  test("a tool outside the key's scopes, called anyway: a tool error naming the scope and who can grant it; nothing installed", async () => {
    const client = await clientWith(["prepare_task", "validate"]);
    const r = await client.callTool({ name: "svc_install_talents", arguments: { talent: "react-hooks" } });
    expect(r.isError).toBe(true);
    expect(toolJson(r)).toMatchObject({ status: 403, error: "insufficient_scope", requiredScope: "install" });
    expect(toolJson(r).message).toContain('does not carry the "install" scope');
    expect(toolJson(r).message).toContain("Any member of the project can create a key with it");
    const listed = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["react-hooks"] } });
    expect(toolJson(listed).error).toBe("unknown_talents");
    await client.close();
  });
});
