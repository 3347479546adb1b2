/**
 * Agent Skills folders in and out. A SKILL.md folder in TALENTS_DIR (or
 * uploaded as an expertise's content) keeps its version, has its relative links rewritten to
 * talent:// pointers that resolve, may declare triggers in metadata, and `talents lint` names
 * what it cannot map. `talentd talents export DIR [--project ID]` (a real process) writes
 * folders the Agent Skills reference validator accepts, and export → import gives the same
 * talents.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCatalog } from "../../src/catalog/catalog";
import type { Talent } from "../../src/catalog/format";
import { readTalentDir, sourcesFromFlat } from "../../src/catalog/load";
import { loadCatalog } from "../../src/catalog/startup";
import { embeddedTalents } from "../../src/embedded";
import { createLogger } from "../../src/lib/log";
import { agentSkillsProblems } from "../agent-skills-ref";
import {
  createKey,
  orgWithProject,
  publishedExpertiseOf,
  runCli,
  shipped,
  talentMd,
  tempDir,
  testEnv,
  withKey,
  writeFiles,
  type TestEnv,
} from "../helpers";

const tmp = tempDir("talentd-skills-");
afterAll(() => tmp.cleanup());
let n = 0;
const fresh = (name: string) => join(tmp.dir, `${name}-${++n}`);

/** The fields that make a talent what it serves and audits. */
const served = (t: Talent) => ({
  id: t.id,
  title: t.title,
  summary: t.summary,
  version: t.version,
  roles: t.roles,
  languages: t.languages,
  triggers: t.triggers,
  requires: t.requires,
  conflicts: t.conflicts,
  budget: t.budget,
  rules: t.rules,
  tests: t.tests,
  reviewed: t.reviewed,
  covers: t.covers,
  body: t.body,
  compact: t.compact,
  pointers: t.pointers,
  otherFiles: Object.fromEntries([...t.files.values()].filter((f) => f.path !== t.mainFile).map((f) => [f.path, f.content])),
});

/** A hand-written Agent Skills folder: version in metadata, relative links, triggers in metadata, things talentd cannot map. */
const ORDERS_SKILL = [
  "---",
  "name: orders-api",
  "description: How the orders API pages and validates. Use when a task touches src/orders or the orders endpoints.",
  "license: Apache-2.0",
  "metadata:",
  "  author: acme-platform",
  '  version: "1.2"',
  "  triggers:",
  '    files: ["src/orders/**"]',
  "    keywords: [orders, pagination]",
  "---",
  "# Orders API",
  "",
  "Page with a cursor: see [the keyset guide](references/keyset.md) and [the script](./scripts/check.sh).",
  "Shared rules: [TypeScript flags](../typescript-strict/references/strict-flags.md). Not a file: [gone](references/gone.md).",
  "",
  "```",
  "[in code](references/keyset.md)",
  "```",
  "",
].join("\n");
const ORDERS_FILES = {
  "orders-api/SKILL.md": ORDERS_SKILL,
  "orders-api/references/keyset.md": "# Keyset\n\nWHERE id > ?\n",
  "orders-api/scripts/check.sh": "#!/bin/sh\necho ok\n",
};

