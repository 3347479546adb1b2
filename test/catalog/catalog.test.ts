import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { buildCatalog } from "../../src/catalog/catalog";
import { searchTalents } from "../../src/catalog/literalSearch";
import { formatFinding } from "../../src/catalog/format";
import { readTalentDir } from "../../src/catalog/load";
import { talentMd, tempDir, writeFiles } from "../helpers";
import type { TalentSource } from "../../src/catalog/validate";

function src(folder: string, files: Record<string, string>): TalentSource {
  return { folder, files, label: (p) => `talents/${folder}/${p}` };
}

/** Builds a catalog of the given folders and returns the finding lines. */
function lint(...sources: TalentSource[]): string[] {
  return buildCatalog(sources).findings.map(formatFinding);
}

describe("the validator gives each failure its own clear message (file: field: problem)", () => {
  const cases: [string, TalentSource[], string][] = [
    [
      "missing field",
      [src("alpha", { "TALENT.md": talentMd("alpha", { summary: "__omit__" }) })],
      "talents/alpha/TALENT.md: summary: missing",
    ],
    ["bad id", [src("Alpha_1", { "TALENT.md": talentMd("Alpha_1") })], 'talents/Alpha_1/TALENT.md: id: "Alpha_1" is not a valid id'],
    ["id ≠ folder", [src("alpha", { "TALENT.md": talentMd("beta") })], 'talents/alpha/TALENT.md: id: "beta" ≠ folder name "alpha"'],
    [
      "over budget",
      [src("alpha", { "TALENT.md": talentMd("alpha", { budget: "100" }, "x".repeat(1000)) })],
      "talents/alpha/TALENT.md: budget: compact form is",
    ],
    [
      "dangling requires",
      [src("alpha", { "TALENT.md": talentMd("alpha", { requires: "[ghost]" }) })],
      'talents/alpha/TALENT.md: requires: "ghost" does not exist in the catalog',
    ],
    [
      "dangling talent:// pointer",
      [src("alpha", { "TALENT.md": talentMd("alpha", {}, "See [more](talent://alpha/references/more.md).") })],
      'talents/alpha/TALENT.md: body: pointer talent://alpha/references/more.md: no file "references/more.md" in this talent',
    ],
    [
      "pointer into another talent's missing file",
      [src("alpha", { "TALENT.md": talentMd("alpha", {}, "See talent://beta/nope.md") }), src("beta", { "TALENT.md": talentMd("beta") })],
      'talents/alpha/TALENT.md: body: pointer talent://beta/nope.md: no file "nope.md" in talent "beta"',
    ],
    [
      "bad YAML",
      [src("alpha", { "TALENT.md": "---\nid: alpha\ntitle: [unclosed\n---\nbody\n" })],
      "talents/alpha/TALENT.md: front matter: invalid YAML",
    ],
    ["no front matter", [src("alpha", { "TALENT.md": "# just markdown\n" })], "talents/alpha/TALENT.md: front matter: missing"],
    [
      "duplicate rule id",
      [
        src("alpha", {
          "TALENT.md": talentMd("alpha", {
            rules: `
  - { id: AB-001, severity: blocking, title: One., check: One. }
  - { id: AB-001, severity: advisory, title: Two., check: Two. }
  - { id: AB-003, severity: advisory, title: Three., check: Three. }`,
          }),
        }),
      ],
      'talents/alpha/TALENT.md: rules[1].id: duplicate rule id "AB-001"',
    ],
    ["unknown field", [src("alpha", { "TALENT.md": talentMd("alpha", { rulez: "[]" }) })], "talents/alpha/TALENT.md: rulez: unknown field"],
    [
      "blocking rule without a conformance test",
      [src("alpha", { "TALENT.md": talentMd("alpha", { tests: "[]" }) })],
      "talents/alpha/TALENT.md: tests: blocking rule AB-001 has no conformance test",
    ],
    [
      "bad severity",
      [
        src("alpha", {
          "TALENT.md": talentMd("alpha", {
            rules:
              "[{id: AB-001, severity: must, title: T., check: C.}, {id: AB-002, severity: advisory, title: T., check: C.}, {id: AB-003, severity: advisory, title: T., check: C.}]",
            tests: "[]",
          }),
        }),
      ],
      "talents/alpha/TALENT.md: rules[AB-001].severity: must be blocking or advisory",
    ],
    [
      "too few rules",
      [
        src("alpha", {
          "TALENT.md": talentMd("alpha", { rules: "[{id: AB-001, severity: advisory, title: T., check: C.}]", tests: "[]" }),
        }),
      ],
      "talents/alpha/TALENT.md: rules: needs 3 to 12 rules (has 1)",
    ],
    [
      "bad semver",
      [src("alpha", { "TALENT.md": talentMd("alpha", { version: "v1" }) })],
      'talents/alpha/TALENT.md: version: "v1" is not a semantic version',
    ],
    [
      "summary over 300 chars",
      [src("alpha", { "TALENT.md": talentMd("alpha", { summary: "s".repeat(301) }) })],
      "talents/alpha/TALENT.md: summary: too long (301 > 300 characters)",
    ],
    [
      "bad glob",
      [src("alpha", { "TALENT.md": talentMd("alpha", { triggers: '{ files: ["src/[abc"] }' }) })],
      'talents/alpha/TALENT.md: triggers.files: "src/[abc" has unbalanced brackets',
    ],
    [
      "dangling conflicts",
      [src("alpha", { "TALENT.md": talentMd("alpha", { conflicts: "[ghost]" }) })],
      'talents/alpha/TALENT.md: conflicts: "ghost" does not exist in the catalog',
    ],
    [
      "requires cycle",
      [
        src("alpha", { "TALENT.md": talentMd("alpha", { requires: "[beta]" }) }),
        src("beta", { "TALENT.md": talentMd("beta", { requires: "[alpha]" }) }),
      ],
      "requires: is part of a requires cycle",
    ],
  ];
  for (const [name, sources, expected] of cases) {
    test(`${name} → "${expected.slice(0, 70)}…"`, () => {
      const lines = lint(...sources);
      expect(lines.some((l) => l.startsWith(expected) || l.includes(expected))).toBe(true);
      // and the talent is refused
      expect(buildCatalog(sources).catalog.get(sources[0]!.folder)).toBeUndefined();
    });
  }

  test("a valid talent has no finding and is indexed with its compact form, digest and tokens", () => {
    const { catalog, findings } = buildCatalog([src("alpha", { "TALENT.md": talentMd("alpha"), "references/x.md": "# X" })]);
    expect(findings).toEqual([]);
    const t = catalog.get("alpha")!;
    expect(t.uri).toBe("talent://alpha");
    expect(t.compact).toContain("# Title of alpha");
    expect(t.compact).toContain("- [AB-001] (blocking) Do the first thing.");
    expect(t.compact).not.toContain("Look for the first thing."); // check text is for the playbook
    expect(t.tokens).toBe(Math.ceil(t.compact.length / 4));
    expect(t.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(t.files.get("references/x.md")!.digest).toMatch(/^sha256:/);
  });

  test("a talent requiring a broken one is refused too, naming it", () => {
    const lines = lint(
      src("alpha", { "TALENT.md": talentMd("alpha", { requires: "[beta]" }) }),
      src("beta", { "TALENT.md": talentMd("beta", { version: "bad" }) }),
    );
    expect(lines).toContain('talents/alpha/TALENT.md: requires: "beta" is broken');
  });

  test("an Agent Skills SKILL.md folder is read as a talent without rules", () => {
    const { catalog, findings } = buildCatalog([
      src("pdf-tools", {
        "SKILL.md": "---\nname: pdf-tools\ndescription: Fill and merge PDF forms. Use when a task handles PDFs.\n---\nUse pdftk.\n",
      }),
    ]);
    expect(findings).toEqual([]);
    const t = catalog.get("pdf-tools")!;
    expect(t.format).toBe("skill");
    expect(t.rules).toEqual([]);
    expect(t.summary).toContain("Fill and merge");
  });
});

describe("TALENTS_DIR: a broken folder is skipped and reported, the rest still loads", () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);
  test("one good, one broken YAML, one non-text file", () => {
    writeFiles(dir, {
      "good/TALENT.md": talentMd("good"),
      "broken/TALENT.md": "---\nid: broken\n  bad: : indent\n---\n",
      "binary/TALENT.md": talentMd("binary"),
    });
    mkdirSync(`${dir}/binary/references`, { recursive: true });
    writeFileSync(`${dir}/binary/references/blob.bin`, new Uint8Array([0, 1, 2, 0]));
    const read = readTalentDir(dir, "extra");
    const { catalog, findings } = buildCatalog(read.sources, read.findings);
    expect(catalog.get("good")).toBeDefined();
    expect(catalog.get("broken")).toBeUndefined();
    expect(catalog.broken.map((b) => b.folder)).toContain("broken");
    const lines = findings.map(formatFinding);
    expect(lines.some((l) => l.startsWith("extra/broken/TALENT.md: front matter: invalid YAML"))).toBe(true);
    expect(lines).toContain("extra/binary/references/blob.bin: file: is not a text file");
  });
});

