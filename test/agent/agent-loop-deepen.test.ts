import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/catalog";
import { sourcesFromFlat } from "../../src/catalog/load";
import { embeddedTalents } from "../../src/embedded";
import { createKey, orgWithProject, talentMd, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

async function setup(install: string[] = [], tools: string[] = ALL, e: TestEnv = env) {
  const o = await orgWithProject(e);
  if (install.length > 0) await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: install });
  const k = await createKey(o.owner, o.project.id, tools);
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await withKey(e, k.value, path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  return { ...o, key: k, api };
}

describe("key API: deepen (search and read)", () => {
  test("one deepen scope grants both routes, read and search together", async () => {
    const s = await setup(["typescript-strict", "javascript-base"], ["deepen"]);
    expect((await s.api("GET", "/api/search?query=strict")).status).toBe(200);
    expect((await s.api("POST", "/api/talents/get", { uri: "talent://typescript-strict" })).status).toBe(200);
    const other = await setup(["typescript-strict"], ["validate"]);
    expect((await other.api("GET", "/api/search?query=strict")).body.requiredScope).toBe("deepen");
    expect((await other.api("POST", "/api/talents/get", { uri: "talent://typescript-strict" })).body.requiredScope).toBe("deepen");
  });

  test("search returns pointers (id, uri, summary), never content; scopes catalog/installed/active; k limits", async () => {
    const s = await setup(["typescript-strict", "javascript-base", "sql-base"]);
    await s.owner.patch(`/web/projects/${s.project.id}/talents/sql-base`, { enabled: false });
    const r = await s.api("GET", "/api/search?query=sql&scope=catalog&k=50");
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(2);
    for (const hit of r.body.results) expect(Object.keys(hit).sort()).toEqual(["id", "summary", "uri"]);
    expect((await s.api("GET", "/api/search?query=sql&scope=installed")).body.results.map((x: { id: string }) => x.id)).toEqual([
      "sql-base",
    ]);
    expect((await s.api("GET", "/api/search?query=sql&scope=active")).body.results).toEqual([]);
    expect((await s.api("GET", "/api/search?query=typescript")).body.scope).toBe("active");
    expect((await s.api("GET", "/api/search?query=e&scope=catalog&k=2")).body.results).toHaveLength(2);
  });

  test("search failures: no query → 400, k over 50 → 400, bad scope → 400, scope=resolution without resolutionId → 400", async () => {
    const s = await setup(["typescript-strict"]);
    for (const q of [
      "/api/search",
      "/api/search?query=",
      "/api/search?query=x&k=51",
      "/api/search?query=x&scope=everything",
      "/api/search?query=x&scope=resolution",
    ]) {
      const r = await s.api("GET", q);
      expect(`${q} → ${r.status} ${r.body.error}`).toBe(`${q} → 400 validation_failed`);
    }
    // the same rules for a search in POST /api/talents/get's body
    for (const body of [
      { query: "" },
      { query: "x", k: 51 },
      { query: "x", k: "many" },
      { query: "x", scope: "everything" },
      { query: "x", scope: "resolution" },
      { query: 7 },
      { query: "x", resolutionId: { id: 1 } },
    ]) {
      const r = await s.api("POST", "/api/talents/get", body);
      expect(`${JSON.stringify(body)} → ${r.status} ${r.body.error}`).toBe(`${JSON.stringify(body)} → 400 validation_failed`);
    }
    // and the same answers: a null resolutionId is absent (it was read as the id "null": 404)
    const viaGet = await s.api("GET", "/api/search?query=strict&k=3");
    const viaPost = await s.api("POST", "/api/talents/get", { query: "strict", k: 3, resolutionId: null });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual(viaGet.body);
  });

  test("{resolutionId, query} on POST /api/talents/get searches what that resolution served and returns pointers", async () => {
    const s = await setup(["typescript-strict", "javascript-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const r = await s.api("POST", "/api/talents/get", { resolutionId: p.body.resolutionId, query: "script" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      scope: "resolution",
      results: [expect.objectContaining({ id: "typescript-strict", uri: "talent://typescript-strict" })],
    });
    const scoped = await s.api("GET", `/api/search?query=script&scope=resolution&resolutionId=${p.body.resolutionId}`);
    expect(scoped.body.results.map((x: { id: string }) => x.id)).toEqual(["typescript-strict"]);
  });

  test("reads: {uri} of an enabled talent, its deeper files, a section; not enabled → its preview only; not a talent:// uri → 400", async () => {
    const s = await setup(["typescript-strict", "javascript-base", "sql-base"]);
    const ts = env.state.catalog!.get("typescript-strict")!;
    const main = await s.api("POST", "/api/talents/get", { uri: "talent://typescript-strict" });
    expect(main.body.files[0]).toEqual({
      uri: "talent://typescript-strict",
      digest: ts.digest,
      content: ts.files.get("TALENT.md")!.content,
      pinned: false,
    });
    const deeper = ts.pointers.find((p) => p.startsWith("talent://typescript-strict/"))!;
    const file = await s.api("POST", "/api/talents/get", { uri: deeper });
    expect(file.status).toBe(200);
    expect(file.body.files[0].content.length).toBeGreaterThan(100);
    const heading = /^#{1,3} (.+)$/m.exec(file.body.files[0].content)![1]!;
    const section = await s.api("POST", "/api/talents/get", { uri: deeper, section: heading });
    expect(section.status).toBe(200);
    expect(section.body.files[0].content.startsWith("#")).toBe(true);
    expect(section.body.files[0].section).toBe(heading);
    expect((await s.api("POST", "/api/talents/get", { uri: deeper, section: "No Such Heading" })).status).toBe(404);
    expect((await s.api("POST", "/api/talents/get", { uri: deeper, section: "No Such Heading" })).body.error).toBe("not_found");
    await s.owner.patch(`/web/projects/${s.project.id}/talents/sql-base`, { enabled: false });
    const disabled = await s.api("POST", "/api/talents/get", { uri: "talent://sql-base" });
    expect(disabled.status).toBe(200);
    expect(disabled.body.files[0]).toMatchObject({ uri: "talent://sql-base", pinned: false, preview: true });
    expect(disabled.body.files[0].content).toStartWith("# ");
    expect(disabled.body.files[0].content).toContain("a preview, not installed in this project");
    const sqlDeeper = env.state.catalog!.get("sql-base")!.pointers.find((p) => p.startsWith("talent://sql-base/"));
    for (const body of [{ uri: "talent://sql-base", section: "Rules" }, ...(sqlDeeper ? [{ uri: sqlDeeper }] : [])]) {
      const r = await s.api("POST", "/api/talents/get", body);
      expect(`${r.status} ${r.body.error}`).toBe("404 not_found");
      expect(r.body.message).toContain("only its preview (its talent://<id> uri, without section) is readable");
    }
    expect((await s.api("POST", "/api/talents/get", { uri: "talent://no-such-talent" })).status).toBe(404);
    expect((await s.api("POST", "/api/talents/get", { uri: "talent://typescript-strict/../../etc/passwd" })).status).toBe(400);
    expect((await s.api("POST", "/api/talents/get", { uri: "https://example.com" })).status).toBe(400);
    expect((await s.api("POST", "/api/talents/get", {})).status).toBe(400);
  });

  test("a catalog talent not installed reads as a preview (summary, triggers, rules): nothing installed, designated or served", async () => {
    const s = await setup(["typescript-strict"]);
    const react = env.state.catalog!.get("react-hooks")!;
    const before = await s.owner.get(`/web/projects/${s.project.id}/talents`);
    const r = await s.api("POST", "/api/talents/get", { uri: "talent://react-hooks" });
    expect(r.status).toBe(200);
    const [file] = r.body.files;
    expect(Object.keys(file).sort()).toEqual(["content", "digest", "pinned", "preview", "uri"]);
    expect(file.content).toContain(react.summary);
    for (const rule of react.rules) expect(file.content).toContain(`- ${rule.id} (${rule.severity}): ${rule.title}`);
    for (const glob of react.triggers.files) expect(file.content).toContain(glob);
    // the guidance itself is not in it: that is served once it is installed and designated
    expect(file.content).not.toContain(react.body.trim().slice(0, 200));
    // a catalog search's pointers are readable the same way
    const hit = (await s.api("GET", "/api/search?query=hooks&scope=catalog")).body.results.find(
      (x: { id: string }) => x.id === "react-hooks",
    );
    expect((await s.api("POST", "/api/talents/get", { uri: hit.uri })).body.files[0].preview).toBe(true);
    expect(await s.owner.get(`/web/projects/${s.project.id}/talents`)).toEqual(before);
    const resolutions = await env.database.client.execute({
      sql: "SELECT count(*) AS n FROM resolutions WHERE project_id = ?",
      args: [s.project.id],
    });
    expect(Number(resolutions.rows[0]!.n)).toBe(0);
  });

  test("{resolutionId, uris: [...]} reads up to 20 files; 21 → 400 naming the limit", async () => {
    const s = await setup(["typescript-strict", "javascript-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const twenty = Array.from({ length: 20 }, () => ({ uri: "talent://typescript-strict" }));
    const ok = await s.api("POST", "/api/talents/get", { resolutionId: p.body.resolutionId, uris: twenty });
    expect(ok.status).toBe(200);
    expect(ok.body.files).toHaveLength(20);
    expect(ok.body.files[0].pinned).toBe(true);
    const r = await s.api("POST", "/api/talents/get", {
      resolutionId: p.body.resolutionId,
      uris: [...twenty, { uri: "talent://typescript-strict" }],
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("at most 20");
    expect(r.body.error).toBe("validation_failed");
    // however long the list (within the body limit), the same 400 naming the limit
    const huge = await s.api("POST", "/api/talents/get", {
      resolutionId: p.body.resolutionId,
      uris: Array.from({ length: 12_000 }, () => "talent://typescript-strict"),
    });
    expect(`${huge.status} ${huge.body.error}`).toBe("400 validation_failed");
    expect(huge.body.message).toContain("at most 20");
  });
});

describe("a search that names a resolutionId searches what that resolution served", () => {
  const ids = (body: { results: { id: string }[] }) => body.results.map((x) => x.id);

  test("with or without scope (scope=resolution is implied), on GET /api/search and on the {resolutionId, query} body alike", async () => {
    const s = await setup(["typescript-strict", "javascript-base", "sql-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const r = p.body.resolutionId;
    // "script" matches two active talents; the resolution served one of them
    expect(ids((await s.api("GET", "/api/search?query=script")).body).sort()).toEqual(["javascript-base", "typescript-strict"]);
    for (const [label, call] of [
      ["GET, no scope", () => s.api("GET", `/api/search?query=script&resolutionId=${r}`)],
      ["GET, scope=resolution", () => s.api("GET", `/api/search?query=script&scope=resolution&resolutionId=${r}`)],
      ["POST, no scope", () => s.api("POST", "/api/talents/get", { resolutionId: r, query: "script" })],
      ["POST, scope=resolution", () => s.api("POST", "/api/talents/get", { resolutionId: r, query: "script", scope: "resolution" })],
      ["POST, null scope", () => s.api("POST", "/api/talents/get", { resolutionId: r, query: "script", scope: null })],
    ] as const) {
      const res = await call();
      expect(`${label}: ${res.status} ${res.body.scope} ${JSON.stringify(ids(res.body))}`).toBe(
        `${label}: 200 resolution ["typescript-strict"]`,
      );
    }
    // still a resolution's own: disabling the talent since changes nothing
    await s.owner.patch(`/web/projects/${s.project.id}/talents/typescript-strict`, { enabled: false });
    expect(ids((await s.api("GET", `/api/search?query=script&resolutionId=${r}`)).body)).toEqual(["typescript-strict"]);
  });

  test("an explicit other scope together with a resolutionId → 400 validation_failed on scope (neither is silently ignored)", async () => {
    const s = await setup(["typescript-strict"]);
    const r = (await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] })).body.resolutionId;
    for (const scope of ["catalog", "installed", "active"]) {
      const viaGet = await s.api("GET", `/api/search?query=strict&scope=${scope}&resolutionId=${r}`);
      const viaPost = await s.api("POST", "/api/talents/get", { resolutionId: r, query: "strict", scope });
      for (const res of [viaGet, viaPost]) {
        expect(`${scope}: ${res.status} ${res.body.error} ${res.body.issues?.[0]?.path}`).toBe(`${scope}: 400 validation_failed scope`);
        expect(res.body.message).toContain("scope=resolution");
      }
    }
  });

  test("an unknown resolutionId, or one of another project → 404 not_found, the same answer for both (nothing of the other project leaks)", async () => {
    const s = await setup(["typescript-strict"]);
    const other = await setup(["typescript-strict", "sql-base"]);
    const foreign = (await other.api("POST", "/api/prepare-task", { talentIds: ["sql-base"] })).body.resolutionId as string;
    const unknown = `res_${"0".repeat(26)}`;
    const answers: string[] = [];
    for (const id of [unknown, foreign]) {
      for (const call of [
        () => s.api("GET", `/api/search?query=sql&resolutionId=${id}`),
        () => s.api("GET", `/api/search?query=sql&scope=resolution&resolutionId=${id}`),
        () => s.api("POST", "/api/talents/get", { resolutionId: id, query: "sql" }),
        () => s.api("POST", "/api/talents/get", { resolutionId: id, query: "sql", scope: "resolution" }),
      ]) {
        const res = await call();
        expect(`${res.status} ${res.body.error}`).toBe("404 not_found");
        expect(JSON.stringify(res.body)).not.toContain("sql-base");
        answers.push(JSON.stringify(res.body).replace(id, "<id>"));
      }
    }
    expect(new Set(answers).size).toBe(1);
  });
});

describe("sections: every heading the served compact block shows can be read as a section", () => {
  const SKILL = "---\nname: skilled\ndescription: A skill. Use it when skills are needed.\n---\nIntro.\n\n## Steps\nStep one.\n";
  const body =
    "Start with the basics.\n\n## Details\nThe details.\n\n### Deeper\nDeeper still.\n\n## Pitfalls\nAvoid the pitfalls. See talent://sectioned/notes.md";
  const catalogWith = (talentBody: string, over: Record<string, string> = {}) =>
    buildCatalog(
      sourcesFromFlat({
        ...embeddedTalents(),
        "sectioned/TALENT.md": talentMd("sectioned", over, talentBody),
        "sectioned/notes.md": "# Notes\nSome notes.\n\n## Usage\nUse it.\n",
        "sectioned/plain.md": "Just text, no heading.\n",
        "skilled/SKILL.md": SKILL,
      }),
    ).catalog;
  let e: TestEnv;
  beforeAll(async () => {
    e = await testEnv({}, catalogWith(body));
  });
  afterAll(() => e.close());

  async function prepared() {
    const s = await setup(["sectioned"], ALL, e);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["sectioned"] });
    return { s, resolutionId: p.body.resolutionId as string, compact: p.body.talents[0].compact as string };
  }
  const section = (s: Awaited<ReturnType<typeof setup>>, uri: string, name: string, resolutionId?: string) =>
    s.api("POST", "/api/talents/get", { uri, section: name, resolutionId });

  test('"Rules" returns the rules as the compact form shows them; the title returns the whole block; body headings keep working; case-insensitive, a leading "#" ignored', async () => {
    const { s, compact } = await prepared();
    const rules = await section(s, "talent://sectioned", "Rules");
    expect(rules.status).toBe(200);
    const text = rules.body.files[0].content as string;
    expect(text.startsWith("## Rules\n- [AB-001] (blocking) ")).toBe(true);
    expect(compact).toContain(text);
    expect(text).not.toContain("Start with the basics"); // the body's first paragraph is not under "Rules"
    expect(rules.body.files[0]).toMatchObject({ uri: "talent://sectioned", section: "Rules", pinned: false });
    for (const name of ["rules", "RULES", "## Rules", "  Rules  "])
      expect((await section(s, "talent://sectioned", name)).body.files[0].content).toBe(text);
    expect((await section(s, "talent://sectioned", "Title of sectioned")).body.files[0].content).toBe(compact);
    expect((await section(s, "talent://sectioned", "details")).body.files[0].content).toBe(
      "## Details\nThe details.\n\n### Deeper\nDeeper still.\n",
    );
    expect((await section(s, "talent://sectioned", "Deeper")).body.files[0].content).toBe("### Deeper\nDeeper still.\n");
    // the main file by its path reads the same sections
    expect((await section(s, "talent://sectioned/TALENT.md", "Rules")).body.files[0].content).toBe(text);
  });

  test("on pinned reads (resolutionId) alike: the sections of the block that was served, after the catalog changed", async () => {
    const { s, resolutionId, compact } = await prepared();
    const live = await section(s, "talent://sectioned", "Rules");
    const catalog = e.state.catalog;
    e.state.catalog = catalogWith("## Other\nA new body.", {
      title: "New title",
      rules:
        "[{id: ZZ-001, severity: advisory, title: New., check: New.}, {id: ZZ-002, severity: advisory, title: New., check: New.}, {id: ZZ-003, severity: advisory, title: New., check: New.}]",
      tests: "[]",
    });
    try {
      const pinned = await section(s, "talent://sectioned", "Rules", resolutionId);
      expect(pinned.body.files[0]).toMatchObject({
        content: live.body.files[0].content,
        digest: live.body.files[0].digest,
        pinned: true,
        section: "Rules",
      });
      expect((await section(s, "talent://sectioned", "title of sectioned", resolutionId)).body.files[0].content).toBe(compact);
      expect((await section(s, "talent://sectioned", "Pitfalls", resolutionId)).body.files[0].content).toBe(
        "## Pitfalls\nAvoid the pitfalls. See talent://sectioned/notes.md\n",
      );
      expect((await section(s, "talent://sectioned/notes.md", "Usage", resolutionId)).body.files[0].content).toBe("## Usage\nUse it.\n");
      // a live read now serves the new block's sections
      expect((await section(s, "talent://sectioned", "Rules")).body.files[0].content).toContain("[ZZ-001] (advisory) New.");
      expect((await section(s, "talent://sectioned", "Other")).status).toBe(200);
      expect((await section(s, "talent://sectioned", "Other", resolutionId)).status).toBe(404);
    } finally {
      e.state.catalog = catalog;
    }
  });

  test("a heading that does not exist → 404 not_found whose message lists the available sections; the compact headings apply to the main file only", async () => {
    const { s, resolutionId } = await prepared();
    for (const r of [undefined, resolutionId]) {
      const miss = await section(s, "talent://sectioned", "Summary", r);
      expect(`${miss.status} ${miss.body.error}`).toBe("404 not_found");
      expect(miss.body.message).toBe(
        'No section "Summary" in talent://sectioned. Its sections: "Title of sectioned", "Rules", "Details", "Deeper", "Pitfalls".',
      );
      expect(miss.body).toMatchObject({
        uri: "talent://sectioned",
        sections: ["Title of sectioned", "Rules", "Details", "Deeper", "Pitfalls"],
      });
      // another file of the talent has its own headings, not the block's
      const notes = await section(s, "talent://sectioned/notes.md", "Rules", r);
      expect(`${notes.status} ${notes.body.error}`).toBe("404 not_found");
      expect(notes.body.sections).toEqual(["Notes", "Usage"]);
      const plain = await section(s, "talent://sectioned/plain.md", "Anything", r);
      expect(`${plain.status} ${plain.body.message}`).toBe(
        '404 No section "Anything" in talent://sectioned/plain.md: it has no headings; read it without section.',
      );
    }
  });

  test("a skill (no rules) offers its title and its body's headings, not Rules", async () => {
    const s = await setup(["skilled"], ALL, e);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["skilled"] });
    for (const r of [undefined, p.body.resolutionId]) {
      const miss = await section(s, "talent://skilled", "Rules", r);
      expect(`${miss.status} ${JSON.stringify(miss.body.sections)}`).toBe('404 ["skilled","Steps"]');
      expect((await section(s, "talent://skilled", "steps", r)).body.files[0].content).toBe("## Steps\nStep one.\n");
      expect((await section(s, "talent://skilled", "Skilled", r)).body.files[0].content).toBe(p.body.talents[0].compact);
    }
  });

  test("a talent whose body has no headings still offers its title and Rules (the shipped typescript-strict)", async () => {
    const s = await setup(["typescript-strict"]);
    const miss = await s.api("POST", "/api/talents/get", { uri: "talent://typescript-strict", section: "Nope" });
    expect(miss.body.sections).toEqual(["Strict TypeScript", "Rules"]);
    const rules = await s.api("POST", "/api/talents/get", { uri: "talent://typescript-strict", section: "Rules" });
    expect(rules.status).toBe(200);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    expect(p.body.talents[0].compact).toContain(rules.body.files[0].content);
  });
});

