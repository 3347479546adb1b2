/**
 * The claims a resolution signs over its playbook are taken when it is frozen, from the parse the
 * playbook serves: every talent of the shipped catalog, and an Agent Skills SKILL.md talent of
 * TALENTS_DIR with a detector, is prepared, and each prepare-task answer, playbook with detectors
 * and talent detail verifies as it was served (a claim computed otherwise would refuse an
 * untampered answer).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadCatalog } from "../../src/catalog/startup";
import { verifyAnswer } from "../../src/client/verify";
import { createLogger } from "../../src/lib/log";
import { createKey, orgWithProject, publishedExpertiseOf, talentMd, tempDir, testEnv, withKey, writeFiles, type TestEnv } from "../helpers";

const RULES = [
  {
    id: "LOG-001",
    severity: "blocking",
    title: "No console.log in shipped code.",
    check: "Look for console.log.",
    detect: [{ pattern: "console\\.log\\(" }],
  },
  { id: "LOG-002", severity: "advisory", title: "Log with the request id.", check: "Look for log lines without requestId." },
  { id: "LOG-003", severity: "advisory", title: "No secrets in logs.", check: "Look for tokens in log lines." },
];
const TESTS = [{ rule: "LOG-001", pass: "logger.info(x)", fail: "console.log(x)" }];
const SKILL = [
  "---",
  "name: logging-skill",
  "description: How services log. Use when a task touches logging in src/.",
  "metadata:",
  '  version: "1.0"',
  "  triggers:",
  '    files: ["src/**/*.ts"]',
  "    keywords: [logging]",
  `  rules: '${JSON.stringify(RULES)}'`,
  `  tests: '${JSON.stringify(TESTS)}'`,
  "---",
  "# Logging",
  "",
  "Log through the logger.",
  "",
].join("\n");

const tmp = tempDir("talentd-verify-catalog-");
let env: TestEnv;
beforeAll(async () => {
  writeFiles(tmp.dir, { "logging-skill/SKILL.md": SKILL });
  const { catalog } = await loadCatalog(
    tmp.dir,
    createLogger("error", () => {}),
  );
  env = await testEnv({ TALENTS_DIR: tmp.dir }, catalog);
});
afterAll(() => {
  env.close();
  tmp.cleanup();
});

test("every shipped talent and a SKILL.md talent with a detector: the prepare-task answers, playbooks and details verify untampered", async () => {
  const catalog = env.state.catalog!;
  expect(catalog.broken).toEqual([]);
  expect(catalog.get("logging-skill")).toMatchObject({ format: "skill", mainFile: "SKILL.md" });
  const ids = catalog.list.map((t) => t.id);
  const o = await orgWithProject(env);
  for (const id of ids) await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [id] }); // a conflicting one stays out
  // an expertise whose detector applies to the triggers confirmed at publication (src/payments/**), not its TALENT.md's
  const rules = `
  - { id: AB-001, severity: blocking, title: Do the first thing., check: Look for it., detect: [{ pattern: "bad\\\\(" }] }
  - { id: AB-002, severity: advisory, title: Do the second thing., check: Look for it. }
  - { id: AB-003, severity: advisory, title: Do the third thing., check: Look for it. }`;
  const { ref } = await publishedExpertiseOf(o.owner, "ledger", talentMd("ledger", { rules }));
  expect((await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [ref] })).status).toBe(201);
  const key = (await createKey(o.owner, o.project.id, ["prepare_task", "validate"])).value;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await withKey(env, key, path, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(r.status).toBeLessThan(300);
    return r.json() as Promise<any>;
  };
  const jwks = await (await env.request("/.well-known/jwks.json")).json();
  const active = (await api("GET", "/api/prepare-task/designable")).talents.map((t: { id: string }) => t.id) as string[];
  expect(active).toContain("logging-skill");
  expect(active).toContain(ref);
  expect(active.length).toBeGreaterThan(60);
  const failures: string[] = [];
  const check = (what: string, answer: unknown) => {
    const v = verifyAnswer(JSON.stringify(answer), jwks);
    if (!v.ok) failures.push(`${what}: ${v.line}`);
  };
  for (let i = 0; i < active.length; i += 25) {
    const prepared = await api("POST", "/api/prepare-task", { talentIds: active.slice(i, i + 25) });
    check(`prepare ${i}`, prepared);
    const rid = prepared.resolutionId;
    check(`playbook ${i}`, await api("GET", `/api/validation/playbook?resolutionId=${rid}&include=detectors`));
    check(`plain playbook ${i}`, await api("GET", `/api/validation/playbook?resolutionId=${rid}`));
    for (const id of active.slice(i, i + 25).filter((id, j) => j % 5 === 0 || id === "logging-skill" || id === ref))
      check(
        `detail ${id}`,
        await api("GET", `/api/validation/playbook?resolutionId=${rid}&talent=${encodeURIComponent(id)}&include=detectors`),
      );
  }
  const own = await api("POST", "/api/prepare-task", { talentIds: [ref] });
  const playbook = await api("GET", `/api/validation/playbook?resolutionId=${own.resolutionId}&include=detectors`);
  expect(playbook.obligations[0].rules[0].detect[0].files).toEqual(["src/payments/**"]);
  check("the expertise's playbook", playbook);
  expect(failures).toEqual([]);
}, 120_000);
