/**
 * The connection kit (the MCP connection configuration and stub instruction file, the
 * automation key; `/web/projects/:id/setup`, `/token`, `/file`):
 * each client's configuration in the exact format its documentation gives (docs/connection-kit.md
 * cites them), the AGENTS.md stub, the automation key (previous one revoked, value once), and
 * reading a talent file as a person with the key route's rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, joinedMember, orgWithProject, publishedExpertise, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

type Client = { id: string; name: string; command?: string; file: string; content: string; docs: string };

describe("GET /web/projects/:id/setup: the connection kit", () => {
  test("each client's configuration follows its documented format and names the project's MCP URL", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.get(`/web/projects/${o.project.id}/setup`);
    expect(r.status).toBe(200);
    const url = `${env.config.baseUrl}/mcp/${o.project.id}`;
    expect(r.body.mcpUrl).toBe(url);
    const clients = new Map((r.body.clients as Client[]).map((c) => [c.id, c]));
    expect([...clients.keys()]).toEqual(["claude-code", "cursor", "vscode", "windsurf", "codex"]);

    // Claude Code (code.claude.com/docs/en/mcp): `claude mcp add --transport http <name> <url>`; .mcp.json → mcpServers.<name> {type: "http", url}
    const claude = clients.get("claude-code")!;
    expect(claude.command).toBe(`claude mcp add --transport http talentd ${url}`);
    expect(claude.file).toBe(".mcp.json");
    expect(JSON.parse(claude.content)).toEqual({ mcpServers: { talentd: { type: "http", url } } });
    // Cursor (cursor.com/docs/mcp): .cursor/mcp.json → mcpServers.<name> {url}
    expect(clients.get("cursor")!.file).toBe(".cursor/mcp.json");
    expect(JSON.parse(clients.get("cursor")!.content)).toEqual({ mcpServers: { talentd: { url } } });
    // VS Code (code.visualstudio.com/docs/copilot/reference/mcp-configuration): .vscode/mcp.json → top-level "servers", {type: "http", url}
    expect(clients.get("vscode")!.file).toBe(".vscode/mcp.json");
    expect(JSON.parse(clients.get("vscode")!.content)).toEqual({ servers: { talentd: { type: "http", url } } });
    // Windsurf (docs.windsurf.com/windsurf/cascade/mcp): ~/.codeium/windsurf/mcp_config.json → mcpServers.<name> {serverUrl}
    expect(clients.get("windsurf")!.file).toBe("~/.codeium/windsurf/mcp_config.json");
    expect(JSON.parse(clients.get("windsurf")!.content)).toEqual({ mcpServers: { talentd: { serverUrl: url } } });
    // Codex (developers.openai.com/codex/mcp): `codex mcp add <name> --url <url>`; ~/.codex/config.toml → [mcp_servers.<name>] url
    const codex = clients.get("codex")!;
    expect(codex.command).toBe(`codex mcp add talentd --url ${url}`);
    expect(codex.file).toBe("~/.codex/config.toml");
    expect(Bun.TOML.parse(codex.content)).toEqual({ mcp_servers: { talentd: { url } } });
    for (const c of clients.values()) expect(c.docs).toMatch(/^https:\/\//);
  });

  test("the AGENTS.md stub teaches the loop with the tools' real names; the kit holds no secret", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.get(`/web/projects/${o.project.id}/setup`);
    expect(r.body.instructions.file).toBe("AGENTS.md");
    const stub = r.body.instructions.content as string;
    const order = ["svc_prepare_task", "svc_deepen", "svc_validate", "svc_record_validation"].map((t) => stub.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order); // in the loop's order
    expect(stub).toContain("resolutionId");
    expect(JSON.stringify(r.body)).not.toMatch(/svc_pk_|svc_at_/);
    expect(r.body.automation.scopes).toEqual(["prepare_task", "validate", "deepen", "doctor", "catalog"]);
  });

  test("another organization's project → 404; no session → 401", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    for (const [m, path, body] of [
      ["GET", `/web/projects/${a.project.id}/setup`, undefined],
      ["POST", `/web/projects/${a.project.id}/token`, {}],
      ["POST", `/web/projects/${a.project.id}/file`, { uri: "talent://typescript-strict" }],
    ] as const) {
      const r = await b.owner.json(m, path, body);
      expect({ m, path, status: r.status, error: r.body.error }).toEqual({ m, path, status: 404, error: "not_found" });
      expect((await env.request(path, { method: m })).status).toBe(401);
    }
  });
});

describe("POST /web/projects/:id/token: the automation key", () => {
  test("creates a key with the automation scopes, value once; a second call revokes the first in the same step", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const first = await o.owner.post(`/web/projects/${o.project.id}/token`);
    expect(first.status).toBe(201);
    expect(first.body.value).toMatch(/^svc_pk_/);
    expect(first.body.key).toMatchObject({
      automation: true,
      tools: ["prepare_task", "validate", "deepen", "doctor", "catalog"],
      status: "active",
    });
    expect(first.body.env).toEqual({ TALENTD_URL: env.config.baseUrl, TALENTD_KEY: first.body.value });
    expect((await withKey(env, first.body.value, "/api/doctor")).status).toBe(200);
    // no writer scope: it cannot record verdicts or install
    expect(
      (
        await withKey(env, first.body.value, "/api/projects/current/talents", {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: '{"talent":"go-base"}',
        })
      ).status,
    ).toBe(403);

    const second = await o.owner.post(`/web/projects/${o.project.id}/token`);
    expect(second.body.revoked).toEqual([first.body.key.id]);
    expect((await withKey(env, first.body.value, "/api/doctor")).status).toBe(401);
    expect((await withKey(env, second.body.value, "/api/doctor")).status).toBe(200);
    const keys = (await o.owner.get(`/web/projects/${o.project.id}/keys`)).body.keys as {
      id: string;
      status: string;
      automation: boolean;
    }[];
    expect(keys.filter((k) => k.automation && k.status === "active").map((k) => k.id)).toEqual([second.body.key.id]);
    expect(JSON.stringify(keys)).not.toContain(second.body.value);
  });

  test("ordinary keys are left alone; a member (not only admins) may create it; the security log names it", async () => {
    const o = await orgWithProject(env);
    const mine = await createKey(o.owner, o.project.id, ["doctor"]);
    const member = await joinedMember(env, o.owner);
    expect((await member.post(`/web/projects/${o.project.id}/token`)).status).toBe(201);
    expect((await o.owner.post(`/web/projects/${o.project.id}/token`)).status).toBe(201);
    expect((await withKey(env, mine.value, "/api/doctor")).status).toBe(200);
    const events = await env.database.all<{ detail: string }>(
      "SELECT detail FROM security_events WHERE kind = 'key.created' AND detail LIKE ?",
      [`%${o.project.id}%"automation":true%`],
    );
    expect(events.length).toBe(2);
  });
});

describe("POST /web/projects/:id/file: read a talent file as a person, with the key route's rules", () => {
  test("an enabled talent's file (and one section); not installed or disabled → 404 (a person reads no preview); an expertise while enabled, or pinned by a resolution", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const r = await o.owner.post(`/web/projects/${o.project.id}/file`, { uri: "talent://typescript-strict" });
    expect(r.status).toBe(200);
    expect(r.body.file.content).toBe(env.state.catalog!.get("typescript-strict")!.files.get("TALENT.md")!.content);
    const rules = await o.owner.post(`/web/projects/${o.project.id}/file`, { uri: "talent://typescript-strict", section: "Rules" });
    expect(rules.body.file.content).toContain("[TS-001]");
    expect((await o.owner.post(`/web/projects/${o.project.id}/file`, { uri: "talent://go-base" })).status).toBe(404);
    await o.owner.patch(`/web/projects/${o.project.id}/talents/javascript-base`, { enabled: false });
    expect((await o.owner.post(`/web/projects/${o.project.id}/file`, { uri: "talent://javascript-base" })).status).toBe(404);

    const { ref } = await publishedExpertise(o.owner, o.org.slug, "ledger");
    expect((await o.owner.post(`/web/projects/${o.project.id}/file`, { uri: `talent://${ref}/runbook.md` })).status).toBe(404);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [ref] });
    // enabled: read at its published version, as the key route reads it
    expect((await o.owner.post(`/web/projects/${o.project.id}/file`, { uri: `talent://${ref}/runbook.md` })).status).toBe(200);
    const k = await createKey(o.owner, o.project.id, ["prepare_task"]);
    const res = await (
      await withKey(env, k.value, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: [ref, "typescript-strict"] }),
      })
    ).json();
    const pinned = await o.owner.post(`/web/projects/${o.project.id}/file`, {
      uri: `talent://${ref}/runbook.md`,
      resolutionId: res.resolutionId,
    });
    expect(pinned.status).toBe(200);
    expect(pinned.body.file.content).toContain("v1 runbook");
  });

  const bad: [string, unknown][] = [
    ["no uri", {}],
    ["a uri that is not talent://", { uri: "https://x" }],
    ["a number section", { uri: "talent://typescript-strict", section: 3 }],
    ["an unknown section", { uri: "talent://typescript-strict", section: "Nope" }],
  ];
  for (const [name, body] of bad) {
    test(`${name} → 4xx in the error model`, async () => {
      const o = await orgWithProject(env);
      await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
      const r = await o.owner.post(`/web/projects/${o.project.id}/file`, body);
      expect(r.status === 400 || r.status === 404).toBe(true);
      expect(typeof r.body.error).toBe("string");
    });
  }
  test("another project's resolution → 404", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    for (const o of [a, b])
      await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const k = await createKey(a.owner, a.project.id, ["prepare_task"]);
    const res = await (
      await withKey(env, k.value, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: ["typescript-strict"] }),
      })
    ).json();
    const r = await b.owner.post(`/web/projects/${b.project.id}/file`, {
      uri: "talent://typescript-strict",
      resolutionId: res.resolutionId,
    });
    expect([r.status, r.body.error]).toEqual([404, "not_found"]);
  });
});