describe("freeze: a resolution reads the same forever", () => {
  test("prepare → the catalog file changes on disk and the service restarts, the talent is uninstalled, others installed → playbook and pinned reads are byte-identical", async () => {
    const base = embeddedTalents();
    const v1 = buildCatalog(
      sourcesFromFlat({
        ...base,
        "frozen-talent/TALENT.md": talentMd("frozen-talent", {}, "Version one body. See talent://frozen-talent/notes.md"),
        "frozen-talent/notes.md": "# Notes\nv1 notes\n",
      }),
    ).catalog;
    const e = await testEnv({}, v1);
    try {
      const s = await setup(["frozen-talent"], ALL, e);
      const p = await s.api("POST", "/api/prepare-task", { talentIds: ["frozen-talent"] });
      const book = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}&talent=frozen-talent`);
      const read = await s.api("POST", "/api/talents/get", {
        resolutionId: p.body.resolutionId,
        uris: [{ uri: "talent://frozen-talent" }, { uri: "talent://frozen-talent/notes.md" }],
      });
      // "restart" with the file changed on disk: a new catalog where the talent has other rules and body
      e.state.catalog = buildCatalog(
        sourcesFromFlat({
          ...base,
          "frozen-talent/TALENT.md": talentMd(
            "frozen-talent",
            {
              version: "2.0.0",
              rules:
                "[{id: ZZ-001, severity: advisory, title: New., check: New.}, {id: ZZ-002, severity: advisory, title: New., check: New.}, {id: ZZ-003, severity: advisory, title: New., check: New.}]",
              tests: "[]",
            },
            "Version two. See talent://frozen-talent/notes.md",
          ),
          "frozen-talent/notes.md": "# Notes\nv2 notes\n",
        }),
      ).catalog;
      await s.owner.del(`/web/projects/${s.project.id}/talents/frozen-talent`);
      await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["sql-base", "typescript-strict", "javascript-base"] });
      const book2 = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}&talent=frozen-talent`);
      const read2 = await s.api("POST", "/api/talents/get", {
        resolutionId: p.body.resolutionId,
        uris: [{ uri: "talent://frozen-talent" }, { uri: "talent://frozen-talent/notes.md" }],
      });
      expect(JSON.stringify(book2.body)).toBe(JSON.stringify(book.body));
      expect(JSON.stringify(read2.body)).toBe(JSON.stringify(read.body));
      expect(read2.body.files[1].content).toBe("# Notes\nv1 notes\n");
      expect(book2.body.detail.rules[0].id).toBe("AB-001");
      // and a new resolution gets the new version
      await s.owner.post(`/web/projects/${s.project.id}/talents`, { talent: "frozen-talent" });
      const p2 = await s.api("POST", "/api/prepare-task", { talentIds: ["frozen-talent"] });
      expect(p2.body.talents[0].version).toBe("2.0.0");
      expect(p2.body.talents[0].compact).toContain("Version two");
    } finally {
      e.close();
    }
  });
});

