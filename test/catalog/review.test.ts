import { describe, expect, test } from "bun:test";
import { formatFinding } from "../../src/catalog/format";
import { skillFolderOf } from "../../src/catalog/skillFormat";
import { parseSupportTable, pastSupport, utcDay } from "../../src/catalog/support";
import { validateTalent } from "../../src/catalog/validate";
import { runCli, talentMd, tempDir, writeFiles } from "../helpers";

const validate = (over: Record<string, string>, main = "TALENT.md") =>
  validateTalent({ folder: "alpha", files: { [main]: talentMd("alpha", over) }, label: (p) => `talents/alpha/${p}` });
const problems = (over: Record<string, string>) => validate(over).findings.map(formatFinding);

describe("front matter: reviewed and covers", () => {
  test("both are optional; when given, reviewed is a real day and covers a list of {product, versions} kept on the talent", () => {
    expect(validate({}).talent?.reviewed).toBeUndefined();
    const t = validate({ reviewed: "2026-11-30", covers: '[{product: .NET, versions: ["10"]}, {product: C#, versions: ["14"]}]' }).talent!;
    expect(t.reviewed).toBe("2026-11-30");
    expect(t.covers).toEqual([
      { product: ".NET", versions: ["10"] },
      { product: "C#", versions: ["14"] },
    ]);
  });

  test("a reviewed that is not a calendar day YYYY-MM-DD is refused with the shape it takes", () => {
    expect(problems({ reviewed: "2026-02-30" })).toEqual([
      'talents/alpha/TALENT.md: reviewed: must be a day written YYYY-MM-DD (got "2026-02-30")',
    ]);
    expect(problems({ reviewed: "Dec 2026" })).toEqual([
      'talents/alpha/TALENT.md: reviewed: must be a day written YYYY-MM-DD (got "Dec 2026")',
    ]);
  });

  test("covers refuses a version written as a YAML number (3.10 would read 3.1), an unknown key, a product named twice, an empty list", () => {
    expect(problems({ covers: "[{product: Python, versions: [3.10]}]" })).toEqual([
      'talents/alpha/TALENT.md: covers[0].versions[0]: must be a string: quote it ("3.1"), a YAML number drops digits (3.10 is 3.1)',
    ]);
    expect(problems({ covers: '[{product: .NET, versions: ["10"], until: 2028}]' })).toEqual([
      "talents/alpha/TALENT.md: covers[0].until: unknown field (product, versions)",
    ]);
    expect(problems({ covers: '[{product: .NET, versions: ["10"]}, {product: .net, versions: ["9"]}]' })).toEqual([
      'talents/alpha/TALENT.md: covers[1].product: ".net" is named twice',
    ]);
    expect(problems({ covers: "[]" })[0]).toContain("covers: must be a non-empty list of {product, versions}");
    expect(problems({ covers: "[{product: .NET}]" })[0]).toContain("covers[0].versions: must be a non-empty list of versions as strings");
  });

  test("a SKILL.md carries them in metadata and the canonical export writes them back (reviewed as text, covers as JSON)", () => {
    const t = validate({ reviewed: "2026-11-30", covers: '[{product: Angular, versions: ["21"]}]' }).talent!;
    const skill = skillFolderOf(t).files.find((f) => f.path === "SKILL.md")!.content;
    expect(skill).toContain("reviewed: '2026-11-30'");
    const back = validateTalent({ folder: "alpha", files: { "SKILL.md": skill }, label: (p) => `x/${p}` });
    expect(back.findings.map(formatFinding)).toEqual([]);
    expect(back.talent!.reviewed).toBe("2026-11-30");
    expect(back.talent!.covers).toEqual([{ product: "Angular", versions: ["21"] }]);
  });
});

describe("the support table: a covered version past its end of support", () => {
  const rows = [
    { product: ".NET", version: "9", ends: "2026-11-10" },
    { product: ".NET", version: "10", ends: "2028-11-14" },
  ];
  test("is found the day after its end (the end day itself is still supported); a version the table does not list is not judged", () => {
    const covers = [{ product: ".net", versions: ["9", "10", "11"] }];
    expect(pastSupport(covers, rows, "2026-11-10")).toEqual([]);
    expect(pastSupport(covers, rows, "2026-11-11")).toEqual([{ product: ".NET", version: "9", ended: "2026-11-10" }]);
  });
  test("a malformed row is a problem: a version as a number, a day that is not YYYY-MM-DD, a row listed twice", () => {
    const text =
      'support:\n  - {product: A, version: 3, ends: 2026-01-01}\n  - {product: B, version: "1", ends: 2026-13-01}\n  - {product: C, version: "1", ends: 2026-01-01}\n  - {product: c, version: "1", ends: 2026-02-01}\n';
    expect(parseSupportTable(text).problems).toEqual([
      "support[0].version: missing (a string: quote it)",
      "support[1].ends: must be a day YYYY-MM-DD",
      "support[3]: c 1 is listed twice",
    ]);
  });
});

describe("talents lint DIR checks the review fields against DIR's support table", () => {
  test("a covered version past its end, a reviewed day after today and a malformed table row are problems (exit 1); without them exit 0", async () => {
    const { dir, cleanup } = tempDir("lint-support-");
    const covers = '[{product: .NET, versions: ["9", "10"]}]';
    writeFiles(dir, {
      "alpha/TALENT.md": talentMd("alpha", { reviewed: "2999-01-01", covers }),
      "_support.yaml":
        'support:\n  - {product: .NET, version: "9", ends: 2026-11-10}\n  - {product: .NET, version: "10", ends: 2999-11-14}\n  - {product: X, version: 1, ends: 2026-01-01}\n',
    });
    const r = await runCli(["talents", "lint", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toEqual([
      `${dir}/alpha/TALENT.md: reviewed: 2999-01-01 is after today (${utcDay()})`,
      `${dir}/_support.yaml: support[2].version: missing (a string: quote it)`,
      `${dir}/alpha/TALENT.md: covers: .NET 9 left support on 2026-11-10 (${dir}/_support.yaml): write the talent for a supported version`,
    ]);
    writeFiles(dir, { "alpha/TALENT.md": talentMd("alpha", { reviewed: "2026-11-30", covers: '[{product: .NET, versions: ["10"]}]' }) });
    writeFiles(dir, { "_support.yaml": 'support:\n  - {product: .NET, version: "9", ends: 2026-11-10}\n' });
    const ok = await runCli(["talents", "lint", dir]);
    expect(ok.stdout).toBe("");
    expect(ok.code).toBe(0);
    cleanup();
  });
});
