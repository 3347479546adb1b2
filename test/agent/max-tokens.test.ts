/**
 * An agent may cap an answer (docs/api.md "maxTokens"): prepare-task serves what fits in designation order below the
 * project's context budget and lists the rest; a read over several uris serves the files that fit, a single file past
 * the cap its first part and the rest as sections to read; over the key API and svc_prepare_task alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject } from "../helpers";
import { connectWithBearer, liveEnv, toolJson, type LiveEnv } from "../mcp-support";

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
const TALENTS = ["typescript-strict", "javascript-base", "react-components", "react-hooks"];

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

async function setup() {
  const o = await orgWithProject(live.env);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: TALENTS });
  const key = (await createKey(o.owner, o.project.id, ALL)).value;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${live.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  return { ...o, key, api };
}

describe("maxTokens: an agent caps an answer", () => {
  test("prepare-task with maxTokens serves what fits in designation order (the first always), lists the rest, says the cap was the agent's", async () => {
    const s = await setup();
    const whole = await s.api("POST", "/api/prepare-task", { talentIds: TALENTS });
    expect(whole.body.notServed).toBeUndefined();
    const first = whole.body.talents[0].compact.length / 4;
    const r = await s.api("POST", "/api/prepare-task", { talentIds: TALENTS, maxTokens: 1 });
    expect(r.status).toBe(201);
    expect(r.body.talents.map((t: { id: string }) => t.id)).toEqual(["typescript-strict"]);
    expect(r.body.notServed.map((t: { id: string }) => t.id)).toEqual(TALENTS.slice(1));
    expect(r.body.contextBudget).toEqual({ budget: 1, served: 1, notServed: 3, by: "maxTokens" });
    expect(r.body.overBudget).toStartWith("Over the maxTokens you gave: the talents under notServed are designated, frozen and audited");
    expect(first).toBeGreaterThan(1);
    // above the project's context budget, the budget stays the ceiling
    const big = await s.api("POST", "/api/prepare-task", { talentIds: TALENTS, maxTokens: 1_000_000 });
    expect(big.body.contextBudget?.by).toBeUndefined();
    for (const bad of [0, 1.5, "100", -3, 1_000_001]) {
      const refused = await s.api("POST", "/api/prepare-task", { talentIds: TALENTS, maxTokens: bad });
      expect(`${refused.status} ${refused.body.error}`).toBe("400 validation_failed");
      expect(JSON.stringify(refused.body.issues)).toContain("maxTokens");
    }
  });

  test("svc_prepare_task takes maxTokens (the real SDK client)", async () => {
    const s = await setup();
    const client = await connectWithBearer(`${live.base}/mcp/${s.project.id}`, s.key);
    const r = toolJson(await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: TALENTS, maxTokens: 1 } }));
    expect(r.talents.map((t: { id: string }) => t.id)).toEqual(["typescript-strict"]);
    expect(r.contextBudget.by).toBe("maxTokens");
    await client.close();
  });

  test("a read of several uris serves the files that fit, in order, and lists the rest by uri", async () => {
    const s = await setup();
    const uris = ["talent://typescript-strict/references/narrowing.md", "talent://typescript-strict/references/strict-flags.md"];
    const r = await s.api("POST", "/api/talents/get", { uris: uris.map((uri) => ({ uri })), maxTokens: 10 });
    expect(r.status).toBe(200);
    expect(r.body.files.map((f: { uri: string }) => f.uri)).toEqual([uris[0]]);
    expect(r.body.notServed).toEqual([{ uri: uris[1], tokens: expect.any(Number) }]);
    expect(r.body.overBudget).toStartWith("Over the maxTokens you gave");
  });

  test("one file past the cap: its first part, and the rest as sections whose reads give exactly them (svc_deepen alike)", async () => {
    const s = await setup();
    const uri = "talent://typescript-strict/references/narrowing.md";
    const full = (await s.api("POST", "/api/talents/get", { uri })).body.files[0].content as string;
    const r = await s.api("POST", "/api/talents/get", { uri, maxTokens: 400 });
    const [file] = r.body.files;
    expect(file.cut).toBe(true);
    expect(file.content.length).toBeLessThan(full.length);
    expect(full.startsWith(file.content)).toBe(true);
    expect(r.body.notServed.length).toBeGreaterThan(0);
    const rebuilt = [file.content];
    for (const part of r.body.notServed) {
      expect(part.uri).toBe(uri);
      const section = await s.api("POST", "/api/talents/get", { uri, section: part.section });
      expect(section.status).toBe(200);
      rebuilt.push(section.body.files[0].content);
    }
    // nothing lost, nothing twice: the served part and the listed sections are the whole file
    expect(rebuilt.join("\n").replace(/\s+/g, " ").trim()).toBe(full.replace(/\s+/g, " ").trim());
    const client = await connectWithBearer(`${live.base}/mcp/${s.project.id}`, s.key);
    const viaTool = toolJson(await client.callTool({ name: "svc_deepen", arguments: { uri, maxTokens: 400 } }));
    expect(viaTool.notServed).toEqual(r.body.notServed);
    await client.close();
  });
});
