import { describe, expect, test } from "bun:test";
import { renderCompact } from "../../src/catalog/fields";
import { compactHeadings, compactSection, extractSection, markdownHeadings } from "../../src/catalog/sections";

const parts = {
  title: "Strict Things",
  summary: "What it covers.",
  rules: [
    { id: "AB-001", severity: "blocking" as const, title: "Do one." },
    { id: "AB-002", severity: "advisory" as const, title: "Do two." },
  ],
  body: "Intro before any heading.\n\n## Setup\nSet up.\n\n```md\n## Not a heading\n```\n\n### Inside setup\nDeeper.\n\n## Rules\nThe body's own Rules heading.\n\n# Top\nTop level.",
};

describe("sections of a compact block", () => {
  test("the headings an agent sees, in the block's order: the title, Rules, the body's (not those inside code fences)", () => {
    expect(compactHeadings(parts)).toEqual(["Strict Things", "Rules", "Setup", "Inside setup", "Rules", "Top"]);
    expect(compactHeadings({ ...parts, rules: [] })).toEqual(["Strict Things", "Setup", "Inside setup", "Rules", "Top"]);
  });

  test('"Rules" is the rule lines exactly as the block shows them, without the body that follows', () => {
    const block = renderCompact(parts);
    const rules = compactSection(parts, "rules")!;
    expect(rules).toBe("## Rules\n- [AB-001] (blocking) Do one.\n- [AB-002] (advisory) Do two.\n");
    expect(block).toContain(rules);
  });

  test("the first heading of a name wins: the block's Rules before a body heading of the same name; without rules, the body's", () => {
    expect(compactSection(parts, "Rules")).toStartWith("## Rules\n- [AB-001]");
    expect(compactSection({ ...parts, rules: [] }, "Rules")).toBe("## Rules\nThe body's own Rules heading.\n");
  });

  test("the title is the whole block; a body heading runs to the next heading of the same or a higher level; unknown → null", () => {
    expect(compactSection(parts, "  # strict things ")).toBe(renderCompact(parts));
    expect(compactSection(parts, "Setup")).toBe("## Setup\nSet up.\n\n```md\n## Not a heading\n```\n\n### Inside setup\nDeeper.\n");
    expect(compactSection(parts, "Top")).toBe("# Top\nTop level.\n");
    expect(compactSection(parts, "Not a heading")).toBeNull();
    expect(compactSection(parts, "What it covers.")).toBeNull();
  });
});

describe("sections of any markdown file", () => {
  test("extractSection matches case-insensitively, ignoring leading #s; markdownHeadings lists what it can find", () => {
    const md = "# Notes\nA.\n\n## Usage ##\nUse it.\n";
    expect(markdownHeadings(md)).toEqual(["Notes", "Usage"]);
    expect(extractSection(md, "## usage")).toBe("## Usage ##\nUse it.\n");
    expect(extractSection(md, "notes")).toBe(md);
    expect(extractSection(md, "Missing")).toBeNull();
    expect(markdownHeadings("no heading here\n")).toEqual([]);
  });
});
