import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { draftOf, formatOf, headingText, importPathProblem, isImperative, listItems, rulePrefix } from "../../src/expertises/imports";
import { freeSlugs, talentMdOf } from "../../src/expertises/importText";
import { skippedLines } from "../../src/expertises/importSkipped";
import { parseImport } from "../../src/expertises/importRequest";
import { IMPORT_LIMITS } from "../../src/expertises/imports";
import { validateExpertise } from "../../src/expertises/verify";
import { SAMPLES } from "../fixtures/rule-files";

describe("imports: each format", () => {
  test("formats by file name", () => {
    expect(Object.values(SAMPLES).map((s) => formatOf(s.path))).toEqual([
      "agents-md",
      "claude-md",
      "gemini-md",
      "cursor-rule",
      "cursor-rule",
      "cursorrules",
      "copilot-instructions",
      "copilot-path-instructions",
    ]);
    expect(formatOf("docs/rules.md")).toBe("markdown");
  });

  test("AGENTS.md: title from the first heading, imperative bullets and numbered items as advisory rules, fences skipped, every file", () => {
    const d = draftOf(SAMPLES.agents);
    expect(d.title).toBe("Project guidelines");
    expect(d.slug).toBe("agents");
    expect(d.rules.map((r) => r.id)).toEqual(["AG-001", "AG-002", "AG-003", "AG-004", "AG-005"]);
    expect(d.rules.every((r) => r.severity === "advisory")).toBe(true);
    expect(d.rules[0]!.title).toStartWith("Use `pnpm dlx turbo run where");
    expect(d.rules[2]!.title).toStartWith("Run `pnpm turbo run test");
    expect(d.rules.some((r) => r.title.includes("Vite") || r.title.includes("inside a fence"))).toBe(false);
    expect(d.triggers).toEqual({ files: ["**"], keywords: [] });
  });

  test("CLAUDE.md: imperative bullets, a command's `label: text` line read past its label; statements left out", () => {
    const d = draftOf(SAMPLES.claude);
    expect(d.title).toBe("Bash commands");
    expect(d.rules.map((r) => r.title)).toEqual([
      "npm run build: Build the project",
      "npm run typecheck: Run the typechecker",
      "Use ES modules (import/export) syntax, not CommonJS (require)",
      "Destructure imports when possible (eg. import { foo } from 'bar')",
      "Be sure to typecheck when you're done making a series of code changes",
      "Prefer running single tests, and not the whole test suite, for performance",
    ]);
  });

  test("GEMINI.md: an item opening with a clause is left out; an obligation (should) is a rule", () => {
    const d = draftOf(SAMPLES.gemini);
    expect(d.title).toBe("Project: My Awesome TypeScript Library");
    expect(d.rules.map((r) => r.title)).toEqual([
      "Ensure all new functions and classes have JSDoc comments.",
      "Prefer functional programming paradigms where appropriate.",
      "Use 2 spaces for indentation.",
      "Interface names should be prefixed with `I` (e.g., `IUserService`).",
      "Always use strict equality (`===` and `!==`).",
    ]);
    expect(skippedLines(SAMPLES.gemini.content)).toEqual([
      {
        line: 4,
        text: "When you generate new TypeScript code, follow the existing coding style.",
        reason: "not an instruction: it neither opens with a verb nor says must, should, never or always",
      },
    ]);
  });

  test("a five-rule file: an obligation item (Every migration must be reversible.) is a rule; the same sentence as a paragraph, a statement item and a repeat are listed as skipped with their lines", () => {
    const five =
      "# Database rules\n\n- Use transactions for every multi-row write.\n- Never edit a migration that was applied.\n- Every migration must be reversible.\n- Name migrations by date and topic.\n- Run the migration tests before a merge.\n";
    expect(draftOf({ path: "AGENTS.md", content: five }).rules.map((r) => r.title)).toEqual([
      "Use transactions for every multi-row write.",
      "Never edit a migration that was applied.",
      "Every migration must be reversible.",
      "Name migrations by date and topic.",
      "Run the migration tests before a merge.",
    ]);
    expect(skippedLines(five)).toEqual([]);
    const mixed =
      "---\ndescription: x\n---\n# Rules\n\nThe database is SQLite.\n\n## Migrations\n\nEvery migration must be reversible.\n\n- The CI runs on every push\n- Use transactions.\n- Use transactions.\n```\nnever in a fence\n```\n";
    expect(skippedLines(mixed, "agents").map((l) => [l.line, l.text, l.reason.split(":")[0]])).toEqual([
      [10, "Every migration must be reversible.", "a sentence outside a list"],
      [12, "The CI runs on every push", "not an instruction"],
      [14, "Use transactions.", "the same as rule AG-001"],
    ]);
  });

  test(".mdc: globs (comma-separated, not YAML) under the rule's folder, description as summary, title from the file name", () => {
    const d = draftOf(SAMPLES.mdc);
    expect(d.triggers.files).toEqual(["web/src/components/**/*.tsx", "web/src/hooks/*.ts"]);
    expect(d.summary).toStartWith("React component conventions (Imported from web/.cursor/rules/react-components.mdc");
    expect(d.title).toBe("React components (web)");
    expect(d.slug).toBe("web-react-components");
    expect(d.rules.map((r) => r.id)).toEqual(["WRC-001", "WRC-002"]);
    const always = draftOf(SAMPLES.mdcAlways);
    expect(always.triggers.files).toEqual(["**"]);
  });

  test(".cursorrules and copilot-instructions.md: every file; a Label: lead-in is read past", () => {
    expect(draftOf(SAMPLES.cursorrules).rules).toHaveLength(3);
    const c = draftOf(SAMPLES.copilot);
    expect(c.rules.map((r) => r.title)).toEqual([
      "Always use double quotes and tabs for indentation in JavaScript.",
      "Tests: write them with JUnit 5.",
    ]);
    expect(c.triggers.files).toEqual(["**"]);
    expect(c.slug).toBe("copilot-instructions");
  });

  test(".instructions.md: applyTo's globs", () => {
    const d = draftOf(SAMPLES.copilotPath);
    expect(d.triggers.files).toEqual(["**/*.ts", "**/*.tsx"]);
    expect(d.title).toBe("TypeScript coding standards");
    expect(d.rules).toHaveLength(2);
  });

  test("a file with no bullets: a draft with no rules and a note saying so", () => {
    const d = draftOf({ path: "AGENTS.md", content: "# Notes\n\nWe like small commits.\n" });
    expect(d.rules).toEqual([]);
    expect(d.notes.join(" ")).toContain("no rules");
  });

  test("an .mdc without globs: no trigger, and a note", () => {
    const d = draftOf({ path: ".cursor/rules/x.mdc", content: "---\ndescription: When writing SQL\n---\n- Use bind parameters.\n" });
    expect(d.triggers.files).toEqual([]);
    expect(d.notes.join(" ")).toContain("write triggers");
  });
});

