/**
 * What the key API's install, discovery and prepare-task give an agent: an install brings the requires-closure as one
 * atomic group (and refuses a group whose closure holds a conflict), over the key API and the MCP client alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/catalog";
import { estimateTokens } from "../../src/catalog/format";
import { sourcesFromFlat } from "../../src/catalog/load";
import { DISCOVERY_BUDGET } from "../../src/resolution/discovery";
import { createKey, orgWithProject, publishedExpertiseOf, talentMd, testEnv, withKey, type TestEnv } from "../helpers";
import { connectWithBearer, liveEnv, toolJson, type LiveEnv } from "../mcp-support";

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/**
 * A small catalog: chain-top → chain-mid → chain-base (two levels), clash-top → clash-left which conflicts with clash-right,
 * and big-1…4 of ~1,600 tokens each (three fit the default context budget, four do not).
 */
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
      ...Object.fromEntries(
        [1, 2, 3, 4].map((i) => [
          `big-${i}/TALENT.md`,
          talentMd(`big-${i}`, { budget: "2500" }, `Guidance ${i} of a large talent. `.repeat(230)),
        ]),
      ),
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

  test("install refuses a talent that conflicts with an active one: 409 selection_conflict, both sides named in a sentence with what to do, nothing installed", async () => {
    const s = await setup();
    await s.api("PATCH", "/api/projects/current/talents", { talent: "clash-right" });
    const r = await s.api("PATCH", "/api/projects/current/talents", { talents: ["lone", "clash-top"] });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("selection_conflict");
    expect(r.body.pairs).toEqual([{ a: "clash-left", b: "clash-right" }]);
    expect(r.body.message).toBe(
      "clash-left conflicts with clash-right, which is active in this project: a project follows one of them. " +
        "To switch, a member disables clash-right in the project's dashboard first. Nothing was installed.",
    );
    expect(await s.rows()).toEqual(["clash-right:active"]);
    // a disabled talent is not followed: the other side installs beside it
    await s.api("PATCH", "/api/projects/current/talents", { talent: "clash-right", enabled: false });
    const ok = await s.api("PATCH", "/api/projects/current/talents", { talent: "clash-top" });
    expect(ok.status).toBe(200);
    expect(ok.body.installed).toEqual(["clash-top", "clash-left"]);
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
    // beside an active talent it conflicts with: a tool error whose sentence names both sides
    expect(toolJson(await client.callTool({ name: "svc_install_talents", arguments: { talent: "clash-right" } }))).toMatchObject({
      installed: ["clash-right"],
    });
    const clash = await client.callTool({ name: "svc_install_talents", arguments: { talent: "clash-top" } });
    expect(clash.isError).toBe(true);
    expect(toolJson(clash)).toMatchObject({ status: 409, error: "selection_conflict", pairs: [{ a: "clash-left", b: "clash-right" }] });
    expect(toolJson(clash).message).toContain("clash-left conflicts with clash-right, which is active in this project");
    await client.close();
  });
});

/** A generated catalog of `n` talents with summaries as long as the shipped ones' (~280 characters). */
function generatedCatalog(n: number) {
  const files: Record<string, string> = {};
  const langs = ["typescript", "python", "go", "rust", "java"];
  for (let i = 0; i < n; i++) {
    const id = `gen-${String(i).padStart(5, "0")}`;
    const summary = `Covers topic ${i} of the generated catalog: naming, structure, errors, tests and review of that topic, with the pitfalls seen in practice. Designate when a task touches topic ${i}, its modules, its configuration or its tests, in any file where it appears.`;
    files[`${id}/TALENT.md`] = talentMd(id, { summary: JSON.stringify(summary), languages: `[${langs[i % langs.length]}]` });
  }
  return buildCatalog(sourcesFromFlat(files)).catalog;
}

const tokensOf = (body: unknown) => estimateTokens(JSON.stringify(body));

