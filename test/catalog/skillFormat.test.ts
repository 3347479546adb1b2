/**
 * Agent Skills interop, unit by unit (docs/talent-format.md "Agent Skills folders"): the YAML
 * the canonical SKILL.md is written in, the link rewriting both ways, and the mapping of a
 * SKILL.md front matter to talent fields.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { isAlias, isCollection, isNode, parseDocument, visit } from "yaml";
import { parseFrontMatterYaml, splitFrontMatter } from "../../src/catalog/frontMatter";
import {
  mapSkillFrontMatter,
  pointersToRelativeLinks,
  relativeLinksToPointers,
  renderSkillMd,
  skillFolderOf,
  yamlScalar,
  type SkillFrontMatter,
} from "../../src/catalog/skillFormat";
import { mapLinkTargets } from "../../src/catalog/skillLinks";
import { validateTalent } from "../../src/catalog/validate";

/** What strictyaml (the Agent Skills reference validator's parser) refuses: flow collections, anchors, aliases, tags. */
export function strictYamlProblems(yaml: string): string[] {
  const doc = parseDocument(yaml);
  const problems = doc.errors.map((e) => e.message);
  visit(doc, (_key, node) => {
    if (isAlias(node)) problems.push("alias");
    if (isNode(node) && node.anchor) problems.push(`anchor ${node.anchor}`);
    if (isNode(node) && node.tag) problems.push(`tag ${node.tag}`);
    if (isCollection(node) && node.flow) problems.push("flow collection");
  });
  return problems;
}

const readBack = (scalar: string) => ({
  yaml: parseDocument(`v: ${scalar}\n`).toJS().v,
  bun: (Bun.YAML.parse(`v: ${scalar}\n`) as { v: unknown }).v,
});

describe("the YAML of a canonical SKILL.md", () => {
  test("yamlScalar: any string reads back as itself, with the yaml package and with Bun's parser (property over unicode strings)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.constantFrom(
            "true",
            "no",
            "on",
            "null",
            "~",
            "123",
            "1e3",
            "0x1f",
            "-",
            "a: b",
            "#x",
            "'q'",
            '"d"',
            "",
            " ",
            "\u2028",
            "\ufeff",
            "x\ny",
            "a --- b",
            "----",
          ),
        ),
        (s) => {
          const back = readBack(yamlScalar(s));
          expect(back.yaml).toBe(s);
          expect(back.bun).toBe(s);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("renderSkillMd: the front matter parses back to exactly the frontmatter object, in block style only (no flow collection, anchor, alias or tag)", () => {
    const fm: SkillFrontMatter = {
      name: "on",
      description: "Line one\nline 'two': \"three\" # not a comment",
      license: "Apache-2.0",
      compatibility: "Requires git",
      "allowed-tools": ["Bash(git:*)", "Read"],
      metadata: {
        version: "1.0.0",
        rules: '[{"id":"AB-001","title":"it\'s --- so"}]',
        "io.modelcontextprotocol/x": "y",
        yes: "no",
        "k---": "v",
      },
    };
    const text = renderSkillMd(fm, "# Body\n\nText.");
    const split = splitFrontMatter(text)!;
    expect(strictYamlProblems(split.yaml)).toEqual([]);
    expect(parseDocument(split.yaml).toJS()).toEqual(fm);
    expect((parseFrontMatterYaml(split.yaml) as { value: unknown }).value).toEqual(fm);
    expect(split.body).toBe("\n# Body\n\nText.\n");
    // the reference validator takes the text up to the second --- as the front matter
    expect(text.split("---")[1]).toBe(`\n${split.yaml}`);
  });
});