describe("import: a SKILL.md folder in TALENTS_DIR", () => {
  let env: TestEnv;
  let dir: string;
  beforeAll(async () => {
    dir = fresh("talents-dir");
    writeFiles(dir, ORDERS_FILES);
    const { catalog } = await loadCatalog(
      dir,
      createLogger("error", () => {}),
    );
    env = await testEnv({ TALENTS_DIR: dir }, catalog);
  });
  afterAll(() => env.close());

  test('"keeps metadata.version as its version" (1.2 → 1.2.0), "may declare triggers in metadata"; title defaults to the name', () => {
    const t = env.state.catalog!.get("orders-api")!;
    expect(t).toMatchObject({
      format: "skill",
      version: "1.2.0",
      title: "orders-api",
      triggers: { files: ["src/orders/**"], keywords: ["orders", "pagination"] },
    });
  });

  test('"relative links rewritten to talent:// pointers that resolve": each one read through POST /api/talents/get; links in code and to missing files stay as written', async () => {
    const t = env.state.catalog!.get("orders-api")!;
    expect(t.pointers).toEqual([
      "talent://orders-api/references/keyset.md",
      "talent://orders-api/scripts/check.sh",
      "talent://typescript-strict/references/strict-flags.md",
    ]);
    expect(t.body).toContain("[in code](references/keyset.md)");
    expect(t.body).toContain("[gone](references/gone.md)");
    const o = await orgWithProject(env);
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["orders-api", "typescript-strict"] });
    const key = (await createKey(o.owner, o.project.id, ["deepen", "prepare_task"])).value;
    const prepared = await (
      await withKey(env, key, "/api/prepare-task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ talentIds: ["orders-api"] }),
      })
    ).json();
    expect(prepared.talents[0].compact).toContain("(talent://orders-api/references/keyset.md)");
    for (const uri of t.pointers) {
      const r = await withKey(env, key, "/api/talents/get", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uri, resolutionId: prepared.resolutionId }),
      });
      expect(`${uri} ${r.status}`).toBe(`${uri} 200`);
    }
  });

  test('"talents lint names what it cannot map": note lines for the license, an unknown metadata key, the completed version, a dead link; exit 0', async () => {
    const r = await runCli(["talents", "lint", dir]);
    expect(r.code).toBe(0);
    const notes = r.stdout.trim().split("\n");
    const file = `${dir}/orders-api/SKILL.md`;
    expect(notes).toEqual([
      `note: ${file}: license: not mapped: kept in SKILL.md; not part of the talent talentd serves`,
      `note: ${file}: metadata.author: not mapped: no talent field of that name (kept in SKILL.md)`,
      `note: ${file}: metadata.version: read as 1.2.0`,
      `note: ${file}: body: not mapped: link "references/gone.md" names no file of this folder; left as written`,
    ]);
    expect(r.stderr).toContain("1 of 1 talent(s) valid, 0 problem(s), 4 note(s)");
  });

  test("lint: a talent field in metadata that does not decode or validate is a problem at metadata.<field> (exit 1); a top-level version is kept too", async () => {
    const bad = fresh("bad-skills");
    writeFiles(bad, {
      "broken-rules/SKILL.md": "---\nname: broken-rules\ndescription: d\nmetadata:\n  rules: '[{oops'\n---\nBody.\n",
      "short-rules/SKILL.md": `---\nname: short-rules\ndescription: d\nmetadata:\n  rules: '[{"id":"AB-001","severity":"advisory","title":"T","check":"C"}]'\n---\nBody.\n`,
      "top-version/SKILL.md": "---\nname: top-version\ndescription: d\nversion: 3.1.4\n---\nBody.\n",
    });
    const r = await runCli(["talents", "lint", bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${bad}/broken-rules/SKILL.md: metadata.rules: is not valid JSON`);
    expect(r.stdout).toContain(`${bad}/short-rules/SKILL.md: metadata.rules: needs 3 to 12 rules (has 1)`);
    expect(r.stdout).not.toContain("top-version");
    expect(r.stderr).toContain("1 of 3 talent(s) valid, 2 problem(s)");
    expect(readTalentDir(bad).sources.length).toBe(3);
    expect(buildCatalog(readTalentDir(bad).sources).catalog.get("top-version")!.version).toBe("3.1.4");
  });
});

describe("export: talentd talents export DIR", () => {
  let out: string;
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    out = fresh("export");
    run = await runCli(["talents", "export", out]);
  });

  test("writes one folder per talent of the catalog, named as the talent, and says so", () => {
    expect(run.code).toBe(0);
    const ids = shipped().list.map((t) => t.id);
    expect(readdirSync(out).sort()).toEqual(ids);
    expect(run.stdout.trim().split("\n")).toEqual(ids.map((id) => join(out, id)));
    expect(run.stderr).toContain(`${ids.length} talent(s) written to ${out} as Agent Skills folders`);
  });

  test('"folders the Agent Skills reference validator would accept" (name rules, description length, only its fields, strict YAML, metadata strings)', () => {
    const problems = readdirSync(out).flatMap((name) => agentSkillsProblems(join(out, name)).map((p) => `${name}: ${p}`));
    expect(problems).toEqual([]);
  });

  test("the validator port refuses what the reference validator refuses (so the check above can fail)", () => {
    const bad = fresh("refused");
    writeFiles(bad, {
      "Bad--Name/SKILL.md": "---\nname: Bad--Name\ndescription: ''\nextra: 1\n---\n",
      "flow/SKILL.md": "---\nname: flow\ndescription: d\nmetadata: {a: b}\n---\n",
      "nested/SKILL.md": `---\nname: other\ndescription: ${"x".repeat(1025)}\nmetadata:\n  n: 1\n---\n`,
    });
    expect(agentSkillsProblems(join(bad, "Bad--Name"))).toEqual([
      "Unexpected fields in frontmatter: extra",
      "Skill name 'Bad--Name' must be lowercase",
      "Skill name cannot contain consecutive hyphens",
      "Field 'description' must be a non-empty string",
    ]);
    expect(agentSkillsProblems(join(bad, "flow"))).toEqual(["strict YAML: a flow collection"]);
    expect(agentSkillsProblems(join(bad, "nested"))).toEqual([
      "Directory name 'nested' must match skill name 'other'",
      "Description exceeds 1024 character limit (1025 chars)",
      "Field 'metadata' must map string keys to string values",
    ]);
  });

  test('"a round trip export → import gives the same talents": the exported folder read as TALENTS_DIR gives every talent field, body, compact form and file of the catalog, with no finding and no note', async () => {
    const back = buildCatalog(readTalentDir(out).sources);
    expect(back.findings).toEqual([]);
    expect(back.notes).toEqual([]);
    const original = shipped();
    expect(back.catalog.list.map((t) => t.id)).toEqual(original.list.map((t) => t.id));
    for (const t of original.list) expect(served(back.catalog.get(t.id)!)).toEqual(served(t));
    const lint = await runCli(["talents", "lint", out]);
    expect(lint.code).toBe(0);
    expect(lint.stderr).toContain(`${original.list.length} of ${original.list.length} talent(s) valid, 0 problem(s)`);
  });

  test("a SKILL.md talent of TALENTS_DIR exports in the canonical form (a field the specification lacks moved into metadata) and comes back the same", async () => {
    const src = fresh("skill-src");
    writeFiles(src, {
      "orders-api/SKILL.md": ORDERS_SKILL.replace("license: Apache-2.0", "license: Apache-2.0\nargument-hint: '[endpoint]'"),
      "orders-api/references/keyset.md": ORDERS_FILES["orders-api/references/keyset.md"],
      "orders-api/scripts/check.sh": ORDERS_FILES["orders-api/scripts/check.sh"],
    });
    const dest = fresh("skill-out");
    const r = await runCli(["talents", "export", dest], { env: { TALENTS_DIR: src } });
    expect(r.code).toBe(0);
    expect(agentSkillsProblems(join(dest, "orders-api"))).toEqual([]);
    const text = readFileSync(join(dest, "orders-api", "SKILL.md"), "utf8");
    expect(text).toContain("  argument-hint: '[endpoint]'");
    expect(text).toContain("See [the keyset guide](references/keyset.md)".replace("See ", "Page with a cursor: see "));
    // read beside the shipped catalog (its pointer names typescript-strict), before and after
    const before = buildCatalog([...sourcesFromFlat(embeddedTalents()), ...readTalentDir(src).sources]).catalog.get("orders-api")!;
    const after = buildCatalog([...sourcesFromFlat(embeddedTalents()), ...readTalentDir(dest).sources]).catalog.get("orders-api")!;
    expect(before.format).toBe("skill");
    expect(served(after)).toEqual(served(before));
  });

  test("DIR not empty, or a file → exit 2 and nothing written; DIR missing → usage error", async () => {
    const used = fresh("used");
    mkdirSync(used);
    writeFileSync(join(used, "keep.txt"), "mine");
    const r = await runCli(["talents", "export", used]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is not empty");
    expect(readdirSync(used)).toEqual(["keep.txt"]);
    const file = join(used, "keep.txt");
    expect((await runCli(["talents", "export", file])).stderr).toContain("exists and is not a folder");
    const usage = await runCli(["talents", "export"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("talentd talents export: missing DIR");
  });
});

describe("export --project: a project's active selection, read from the local database", () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await testEnv();
  });
  afterAll(() => env.close());

  test("its enabled talents and its organization's active expertise, as the MCP Skills extension serves them; a disabled talent and another organization's expertise are not written", async () => {
    const o = await orgWithProject(env);
    const mine = await publishedExpertiseOf(
      o.owner,
      "payments",
      talentMd("payments", {}, `Refunds: [ledger](talent://@${o.org.slug}/payments/references/ledger.md).`),
      { "references/ledger.md": "# Ledger\n" },
    );
    const other = await orgWithProject(env);
    await publishedExpertiseOf(other.owner, "secret-sauce", talentMd("secret-sauce"));
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "api-pagination", mine.ref] });
    await o.owner.patch(`/web/projects/${o.project.id}/talents/api-pagination`, { enabled: false });
    const out = fresh("project");
    const r = await runCli(["talents", "export", out, "--project", o.project.id], { env: dbEnv() });
    expect(r.stderr).toContain(`2 talent(s) written to ${out} as Agent Skills folders (project ${o.project.id})`);
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["payments", "typescript-strict"]);
    for (const name of ["payments", "typescript-strict"]) expect(agentSkillsProblems(join(out, name))).toEqual([]);
    // the very bytes the extension serves
    const key = (await createKey(o.owner, o.project.id, ["deepen"])).value;
    const { skills } = await (await withKey(env, key, "/api/skills")).json();
    for (const skill of skills as { uri: string; frontmatter: { name: string }; resources: { uri: string }[] }[]) {
      for (const res of skill.resources) {
        const file = await (await withKey(env, key, `/api/skills/file?uri=${encodeURIComponent(res.uri)}`)).json();
        const rel = res.uri.slice(skill.uri.length - "SKILL.md".length);
        expect(readFileSync(join(out, skill.frontmatter.name, rel), "utf8")).toBe(file.text);
      }
    }
    expect(readFileSync(join(out, "payments", "SKILL.md"), "utf8")).toContain("Refunds: [ledger](references/ledger.md).");
  });

  /** The test's database for the command: its folder, and on PostgreSQL its URL too. */
  const dbEnv = () => ({ DATA_DIR: env.dir, ...(env.database.dialect === "postgres" ? { DATABASE_URL: env.config.databaseUrl } : {}) });

  test("an unknown project, or no database at DATA_DIR → exit 2 naming it", async () => {
    const r = await runCli(["talents", "export", fresh("x"), "--project", "prj_00000000000000000000000000"], { env: dbEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--project: no project "prj_00000000000000000000000000" in this database');
    const empty = fresh("no-db");
    mkdirSync(empty);
    const none = await runCli(["talents", "export", fresh("y"), "--project", "prj_x"], { env: { DATA_DIR: empty } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no database at");
    expect(existsSync(join(empty, "talentd.db"))).toBe(false);
    expect((await runCli(["talents", "export", fresh("z"), "--project"])).code).toBe(2);
  });
});

describe('"expertise authoring accepts a SKILL.md folder"', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await testEnv();
  });
  afterAll(() => env.close());

  test("SKILL.md as content and its files: verified, triggers proposed from metadata, published, served by prepare-task with its links as pointers that resolve, audited by its rules", async () => {
    const o = await orgWithProject(env);
    const rules = JSON.stringify([
      { id: "PAY-001", severity: "blocking", title: "Post refunds to the ledger.", check: "A refund that skips ledger.post." },
      { id: "PAY-002", severity: "advisory", title: "Name the reason.", check: "A refund without a reason." },
      { id: "PAY-003", severity: "advisory", title: "Log the refund id.", check: "No log line." },
    ]);
    const tests = JSON.stringify([{ rule: "PAY-001", pass: "ledger.post(refund)", fail: "db.insert(refund)" }]);
    const content = [
      "---",
      "name: refunds",
      "description: How refunds are written. Use when touching src/payments.",
      "metadata:",
      "  version: '2.0.0'",
      "  title: 'Refunds'",
      `  triggers: '{"files":["src/payments/**"],"keywords":["refund"]}'`,
      `  rules: '${rules}'`,
      `  tests: '${tests}'`,
      "---",
      "Every refund goes through [the ledger](references/ledger.md).",
      "",
    ].join("\n");
    const base = "/web/orgs/current/expertises";
    const created = await o.owner.post(base, { slug: "refunds", content, files: { "references/ledger.md": "# Ledger\n\nPost twice.\n" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Refunds", summary: "How refunds are written. Use when touching src/payments." });
    expect(created.body.verification).toMatchObject({ valid: true, issues: [] });
    const proposal = await o.owner.post(`${base}/${created.body.id}/trigger-proposal`);
    expect(proposal.body.files[0]).toMatchObject({ value: "src/payments/**" });
    expect(proposal.body.keywords.map((k: { value: string }) => k.value)).toContain("refund");
    for (const [method, path, body] of [
      ["PUT", `${base}/${created.body.id}/triggers`, { files: ["src/payments/**"], keywords: ["refund"] }],
      ["POST", `${base}/${created.body.id}/publish`, {}],
      ["POST", `${base}/${created.body.id}/activate`, {}],
    ] as const) {
      expect((await o.owner.json(method, path, body)).status).toBe(200);
    }
    const ref = `@${o.org.slug}/refunds`;
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [ref] });
    const key = (await createKey(o.owner, o.project.id, ["prepare_task", "deepen", "validate"])).value;
    const post = (path: string, body: unknown) =>
      withKey(env, key, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const prepared = await (await post("/api/prepare-task", { talentIds: [ref] })).json();
    const compact = prepared.talents[0].compact as string;
    expect(compact).toContain("- [PAY-001] (blocking) Post refunds to the ledger.");
    expect(compact).toContain(`(talent://${ref}/references/ledger.md)`);
    const read = await (
      await post("/api/talents/get", { uri: `talent://${ref}/references/ledger.md`, resolutionId: prepared.resolutionId })
    ).json();
    expect(read.files[0].content).toBe("# Ledger\n\nPost twice.\n");
    const playbook = await (
      await withKey(env, key, `/api/validation/playbook?resolutionId=${prepared.resolutionId}&talent=${encodeURIComponent(ref)}`)
    ).json();
    expect(playbook.detail.rules.map((r: { id: string }) => r.id)).toEqual(["PAY-001", "PAY-002", "PAY-003"]);
    expect(playbook.detail.tests).toEqual([{ rule: "PAY-001", pass: "ledger.post(refund)", fail: "db.insert(refund)" }]);
    // as a skill: at its published version (the publication number), with its confirmed triggers, its link relative
    const { skills } = await (await withKey(env, key, "/api/skills")).json();
    expect(skills.map((k: { uri: string }) => k.uri)).toEqual([`skill://~${o.org.slug}/refunds/SKILL.md`]);
    expect(skills[0].frontmatter).toMatchObject({
      name: "refunds",
      metadata: { version: "1", title: "Refunds", triggers: '{"files":["src/payments/**"],"keywords":["refund"]}' },
    });
    const skillMd = await (await withKey(env, key, `/api/skills/file?uri=${encodeURIComponent(skills[0].uri)}`)).json();
    expect(skillMd.text).toEndWith("\nEvery refund goes through [the ledger](references/ledger.md).\n");
  });

  test("a SKILL.md content whose name is not the slug, or whose metadata does not validate, is not publishable (verification names the field)", async () => {
    const o = await orgWithProject(env);
    const created = await o.owner.post("/web/orgs/current/expertises", {
      slug: "refunds",
      content: "---\nname: other\ndescription: d\nmetadata:\n  budget: 'lots'\n---\nBody.\n",
    });
    expect(created.status).toBe(201);
    expect(created.body.verification.valid).toBe(false);
    expect(created.body.verification.issues.map((i: { path: string }) => i.path)).toEqual([
      `@${o.org.slug}/refunds/SKILL.md: metadata.budget`,
      `@${o.org.slug}/refunds/SKILL.md: name`,
    ]);
  });
});