describe("key API: doctor, catalog, discover, install", () => {
  test("doctor: missing prerequisites with who requires them, conflicts, disabled dependencies of active talents", async () => {
    const s = await setup(["react-hooks", "git-commit-messages", "conventional-commits", "typescript-strict", "javascript-base"]);
    await s.owner.patch(`/web/projects/${s.project.id}/talents/javascript-base`, { enabled: false });
    const r = await s.api("GET", "/api/doctor");
    expect(r.status).toBe(200);
    expect(r.body.healthy).toBe(false);
    expect(r.body.missingPrerequisites).toEqual([{ id: "react-components", requiredBy: ["react-hooks"], inCatalog: true }]);
    expect(r.body.conflicts).toEqual([{ a: "conventional-commits", b: "git-commit-messages" }]);
    expect(r.body.disabledDependencies).toEqual([{ id: "javascript-base", requiredBy: ["typescript-strict"] }]);
    expect(r.body.selection).toEqual({ installed: 5, active: 4, disabled: 1 });
    expect(r.body.brokenCatalogEntries).toEqual([]); // the key's creator is the owner: admins see broken entries
  });

  test("discover: a procedure and a compact catalog index; it activates nothing", async () => {
    const s = await setup([]);
    const r = await s.api("GET", "/api/discovery/playbook");
    expect(r.status).toBe(200);
    expect(r.body.procedure.length).toBeGreaterThan(3);
    // the whole catalog is indexed: what this page lists and what is left for the next (the answer's budget pages it)
    expect(r.body.catalog.total).toBe(env.state.catalog!.list.length);
    expect(r.body.catalog.talents.length + r.body.catalog.left).toBe(env.state.catalog!.list.length);
    expect(r.body.catalog.talents[0]).not.toHaveProperty("compact");
    expect(r.body.activatesNothing).toBe(true);
    expect((await s.owner.get(`/web/projects/${s.project.id}/installed`)).body.talents).toEqual([]);
  });

  test("install through the key route: {talent}, {talents} atomic, enabled:false disables; /projects/current too; another project → 404", async () => {
    const s = await setup([]);
    const one = await s.api("PATCH", `/api/projects/${s.project.id}/talents`, { talent: "sql-base" });
    expect(one.status).toBe(200);
    expect(one.body.installed).toEqual(["sql-base"]);
    const bad = await s.api("PATCH", "/api/projects/current/talents", { talents: ["sql-migrations", "nope-1", "nope-2"] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "unknown_talents", ids: ["nope-1", "nope-2"] });
    expect((await s.owner.get(`/web/projects/${s.project.id}/installed`)).body.talents.map((t: { id: string }) => t.id)).toEqual([
      "sql-base",
    ]);
    const many = await s.api("PATCH", "/api/projects/current/talents", { talents: ["sql-migrations", "sql-base"] });
    expect(many.body).toEqual({ installed: ["sql-migrations"], prerequisites: [], alreadyInstalled: ["sql-base"] });
    const off = await s.api("PATCH", "/api/projects/current/talents", { talent: "sql-base", enabled: false });
    expect(off.body.disabled).toEqual(["sql-base"]);
    const installed = (await s.owner.get(`/web/projects/${s.project.id}/installed`)).body;
    expect(installed.talents.find((t: { id: string }) => t.id === "sql-base").state).toBe("disabled");
    // installing again never re-enables a talent someone disabled
    expect((await s.api("PATCH", "/api/projects/current/talents", { talent: "sql-base" })).body.alreadyInstalled).toEqual(["sql-base"]);
    expect((await s.api("PATCH", "/api/projects/current/talents", { talent: "react-hooks", enabled: false })).body.error).toBe(
      "unknown_talents",
    );
    const other = await setup([]);
    expect((await s.api("PATCH", `/api/projects/${other.project.id}/talents`, { talent: "sql-base" })).status).toBe(404);
    expect((await s.api("PATCH", "/api/projects/current/talents", { talent: "sql-base", talents: ["x"] })).status).toBe(400);
    expect((await s.api("PATCH", "/api/projects/current/talents", {})).status).toBe(400);
  });

  test("a header x-svc-project sent with a key is ignored", async () => {
    const a = await setup(["sql-base"]);
    const b = await setup(["typescript-strict", "javascript-base"]);
    const r = await a.api("GET", "/api/prepare-task/designable", undefined, { "x-svc-project": b.project.id });
    expect(r.body.talents.map((t: { id: string }) => t.id)).toEqual(["sql-base"]);
    const inst = await a.api("PATCH", "/api/projects/current/talents", { talent: "react-components" }, { "x-svc-project": b.project.id });
    expect(inst.status).toBe(200);
    expect((await b.owner.get(`/web/projects/${b.project.id}/installed`)).body.talents.map((t: { id: string }) => t.id)).not.toContain(
      "react-components",
    );
  });
});