describe("links", () => {
  test("mapLinkTargets leaves code alone: fenced blocks and inline code spans (errors.AsType[*T](err))", () => {
    const body = ["[a](x.md) `errors.AsType[*T](err)` [b](y.md)", "```go", "[c](z.md)", "```", "[`code` text](w.md)", "[ref]: v.md"].join(
      "\n",
    );
    const seen: string[] = [];
    const out = mapLinkTargets(body, (t) => (seen.push(t), `R/${t}`));
    expect(seen).toEqual(["x.md", "y.md", "w.md", "v.md"]);
    expect(out).toBe(
      ["[a](R/x.md) `errors.AsType[*T](err)` [b](R/y.md)", "```go", "[c](z.md)", "```", "[`code` text](R/w.md)", "[ref]: R/v.md"].join(
        "\n",
      ),
    );
  });

  test("relative links of a SKILL.md become talent:// pointers that name its files; what cannot be mapped is left as written and named", () => {
    const files = new Set(["SKILL.md", "references/guide.md", "scripts/run one.py"]);
    const body = [
      '[g](references/guide.md) [g2](./references/guide.md) [s](scripts/run%20one.py) ![img](references/guide.md "title")',
      "[o](../other-skill/references/x.md) [web](https://example.com) [mail](mailto:a@b.c) [top](#usage) [t](talent://typescript-strict)",
      "[missing](references/nope.md) [dir](references/) [abs](/etc/passwd) [frag](references/guide.md#part) [up](../../x.md)",
    ].join("\n");
    const r = relativeLinksToPointers(body, "talent://my-skill", files);
    expect(r.body.split("\n")[0]).toBe(
      '[g](talent://my-skill/references/guide.md) [g2](talent://my-skill/references/guide.md) [s](scripts/run%20one.py) ![img](talent://my-skill/references/guide.md "title")',
    );
    expect(r.body.split("\n")[1]).toBe(
      "[o](talent://other-skill/references/x.md) [web](https://example.com) [mail](mailto:a@b.c) [top](#usage) [t](talent://typescript-strict)",
    );
    expect(r.body.split("\n")[2]).toBe(
      "[missing](references/nope.md) [dir](references/) [abs](/etc/passwd) [frag](references/guide.md#part) [up](../../x.md)",
    );
    expect(r.notes.map((n) => n.problem)).toEqual([
      'not mapped: link "scripts/run%20one.py" has characters a talent:// pointer cannot hold; left as written',
      'not mapped: link "references/nope.md" names no file of this folder; left as written',
      'not mapped: link "references/" leaves the folder; left as written',
      'not mapped: link "/etc/passwd" is an absolute path; left as written',
      'not mapped: link "references/guide.md#part" has a fragment or a query; left as written',
      'not mapped: link "../../x.md" leaves the folder; left as written',
    ]);
  });

  test("own pointers made relative and read back are the same pointers (expertise URIs with @ included)", () => {
    for (const uri of ["talent://typescript-strict", "talent://@acme/payments"]) {
      const body = `See [flags](${uri}/references/a.md), [other](talent://javascript-base/references/b.md) and \`${uri}/references/a.md\`.`;
      const relative = pointersToRelativeLinks(body, uri);
      expect(relative).toBe(
        `See [flags](references/a.md), [other](talent://javascript-base/references/b.md) and \`${uri}/references/a.md\`.`,
      );
      expect(relativeLinksToPointers(relative, uri, new Set(["references/a.md"])).body).toBe(body);
    }
  });
});