describe("literal search", () => {
  const { catalog } = buildCatalog([
    src("react-hooks", { "TALENT.md": talentMd("react-hooks", { title: "React hooks", triggers: "{ keywords: [useeffect] }" }) }),
    src("sql-base", { "TALENT.md": talentMd("sql-base", { title: "SQL basics", summary: "Schema and queries; designate for SQL." }) }),
  ]);
  test("case-insensitive, over id, title, keywords, summary and rules; pointers only", () => {
    expect(catalog.search("REACT").map((h) => h.id)).toEqual(["react-hooks"]);
    expect(catalog.search("useEffect").map((h) => h.id)).toEqual(["react-hooks"]);
    expect(catalog.search("schema").map((h) => h.id)).toEqual(["sql-base"]);
    const hit = catalog.search("sql")[0]!;
    expect(Object.keys(hit).sort()).toEqual(["id", "score", "summary", "uri"]);
  });
  test("searchTalents (lists with expertises) matches and ranks exactly like the catalog's search", () => {
    for (const q of ["react", "sql-base", "thing", "schema", "react schema", "  ", "react-hooks"]) {
      expect(searchTalents(catalog.list, q, 10)).toEqual(catalog.search(q, 10));
    }
    expect(searchTalents(catalog.list, "sql-base")[0]!.score).toBeGreaterThan(100); // the exact-id bonus applies too
  });
  test("every word must match; k limits; filter restricts", () => {
    expect(catalog.search("react schema")).toEqual([]);
    expect(catalog.search("thing", 1)).toHaveLength(1);
    expect(catalog.search("thing", 10, (t) => t.id === "sql-base").map((h) => h.id)).toEqual(["sql-base"]);
    expect(catalog.search("   ")).toEqual([]);
  });
});