describe("imports: the TALENT.md and the request", () => {
  test("the generated TALENT.md passes the validator but for its roles; the original text is its body", () => {
    const d = draftOf(SAMPLES.agents);
    const text = talentMdOf(d, "agents", SAMPLES.agents.content);
    expect(text.endsWith(SAMPLES.agents.content)).toBe(true);
    const v = validateExpertise({ orgSlug: "acme", slug: "agents", content: text, files: {} });
    expect(v.findings.map((f) => f.field)).toEqual(["roles"]);
    expect(v.talent).toBeNull();
  });

  test("helpers: prefixes, items, imperative openers, free slugs", () => {
    expect(rulePrefix("agents")).toBe("AG");
    expect(rulePrefix("9lives")).toBe("RL");
    expect(listItems("- a\n  b\n- c")).toEqual(["a b", "c"]);
    expect(isImperative("Never commit secrets")).toBe(true);
    expect(isImperative("The API is REST")).toBe(false);
    expect(freeSlugs(["agents", "agents", "x"], new Set(["agents"]))).toEqual(["agents-2", "agents-3", "x"]);
  });

  test("limits: files, bytes per file, invisible characters refuse the request naming the file", () => {
    const many = Array.from({ length: IMPORT_LIMITS.files + 1 }, (_, i) => ({ path: `r${i}.md`, content: "- Use x." }));
    expect(() => parseImport({ files: many })).toThrow("Nothing was imported");
    const big = "- Use x.\n".repeat(20_000);
    try {
      parseImport({ files: [{ path: "AGENTS.md", content: big }] });
      throw new Error("accepted");
    } catch (e) {
      expect((e as { details?: { issues: { message: string }[] } }).details?.issues[0]!.message).toContain("too large");
    }
    expect(() => parseImport({ files: [{ path: "AGENTS.md", content: "- Use\u200b x." }] })).toThrow();
    expect(() => parseImport({ files: [{ path: "../AGENTS.md", content: "- Use x." }] })).toThrow();
    expect(parseImport({ files: [{ path: "./a\\AGENTS.md", content: "- Use x." }] })).toEqual([
      { path: "a/AGENTS.md", content: "- Use x." },
    ]);
  });
});

describe("imports: linear-time reading", () => {
  const OLD_HEADING = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/;
  const OLD_ITEM = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*\S)\s*$/;

  test("a heading with a run of 16,000 spaces inside is read (it backtracked cubically), its title as the old pattern gave it", () => {
    expect(draftOf({ path: "AGENTS.md", content: `# Build${" ".repeat(16_000)}rules #\n- Use x.` }).title).toBe(`Build rules`);
    expect(headingText(`# a${" ".repeat(16_000)}`)).toBe("a");
  });

  test("a path with a variation selector, a Hangul filler or a bidi control is refused as the text would be", () => {
    for (const c of ["\uFE0F", "\u3164", "\u202E", "\u200B"]) expect(importPathProblem(`rules${c}.md`)).toContain("invisible");
    expect(importPathProblem("docs/rules.md")).toBeNull();
  });

  test("an item marker followed by 16,000 spaces is no item (it backtracked quadratically)", () => {
    expect(listItems(`-${" ".repeat(16_000)}\n- Use x.`)).toEqual(["Use x."]);
  });

  test("headings and items decide as the old patterns did, on generated short lines", () => {
    const parts = fc.array(fc.constantFrom("#", " ", "\t", "a", "b", "-", "*", "+", "1", "12", ".", ")", "\u00a0"), { maxLength: 12 });
    fc.assert(
      fc.property(parts, (p) => {
        const line = p.join("");
        const old = OLD_HEADING.exec(line);
        expect(headingText(line)).toBe(old ? old[1]! : null);
        const item = listItems(line);
        const oldItem = OLD_ITEM.exec(line);
        expect(item).toEqual(oldItem ? [oldItem[2]!.trim()] : []);
      }),
      { numRuns: 3000 },
    );
  });
});
