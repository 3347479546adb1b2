import { afterAll, describe, expect, test } from "bun:test";
import { runCli, talentMd, tempDir, writeFiles } from "../helpers";
import { formatFinding } from "../../src/catalog/format";
import { patternProblem } from "../../src/catalog/detect";
import { validateTalent } from "../../src/catalog/validate";

const RULES = (detect: string) => `
  - id: AB-001
    severity: blocking
    title: Do not call bad().
    check: Look for bad() calls.
${detect}
  - id: AB-002
    severity: advisory
    title: Do the second thing.
    check: Look for the second thing.
  - id: AB-003
    severity: advisory
    title: Do the third thing.
    check: Look for the third thing.`;

function validate(detect: string, tests?: string) {
  const text = talentMd("detecting", { rules: RULES(detect), ...(tests !== undefined ? { tests } : {}) });
  return validateTalent({ folder: "detecting", files: { "TALENT.md": text }, label: (p) => `talents/detecting/${p}` });
}
const lines = (r: ReturnType<typeof validate>) => r.findings.map(formatFinding);

describe("rule detectors in TALENT.md (docs/talent-format.md 'Detectors': `detect: [{files, pattern, flags?}]`)", () => {
  test("a detector proven by its conformance test (fail sample matches, pass sample does not) is kept on the rule", () => {
    const r = validate(
      `    detect:\n      - pattern: '\\bbad\\('\n        files: ["src/**/*.ts", "!src/generated/**"]\n      - pattern: 'BAD\\('\n        flags: i`,
    );
    expect(lines(r)).toEqual([]);
    expect(r.talent!.rules[0]!.detect).toEqual([
      { pattern: "\\bbad\\(", files: ["src/**/*.ts", "!src/generated/**"] },
      { pattern: "BAD\\(", flags: "i" },
    ]);
    expect(r.talent!.rules[1]!.detect).toBeUndefined();
  });

  test("an invalid regular expression is a lint error naming the file and the rule", () => {
    expect(lines(validate(`    detect:\n      - pattern: 'bad\\(('`))).toEqual([
      "talents/detecting/TALENT.md: rules[AB-001].detect[0].pattern: invalid regular expression: missing )",
    ]);
  });

  test("each fail sample must match: a detector that misses the test's violation is reported", () => {
    expect(lines(validate(`    detect:\n      - pattern: 'worse\\('`))).toEqual([
      "talents/detecting/TALENT.md: rules[AB-001].detect: tests[0] fail sample is matched by no detector: the detector misses what the test calls a violation",
    ]);
  });

  test("each pass sample must not match: a detector that flags the conforming sample is reported with the line", () => {
    expect(lines(validate(`    detect:\n      - pattern: '\\(\\)'`))).toEqual([
      'talents/detecting/TALENT.md: rules[AB-001].detect: tests[0] pass sample matches at line 1 ("good()"): the detector flags what the test calls conforming',
    ]);
  });

  test("every test of the rule is run, multi-line samples line by line", () => {
    const tests = `
  - rule: AB-001
    pass: "good()"
    fail: "bad()"
  - rule: AB-001
    pass: |
      fine();
      also_fine();
    fail: |
      fine();
      bad(1);`;
    expect(lines(validate(`    detect:\n      - pattern: '^bad\\(\\)$'`, tests))).toEqual([
      "talents/detecting/TALENT.md: rules[AB-001].detect: tests[1] fail sample is matched by no detector: the detector misses what the test calls a violation",
    ]);
    expect(lines(validate(`    detect:\n      - pattern: '^bad\\('`, tests))).toEqual([]);
  });

  test("a detector with no conformance test of its rule is refused: nothing proves it", () => {
    const rules = RULES("").replace(
      "check: Look for the second thing.",
      "check: Look for the second thing.\n    detect:\n      - pattern: 'second'",
    );
    const text = talentMd("detecting", { rules });
    const r = validateTalent({ folder: "detecting", files: { "TALENT.md": text }, label: (p) => `talents/detecting/${p}` });
    expect(r.findings.map(formatFinding)).toEqual([
      "talents/detecting/TALENT.md: rules[AB-002].detect: needs a conformance test of AB-002 to prove it (its fail sample must match, its pass sample must not)",
    ]);
  });

  test("malformed detectors: nested unbounded quantifiers, stateful or unknown flags, unknown fields, only exclusions, bad globs, empty-matching patterns, not a list", () => {
    const cases: [string, string][] = [
      [
        `      - pattern: '(b+a*)+d'`,
        "rules[AB-001].detect[0].pattern: a repeated group holds an unbounded quantifier (like (a+)+): it can backtrack for ever; bound or flatten it",
      ],
      [`      - pattern: 'bad'\n        flags: g`, 'rules[AB-001].detect[0].flags: must be any of i, u (got "g")'],
      [`      - pattern: 'bad'\n        flag: i`, "rules[AB-001].detect[0].flag: unknown field"],
      [
        `      - pattern: 'bad'\n        files: ["!src/**"]`,
        "rules[AB-001].detect[0].files: needs at least one glob that is not an exclusion (!)",
      ],
      [`      - pattern: 'bad'\n        files: ["../x/**"]`, 'rules[AB-001].detect[0].files: "../x/**" must not contain ..'],
      [`      - pattern: 'x*'`, "rules[AB-001].detect[0].pattern: matches an empty line: it would flag every added line"],
      [`      - files: ["**"]`, "rules[AB-001].detect[0].pattern: missing (a regular expression; write it in single quotes in YAML)"],
    ];
    for (const [detect, line] of cases) {
      expect(lines(validate(`    detect:\n${detect}`))).toContain(`talents/detecting/TALENT.md: ${line}`);
    }
    expect(lines(validate(`    detect: 'bad'`))).toEqual([
      "talents/detecting/TALENT.md: rules[AB-001].detect: must be a non-empty list of {pattern, files?, flags?}",
    ]);
  });

  test("scan and unless: validated, kept on the detector; the proof reads samples in context (comments skipped unless scanned)", () => {
    const ok = validate(
      `    detect:\n      - pattern: '\\bbad\\((\\w*)'\n        files: ["src/**/*.ts"]\n        scan: [tests, comments]\n        unless: 'allow\\($1\\)'`,
    );
    expect(lines(ok)).toEqual([]);
    expect(ok.talent!.rules[0]!.detect).toEqual([
      { pattern: "\\bbad\\((\\w*)", files: ["src/**/*.ts"], scan: ["tests", "comments"], unless: "allow\\($1\\)" },
    ]);
    expect(lines(validate(`    detect:\n      - pattern: 'bad'\n        scan: [tests, prose]\n        unless: '('`))).toEqual([
      "talents/detecting/TALENT.md: rules[AB-001].detect[0].scan: must be a non-empty list of tests, e2e, examples, docs, fixtures, generated, vendored, comments, file",
      "talents/detecting/TALENT.md: rules[AB-001].detect[0].unless: invalid regular expression: missing )",
    ]);
    // a fail sample that is a comment proves nothing unless the detector scans comments
    const commentTests = `\n  - rule: AB-001\n    pass: "good()"\n    fail: "// bad()"`;
    expect(lines(validate(`    detect:\n      - pattern: 'bad\\('\n        files: ["src/**/*.ts"]`, commentTests))).toEqual([
      "talents/detecting/TALENT.md: rules[AB-001].detect: tests[0] fail sample is matched by no detector: the detector misses what the test calls a violation",
    ]);
    expect(
      lines(validate(`    detect:\n      - pattern: 'bad\\('\n        files: ["src/**/*.ts"]\n        scan: [comments]`, commentTests)),
    ).toEqual([]);
  });

  test("a detector whose files name a path kind detectors skip (tests, e2e, docs…) without scan naming it is refused", () => {
    expect(lines(validate(`    detect:\n      - pattern: 'bad\\('\n        files: ["src/**/*.ts", "**/*.test.ts"]`))).toEqual([
      'talents/detecting/TALENT.md: rules[AB-001].detect[0].files: "**/*.test.ts" names tests files, which detectors skip: add scan: [tests] or drop the glob',
    ]);
    expect(lines(validate(`    detect:\n      - pattern: 'bad\\('\n        files: ["**/*.test.ts"]\n        scan: [tests]`))).toEqual([]);
  });

  test("patternProblem: the check the client relies on", () => {
    expect(patternProblem("(a|b)+c")).toBeNull();
    expect(patternProblem("\\(+x")).toBeNull();
    expect(patternProblem("[(]+(x)+")).toBeNull();
    expect(patternProblem("(x{2,})*y")).not.toBeNull();
  });
});