describe("the trigram prefilter gives exactly the results of a full scan", () => {
  test("same hits, same order, on a catalog large enough to be indexed", async () => {
    const many = Array.from({ length: 700 }, (_, i) =>
      src(`t-${i}`, {
        "TALENT.md": talentMd(`t-${i}`, {
          title: `Topic ${i % 37} ${i % 5 === 0 ? "React" : "Go"}`,
          triggers: `{ keywords: [kw${i % 11}, shared] }`,
        }),
      }),
    );
    const { catalog } = buildCatalog(many);
    const { catalog: small } = buildCatalog(many.slice(0, 400)); // scanned, never indexed
    for (const q of ["react", "topic 3", "kw7", "shared", "go", "t-69", "TOPIC 36 react", "zz", "first thing", "ab-001"]) {
      const expected = small.search(q, 50);
      expect(catalog.search(q, 50, (t) => Number(t.id.slice(2)) < 400)).toEqual(expected);
    }
  });
});

describe("one-word search ranks exactly like the full scoring (fast paths: level by level, haystacks)", () => {
  const many = Array.from({ length: 900 }, (_, i) =>
    src(`t-${i}`, {
      "TALENT.md": talentMd(`t-${i}`, {
        title: `Topic ${i % 37} ${i % 5 === 0 ? "React" : "Go"} kw${i % 3}`,
        summary: `About area${i % 23} and t-${(i * 7) % 900}; shared summary words.`,
        triggers: `{ keywords: [kw${i % 11}, shared, area${i % 19}] }`,
      }),
    }),
  );
  const { catalog: big } = buildCatalog(many); // trigram prefilter, and haystacks for words held by many
  const { catalog: small } = buildCatalog(many.slice(0, 300)); // scanned
  const words = [
    "shared",
    "t-1",
    "t-12",
    "t-123",
    "t-899",
    "kw1",
    "kw7",
    "area1",
    "area2",
    "topic",
    "react",
    "go",
    "summary",
    "about",
    "do",
    "thing",
    "zz",
    "9",
    "rule",
    "-",
    "t",
    "a",
  ];
  const filters: [string, ((t: { id: string }) => boolean) | undefined][] = [
    ["none", undefined],
    ["even", (t) => Number(t.id.slice(2)) % 2 === 0],
    ["first 250", (t) => Number(t.id.slice(2)) < 250],
  ];
  for (const [name, catalog] of [
    ["900 talents", big],
    ["300 talents", small],
  ] as const) {
    test(`${name}: same hits, scores and order as searchTalents for every word, k and filter`, () => {
      for (const w of words) {
        for (const k of [1, 3, 10, 50]) {
          for (const [, f] of filters) {
            const expected = searchTalents(f ? catalog.list.filter(f) : catalog.list, w, k);
            expect({ w, k, hits: catalog.search(w, k, f) }).toEqual({ w, k, hits: expected });
          }
        }
      }
    });
  }
});

