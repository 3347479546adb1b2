/**
 * `talentd import PATH…` against a real server on 127.0.0.1, through the real CLI: rule files read
 * in a git repository are sent with their paths from its root and become drafts of the key's
 * organization (a key with the import scope); refusals are one line, exit 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitRepo, removeRepos, talentd } from "../client-support";
import { SAMPLES } from "../fixtures/rule-files";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

function write(repo: string, files: { path: string; content: string }[]): void {
  for (const f of files) {
    mkdirSync(dirname(join(repo, f.path)), { recursive: true });
    writeFileSync(join(repo, f.path), f.content);
  }
}

describe("talentd import", () => {
  test("files from a subfolder are sent with their paths from the repository root: drafts with rules, triggers and the editor's URL", async () => {
    const p = await clientProject(live, [], ["import"]);
    const repo = gitRepo();
    write(repo, [SAMPLES.mdc, SAMPLES.copilotPath]);
    const r = await talentd(["import", ".cursor/rules/react-components.mdc"], join(repo, "web"), p.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`@${p.org.slug}/web-react-components  2 rules  web/src/components/**/*.tsx, web/src/hooks/*.ts`);
    expect(r.stdout).toMatch(new RegExp(`${live.base}/org/expertises/exp_\\w+`));
    expect(r.stdout).toContain("1 draft imported");
    const j = await talentd(["import", "--json", ".github/instructions/typescript.instructions.md"], repo, p.env);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout).drafts[0]).toMatchObject({
      slug: "typescript",
      triggers: { files: ["**/*.ts", "**/*.tsx"] },
      status: "draft",
    });
  });

  test("refusals: a missing file, a file over 128 KiB, a key without the import scope, a refused text (its issue named): exit 2, one line", async () => {
    const p = await clientProject(live, [], ["import"]);
    const repo = gitRepo();
    write(repo, [
      { path: "AGENTS.md", content: "- Use x.\n".repeat(20_000) },
      { path: "CLAUDE.md", content: "# X\n- Use\u202e strict mode.\n" },
    ]);
    const missing = await talentd(["import", "NOPE.md"], repo, p.env);
    expect([missing.code, missing.stderr.trim()]).toEqual([2, "talentd: import: cannot read NOPE.md: no such file"]);
    const big = await talentd(["import", "AGENTS.md"], repo, p.env);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain("AGENTS.md is too large (180000 bytes > 131072");
    const refused = await talentd(["import", "CLAUDE.md"], repo, p.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("400 validation_failed");
    expect(refused.stderr).toContain("files[0].content: CLAUDE.md: line 2");
    const other = await clientProject(live, [], ["prepare_task"]);
    const scope = await talentd(["import", "CLAUDE.md"], repo, other.env);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("lacks the scope import");
    const usage = await talentd(["import"], repo, p.env);
    expect(usage.code).toBe(2);
  });
});
