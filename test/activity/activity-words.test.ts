/**
 * The project's Activity tab reads as work (docs/api.md "Activity, insights and adoption"): calls
 * made through the live HTTP server with a key, in the talentd client's own request shape, then
 * the page's HTML — the tool named (the raw label on hover), the key's name, a sentence with the
 * talent ids, one row per `talentd check` run with its calls inside, failures in words.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, serverOptions } from "../../src/client/api";
import { clientName } from "../../src/journal/clients";
import { runOf } from "../../src/journal/trace";
import type { TraceEvent } from "../../src/journal/journal";
import { groupRows, RUN_GAP_MS } from "../../src/projects/activityRows";
import { KEY_ROUTE_LIST } from "../../src/keyRoutes";
import { ALL_SCOPES, clientProject, gitRepo, removeRepos, stage, talentd } from "../client-support";
import { createKey, orgWithProject } from "../helpers";
import { connectWithBearer, liveEnv, type LiveEnv } from "../mcp-support";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

/** The Activity tab's HTML as the project's owner sees it. */
async function activityPage(o: Awaited<ReturnType<typeof orgWithProject>>): Promise<string> {
  const r = await o.owner.call("GET", `/projects/${o.project.id}?tab=activity`);
  expect(r.status).toBe(200);
  return r.text();
}

/** The table row (`<tr …>…</tr>`) of the page holding `needle` (never the filter form before the table). */
const rowWith = (html: string, needle: string): string =>
  html
    .split("<tr")
    .slice(1)
    .find((r) => r.includes(needle)) ?? "";

