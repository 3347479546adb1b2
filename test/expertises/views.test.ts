import { describe, expect, test } from "bun:test";
import { verifyExpertise } from "../../src/expertises/verify";
import { lineOfIssue } from "../../src/expertises/views/editor";
import { starterContent } from "../../src/expertises/views/list";

const content = `---
id: pay
title: Payments
summary: How we pay.
version: 1.0.0
budget: 50
rules:
  - { id: PAY-001, severity: blocking, title: T, check: C }
  - { id: PAY-002, severity: huge, title: T }
tests:
  - { rule: PAY-001, pass: a, fail: b }
  - { rule: PAY-009, pass: a, fail: b }
---
Body with [a pointer](talent://@acme/pay/missing.md).
`;
const lines = content.split("\n");
const at = (field: string, message = "") => {
  const i = lineOfIssue(content, field, message);
  return i === null ? null : lines[i];
};

describe("the validator's findings beside the lines of TALENT.md they concern (lineOfIssue)", () => {
  test("a field → its key's line; rules[<rule id>] → the rule's line; tests[<n>] → the n-th item; a missing field → the front matter's first line; a body pointer → its line", () => {
    expect(at("budget")).toBe("budget: 50");
    expect(at("rules[PAY-002].severity")).toContain("PAY-002");
    expect(at("tests[1].rule")).toContain("PAY-009");
    expect(at("roles")).toBe("---");
    expect(at("body", "pointer talent://@acme/pay/missing.md: no file")).toContain("talent://@acme/pay/missing.md");
  });

  test("every finding the validator reports on this text lands on a line", () => {
    const issues = verifyExpertise({ orgSlug: "acme", slug: "pay", content, files: {} }, null).issues;
    expect(issues.length).toBeGreaterThan(3);
    for (const i of issues) {
      const field = i.path.slice(i.path.indexOf(": ") + 2);
      expect(`${i.path} → ${lineOfIssue(content, field, i.message) !== null}`).toBe(`${i.path} → true`);
    }
  });

  test("a text without front matter: findings about fields have no line (listed above the text)", () => {
    expect(lineOfIssue("just a body", "budget", "missing")).toBeNull();
  });
});

describe("a YAML error names its line and column in the whole TALENT.md, and the page shows it on that line", () => {
  test("a mistake on line 7 (counting the front matter's opening ---) → 'at line 7, column 8', placed on line 7", () => {
    const text = content.replace("budget: 50", "budget: 50\nowner: team: payments");
    const at = text.split("\n").indexOf("owner: team: payments");
    expect(at + 1).toBe(7);
    const issues = verifyExpertise({ orgSlug: "acme", slug: "pay", content: text, files: {} }, null).issues;
    expect(issues).toEqual([
      {
        path: "@acme/pay/TALENT.md: front matter",
        message: `invalid YAML at line ${at + 1}, column 8: Nested mappings are not allowed in compact mappings`,
      },
    ]);
    expect(lineOfIssue(text, "front matter", issues[0]!.message)).toBe(at);
  });

  test("an unclosed { on line 14 of the skeleton points at that { (line 14, column 5), not where the parser noticed it (line 15)", () => {
    const lines = starterContent("pay").split("\n");
    lines[13] = lines[13]!.replace(/ }$/, "");
    const text = lines.join("\n");
    const issues = verifyExpertise({ orgSlug: "acme", slug: "pay", content: text, files: {} }, null).issues;
    expect(issues.map((i) => i.message)).toEqual([
      "invalid YAML at line 14, column 5: Flow map in block collection must be sufficiently indented and end with a }",
    ]);
    expect(lineOfIssue(text, "front matter", issues[0]!.message)).toBe(13);
  });

  test("an id that is not the slug is named the expertise's id, not a folder", () => {
    const issues = verifyExpertise({ orgSlug: "acme", slug: "payments", content, files: {} }, null).issues;
    const id = issues.find((i) => i.path.endsWith(": id"))!;
    expect(id.message).toBe(`"pay" must be the expertise's id "payments" (the slug it was created with)`);
    expect(id.message).not.toContain("folder");
  });
});
