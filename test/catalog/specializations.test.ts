/**
 * Specializations (`/web/specializations*` and `/web/projects/:id/apply-specialization`;
 * docs/api.md "Specializations"): built-in bundles shipped as files and
 * checked by `talents lint`; custom ones per organization (owner/admin write, members read,
 * built-ins read-only); applying one installs its talents and their requires-closure as one
 * atomic group, or nothing with the conflicting pairs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { joinedMember, orgWithProject, publishedExpertise, runCli, tempDir, testEnv, writeFiles, type TestEnv } from "../helpers";
import { scenarioTable } from "../scenarios";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

type Spec = { id: string; name: string; talents: string[]; builtIn: boolean };
const count = async (projectId: string) =>
  Number(
    (await env.database.client.execute({ sql: "SELECT count(*) AS n FROM installed_talents WHERE project_id = ?", args: [projectId] }))
      .rows[0]!.n,
  );

describe("built-in specializations", () => {
  test("at least 12 ship with the catalog, for the kinds of codebase a team picks from; each names only catalog talents", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.get("/web/specializations");
    expect(r.status).toBe(200);
    const builtIns = (r.body.specializations as Spec[]).filter((s) => s.builtIn);
    expect(builtIns.length).toBeGreaterThanOrEqual(12);
    for (const id of [
      "typescript-service",
      "nextjs-app",
      "go-service",
      "python-library",
      "rust-crate",
      "infrastructure-as-code",
      "data-sql",
      "ci-platform",
    ]) {
      expect(builtIns.map((s) => s.id)).toContain(id);
    }
    for (const s of builtIns) for (const t of s.talents) expect(env.state.catalog!.get(t)).toBeDefined();
  });

  test("talents lint checks a folder's _specializations: an unknown talent, a conflict inside the requires-closure, bad YAML, a bad file name, a missing field; the shipped ones pass", async () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFiles(dir, {
        "_specializations/good.yaml": 'name: "Good"\ndescription: "Fine."\ntalents: [typescript-strict]\n',
        "_specializations/unknown.yaml": 'name: "U"\ndescription: "d"\ntalents: [no-such-talent]\n',
        "_specializations/clash.yaml": 'name: "C"\ndescription: "d"\ntalents: [conventional-commits, git-commit-messages]\n',
        "_specializations/broken.yaml": "name: [unclosed\n",
        "_specializations/Bad_Name.yaml": 'name: "B"\ndescription: "d"\ntalents: [go-base]\n',
        "_specializations/nodesc.yaml": 'name: "N"\ntalents: [go-base]\n',
      });
      const r = await runCli(["talents", "lint", dir]);
      expect(r.code).toBe(1);
      const lines = r.stdout.trim().split("\n");
      expect(lines).toContain(`${dir}/_specializations/unknown.yaml: talents: "no-such-talent" does not exist in the catalog`);
      expect(lines).toContain(
        `${dir}/_specializations/clash.yaml: talents: its requires-closure holds conflicting talents "conventional-commits" and "git-commit-messages"`,
      );
      expect(lines.some((l) => l.startsWith(`${dir}/_specializations/broken.yaml: yaml: invalid YAML`))).toBe(true);
      expect(lines.some((l) => l.startsWith(`${dir}/_specializations/Bad_Name.yaml: id:`))).toBe(true);
      expect(lines).toContain(`${dir}/_specializations/nodesc.yaml: description: must be text of 1 to 500 characters`);
      expect(lines.some((l) => l.includes("good.yaml"))).toBe(false);
      expect(r.stderr).toContain("1 of 6 specialization(s) valid");
      const shipped = await runCli(["talents", "lint", "talents"]);
      expect(shipped.code).toBe(0);
      expect(shipped.stderr).toMatch(/(\d+) of \1 specialization\(s\) valid, 0 problem/);
    } finally {
      cleanup();
    }
  }, 30_000);
});

describe("custom specializations: owner/admin write, members read, built-ins read-only", () => {
  test("create, read, edit, duplicate, delete; a member reads but cannot write (403 forbidden)", async () => {
    const o = await orgWithProject(env);
    const member = await joinedMember(env, o.owner);
    const created = await o.owner.post("/web/specializations", {
      name: "Our stack",
      description: "What we use",
      talents: ["typescript-strict", "sql-base"],
    });
    expect(created.status).toBe(201);
    const s = created.body.specialization as Spec;
    expect(s).toMatchObject({ name: "Our stack", talents: ["typescript-strict", "sql-base"], builtIn: false });
    expect(s.id).toMatch(/^spc_/);
    expect((await member.get("/web/specializations")).body.specializations.map((x: Spec) => x.id)).toContain(s.id);
    expect((await member.get(`/web/specializations/${s.id}`)).status).toBe(200);
    for (const [m, path, body] of [
      ["POST", "/web/specializations", { name: "M", talents: ["go-base"] }],
      ["PATCH", `/web/specializations/${s.id}`, { name: "M" }],
      ["DELETE", `/web/specializations/${s.id}`, undefined],
      ["POST", `/web/specializations/${s.id}/duplicate`, {}],
    ] as const) {
      const r = await member.json(m, path, body);
      expect({ m, path, status: r.status, error: r.body.error }).toEqual({ m, path, status: 403, error: "forbidden" });
    }
    const edited = await o.owner.patch(`/web/specializations/${s.id}`, { name: "Our stack v2", talents: ["go-base"] });
    expect(edited.body.specialization).toMatchObject({ name: "Our stack v2", description: "What we use", talents: ["go-base"] });
    const copy = await o.owner.post(`/web/specializations/${s.id}/duplicate`, {});
    expect(copy.status).toBe(201);
    expect(copy.body.specialization).toMatchObject({ name: "Our stack v2 (copy)", talents: ["go-base"], builtIn: false });
    expect((await o.owner.del(`/web/specializations/${s.id}`)).body).toEqual({ deleted: s.id });
    expect((await o.owner.get(`/web/specializations/${s.id}`)).status).toBe(404);
  });

  test("a built-in: PATCH and DELETE → 403 forbidden (read-only); duplicate → a custom copy that can be edited", async () => {
    const o = await orgWithProject(env);
    for (const [m, body] of [
      ["PATCH", { name: "Mine" }],
      ["DELETE", undefined],
    ] as const) {
      const r = await o.owner.json(m, "/web/specializations/go-service", body);
      expect([r.status, r.body.error]).toEqual([403, "forbidden"]);
      expect(r.body.message).toContain("duplicate it");
    }
    const copy = await o.owner.post("/web/specializations/go-service/duplicate", { name: "Go, our way" });
    expect(copy.status).toBe(201);
    expect(copy.body.specialization.builtIn).toBe(false);
    expect((await o.owner.patch(`/web/specializations/${copy.body.specialization.id}`, { description: "ours" })).status).toBe(200);
  });

  const bad: [string, unknown, string][] = [
    ["no name", { talents: ["go-base"] }, "validation_failed"],
    ["an empty talent list", { name: "X", talents: [] }, "validation_failed"],
    ["talents not a list", { name: "X", talents: "go-base" }, "validation_failed"],
    ["a name over 100 characters", { name: "n".repeat(101), talents: ["go-base"] }, "validation_failed"],
    ["an unknown talent", { name: "X", talents: ["go-base", "nope"] }, "unknown_talents"],
    ["conflicting talents", { name: "X", talents: ["conventional-commits", "git-commit-messages"] }, "validation_failed"],
    ["another organization's expertise", { name: "X", talents: ["@someone-else/secret"] }, "unknown_talents"],
  ];
  for (const [name, body, code] of bad) {
    test(`POST with ${name} → 400 ${code}, nothing stored`, async () => {
      const o = await orgWithProject(env);
      const before = (await o.owner.get("/web/specializations")).body.specializations.length;
      const r = await o.owner.post("/web/specializations", body);
      expect([r.status, r.body.error]).toEqual([400, code]);
      expect((await o.owner.get("/web/specializations")).body.specializations.length).toBe(before);
    });
  }

  test("PATCH with nothing to change, or bad fields → 400; an unknown id → 404", async () => {
    const o = await orgWithProject(env);
    const s = (await o.owner.post("/web/specializations", { name: "S", talents: ["go-base"] })).body.specialization as Spec;
    expect((await o.owner.patch(`/web/specializations/${s.id}`, {})).status).toBe(400);
    expect((await o.owner.patch(`/web/specializations/${s.id}`, { talents: ["nope"] })).body.error).toBe("unknown_talents");
    expect((await o.owner.patch("/web/specializations/spc_01AAAAAAAAAAAAAAAAAAAAAAAA", { name: "x" })).status).toBe(404);
    expect((await o.owner.post("/web/specializations/no-such-builtin/duplicate", {})).status).toBe(404);
  });

  test("an organization's own expertise can be part of its specialization", async () => {
    const o = await orgWithProject(env);
    const { ref } = await publishedExpertise(o.owner, o.org.slug, "ledger");
    const r = await o.owner.post("/web/specializations", { name: "Payments", talents: [ref] });
    expect(r.status).toBe(201);
    const applied = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, {
      specializationId: r.body.specialization.id,
    });
    expect(applied.status).toBe(200);
    expect(applied.body.installed.sort()).toEqual([ref, "javascript-base", "typescript-strict"].sort()); // with its requires-closure
  });

  scenarioTable(
    "rule 2: another organization's custom specialization is 404 on every route (as unknown), and cannot be applied",
    async () => {
      const a = await orgWithProject(env);
      const b = await orgWithProject(env);
      const s = (await a.owner.post("/web/specializations", { name: "A only", talents: ["go-base"] })).body.specialization as Spec;
      return { env, clients: { b: b.owner }, ids: { spec: s.id, aProject: a.project.id, bProject: b.project.id } };
    },
    [
      { method: "GET", path: "/web/specializations/{spec}", as: "b", status: 404, code: "not_found" },
      { method: "PATCH", path: "/web/specializations/{spec}", body: { name: "x" }, as: "b", status: 404, code: "not_found" },
      { method: "DELETE", path: "/web/specializations/{spec}", as: "b", status: 404, code: "not_found" },
      { method: "POST", path: "/web/specializations/{spec}/duplicate", body: {}, as: "b", status: 404, code: "not_found" },
      {
        method: "POST",
        path: "/web/projects/{bProject}/apply-specialization",
        body: { specializationId: "{spec}" },
        as: "b",
        status: 404,
        code: "not_found",
      },
      {
        name: "A's project from B: POST /web/projects/{aProject}/apply-specialization → 404 not_found",
        method: "POST",
        path: "/web/projects/{aProject}/apply-specialization",
        body: { specializationId: "go-service" },
        as: "b",
        status: 404,
        code: "not_found",
      },
    ],
    {
      after: [
        "…B's listing never shows it, and nothing was installed in B's project",
        async ({ clients, ids }) => {
          expect((await clients!.b!.get("/web/specializations")).body.specializations.map((x: Spec) => x.id)).not.toContain(ids!.spec);
          expect(await count(ids!.bProject!)).toBe(0);
        },
      ],
    },
  );
});

describe("POST /web/projects/:id/apply-specialization: one atomic group", () => {
  test("installs the talents plus their requires-closure; applying again installs nothing new; traced with the talents that entered", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, { specializationId: "nextjs-app" });
    expect(r.status).toBe(200);
    const spec = env.state.catalog!.specializations.find((s) => s.id === "nextjs-app")!;
    expect(r.body.installed).toEqual(expect.arrayContaining([...spec.talents, "javascript-base", "unit-testing"])); // prerequisites come along
    const installed = (await o.owner.get(`/web/projects/${o.project.id}/installed`)).body.talents.map((t: { id: string }) => t.id).sort();
    expect(installed).toEqual([...r.body.installed].sort());
    const again = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, { specializationId: "nextjs-app" });
    expect(again.body.installed).toEqual([]);
    expect(again.body.alreadyInstalled.sort()).toEqual(installed);
    const events = (await o.owner.get(`/web/projects/${o.project.id}/traces`)).body.events as { kind: string; talentsEntered: string[] }[];
    expect(events.find((e) => e.kind === "apply_specialization" && e.talentsEntered.length > 0)!.talentsEntered.sort()).toEqual(installed);
  });

  test("a conflict with the project's active selection → 409 selection_conflict with the pairs, nothing installed; once the other side is disabled, it applies", async () => {
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["git-commit-messages"] });
    const r = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, { specializationId: "team-workflow" });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("selection_conflict");
    expect(r.body.pairs).toEqual([{ a: "conventional-commits", b: "git-commit-messages" }]);
    expect(await count(o.project.id)).toBe(1); // nothing of the group was installed
    await o.owner.patch(`/web/projects/${o.project.id}/talents/git-commit-messages`, { enabled: false });
    const ok = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, { specializationId: "team-workflow" });
    expect(ok.status).toBe(200);
    expect(ok.body.installed).toContain("conventional-commits");
  });

  test("bad bodies → 400; an unknown specialization → 404; no session → 401", async () => {
    const o = await orgWithProject(env);
    for (const body of [{}, { specializationId: "" }, { specializationId: 12 }]) {
      const r = await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, body);
      expect([r.status, r.body.error]).toEqual([400, "validation_failed"]);
    }
    expect((await o.owner.post(`/web/projects/${o.project.id}/apply-specialization`, { specializationId: "nope" })).status).toBe(404);
    expect((await env.request(`/web/projects/${o.project.id}/apply-specialization`, { method: "POST" })).status).toBe(401);
    expect(await count(o.project.id)).toBe(0);
  });
});