describe("activity in words: who, what, which tool, how it ended", () => {
  test("the client is named in one map: MCP clientInfo names, talentd runs, curl, browsers; unknown → shortened first word", () => {
    expect(clientName("Claude Code/2.0.1")).toBe("Claude Code");
    expect(clientName("claude-code/1.0")).toBe("Claude Code");
    expect(clientName("cursor-vscode/1.0")).toBe("Cursor");
    expect(clientName("Visual Studio Code/1.99")).toBe("VS Code");
    expect(clientName("windsurf-client/1")).toBe("Windsurf");
    expect(clientName("codex-mcp-client/0.2")).toBe("Codex");
    expect(clientName("mcp-inspector/0.16")).toBe("MCP Inspector");
    expect(clientName("talentd-client/0.1.0 (hook)")).toBe("talentd hook");
    expect(clientName("talentd-client/0.1.0 (ci)")).toBe("talentd CI");
    expect(clientName("talentd-client/0.1.0 (check)")).toBe("talentd check by hand");
    expect(clientName("talentd-client/0.1.0")).toBe("talentd CLI");
    expect(clientName("curl/8.5.0")).toBe("curl");
    expect(clientName("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36")).toBe("a browser");
    expect(clientName("node")).toBe("node");
    expect(clientName(`${"x".repeat(80)}/1`)).toHaveLength(32);
    expect(clientName(null)).toBe("—");
  });

  test("grouping is a view: every event is in exactly one row; a designable call too long before its prepare_task stays its own row", () => {
    let n = 0;
    const ev = (kind: string, at: number, resolutionId: string | null, authorId = "key_a"): TraceEvent =>
      ({
        id: `trc_${++n}`,
        kind,
        createdAt: at,
        resolutionId,
        authorType: "key",
        authorId,
        client: "talentd-client/1 (hook)",
      }) as TraceEvent;
    const t = 10_000_000;
    // newest first, as the journal lists them
    const events = [
      ev("validate", t + 3000, "res_1"),
      ev("prepare_task", t + 2000, "res_1"),
      ev("designable", t + 1000, null),
      ev("prepare_task", t, "res_2", "key_b"),
      ev("validate", t - 1000, "res_3"),
      ev("prepare_task", t - RUN_GAP_MS, "res_3"),
      ev("designable", t - 3 * RUN_GAP_MS, null),
    ];
    const rows = groupRows(events);
    expect(rows.flatMap((r) => r.steps.map((s) => s.id)).sort()).toEqual(events.map((e) => e.id).sort());
    expect(rows.map((r) => [r.head.kind, r.steps.length])).toEqual([
      ["prepare_task", 3],
      ["prepare_task", 1],
      ["prepare_task", 2],
      ["designable", 1],
    ]);
  });

  test("a hook's `talentd check` run: one row named 'talentd hook', the key's name, the talents prepared, its three calls inside", async () => {
    const o = await orgWithProject(live.env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const key = await createKey(o.owner, o.project.id, ALL_SCOPES, { name: "ci-hooks" });
    // the client's own request shape: what the pre-commit hook's `talentd check --staged` sends
    const server = serverOptions({ staged: true }, { TALENTD_URL: live.base, TALENTD_KEY: key.value, TALENTD_RUN: "hook" }, "check");
    await call(server, "GET", "/api/prepare-task/designable");
    const p = await call(server, "POST", "/api/prepare-task", { talentIds: ["typescript-strict", "javascript-base"] });
    await call(server, "GET", `/api/validation/playbook?${new URLSearchParams({ resolutionId: p.resolutionId })}`);

    const html = await activityPage(o);
    const row = rowWith(html, "prepared a task with");
    expect(row).toContain("prepared a task with typescript-strict, javascript-base");
    expect(row).toContain("talentd hook");
    expect(row).toContain('title="talentd-client/');
    expect(row).toContain("ci-hooks");
    // one row for the run, its calls inside; no other row for its designable or playbook call
    expect(row).toContain("3 calls");
    expect(row).toContain("listed the talents its paths designate");
    expect(row).toContain("read the audit playbook");
    expect(
      html
        .split("<tr")
        .slice(1)
        .filter((r) => r.includes("read the audit playbook")),
    ).toHaveLength(1);
    expect(
      html
        .split("<tr")
        .slice(1)
        .filter((r) => r.includes("listed the talents its paths designate")),
    ).toHaveLength(1);
  });

  test("one row per client run (X-Talentd-Run), not per guess: three `talentd check --staged` runs within 2 minutes — two full, one re-checking the second's resolution — are three rows; a full run's four calls (with its findings report) are one", async () => {
    const p = await clientProject(live, ["typescript-strict"]);
    const repo = gitRepo();
    stage(repo, { "src/a.ts": "export function a() {\n  return 1;\n}\n" });
    const runs: string[] = [];
    for (const args of [
      ["check", "--staged", "--json"],
      ["check", "--staged", "--json"],
    ]) {
      const r = await talentd(args, repo, p.env);
      expect(r.stderr).toBe("");
      runs.push(JSON.parse(r.stdout).resolutionId);
    }
    // a third run that re-checks the second run's resolution: one playbook call, a run of its own
    const again = await talentd(["check", "--staged", "--json", runs[1]!], repo, p.env);
    expect(JSON.parse(again.stdout).resolutionId).toBe(runs[1]);
    const traces = await p.owner.get(`/web/projects/${p.project.id}/traces`);
    // the key's calls (the install on the web is traced too, without a run)
    const ids = traces.body.events.filter((e: { via: string }) => e.via === "api").map((e: { runId: string | null }) => e.runId);
    expect(ids).toHaveLength(10); // each run ends with its findings' counts (POST /api/findings)
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    // run by hand (no hook set TALENTD_RUN): each is named as such, never as the hook
    const html = await activityPage(p);
    expect(html).not.toContain("talentd hook");
    const rows = html
      .split("<tr")
      .slice(1)
      .filter((r) => r.includes("talentd check by hand"));
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => (r.includes("4 calls") ? 4 : r.includes("2 calls") ? 2 : 0))).toEqual([2, 4, 4]);
    expect(rows[0]).toContain("read the audit playbook");
    expect(rows[0]).toMatch(/reported \d+ detector findings? on \d+ rules? \(counts only\)/);
  });

  test("the trace records the scope its route requires, from the key-route descriptor: designable → prepare_task, search and skills → deepen, a refused playbook → validate; a web event none", async () => {
    const p = await clientProject(live, ["typescript-strict"]);
    const narrow = await createKey(p.owner, p.project.id, ["prepare_task"], { name: "narrow-key" });
    const all = serverOptions({}, { TALENTD_URL: live.base, TALENTD_KEY: p.key });
    await call(all, "GET", "/api/prepare-task/designable");
    const prepared = await call(all, "POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    await call(all, "GET", "/api/search?query=strict");
    await call(all, "GET", "/api/skills");
    const refused = serverOptions({}, { TALENTD_URL: live.base, TALENTD_KEY: narrow.value });
    await expect(call(refused, "GET", `/api/validation/playbook?resolutionId=${prepared.resolutionId}`)).rejects.toThrow();
    const traces = await p.owner.get(`/web/projects/${p.project.id}/traces`);
    const seen = traces.body.events.map((e: { kind: string; via: string; scope: string | null }) => `${e.via} ${e.kind} ${e.scope}`);
    expect(seen.sort()).toEqual(
      [
        "web install null",
        "api designable prepare_task",
        "api prepare_task prepare_task",
        "api search deepen",
        "api skills_list deepen",
        "api validate validate",
      ].sort(),
    );
    // and each is the descriptor's own scope
    for (const e of traces.body.events.filter((x: { via: string }) => x.via === "api"))
      expect(KEY_ROUTE_LIST.find((r) => r.kind === e.kind)!.scope).toBe(e.scope);
    expect(rowWith(await activityPage(p), "narrow-key")).toContain("refused: missing scope validate");
  });

  test("an MCP client is named from its clientInfo: a real MCP client calling itself claude-code shows as Claude Code", async () => {
    const o = await orgWithProject(live.env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
    const key = await createKey(o.owner, o.project.id, ALL_SCOPES, { name: "agent-mcp" });
    const client = await connectWithBearer(`${live.base}/mcp`, key.value, { name: "claude-code", version: "2.0.1" });
    try {
      const r = await client.callTool({ name: "svc_prepare_task", arguments: { talentIds: ["typescript-strict"] } });
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const row = rowWith(await activityPage(o), "prepared a task with typescript-strict");
    expect(row).toContain(">Claude Code<");
    expect(row).toContain('title="claude-code/2.0.1"');
    expect(row).toContain("agent-mcp");
  });

  test("failures read in words from the error code: 'unknown talent', 'refused: missing scope validate'; verdicts are counted", async () => {
    const o = await orgWithProject(live.env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict"] });
    const all = await createKey(o.owner, o.project.id, ALL_SCOPES, { name: "agent-key" });
    const narrow = await createKey(o.owner, o.project.id, ["prepare_task"], { name: "narrow-key" });
    const opts = (k: string) => serverOptions({}, { TALENTD_URL: live.base, TALENTD_KEY: k });
    await expect(call(opts(all.value), "POST", "/api/prepare-task", { talentIds: ["no-such-talent"] })).rejects.toThrow();
    const p = await call(opts(all.value), "POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    await expect(call(opts(narrow.value), "GET", `/api/validation/playbook?resolutionId=${p.resolutionId}`)).rejects.toThrow();
    await call(opts(all.value), "POST", "/api/validation/reports", {
      submissionId: "s-1",
      resolutionId: p.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/a.ts:1"] }],
    });
    const curl = await fetch(`${live.base}/api/doctor`, { headers: { authorization: `Bearer ${all.value}`, "user-agent": "curl/8.5.0" } });
    expect(curl.status).toBe(200);

    const html = await activityPage(o);
    expect(rowWith(html, "unknown talent")).toContain("agent-key");
    const refused =
      html
        .split("<tr")
        .slice(1)
        .find((r) => r.includes("narrow-key")) ?? "";
    expect(refused).toContain("refused: missing scope validate");
    expect(html).toContain("recorded verdicts: 1 fail");
    expect(rowWith(html, ">curl<")).toContain("checked the project");
    expect(html).not.toMatch(/>\s*40[0-9]\s*</);
  });
});

describe("X-Talentd-Run: what the trace keeps of it (journal/trace.ts runOf)", () => {
  test("a UUID or short token is kept; a malformed, too long or missing one is null (the call then groups by time)", () => {
    const run = (value?: string) =>
      runOf(new Request("http://x/api/doctor", { headers: value === undefined ? {} : { "x-talentd-run": value } }));
    expect(run("0b6f9c1e-3c1a-4c1e-9a3e-2f1d0c9b8a7e")).toBe("0b6f9c1e-3c1a-4c1e-9a3e-2f1d0c9b8a7e");
    expect([run("bad id!"), run("x".repeat(65)), run(""), run()]).toEqual([null, null, null, null]);
  });
});
