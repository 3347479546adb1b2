/**
 * The precision harness (bench/precision, docs/precision.md) counts right: on a tiny generated
 * repository, the replay of `check --base C^` finds each commit's findings once, counts a commit
 * blocked only for a blocking finding, leaves the root commit out, and joins labels.tsv by
 * repository, commit, path, line and rule.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { blockedBy, labelKey, precision, readLabels, replay, stackTalents, tally } from "../../bench/precision/replay";
import { talentMd, tempDir, writeFiles } from "../helpers";

const tmp = tempDir("talentd-precision-");
afterAll(() => tmp.cleanup());

function git(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString().trim();
}

function commit(repo: string, files: Record<string, string>, message: string): string {
  writeFiles(repo, files);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

describe("precision harness: replays check --base C^ over first-parent history and counts per rule", () => {
  test("findings per rule, commits blocked only by findings of a rule whose blocks is earned, the root commit left out, labels joined", () => {
    const talents = join(tmp.dir, "talents");
    const rules = `
  - id: AB-001
    severity: blocking
    blocks: true
    measured: { findings: 20, precision: 0.9, commits: 50 }
    title: No bad calls.
    check: Look for bad().
    detect:
      - pattern: '\\bbad\\('
  - id: AB-002
    severity: advisory
    title: No meh calls.
    check: Look for meh().
    detect:
      - pattern: '\\bmeh\\('
  - id: AB-003
    severity: advisory
    title: Name things well.
    check: Look for names.`;
    const tests = `
  - rule: AB-001
    pass: "good()"
    fail: "bad()"
  - rule: AB-002
    pass: "good()"
    fail: "meh()"`;
    writeFiles(talents, {
      "ab-talent/TALENT.md": talentMd("ab-talent", { rules, tests }),
      "other-talent/TALENT.md": talentMd("other-talent", { rules: rules.replace(/AB-/g, "OT-"), tests: tests.replace(/AB-/g, "OT-") }),
      "_specializations/ab.yaml": 'name: "AB"\ndescription: "Only ab."\ntalents: [ab-talent]\n',
    });
    const stack = stackTalents(talents, ["ab"]);
    expect(stack.map((t) => t.id)).toEqual(["ab-talent"]);

    const repo = join(tmp.dir, "repo");
    mkdirSync(repo, { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    git(repo, "config", "user.email", "t@example.com");
    git(repo, "config", "user.name", "T");
    commit(repo, { "src/root.ts": "bad();\n" }, "root: left out, it has no parent");
    const c2 = commit(repo, { "src/a.ts": "bad();\nmeh();\nbad(); meh();\n" }, "two blocking, two advisory");
    const c3 = commit(repo, { "src/b.ts": "meh();\n", "README.md": "bad()\n" }, "advisory only; README is not a trigger");
    commit(repo, { "src/c.ts": "good();\n" }, "clean");

    const r = replay("t/repo", join(repo, ".git"), stack, 10);
    expect(r.commits).toBe(3);
    expect(r.blocked).toBe(1);
    // the rules that block and the commits each blocks (two findings of AB-001 in one commit: 1)
    expect(blockedBy(r.findings)).toBe("AB-001 1");
    expect(r.findings.map((f) => [f.commit === c2 ? "c2" : f.commit === c3 ? "c3" : "?", f.file, f.line, f.rule])).toEqual([
      ["c3", "src/b.ts", 1, "AB-002"],
      ["c2", "src/a.ts", 1, "AB-001"],
      ["c2", "src/a.ts", 2, "AB-002"],
      ["c2", "src/a.ts", 3, "AB-001"],
      ["c2", "src/a.ts", 3, "AB-002"],
    ]);

    const file = join(tmp.dir, "labels.tsv");
    writeFileSync(
      file,
      [
        "# repo commit path line rule label why",
        `${labelKey("t/repo", c2, "src/a.ts", 1, "AB-001")}\ttrue\ta bad call`,
        `${labelKey("t/repo", c2, "src/a.ts", 3, "AB-001")}\tfalse\tsay it was fine`,
        `${labelKey("t/repo", c3, "src/b.ts", 1, "AB-002")}\tdebatable\tmaybe`,
        `${labelKey("t/repo", c3, "src/b.ts", 9, "AB-002")}\ttrue\tno such finding: counts nowhere`,
        "t/repo\tnot-a-label-line",
      ].join("\n"),
    );
    // both rules ran on the commits with a src/ file (c2, c3, the clean one); README designates nothing
    expect(r.ran).toEqual(
      new Map([
        ["AB-001", 3],
        ["AB-002", 3],
      ]),
    );
    const rows = tally(r.findings, readLabels(file), r.ran);
    expect(rows).toEqual([
      { rule: "AB-002", severity: "advisory", ran: 3, findings: 3, commits: 2, labelled: { true: 0, false: 0, debatable: 1 } },
      { rule: "AB-001", severity: "blocking", ran: 3, findings: 2, commits: 1, labelled: { true: 1, false: 1, debatable: 0 } },
    ]);
    expect(rows.map(precision)).toEqual([0, 0.5]);
  });
});