describe("`talentd talents lint` runs every rule's conformance tests through its detectors", () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);
  test("an invalid regex and a disagreeing detector: exit 1, one `file: field: problem` line each", async () => {
    writeFiles(dir, {
      "broken-regex/TALENT.md": talentMd("broken-regex", { rules: RULES(`    detect:\n      - pattern: '[bad'`) }),
      "disagrees/TALENT.md": talentMd("disagrees", { rules: RULES(`    detect:\n      - pattern: 'good'`) }),
      "fine/TALENT.md": talentMd("fine", { rules: RULES(`    detect:\n      - pattern: '\\bbad\\('`) }),
    });
    const r = await runCli(["talents", "lint", dir]);
    expect(r.code).toBe(1);
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => l.replace(dir, "DIR"));
    expect(out).toEqual([
      "DIR/broken-regex/TALENT.md: rules[AB-001].detect[0].pattern: invalid regular expression: missing terminating ] for character class",
      "DIR/disagrees/TALENT.md: rules[AB-001].detect: tests[0] fail sample is matched by no detector: the detector misses what the test calls a violation",
      'DIR/disagrees/TALENT.md: rules[AB-001].detect: tests[0] pass sample matches at line 1 ("good()"): the detector flags what the test calls conforming',
    ]);
    expect(r.stderr).toContain("1 of 3 talent(s) valid, 3 problem(s)");
  });
});
