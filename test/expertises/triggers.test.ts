import { describe, expect, test } from "bun:test";
import { declaredTriggers, normalizeTriggers, proposeTriggers } from "../../src/expertises/triggers";
import { LIFECYCLE_MOVES, LIFECYCLE_OPERATIONS, allowedOperations, nextStatus } from "../../src/expertises/lifecycle";
import { EXPERTISE_STATUSES } from "../../src/db/schema";
import { AppError } from "../../src/http/errors";

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
    detect:
      - pattern: 'amount:\\s*\\d+\\.\\d'
        files: ["src/ledger/**", "!src/ledger/fixtures/**"]
  - id: LED-003
    severity: advisory
    title: Name ledger accounts with a prefix.
    check: Accounts without a prefix; see migrations/ for the list.
tests:
  - rule: LED-001
    pass: "posting.post(entry)"
    fail: "db.insert(ledgerEntries)"
  - rule: LED-002
    pass: "amount: 100"
    fail: "amount: 1.5"
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

describe("trigger proposal: from the declared triggers, the languages and the rules' file patterns, never from prose", () => {
  test("file globs: languages, then the rules' detector files (exclusions left out)", () => {
    const p = proposeTriggers(TALENT);
    expect(p.files).toEqual([
      { value: "**/*.ts", why: 'language "typescript" in the front matter' },
      { value: "**/*.tsx", why: 'language "typescript" in the front matter' },
      { value: "src/ledger/**", why: "files of rule LED-002's detector 1" },
    ]);
  });

  test("no glob from words of prose: res.json, paths in rule checks, code fences and the body suggest nothing", () => {
    const prose = TALENT.replace("Floats in", "Answer with res.json(body); floats in").concat(
      "\nCall `res.json()` once; see `config/app.json`.\n",
    );
    const values = proposeTriggers(prose).files.map((f) => f.value);
    expect(values).toEqual(["**/*.ts", "**/*.tsx", "src/ledger/**"]);
    expect(values.some((v) => v.includes("json") || v.includes("migrations") || v.includes(".py") || v.includes(".sql"))).toBe(false);
  });

  test("keywords: languages, then the words of the id and the title; no stop word such as once, no word of the body or rule titles", () => {
    const p = proposeTriggers(TALENT.replace("title: Ledger postings", "title: Ledger postings, retried once"));
    expect(p.keywords.map((k) => k.value)).toEqual(["typescript", "ledger", "postings", "retried"]);
    expect(p.keywords[1]).toEqual({ value: "ledger", why: 'in the id "ledger"' });
    expect(p.keywords[2]!.why).toBe('in the title "Ledger postings, retried once"');
  });

  test("declared front-matter triggers come first and are kept; declaredTriggers reads them normalized (null when none or invalid)", () => {
    const withDeclared = TALENT.replace("budget: 800", 'budget: 800\ntriggers: { files: ["ledger/**"], keywords: ["Double Entry"] }');
    const p = proposeTriggers(withDeclared);
    expect(p.files[0]).toEqual({ value: "ledger/**", why: "declared in the front matter (triggers.files)" });
    expect(p.keywords[0]).toEqual({ value: "double entry", why: "declared in the front matter (triggers.keywords)" });
    expect(declaredTriggers(withDeclared)).toEqual({ files: ["ledger/**"], keywords: ["double entry"] });
    expect(declaredTriggers(TALENT)).toBeNull();
    expect(declaredTriggers(TALENT.replace("budget: 800", 'budget: 800\ntriggers: { files: ["/abs/**"] }'))).toBeNull();
  });

  test("deterministic: the same text gives the same proposal; CRLF and a BOM change nothing", () => {
    const a = proposeTriggers(TALENT);
    expect(proposeTriggers(TALENT)).toEqual(a);
    expect(proposeTriggers("\uFEFF" + TALENT.replace(/\n/g, "\r\n"))).toEqual(a);
  });

  test("bounded: at most 20 globs and 20 keywords; every proposed glob passes the glob check", () => {
    const many = TALENT.replace(
      "budget: 800",
      `budget: 800\ntriggers: { files: [${Array.from({ length: 30 }, (_, i) => `"d${i}/**"`).join(", ")}], keywords: [${Array.from({ length: 30 }, (_, i) => `"k${i}"`).join(", ")}] }`,
    );
    const p = proposeTriggers(many);
    expect(p.files.length).toBe(20);
    expect(p.keywords.length).toBe(20);
    expect(normalizeTriggers({ files: p.files.map((f) => f.value), keywords: p.keywords.map((k) => k.value) }).issues).toEqual([]);
  });

  test("unreadable content gives an empty proposal rather than guesses", () => {
    expect(proposeTriggers("")).toEqual({ files: [], keywords: [] });
    expect(proposeTriggers("---\nid: [unclosed\n---\n# Webhooks retries\n```go\nx\n```\n")).toEqual({ files: [], keywords: [] });
    expect(proposeTriggers("# Caching\nSee `config/cache.yaml`.")).toEqual({ files: [], keywords: [] });
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