describe("discovery within a budget (GET /api/discovery/playbook, svc_discover_codebase)", () => {
  test(`discovery budget: the shipped catalog's answer is at most ${DISCOVERY_BUDGET} tokens, compact entries, the selection marked and left out of the index`, async () => {
    const e = await testEnv();
    try {
      const s = await setup(e);
      await s.api("PATCH", "/api/projects/current/talents", { talents: ["typescript-strict", "sql-base"] });
      await s.api("PATCH", "/api/projects/current/talents", { talent: "sql-base", enabled: false });
      const r = await s.api("GET", "/api/discovery/playbook?languages=go");
      expect(r.status).toBe(200);
      expect(tokensOf(r.body)).toBeLessThanOrEqual(DISCOVERY_BUDGET);
      expect(r.body.selection).toEqual({
        installed: 3,
        active: 2,
        talents: ["javascript-base", "typescript-strict"],
        expertises: [],
        disabled: ["sql-base"],
      });
      const ids = r.body.catalog.talents.map((t: { id: string }) => t.id);
      expect(ids).not.toContain("typescript-strict");
      expect(ids).not.toContain("sql-base");
      expect(r.body.catalog.total).toBe(e.state.catalog!.list.length - 3);
      expect(r.body.catalog.talents.length + r.body.catalog.left).toBe(r.body.catalog.total);
      expect(Object.keys(r.body.catalog.talents[0]).sort()).toEqual(["id", "languages", "relevant", "roles", "summary"]);
      // the codebase's languages rank: go first, then language-neutral ones, then the rest
      const entries: { id: string; languages: string[]; relevant: boolean }[] = r.body.catalog.talents;
      const lastGo = entries.findLastIndex((t) => t.languages.includes("go"));
      expect(entries[0]!.languages).toContain("go");
      expect(entries.map((t) => t.id)).toContain("go-base");
      expect(lastGo).toBeLessThan(entries.findIndex((t) => t.languages.length === 0));
      expect(r.body.catalog.talents.at(-1).relevant).toBe(false);
      for (const t of r.body.catalog.talents) expect(t.summary.length).toBeLessThanOrEqual(110);
      expect((await s.api("GET", "/api/discovery/playbook?languages=not%20a%20word")).body.error).toBe("validation_failed");
    } finally {
      e.close();
    }
  });

  test(`discovery budget: a generated 5,000-talent catalog answers within ${DISCOVERY_BUDGET} tokens, cut with the count left and where to go on`, async () => {
    const e = await testEnv({}, generatedCatalog(5_000));
    try {
      const s = await setup(e);
      const first = await s.api("GET", "/api/discovery/playbook?languages=python");
      expect(tokensOf(first.body)).toBeLessThanOrEqual(DISCOVERY_BUDGET);
      expect(tokensOf(first.body)).toBeGreaterThan(DISCOVERY_BUDGET * 0.9); // filled, not cut early
      const c = first.body.catalog;
      expect(c.total).toBe(5_000);
      expect(c.talents.length).toBeGreaterThan(10);
      expect(c.left).toBe(5_000 - c.talents.length);
      expect(c.next).toBe(c.talents.length);
      expect(first.body.more).toContain("offset");
      expect(c.talents.every((t: { languages: string[] }) => t.languages[0] === "python")).toBe(true); // relevant first
      const second = await s.api("GET", `/api/discovery/playbook?languages=python&offset=${c.next}`);
      expect(tokensOf(second.body)).toBeLessThanOrEqual(DISCOVERY_BUDGET);
      expect(second.body.catalog.offset).toBe(c.next);
      expect(second.body.catalog.talents[0].id).not.toBe(c.talents[0].id);
      const last = await s.api("GET", "/api/discovery/playbook?offset=4990");
      expect(last.body.catalog).toMatchObject({ left: 0, next: null });
      expect(last.body.catalog.talents.length).toBe(10);
      expect(last.body).not.toHaveProperty("more");
    } finally {
      e.close();
    }
  }, 60_000);

  test("discovery marks active expertises in the selection and lists the organization's other expertises; doctor lists every designable id", async () => {
    const s = await setup();
    const { ref } = await publishedExpertiseOf(s.owner, "ledger", talentMd("ledger", {}, "Use the ledger."));
    const other = await publishedExpertiseOf(s.owner, "payouts", talentMd("payouts", {}, "Pay out daily."));
    await s.api("PATCH", "/api/projects/current/talents", { talents: [ref, "chain-mid"] });
    const r = await s.api("GET", "/api/discovery/playbook");
    expect(r.body.selection).toMatchObject({ talents: ["chain-base", "chain-mid"], expertises: [ref] });
    expect(r.body.catalog.talents.find((t: { id: string }) => t.id === other.ref)).toMatchObject({ kind: "expertise" });
    expect(r.body.catalog.talents.map((t: { id: string }) => t.id)).not.toContain(ref);
    const doctor = await s.api("GET", "/api/doctor");
    expect(doctor.body.designable.sort()).toEqual([ref, "chain-base", "chain-mid"]);
  });
});

