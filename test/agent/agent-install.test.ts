/**
 * What the key API's install, discovery and prepare-task give an agent: an install brings the requires-closure as one
 * atomic group (and refuses a group whose closure holds a conflict), over the key API and the MCP client alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/catalog";
import { sourcesFromFlat } from "../../src/catalog/load";
import { createKey, orgWithProject, talentMd, testEnv, withKey, type TestEnv } from "../helpers";
import { connectWithBearer, liveEnv, toolJson, type LiveEnv } from "../mcp-support";

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/** A small catalog: chain-top → chain-mid → chain-base (two levels), and clash-top → clash-left which conflicts with clash-right. */
export function installCatalog() {
  return buildCatalog(
    sourcesFromFlat({
      "chain-top/TALENT.md": talentMd("chain-top", { requires: "[chain-mid]" }),
      "chain-mid/TALENT.md": talentMd("chain-mid", { requires: "[chain-base]" }),
      "chain-base/TALENT.md": talentMd("chain-base"),
      "clash-top/TALENT.md": talentMd("clash-top", { requires: "[clash-left]" }),
      "clash-left/TALENT.md": talentMd("clash-left", { conflicts: "[clash-right]" }),
      "clash-right/TALENT.md": talentMd("clash-right"),
      "lone/TALENT.md": talentMd("lone"),
    }),
  ).catalog;
}

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({}, installCatalog());
});
afterAll(() => env.close());

async function setup(e: TestEnv = env) {
  const o = await orgWithProject(e);
  const k = await createKey(o.owner, o.project.id, ALL);
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await withKey(e, k.value, path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  const rows = async () =>
    (
      await e.database.client.execute({
        sql: "SELECT talent_id AS id, enabled FROM installed_talents WHERE project_id = ? ORDER BY talent_id",
        args: [o.project.id],
      })
    ).rows.map((r) => `${r.id}:${r.enabled ? "active" : "disabled"}`);
  return { ...o, key: k.value, api, rows };
}

describe("install means a usable selection (key API PATCH /api/projects/:id/talents)", () => {
  test("install brings the requires-closure: a two-level prerequisite chain comes along in one call; doctor is healthy after", async () => {
    const s = await setup();
    const r = await s.api("PATCH", "/api/projects/current/talents", { talents: ["chain-top"] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      installed: ["chain-top", "chain-mid", "chain-base"],
      prerequisites: ["chain-mid", "chain-base"],
      alreadyInstalled: [],
    });
    expect(await s.rows()).toEqual(["chain-base:active", "chain-mid:active", "chain-top:active"]);
    const doctor = await s.api("GET", "/api/doctor");
    expect(doctor.body.missingPrerequisites).toEqual([]);
    expect(doctor.body.healthy).toBe(true);
  });

  test("install never enables: a disabled prerequisite stays disabled and is reported as already installed", async () => {
    const s = await setup();
    await s.api("PATCH", "/api/projects/current/talents", { talent: "chain-base" });
    await s.api("PATCH", "/api/projects/current/talents", { talent: "chain-base", enabled: false });
    const r = await s.api("PATCH", "/api/projects/current/talents", { talent: "chain-top" });
    expect(r.body).toEqual({ installed: ["chain-top", "chain-mid"], prerequisites: ["chain-mid"], alreadyInstalled: ["chain-base"] });
    expect(await s.rows()).toEqual(["chain-base:disabled", "chain-mid:active", "chain-top:active"]);
  });

  test("install refuses a group whose closure holds a conflict: 409 selection_conflict naming both sides, no row written", async () => {
    const s = await setup();
    await s.api("PATCH", "/api/projects/current/talents", { talent: "lone" });
    const r = await s.api("PATCH", "/api/projects/current/talents", { talents: ["clash-top", "clash-right"] });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("selection_conflict");
    expect(r.body.pairs).toEqual([{ a: "clash-left", b: "clash-right" }]);
    expect(r.body.message).toContain("clash-left × clash-right");
    expect(await s.rows()).toEqual(["lone:active"]);
  });
});

describe("install over MCP (the SDK client): svc_install_talents answers installed, prerequisites, alreadyInstalled", () => {
  let live: LiveEnv;
  beforeAll(async () => {
    live = await liveEnv();
    live.env.state.catalog = installCatalog();
  });
  afterAll(async () => {
    await live.close();
  });

  test("svc_install_talents installs the requires-closure and refuses a conflicting group as a tool error", async () => {
    const s = await setup(live.env);
    const client = await connectWithBearer(`${live.base}/mcp/${s.project.id}`, s.key);
    const ok = toolJson(await client.callTool({ name: "svc_install_talents", arguments: { talents: ["chain-mid", "lone"] } }));
    expect(ok).toEqual({ installed: ["chain-mid", "lone", "chain-base"], prerequisites: ["chain-base"], alreadyInstalled: [] });
    const again = toolJson(await client.callTool({ name: "svc_install_talents", arguments: { talent: "chain-top" } }));
    expect(again).toEqual({ installed: ["chain-top"], prerequisites: [], alreadyInstalled: ["chain-mid", "chain-base"] });
    const bad = await client.callTool({ name: "svc_install_talents", arguments: { talents: ["clash-right", "clash-top"] } });
    expect(bad.isError).toBe(true);
    expect(toolJson(bad)).toMatchObject({ status: 409, error: "selection_conflict", pairs: [{ a: "clash-left", b: "clash-right" }] });
    expect(await s.rows()).toEqual(["chain-base:active", "chain-mid:active", "chain-top:active", "lone:active"]);
    await client.close();
  });
});
