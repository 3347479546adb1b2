import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, talentMd, testEnv, withKey, type TestEnv } from "../helpers";

/** react-hooks' undesignated prerequisites, both active, each with its sentence. */
const BOTH_ACTIVE = [
  {
    id: "react-components",
    requiredBy: ["react-hooks"],
    active: true,
    note: "react-components is required by react-hooks and was not designated: designate it too, so its rules are served with theirs.",
  },
  {
    id: "javascript-base",
    requiredBy: ["react-components"],
    active: true,
    note: "javascript-base is required by react-components and was not designated: designate it too, so its rules are served with theirs.",
  },
];

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/** An approved org with a project, talents installed through the web, and a key with `tools`. */
async function setup(install: string[] = [], tools: string[] = ALL) {
  const o = await orgWithProject(env);
  if (install.length > 0) {
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: install });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  }
  const k = await createKey(o.owner, o.project.id, tools);
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await withKey(env, k.value, path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null, res: r };
  };
  return { ...o, key: k, api };
}

const count = async (table: string) => Number((await env.database.client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);

describe("key API: prepare_task", () => {
  test("GET /api/prepare-task/designable lists the project's active talents with what an agent needs to choose", async () => {
    const s = await setup(["typescript-strict", "javascript-base", "sql-base"]);
    await s.owner.patch(`/web/projects/${s.project.id}/talents/sql-base`, { enabled: false });
    const r = await s.api("GET", "/api/prepare-task/designable");
    expect(r.status).toBe(200);
    expect(r.body.talents.map((t: { id: string }) => t.id).sort()).toEqual(["javascript-base", "typescript-strict"]);
    expect(Object.keys(r.body.talents[0]).sort()).toEqual([
      "conflicts",
      "id",
      "kind",
      "languages",
      "relevant",
      "requires",
      "summary",
      "title",
      "tokens",
      "triggers",
      "version",
      "why",
    ]);
  });

  for (const [name, body] of [
    ["missing", {}],
    ["empty", { talentIds: [] }],
    ["null", { talentIds: null }],
  ] as const) {
    test(`prepare_task with ${name} talentIds → 400 designation_required (no fallback guesses)`, async () => {
      const s = await setup(["typescript-strict"]);
      const before = await count("resolutions");
      const r = await s.api("POST", "/api/prepare-task", body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("designation_required");
      expect(await count("resolutions")).toBe(before);
    });
  }

  test("ids not active in the project → 400 unknown_talents with every such id; nothing written", async () => {
    const s = await setup(["typescript-strict", "sql-base"]);
    await s.owner.patch(`/web/projects/${s.project.id}/talents/sql-base`, { enabled: false });
    const before = await count("resolutions");
    const r = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict", "sql-base", "react-hooks", "no-such"] });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("unknown_talents");
    expect(r.body.ids.sort()).toEqual(["no-such", "react-hooks", "sql-base"]);
    expect(await count("resolutions")).toBe(before);
  });

  test("compiles exactly the designated talents (compact form), lists undesignated prerequisites and conflicts; anything not designated is not served", async () => {
    const s = await setup([
      "react-hooks",
      "react-components",
      "javascript-base",
      "git-commit-messages",
      "conventional-commits",
      "sql-base",
    ]);
    const r = await s.api("POST", "/api/prepare-task", {
      talentIds: ["react-hooks", "git-commit-messages", "conventional-commits"],
      language: "typescript",
    });
    expect(r.status).toBe(201);
    expect(r.body.resolutionId).toMatch(/^res_[0-9A-Z]{26}$/);
    expect(r.body.language).toBe("typescript");
    expect(r.body.talents.map((t: { id: string }) => t.id)).toEqual(["react-hooks", "git-commit-messages", "conventional-commits"]);
    const hooks = r.body.talents[0];
    expect(hooks).toMatchObject({ kind: "talent", version: env.state.catalog!.get("react-hooks")!.version, uri: "talent://react-hooks" });
    expect(hooks.compact).toBe(env.state.catalog!.get("react-hooks")!.compact);
    expect(hooks.digest).toBe(env.state.catalog!.get("react-hooks")!.compactDigest);
    // each prerequisite and conflict comes with one sentence: what it means and what to do
    expect(r.body.prerequisites).toEqual(BOTH_ACTIVE);
    expect(r.body.conflicts).toEqual([
      {
        a: "conventional-commits",
        b: "git-commit-messages",
        note: "conventional-commits and git-commit-messages conflict: they ask for opposite things, so designate only the one this task follows.",
      },
    ]);
    expect(r.body.tokens).toBe(r.body.talents.reduce((n: number, t: { compact: string }) => n + Math.ceil(t.compact.length / 4), 0));
    expect(JSON.stringify(r.body)).not.toContain("sql-base");
    expect(r.body.next).toContain(`/api/validation/playbook?resolutionId=${r.body.resolutionId}`);
  });

  test("again after an install: the same designation lists its prerequisite as active once it is installed (nothing of the first answer is kept past the change)", async () => {
    const s = await setup(["react-hooks", "react-components"]);
    const first = await s.api("POST", "/api/prepare-task", { talentIds: ["react-hooks"] });
    expect(first.body.prerequisites).toEqual([
      {
        id: "react-components",
        requiredBy: ["react-hooks"],
        active: true,
        note: "react-components is required by react-hooks and was not designated: designate it too, so its rules are served with theirs.",
      },
      {
        id: "javascript-base",
        requiredBy: ["react-components"],
        active: false,
        note: "javascript-base is required by react-components but is not active in this project: it must be installed (or enabled) before it can be designated.",
      },
    ]);
    expect((await s.api("PATCH", "/api/projects/current/talents", { talent: "javascript-base" })).status).toBeLessThan(300);
    const again = await s.api("POST", "/api/prepare-task", { talentIds: ["react-hooks"] });
    expect(again.status).toBe(201);
    expect(again.body.prerequisites).toEqual(BOTH_ACTIVE);
  });

  test("a bad body (not an object, ids not strings) → 400 validation_failed", async () => {
    const s = await setup(["typescript-strict"]);
    expect((await s.api("POST", "/api/prepare-task", "[1,2]")).body.error).toBe("validation_failed");
    expect((await s.api("POST", "/api/prepare-task", { talentIds: [1, 2] })).body.error).toBe("validation_failed");
    expect((await s.api("POST", "/api/prepare-task", { talentIds: "typescript-strict" })).body.error).toBe("validation_failed");
    expect((await s.api("POST", "/api/prepare-task", "{not json")).status).toBe(400);
  });
});

describe("key API: validate and record_validation", () => {
  test("the playbook covers exactly what was served: obligations per talent, rules with severity, a procedure; talent= gives the detail", async () => {
    const s = await setup(["typescript-strict", "javascript-base", "sql-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const r = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}`);
    expect(r.status).toBe(200);
    expect(r.body.obligations.map((o: { id: string }) => o.id)).toEqual(["typescript-strict"]);
    const ts = env.state.catalog!.get("typescript-strict")!;
    expect(r.body.obligations[0]).toMatchObject({
      kind: "talent",
      version: ts.version,
      verdictRequired: false,
      rules: ts.rules.map(({ id, severity, title }) => ({ id, severity, title })),
    });
    expect(r.body.procedure.length).toBeGreaterThanOrEqual(4);
    expect(r.body.detail).toBeUndefined();
    const d = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}&talent=typescript-strict`);
    // the rules with their check, and each detector with the globs it applies to (its own, else the talent's triggers.files)
    // and the severity of its findings (blocking only where the rule's blocks is earned)
    expect(d.body.detail.rules).toEqual(
      ts.rules.map(({ id, severity, title, check, detect, blocks }) => ({
        id,
        severity,
        title,
        check,
        ...(detect
          ? {
              detect: detect.map((x) => ({
                severity: severity === "blocking" && blocks ? "blocking" : "advisory",
                files: x.files ?? ts.triggers.files,
                pattern: x.pattern,
                ...(x.flags ? { flags: x.flags } : {}),
                ...(x.scan ? { scan: x.scan } : {}),
                ...(x.unless ? { unless: x.unless } : {}),
              })),
            }
          : {}),
      })),
    );
    expect(d.body.detail.rules.find((r: { id: string }) => r.id === "TS-005").detect[0].severity).toBe("blocking");
    expect(d.body.detail.tests).toEqual(ts.tests);
  });

  test("a resolutionId of another project or unknown → 404; a talent not in the resolution → 404; none given → 400", async () => {
    const a = await setup(["typescript-strict"]);
    const b = await setup(["typescript-strict"]);
    const p = await a.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    expect((await b.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}`)).status).toBe(404);
    expect((await a.api("GET", "/api/validation/playbook?resolutionId=res_nope")).status).toBe(404);
    expect((await a.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}&talent=sql-base`)).status).toBe(404);
    expect((await a.api("GET", "/api/validation/playbook")).status).toBe(400);
    expect((await a.api("GET", "/api/validation/playbook")).body.error).toBe("validation_failed");
    // every route that takes a resolutionId answers another project's the same way: 404 not_found, nothing written
    const rid = p.body.resolutionId as string;
    const before = await count("reports");
    const foreign: [string, string, unknown?][] = [
      ["GET", `/api/validation/playbook?resolutionId=${rid}`],
      ["GET", `/api/validation/playbook?resolutionId=res_nope`],
      ["GET", `/api/validation/playbook?resolutionId=${rid}&talent=sql-base`],
      [
        "POST",
        "/api/validation/reports",
        { submissionId: "steal", resolutionId: rid, expertiseResults: [{ id: "typescript-strict", verdict: "pass" }] },
      ],
      ["GET", `/api/search?query=strict&scope=resolution&resolutionId=${rid}`],
      ["POST", "/api/talents/get", { resolutionId: rid, uri: "talent://typescript-strict" }],
    ];
    for (const [method, path, body] of foreign) {
      const caller = path.includes("res_nope") || path.includes("sql-base") ? a : b;
      const r = await caller.api(method, path, body);
      expect(`${method} ${path} → ${r.status} ${r.body.error}`).toBe(`${method} ${path} → 404 not_found`);
      expect(JSON.stringify(r.body)).not.toContain("typescript-strict");
    }
    expect(await count("reports")).toBe(before);
  });

  test("a report records verdicts; the identical report replays (200, replayed: true); the same submissionId with other content → 409 submission_conflict; a new submissionId records a second report", async () => {
    const s = await setup(["typescript-strict", "javascript-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const report = {
      submissionId: "sub-1",
      resolutionId: p.body.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/a.ts:12"] }],
    };
    const first = await s.api("POST", "/api/validation/reports", report);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      submissionId: "sub-1",
      replayed: false,
      summary: { pass: 0, fail: 1, not_applicable: 0 },
      failing: ["typescript-strict"],
    });
    const again = await s.api("POST", "/api/validation/reports", report);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, replayed: true });
    const other = await s.api("POST", "/api/validation/reports", {
      ...report,
      expertiseResults: [{ id: "typescript-strict", verdict: "pass" }],
    });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe("submission_conflict");
    const second = await s.api("POST", "/api/validation/reports", {
      ...report,
      submissionId: "sub-2",
      expertiseResults: [{ id: "typescript-strict", verdict: "pass" }],
    });
    expect(second.status).toBe(201);
    const listed = await s.owner.get(`/web/projects/${s.project.id}/resolutions/${p.body.resolutionId}/reports`);
    expect(listed.body.reports.map((x: { submissionId: string }) => x.submissionId)).toEqual(["sub-1", "sub-2"]);
    expect(listed.body.reports[0].results[0]).toMatchObject({ talentId: "typescript-strict", verdict: "fail", evidence: ["src/a.ts:12"] });
  });

  const badReports: [string, (rid: string) => unknown, string][] = [
    ["no submissionId", (rid) => ({ resolutionId: rid, expertiseResults: [] }), "validation_failed"],
    ["no expertiseResults", (rid) => ({ submissionId: "x", resolutionId: rid }), "validation_failed"],
    [
      "a fail without evidence or missing",
      (rid) => ({ submissionId: "x", resolutionId: rid, expertiseResults: [{ id: "typescript-strict", verdict: "fail" }] }),
      "validation_failed",
    ],
    [
      "evidence not file:line",
      (rid) => ({
        submissionId: "x",
        resolutionId: rid,
        expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["somewhere"] }],
      }),
      "validation_failed",
    ],
    [
      "an unknown verdict",
      (rid) => ({ submissionId: "x", resolutionId: rid, expertiseResults: [{ id: "typescript-strict", verdict: "meh" }] }),
      "validation_failed",
    ],
    [
      "a talent not in the resolution",
      (rid) => ({ submissionId: "x", resolutionId: rid, expertiseResults: [{ id: "sql-base", verdict: "pass" }] }),
      "unknown_talents",
    ],
    [
      "two verdicts for one talent",
      (rid) => ({
        submissionId: "x",
        resolutionId: rid,
        expertiseResults: [
          { id: "typescript-strict", verdict: "pass" },
          { id: "typescript-strict", verdict: "pass" },
        ],
      }),
      "validation_failed",
    ],
    ["an unknown resolution", () => ({ submissionId: "x", resolutionId: "res_nope", expertiseResults: [] }), "not_found"],
  ];
  for (const [name, make, code] of badReports) {
    test(`a report with ${name} → ${code}, nothing recorded`, async () => {
      const s = await setup(["typescript-strict", "javascript-base"]);
      const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
      const before = await count("reports");
      const r = await s.api("POST", "/api/validation/reports", make(p.body.resolutionId));
      expect(r.body.error).toBe(code);
      expect(r.status).toBe(code === "not_found" ? 404 : 400);
      expect(await count("reports")).toBe(before);
    });
  }

  test("concurrent replays of one report (10 at once) record exactly one", async () => {
    const s = await setup(["typescript-strict", "javascript-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const report = {
      submissionId: "burst",
      resolutionId: p.body.resolutionId,
      expertiseResults: [{ id: "typescript-strict", verdict: "pass" }],
    };
    const rs = await Promise.all(Array.from({ length: 10 }, () => s.api("POST", "/api/validation/reports", report)));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(rs.map((r) => r.body.reportId)).size).toBe(1);
    const n = (
      await env.database.client.execute({
        sql: "SELECT count(*) AS n FROM reports WHERE submission_id = 'burst' AND project_id = ?",
        args: [s.project.id],
      })
    ).rows[0]!.n;
    expect(n).toBe(1);
  });

  test("a key with only validate gets 403 insufficient_scope on the report route", async () => {
    const s = await setup(["typescript-strict"], ["validate"]);
    const r = await s.api("POST", "/api/validation/reports", { submissionId: "x", resolutionId: "res_x", expertiseResults: [] });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: "insufficient_scope", requiredScope: "record_validation" });
  });
});

describe("the playbook reads a pinned definition as the catalog reads the talent", () => {
  test("a folded YAML summary and title are trimmed alike (no trailing newline in the playbook)", async () => {
    const { buildCatalog } = await import("../../src/catalog/catalog");
    const md = talentMd("folded-talent", {
      title: ">\n  Folded title",
      summary: ">\n  A folded summary that spans\n  two lines. Designate when folding.",
    });
    const built = buildCatalog([{ folder: "folded-talent", files: { "TALENT.md": md }, label: (p: string) => `folded-talent/${p}` }]);
    expect(built.findings).toEqual([]);
    const e = await testEnv({}, built.catalog);
    try {
      const { owner, project } = await orgWithProject(e);
      expect((await owner.post(`/web/projects/${project.id}/talents`, { talent: "folded-talent" })).status).toBe(201);
      const k = await createKey(owner, project.id, ["prepare_task", "validate"]);
      const prep = await (
        await withKey(e, k.value, "/api/prepare-task", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ talentIds: ["folded-talent"] }),
        })
      ).json();
      const book = await (
        await withKey(e, k.value, `/api/validation/playbook?resolutionId=${prep.resolutionId}&talent=folded-talent`)
      ).json();
      const t = built.catalog.get("folded-talent")!;
      expect({ title: book.detail.title, summary: book.detail.summary }).toEqual({ title: t.title, summary: t.summary });
    } finally {
      e.close();
    }
  });
});