describe("a SKILL.md front matter as talent fields", () => {
  test("metadata.version keeps the version (1.2 → 1.2.0, v2 → 2.0.0, a YAML number noted); a top-level version is read when metadata has none", () => {
    const v = (fm: Record<string, unknown>) => mapSkillFrontMatter(fm);
    expect(v({ metadata: { version: "1.2.3" } }).fields.version).toBe("1.2.3");
    expect(v({ metadata: { version: "1.2" } })).toMatchObject({
      fields: { version: "1.2.0" },
      notes: [{ field: "metadata.version", problem: "read as 1.2.0" }],
    });
    expect(v({ metadata: { version: "v2" } }).fields.version).toBe("2.0.0");
    expect(v({ version: "3.1.4" })).toMatchObject({ fields: { version: "3.1.4" }, labels: { version: "version" } });
    expect(v({ version: "9.9.9", metadata: { version: "1.0.0" } }).fields.version).toBe("1.0.0");
    expect(v({ metadata: { version: 1.5 } })).toMatchObject({ fields: { version: "1.5.0" } });
    const odd = v({ metadata: { version: "latest" } });
    expect(odd.fields.version).toBeUndefined();
    expect(odd.notes[0]!.problem).toContain('not mapped: "latest" is not a semantic version; the talent is served as 0.0.0');
  });

  test("lists as JSON text, a YAML list or comma-separated text; triggers as JSON text or a mapping; budget as text; bad JSON is a problem at its field", () => {
    const m = mapSkillFrontMatter({
      metadata: {
        roles: '["backend","reviewer"]',
        languages: ["typescript"],
        requires: "javascript-base, typescript-strict",
        triggers: { files: ["**/*.ts"], keywords: ["orders"] },
        budget: "900",
        rules: "[not json",
      },
    });
    expect(m.fields).toEqual({
      roles: ["backend", "reviewer"],
      languages: ["typescript"],
      requires: ["javascript-base", "typescript-strict"],
      triggers: { files: ["**/*.ts"], keywords: ["orders"] },
      budget: 900,
    });
    expect(m.problems).toEqual([{ field: "metadata.rules", problem: "is not valid JSON" }]);
    expect(mapSkillFrontMatter({ metadata: { triggers: '{"files":["a/**"]}' } }).fields.triggers).toEqual({ files: ["a/**"] });
    expect(mapSkillFrontMatter({ metadata: { triggers: "**/*.ts" } }).problems[0]!.field).toBe("metadata.triggers");
  });

  test("what has no talent field is named, not mapped: other metadata keys, fields the specification does not define, license, compatibility, allowed-tools", () => {
    const m = mapSkillFrontMatter({
      name: "x",
      description: "d",
      license: "MIT",
      "allowed-tools": "Read",
      "argument-hint": "[file]",
      metadata: { author: "me" },
    });
    expect(m.notes.map((n) => n.field)).toEqual(["argument-hint", "license", "allowed-tools", "metadata.author"]);
    expect(m.notes.every((n) => n.problem.startsWith("not mapped: "))).toBe(true);
  });

  test("a SKILL.md's rules are checked as TALENT.md's, named where they are written (metadata.rules[…])", () => {
    const skill = (metadata: string) =>
      validateTalent({
        folder: "s",
        files: { "SKILL.md": `---\nname: s\ndescription: d\nmetadata:\n${metadata}\n---\nBody.\n` },
        label: (p) => `t/s/${p}`,
      });
    const bad = skill(`  rules: '[{"id":"AB-001","severity":"blocking","title":"T","check":"C"}]'`);
    expect(bad.talent).toBeNull();
    expect(bad.findings.map((f) => `${f.field}: ${f.problem}`)).toEqual([
      "metadata.rules: needs 3 to 12 rules (has 1)",
      "metadata.tests: blocking rule AB-001 has no conformance test",
    ]);
    const budget = skill(`  budget: '100'\n  title: '${"x".repeat(500)}'`);
    expect(budget.findings.map((f) => f.field)).toEqual(["metadata.title", "metadata.budget"]);
  });

  test("a TALENT.md talent's canonical SKILL.md reads back as the same talent (fields, body, compact form)", () => {
    const talentMd = [
      "---",
      "id: orders",
      "title: Orders API",
      "summary: How the orders API pages. Designate for pagination work.",
      "version: 2.1.0",
      "roles: [backend]",
      "languages: [typescript]",
      "triggers: { files: ['src/orders/**'], keywords: [orders, pagination] }",
      "requires: []",
      "conflicts: []",
      "budget: 600",
      "rules:",
      "  - { id: OR-001, severity: blocking, title: Page by key., check: 'OFFSET in a query.' }",
      '  - { id: OR-002, severity: advisory, title: Cap the limit., check: "A limit above 200; it\'s wrong." }',
      "  - { id: OR-003, severity: advisory, title: Name the cursor., check: A bare id as cursor. }",
      "tests:",
      "  - { rule: OR-001, pass: 'WHERE id > ?', fail: 'OFFSET 40' }",
      "---",
      "Use [the keyset guide](talent://orders/references/keyset.md) and [the base](talent://javascript-base).",
      "",
    ].join("\n");
    const files = { "TALENT.md": talentMd, "references/keyset.md": "# Keyset\n" };
    const original = validateTalent({ folder: "orders", files, label: (p) => p }).talent!;
    const folder = skillFolderOf(original);
    expect(folder.files.map((f) => f.path)).toEqual(["SKILL.md", "references/keyset.md"]);
    const skillMd = folder.files[0]!.content;
    expect(skillMd).toContain("Use [the keyset guide](references/keyset.md) and [the base](talent://javascript-base).");
    const back = validateTalent({
      folder: "orders",
      files: { "SKILL.md": skillMd, "references/keyset.md": "# Keyset\n" },
      label: (p) => p,
    });
    expect(back.findings).toEqual([]);
    expect(back.notes).toEqual([]);
    const fields = (t: typeof original) => [
      t.id,
      t.title,
      t.summary,
      t.version,
      t.roles,
      t.languages,
      t.triggers,
      t.requires,
      t.conflicts,
      t.budget,
      t.rules,
      t.tests,
      t.body,
      t.compact,
      t.pointers,
    ];
    expect(fields(back.talent!)).toEqual(fields(original));
  });
});