describe("multi-word search scores as the rule says (every word's heaviest field, the phrase bonus, ties by id)", () => {
  const many = Array.from({ length: 600 }, (_, i) =>
    src(`t-${i}`, {
      "TALENT.md": talentMd(`t-${i}`, {
        title: `Topic ${i % 37} ${i % 5 === 0 ? "React hooks" : "Go"}`,
        summary: `About area${i % 23} and react hooks ${i % 3 === 0 ? "with the catalog" : ""}; shared words.`,
        triggers: `{ keywords: [kw${i % 11}, shared] }`,
      }),
    }),
  );
  const { catalog } = buildCatalog(many);
  const WEIGHTS: [string, number][] = [
    ["id", 8],
    ["title", 6],
    ["keywords", 5],
    ["summary", 3],
    ["rules", 2],
  ];
  /** The rule written out plainly, as the reference for the scanning loop. */
  function reference(q: string, k: number) {
    const phrase = q.trim().toLowerCase().replace(/\s+/g, " ");
    const words = [...new Set(phrase.split(" "))];
    const scored: { id: string; score: number }[] = [];
    for (const t of catalog.list) {
      const fields: Record<string, string> = {
        id: t.id,
        title: t.title.toLowerCase(),
        keywords: t.triggers.keywords.join("\n").toLowerCase(),
        summary: t.summary.toLowerCase(),
        rules: t.rules
          .map((r) => `${r.id} ${r.title}`)
          .join("\n")
          .toLowerCase(),
      };
      const bests = words.map((w) => Math.max(0, ...WEIGHTS.filter(([f]) => fields[f]!.includes(w)).map(([, wt]) => wt)));
      if (bests.some((b) => b === 0)) continue;
      let score = bests.reduce((a, b) => a + b, 0);
      if (t.id === phrase) score += 100;
      else if (words.length > 1) score += 2 * Math.max(0, ...WEIGHTS.filter(([f]) => fields[f]!.includes(phrase)).map(([, wt]) => wt));
      scored.push({ id: t.id, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return scored.slice(0, k);
  }
  test("the same hits, scores and order as the reference, for phrases held by many, few and none", () => {
    for (const q of [
      "react hooks",
      "the catalog",
      "with the catalog",
      "area1 shared",
      "topic 3 go",
      "t-5 about",
      "kw3 react",
      "zz top",
      "shared words",
      "hooks react",
    ]) {
      for (const k of [1, 10, 50]) {
        expect({ q, k, hits: catalog.search(q, k).map((h) => ({ id: h.id, score: h.score })) }).toEqual({ q, k, hits: reference(q, k) });
      }
    }
  });
});