describe("one install body, two routes (web POST /web/projects/:id/talents, key PATCH /api/projects/:id/talents)", () => {
  test("the same bodies are refused by both with 400 validation_failed, nothing installed", async () => {
    const s = await setup();
    const bad: unknown[] = [
      {},
      { talent: "sql-base", talents: ["sql-base"] },
      { talent: "" },
      { talent: 42 },
      { talent: "x".repeat(201) },
      { talents: [] },
      { talents: "sql-base" },
      { talents: ["sql-base", ""] },
      { talents: ["x".repeat(201)] },
      { talents: Array.from({ length: 201 }, (_, i) => `t-${i}`) },
    ];
    for (const body of bad) {
      const web = await s.owner.post(`/web/projects/${s.project.id}/talents`, body);
      const key = await s.api("PATCH", `/api/projects/${s.project.id}/talents`, body);
      const label = JSON.stringify(body).slice(0, 60);
      expect(`${label}: web ${web.status} ${web.body.error}, key ${key.status} ${key.body.error}`).toBe(
        `${label}: web 400 validation_failed, key 400 validation_failed`,
      );
    }
    expect((await s.owner.get(`/web/projects/${s.project.id}/installed`)).body.talents).toEqual([]);
  });
});

describe("web selection and the activity journal", () => {
  test("web install of a list is atomic: one unknown id → 400 unknown_talents with every unknown id, nothing written", async () => {
    const s = await setup([]);
    const r = await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["sql-base", "ghost-a", "ghost-b"] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "unknown_talents", ids: ["ghost-a", "ghost-b"] });
    expect((await s.owner.get(`/web/projects/${s.project.id}/installed`)).body.talents).toEqual([]);
  });

  test("installed view: state and missing dependencies; toggle; uninstall; unknown → 404", async () => {
    const s = await setup(["react-hooks"]);
    const v = (await s.owner.get(`/web/projects/${s.project.id}/installed`)).body;
    expect(v.talents[0]).toMatchObject({ id: "react-hooks", state: "active", missingDependencies: ["react-components"] });
    expect(v.counts).toEqual({ installed: 1, active: 1, disabled: 0, missing: 1 });
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/react-hooks`, { enabled: false })).body.state).toBe("disabled");
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/react-hooks`, { enabled: "yes" })).status).toBe(400);
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/nope`, { enabled: true })).status).toBe(404);
    expect((await s.owner.del(`/web/projects/${s.project.id}/talents/react-hooks`)).status).toBe(200);
    expect((await s.owner.del(`/web/projects/${s.project.id}/talents/react-hooks`)).status).toBe(404);
    // a malformed percent escape in the talent id → 400, not 500
    for (const r of [
      await s.owner.patch(`/web/projects/${s.project.id}/talents/%E0%A4%A`, { enabled: true }),
      await s.owner.del(`/web/projects/${s.project.id}/talents/%`),
    ]) {
      expect(`${r.status} ${r.body.error}`).toBe("400 validation_failed");
    }
  });

  test("installing never changes an existing resolution", async () => {
    const s = await setup(["typescript-strict", "javascript-base"]);
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] });
    const before = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}`);
    await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["sql-base", "react-hooks"] });
    const after = await s.api("GET", `/api/validation/playbook?resolutionId=${p.body.resolutionId}`);
    expect(after.body).toEqual(before.body);
  });

  test("every call writes a trace: kind, author (key name), via, client, talents entered/left, resolutionId, status; newest first, paged", async () => {
    const s = await setup([]);
    await s.owner.post(`/web/projects/${s.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const p = await s.api("POST", "/api/prepare-task", { talentIds: ["typescript-strict"] }, { "user-agent": "claude-code/2.1" });
    await s.api("POST", "/api/prepare-task", { talentIds: [] });
    await s.api("GET", "/api/doctor");
    await s.owner.patch(`/web/projects/${s.project.id}/talents/javascript-base`, { enabled: false });
    const t = await s.owner.get(`/web/projects/${s.project.id}/traces?limit=10`);
    expect(t.status).toBe(200);
    const kinds = t.body.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(["disable", "doctor", "prepare_task", "prepare_task", "install"]);
    const prep = t.body.events[3];
    expect(prep).toMatchObject({
      via: "api",
      author: { type: "key", id: s.key.key.id },
      client: "claude-code/2.1",
      resolutionId: p.body.resolutionId,
      status: 201,
    });
    expect(t.body.events[2].status).toBe(400);
    expect(t.body.events[0]).toMatchObject({ via: "web", author: { type: "user", name: s.owner.email }, talentsLeft: ["javascript-base"] });
    expect(t.body.events[4].talentsEntered).toEqual(["typescript-strict", "javascript-base"]);
    const page = await s.owner.get(`/web/projects/${s.project.id}/traces?limit=2`);
    const next = await s.owner.get(`/web/projects/${s.project.id}/traces?limit=2&before=${page.body.nextBefore}`);
    expect(next.body.events.map((e: { kind: string }) => e.kind)).toEqual(["prepare_task", "prepare_task"]);
    const mcp = await s.api("GET", "/api/doctor", undefined, { "x-talentd-via": "mcp", "x-talentd-client": "Cursor/1.7" });
    expect(mcp.status).toBe(200);
    const latest = (await s.owner.get(`/web/projects/${s.project.id}/traces?limit=1`)).body.events[0];
    expect(latest).toMatchObject({ kind: "doctor", via: "mcp", client: "Cursor/1.7" });
  });
});
