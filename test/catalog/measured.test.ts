/**
 * A detector blocks only where earned (docs/talent-format.md "Detectors", docs/precision.md): a
 * rule's `blocks: true` needs its figure measured on real history, `measured: {findings, precision,
 * commits}`, with at least 20 findings at 90% precision, or, in a security talent, no false
 * positive over at least 20 commits; the lint refuses it otherwise, and every other detector's
 * findings are served and reported as advisory.
 */
import { describe, expect, test } from "bun:test";
import { formatFinding } from "../../src/catalog/format";
import { validateTalent } from "../../src/catalog/validate";
import { runDetectors } from "../../src/client/check";
import { shipped, talentMd } from "../helpers";

function lint(rule: string, roles = "[backend]"): string[] {
  const rules = `
  - id: AB-001
    severity: blocking
${rule}
    title: No bad calls.
    check: Look for bad().
    detect:
      - pattern: '\\bbad\\('
  - id: AB-002
    severity: advisory
    title: Second.
    check: Second.
  - id: AB-003
    severity: advisory
    title: Third.
    check: Third.`;
  const text = talentMd("earning", { rules, roles });
  return validateTalent({ folder: "earning", files: { "TALENT.md": text }, label: (p) => `talents/earning/${p}` }).findings.map(
    formatFinding,
  );
}
const at = "talents/earning/TALENT.md: rules[AB-001]";

describe("blocks: a detector blocks only with the measured figure that earns it", () => {
  test("earned: 20 findings at 90%; or a security talent with no false positive over 20 commits", () => {
    expect(lint("    blocks: true\n    measured: { findings: 20, precision: 0.9, commits: 40 }")).toEqual([]);
    expect(lint("    blocks: true\n    measured: { findings: 0, commits: 20 }", "[backend, security]")).toEqual([]);
    expect(lint("    measured: { findings: 3, precision: 0.5, commits: 40 }")).toEqual([]);
  });

  test("refused: no figure, too few findings, too low a precision, a security rule with a false positive, malformed figures", () => {
    expect(lint("    blocks: true")).toEqual([
      `${at}.blocks: needs the figure that earns it: measured: {findings, precision, commits} from bun run bench precision`,
    ]);
    const bar = "a detector blocks with ≥ 20 findings at ≥ 90% precision, or, in a security talent, no false positive over ≥ 20 commits";
    expect(lint("    blocks: true\n    measured: { findings: 19, precision: 1, commits: 40 }")).toEqual([
      `${at}.blocks: not earned by measured (19 findings, precision 1, 40 commits): ${bar}`,
    ]);
    expect(lint("    blocks: true\n    measured: { findings: 40, precision: 0.89, commits: 40 }")).toEqual([
      `${at}.blocks: not earned by measured (40 findings, precision 0.89, 40 commits): ${bar}`,
    ]);
    expect(lint("    blocks: true\n    measured: { findings: 2, precision: 0.5, commits: 400 }", "[backend, security]")).toEqual([
      `${at}.blocks: not earned by measured (2 findings, precision 0.5, 400 commits): ${bar}`,
    ]);
    expect(lint("    blocks: yes\n    measured: { findings: -1, precision: 2, commits: 1.5, seen: 3 }")).toEqual([
      `${at}.measured.seen: unknown field`,
      `${at}.measured.findings: must be a whole number ≥ 0`,
      `${at}.measured.commits: must be a whole number ≥ 0`,
      `${at}.measured.precision: must be a number from 0 to 1`,
      `${at}.blocks: must be true (or absent: the detectors' findings are advisory)`,
    ]);
  });

  test("the shipped catalog: each rule that blocks is earned (lint), and only those rules' findings block a check", () => {
    const catalog = shipped();
    const blocking = catalog.list.flatMap((t) => t.rules.filter((r) => r.blocks).map((r) => r.id)).sort();
    expect(blocking).toEqual(["AUTH-001", "AUTH-002", "AUTH-005", "SEC-001", "SEC-003", "TS-005", "UT-002"]);
    for (const t of catalog.list) for (const r of t.rules.filter((x) => x.blocks)) expect(r.measured).toBeDefined();
  });

  test("the client reports a finding with its detector's served severity (an older server's detectors keep the rule's)", () => {
    const rule = (severity?: "advisory" | "blocking") => ({
      id: "ob",
      kind: "talent",
      version: "1.0.0",
      rules: [
        {
          id: "AB-001",
          severity: "blocking" as const,
          title: "No bad.",
          detect: [{ pattern: "bad\\(", files: ["**"], ...(severity ? { severity } : {}) }],
        },
      ],
    });
    const files = [{ path: "src/a.ts", lines: [{ line: 1, text: "bad()" }] }];
    expect(runDetectors([rule("advisory")], files).findings.map((f) => f.severity)).toEqual(["advisory"]);
    expect(runDetectors([rule("blocking")], files).findings.map((f) => f.severity)).toEqual(["blocking"]);
    expect(runDetectors([rule()], files).findings.map((f) => f.severity)).toEqual(["blocking"]);
  });
});
