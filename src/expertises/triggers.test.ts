import { describe, expect, test } from "bun:test";
import { normalizeTriggers, proposeTriggers } from "./triggers";
import { LIFECYCLE_MOVES, LIFECYCLE_OPERATIONS, allowedOperations, nextStatus } from "./lifecycle";
import { EXPERTISE_STATUSES } from "../db/schema";
import { AppError } from "../http/errors";

const TALENT = `---
id: ledger
title: Ledger postings
summary: How ledger postings are written. Designate when touching the ledger.
version: 1.0.0
roles: [backend]
languages: [typescript]
budget: 800
rules:
  - id: LED-001
    severity: blocking
    title: Post every ledger entry through the posting service.
    check: Look for inserts into ledger_entries outside \`src/ledger/post.ts\`.
  - id: LED-002
    severity: advisory
    title: Keep ledger amounts in minor units.
    check: Floats in \`amount\` fields.
  - id: LED-003
    severity: advisory
    title: Name ledger accounts with a prefix.
    check: Accounts without a prefix; see migrations/ for the list.
tests:
  - rule: LED-001
    pass: "posting.post(entry)"
    fail: "db.insert(ledgerEntries)"
---
## Posting rules

Migrations live in \`db/migrations/\`; the schema in \`schema/ledger.sql\`.

\`\`\`ts
await posting.post({ amount: 100 });
\`\`\`

\`\`\`python
print("not a path: e.g. this.that")
\`\`\`
`;

describe("trigger proposal: computed from the content, explained, deterministic", () => {
  test("file globs: languages, code fences (with their line), paths and folders mentioned in rules and body", () => {
    const p = proposeTriggers(TALENT);
    const byValue = Object.fromEntries(p.files.map((f) => [f.value, f.why]));
    expect(byValue["**/*.ts"]).toBe('language "typescript" in the front matter');
    expect(byValue["**/*.tsx"]).toBe('language "typescript" in the front matter');
    expect(byValue["**/*.py"]).toMatch(/^code fence "```python" at line \d+$/);
    const fenceLine = Number(/line (\d+)/.exec(byValue["**/*.py"]!)![1]);
    expect(TALENT.split("\n")[fenceLine - 1]).toBe("```python");
    expect(byValue["src/ledger/**"]).toBe('folder of "src/ledger/post.ts" in rule LED-001 (check)');
    expect(byValue["migrations/**"]).toBe('folder "migrations/" in rule LED-003 (check)');
    expect(byValue["db/migrations/**"]).toMatch(/^folder "db\/migrations\/" in body line \d+$/);
    expect(byValue["**/*.sql"]).toMatch(/^path "schema\/ledger.sql" in body line \d+$/);
    expect(byValue["schema/**"]).toBeDefined();
    // words inside code blocks and "e.g." are not paths
    expect(p.files.map((f) => f.value).some((v) => v.includes("this.that") || v.includes("e.g"))).toBe(false);
  });

  test("keywords: languages, then words of the title, rule titles and headings by weight; stop words dropped", () => {
    const p = proposeTriggers(TALENT);
    const values = p.keywords.map((k) => k.value);
    expect(values[0]).toBe("typescript");
    expect(values[1]).toBe("ledger");
    expect(p.keywords[1]!.why).toMatch(/^in the title "Ledger postings"; \d+ weighted mentions$/);
    expect(values).toEqual(expect.arrayContaining(["posting", "amount", "accounts", "prefix"]));
    for (const stop of ["every", "through", "with", "keep", "the"]) expect(values).not.toContain(stop);
    // plurals fold into their singular when both occur
    expect(values).not.toContain("postings");
  });

  test("declared front-matter triggers come first and are kept", () => {
    const withDeclared = TALENT.replace("budget: 800", 'budget: 800\ntriggers: { files: ["ledger/**"], keywords: ["Double Entry"] }');
    const p = proposeTriggers(withDeclared);
    expect(p.files[0]).toEqual({ value: "ledger/**", why: "declared in the front matter (triggers.files)" });
    expect(p.keywords[0]).toEqual({ value: "double entry", why: "declared in the front matter (triggers.keywords)" });
  });

  test("deterministic: the same text gives the same proposal; CRLF and a BOM change nothing", () => {
    const a = proposeTriggers(TALENT);
    expect(proposeTriggers(TALENT)).toEqual(a);
    expect(proposeTriggers("\uFEFF" + TALENT.replace(/\n/g, "\r\n"))).toEqual(a);
    expect(JSON.stringify(proposeTriggers(TALENT))).toBe(JSON.stringify(a));
  });

  test("bounded: at most 20 globs and 20 keywords; every proposed glob passes the glob check", () => {
    const many =
      TALENT +
      Array.from({ length: 40 }, (_, i) => `See \`dir${i}/file${i}.ts\` and word${"abcdefghijklmnopqrstuvwxyz"[i % 26]}${i}x.`).join("\n");
    const p = proposeTriggers(many);
    expect(p.files.length).toBe(20);
    expect(p.keywords.length).toBeLessThanOrEqual(20);
    expect(normalizeTriggers({ files: p.files.map((f) => f.value), keywords: p.keywords.map((k) => k.value) }).issues).toEqual([]);
  });

  test("unreadable content still gives a proposal from what can be read; empty content gives an empty one", () => {
    expect(proposeTriggers("")).toEqual({ files: [], keywords: [] });
    const broken = proposeTriggers("---\nid: [unclosed\n---\n# Webhooks retries\n```go\nx\n```\n");
    expect(broken.files.map((f) => f.value)).toEqual(["**/*.go"]);
    expect(broken.keywords.map((k) => k.value)).toEqual(["webhooks", "retries"]);
    const noFrontMatter = proposeTriggers("# Caching\nSee `config/cache.yaml`.");
    expect(noFrontMatter.files.map((f) => f.value)).toEqual(["**/*.yaml", "config/**"]);
  });
});

describe("confirmation (normalizeTriggers)", () => {
  test("trims, lower-cases and de-duplicates keywords; de-duplicates globs", () => {
    expect(normalizeTriggers({ files: ["a/**", "a/**"], keywords: [" Foo  Bar ", "foo bar"] })).toEqual({
      triggers: { files: ["a/**"], keywords: ["foo bar"] },
      issues: [],
    });
  });
  test("refuses bad globs with the validator's reason", () => {
    expect(normalizeTriggers({ files: ["/abs/**"] }).issues).toEqual([
      { path: "files[0]", message: '"/abs/**" must be relative (no leading /)' },
    ]);
  });
});

describe("lifecycle table helpers", () => {
  test("allowedOperations and nextStatus agree with LIFECYCLE_MOVES for every state", () => {
    for (const s of EXPERTISE_STATUSES) {
      for (const op of LIFECYCLE_OPERATIONS) {
        const to = LIFECYCLE_MOVES[op][s];
        if (to) expect(nextStatus(s, op)).toBe(to);
        else {
          let err: unknown;
          try {
            nextStatus(s, op);
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).body()).toMatchObject({
            error: "invalid_transition",
            status: s,
            operation: op,
            allowed: allowedOperations(s),
          });
        }
      }
    }
    expect(allowedOperations("draft")).toEqual(["publish"]);
    expect(allowedOperations("active")).toEqual(["publish", "deactivate"]);
  });
});
