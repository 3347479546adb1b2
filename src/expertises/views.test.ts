import { describe, expect, test } from "bun:test";
import { verifyExpertise } from "./verify";
import { lineOfIssue } from "./views/editor";

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