describe("a context budget per task (project setting contextBudget, default 6,000 tokens)", () => {
  test("context budget: prepare-task over budget freezes everything designated, serves compact forms in order until the budget, lists the rest; the playbook, the trace and pinned reads cover all", async () => {
    const s = await setup();
    const big = ["big-1", "big-2", "big-3", "big-4"];
    const t = big.map((id) => env.state.catalog!.get(id)!.tokens);
    expect(t[0]! + t[1]! + t[2]!).toBeLessThanOrEqual(6_000);
    expect(t[0]! + t[1]! + t[2]! + t[3]!).toBeGreaterThan(6_000);
    await s.api("PATCH", "/api/projects/current/talents", { talents: [...big, "lone"] });
    expect((await s.owner.get(`/web/projects/${s.project.id}`)).body.project.contextBudget).toBe(6_000);

    const r = await s.api("POST", "/api/prepare-task", { talentIds: [...big, "lone"] });
    expect(r.status).toBe(201);
    expect(r.body.talents.map((x: { id: string }) => x.id)).toEqual(["big-1", "big-2", "big-3"]);
    expect(r.body.tokens).toBe(t[0]! + t[1]! + t[2]!);
    expect(r.body.contextBudget).toEqual({ budget: 6_000, served: 3, notServed: 2 });
    expect(r.body.notServed.map((x: { id: string }) => x.id)).toEqual(["big-4", "lone"]); // in the order designated, none skipped
    expect(r.body.notServed[0]).toEqual({
      id: "big-4",
      kind: "talent",
      version: "1.0.0",
      uri: "talent://big-4",
      summary: env.state.catalog!.get("big-4")!.summary,
      tokens: t[3],
    });
    expect(r.body.overBudget).toContain("POST /api/talents/get");
    expect(JSON.stringify(r.body)).not.toContain("Guidance 4 of a large talent");

    const book = await s.api("GET", `/api/validation/playbook?resolutionId=${r.body.resolutionId}`);
    expect(book.body.obligations.map((o: { id: string }) => o.id)).toEqual([...big, "lone"]);
    const read = await s.api("POST", "/api/talents/get", { resolutionId: r.body.resolutionId, uri: "talent://big-4" });
    expect(read.status).toBe(200);
    expect(read.body.files[0].content).toContain("Guidance 4 of a large talent");
    const traces = (await s.owner.get(`/web/projects/${s.project.id}/traces?limit=20`)).body.events;
    const event = traces.find(
      (e: { kind: string; resolutionId: string }) => e.kind === "prepare_task" && e.resolutionId === r.body.resolutionId,
    );
    expect(event.detail).toEqual({ talents: ["big-1", "big-2", "big-3"], tokens: r.body.tokens, notServed: ["big-4", "lone"] });

    // a smaller budget of the project's own; a budget below the first talent still serves it whole
    expect((await s.owner.patch(`/web/projects/${s.project.id}`, { contextBudget: t[0]! + t[1]! })).body.project.contextBudget).toBe(
      t[0]! + t[1]!,
    );
    const two = await s.api("POST", "/api/prepare-task", { talentIds: big });
    expect(two.body.talents.map((x: { id: string }) => x.id)).toEqual(["big-1", "big-2"]);
    expect(two.body.contextBudget).toEqual({ budget: t[0]! + t[1]!, served: 2, notServed: 2 });
    await s.owner.patch(`/web/projects/${s.project.id}`, { contextBudget: 500 });
    const one = await s.api("POST", "/api/prepare-task", { talentIds: big });
    expect(one.body.talents.map((x: { id: string }) => x.id)).toEqual(["big-1"]);
    // under the budget: the answer is as it always was
    const small = await s.api("POST", "/api/prepare-task", { talentIds: ["lone"] });
    expect(small.body).not.toHaveProperty("notServed");
    expect(small.body).not.toHaveProperty("contextBudget");
  });

  test("context budget: the setting is whole tokens from 500 to 200,000 (a form's digits too), null for the default; anything else is 400", async () => {
    const s = await setup();
    const patch = (contextBudget: unknown) => s.owner.patch(`/web/projects/${s.project.id}`, { contextBudget });
    for (const bad of [10, 200_001, 1.5, "abc", true]) {
      const r = await patch(bad);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
    expect((await patch("8000")).body.project.contextBudget).toBe(8_000);
    const page = await (await s.owner.call("GET", `/projects/${s.project.id}?tab=settings`, undefined, { accept: "text/html" })).text();
    expect(page).toMatch(/<input id="p-budget" name="contextBudget"[^>]* value="8000"/);
    expect((await patch(null)).body.project.contextBudget).toBe(6_000);
  });
});
