import { describe, expect, test } from "bun:test";
import { hookScript } from "../../src/client/hooks";
import { serverOptions } from "../../src/client/api";
import { runDetectors, type ServedObligation } from "../../src/client/check";
import { designate, globMatcher } from "../../src/client/match";
import { parseUnifiedDiff, unquote } from "../../src/client/git";

const rule = (id: string, severity: "blocking" | "advisory", detect: { pattern: string; flags?: string; files?: string[] }[]) => ({
  id,
  severity,
  title: `title of ${id}`,
  detect: detect.map((d) => ({ files: d.files ?? ["**"], pattern: d.pattern, ...(d.flags ? { flags: d.flags } : {}) })),
});

describe("talentd check's engine: detectors over added lines", () => {
  test("patterns screened together find exactly what each finds alone: flags kept apart, backreferences and named groups tested on their own, files globs with exclusions", () => {
    const obligations: ServedObligation[] = [
      {
        id: "t",
        kind: "talent",
        version: "1",
        rules: [
          rule("AA-001", "blocking", [{ pattern: "\\bbad\\(" }]),
          rule("AA-002", "advisory", [{ pattern: "SHOUT", flags: "i" }]),
          rule("AA-003", "blocking", [{ pattern: "(\\w)\\1\\1" }]), // a backreference: its own group number
          rule("AA-004", "blocking", [{ pattern: "(?<q>['\"]).*\\k<q>", files: ["src/**", "!src/gen/**"] }]),
          rule("AA-005", "advisory", [{ pattern: "^\\s*TODO" }]),
          { id: "AA-006", severity: "blocking", title: "no detector" },
        ],
      },
    ];
    const files = [
      {
        path: "src/a.ts",
        lines: [
          { line: 1, text: "bad(1)" },
          { line: 2, text: "say shout" },
          { line: 3, text: "zzz" },
          { line: 4, text: "x = 'q'" },
          { line: 5, text: "  TODO later" },
          { line: 6, text: "fine" },
        ],
      },
      {
        path: "src/gen/b.ts",
        lines: [
          { line: 9, text: "x = 'q'" },
          { line: 10, text: "bad() // talentd-ignore AA-001 generated" },
        ],
      },
    ];
    const r = runDetectors(obligations, files);
    expect(r.findings.map((f) => `${f.file}:${f.line} ${f.rule} ${f.severity}`)).toEqual([
      "src/a.ts:1 AA-001 blocking",
      "src/a.ts:2 AA-002 advisory",
      "src/a.ts:3 AA-003 blocking",
      "src/a.ts:4 AA-004 blocking",
      "src/a.ts:5 AA-005 advisory",
    ]);
    expect(r.rulesWithDetectors).toBe(5);
    expect(r.skipped).toEqual([]);
  });

  test("a served detector that cannot run here is skipped with a line, never a crash or a hang", () => {
    const r = runDetectors(
      [
        {
          id: "t",
          kind: "talent",
          version: "1",
          rules: [rule("BB-001", "blocking", [{ pattern: "(a+)+$" }, { pattern: "ok(" }, { pattern: "fine" }])],
        },
      ],
      [{ path: "x", lines: [{ line: 1, text: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab fine" }] }],
    );
    expect(r.skipped.map((s) => s.split(":")[0])).toEqual(["t BB-001 detect[0]", "t BB-001 detect[1]"]);
    expect(r.findings.map((f) => f.rule)).toEqual(["BB-001"]);
  });
});

describe("globs and designation (picomatch, dot files, ! exclusions)", () => {
  test("`**`, braces, dot folders, root-anchored names; the first matching glob is the reason", () => {
    const m = globMatcher(["**/*.{ts,js}", "Dockerfile", "!**/vendor/**"]);
    expect(m("src/deep/x.ts")).toBe("**/*.{ts,js}");
    expect(m(".github/scripts/x.js")).toBe("**/*.{ts,js}");
    expect(m("Dockerfile")).toBe("Dockerfile");
    expect(m("app/Dockerfile")).toBeNull();
    expect(m("lib/vendor/x.ts")).toBeNull();
    expect(
      designate(
        [{ id: "a", triggers: { files: ["**/*.py"] } }, { id: "b" }, { id: "c", triggers: { files: ["src/**"] } }],
        ["src/x.ts"],
        ["b", "c"],
      ),
    ).toEqual([
      { id: "c", because: { path: "src/x.ts", glob: "src/**" } },
      { id: "b", because: "--talent" },
    ]);
  });

  test("designation by language: the path's language among the talent's languages, after its globs; not for vendored, generated or fixture paths", () => {
    const talents = [
      { id: "ts", languages: ["javascript", "typescript"], triggers: { files: ["**/services/**"] } },
      { id: "py", languages: ["python"] },
      { id: "docker", languages: ["dockerfile"] },
      { id: "neutral", languages: [] },
    ];
    expect(designate(talents, ["lib/deep/x.ts", "tools/run.py"], [])).toEqual([
      { id: "ts", because: { path: "lib/deep/x.ts", language: "typescript" } },
      { id: "py", because: { path: "tools/run.py", language: "python" } },
    ]);
    expect(designate(talents, ["src/services/a.ts"], [])).toEqual([
      { id: "ts", because: { path: "src/services/a.ts", glob: "**/services/**" } },
    ]);
    expect(designate(talents, ["deploy/Dockerfile", "test/api.test.ts"], []).map((d) => d.id)).toEqual(["ts", "docker"]);
    expect(designate(talents, ["vendor/x.ts", "src/gen/a.pb.go", "dist/app.js", "test/fixtures/f.py", "notes.txt"], [])).toEqual([]);
  });
});

describe("the unified diff reader", () => {
  test("added lines with their numbers; an added line that reads like a header stays a line; deleted files add nothing; quoted paths", () => {
    const diff = [
      "diff --git a/a.ts b/a.ts",
      "index 1..2 100644",
      "--- a/a.ts",
      "+++ b/a.ts",
      "@@ -1,0 +2,2 @@",
      "+++ not a header",
      "+second",
      "@@ -10 +12 @@",
      "-old",
      "+new",
      "diff --git a/gone.ts b/gone.ts",
      "deleted file mode 100644",
      "--- a/gone.ts",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-x",
      'diff --git "a/sp\\303\\251 \\"q\\".ts" "b/sp\\303\\251 \\"q\\".ts"',
      "new file mode 100644",
      "--- /dev/null",
      '+++ "b/sp\\303\\251 \\"q\\".ts"',
      "@@ -0,0 +1 @@",
      "+hello",
      "\\ No newline at end of file",
    ].join("\n");
    expect(parseUnifiedDiff(diff)).toEqual([
      {
        path: "a.ts",
        lines: [
          { line: 2, text: "++ not a header" },
          { line: 3, text: "second" },
          { line: 12, text: "new" },
        ],
      },
      { path: 'spé "q".ts', lines: [{ line: 1, text: "hello" }] },
    ]);
    expect(unquote("plain/path.ts")).toBe("plain/path.ts");
  });
});

describe("the run's tag", () => {
  test("a check the hook runs is a hook run (the Activity tab's `talentd hook`); the same flags by hand are a hand-run check", () => {
    const env = { TALENTD_URL: "http://127.0.0.1:1", TALENTD_KEY: "k" };
    for (const flag of ["staged", "pre-push", "commit-msg"]) {
      expect(serverOptions({ [flag]: "x" }, { ...env, TALENTD_RUN: "hook" }, "check").run).toBe("hook");
      expect(serverOptions({ [flag]: "x" }, env, "check").run).toBe("check");
    }
    // a hook written before the script set TALENTD_RUN: git's GIT_INDEX_FILE marks the commit hooks
    expect(serverOptions({ staged: true }, { ...env, GIT_INDEX_FILE: ".git/index" }, "check").run).toBe("hook");
    expect(serverOptions({}, env, "check").run).toBe("check");
    expect(serverOptions({ staged: true }, { ...env, CI: "true" }, "check").run).toBe("ci");
  });

  test("the hook script tells the check it is the hook (TALENTD_RUN=hook)", () => {
    for (const hook of ["pre-commit", "pre-push", "commit-msg"] as const)
      expect(hookScript(hook, ["/usr/bin/talentd"])).toContain("TALENTD_RUN=hook\nexport TALENTD_RUN\n");
  });

  test("TALENTD_URL set to a project's MCP URL is refused with the server's own URL to use instead", () => {
    for (const [url, base] of [
      ["http://127.0.0.1:8787/mcp/prj_01J0000000000000000000000", "http://127.0.0.1:8787"],
      ["https://talentd.example.com/mcp", "https://talentd.example.com"],
      ["https://example.com/talentd/mcp/prj_x/", "https://example.com/talentd"],
    ] as const) {
      expect(() => serverOptions({}, { TALENTD_URL: url, TALENTD_KEY: "k" })).toThrow(
        `is an MCP URL, for agents; the talentd client needs the server's own URL: ${base}`,
      );
    }
    expect(serverOptions({}, { TALENTD_URL: "https://example.com/mcpserver", TALENTD_KEY: "k" }).url).toBe("https://example.com/mcpserver");
  });
});
