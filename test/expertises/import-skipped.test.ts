/**
 * An import says which lines of a file it did not turn into rules (docs/api-expertises.md "Skipped lines"): the JSON
 * answer's `skipped` per draft and the import page's list after the import, with the file's line numbers and why.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** Five rules, one of them an obligation rather than an instruction ("Every migration must be reversible."). */
const FIVE = `# Database rules

- Use transactions for every multi-row write.
- Never edit a migration that was applied.
- Every migration must be reversible.
- Name migrations by date and topic.
- Run the migration tests before a merge.
`;

/** The same sentence as a paragraph under a heading, and a statement item. */
const PARAGRAPH = `# Database rules

- Use transactions for every multi-row write.

## Migrations

Every migration must be reversible.

- The CI runs on every push
`;

describe("import: lines not made rules are listed", () => {
  test("the five-rule file gives five rules and skips nothing (an obligation item is a rule)", async () => {
    const { owner } = await orgWithProject(env);
    const r = await owner.post("/web/orgs/current/expertises/import", { files: [{ path: "AGENTS.md", content: FIVE }] });
    expect(r.status).toBe(201);
    const d = r.body.drafts[0];
    expect(d.rules.map((x: { title: string }) => x.title)).toContain("Every migration must be reversible.");
    expect(d.rules).toHaveLength(5);
    expect(d.skipped).toEqual([]);
  });

  test("JSON: a paragraph that reads as a rule and a statement item are in skipped with their line and why", async () => {
    const { owner } = await orgWithProject(env);
    const r = await owner.post("/web/orgs/current/expertises/import", { files: [{ path: "AGENTS.md", content: PARAGRAPH }] });
    expect(r.status).toBe(201);
    const d = r.body.drafts[0];
    expect(d.rules).toHaveLength(1);
    expect(d.skipped).toEqual([
      {
        line: 7,
        text: "Every migration must be reversible.",
        reason: "a sentence outside a list: only bullet and numbered items become rules (make it an item, or write the rule)",
      },
      {
        line: 9,
        text: "The CI runs on every push",
        reason: "not an instruction: it neither opens with a verb nor says must, should, never or always",
      },
    ]);
  });

  test("the import page (no JavaScript) lists the skipped lines of each draft after the import", async () => {
    const { owner } = await orgWithProject(env);
    const post = await formPost(env, owner, "/org/expertises/import", { pastePath: "AGENTS.md", paste: PARAGRAPH });
    expect(post.status).toBe(303);
    const page = await owner.call("GET", post.location!, undefined, { accept: "text/html" });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="skipped-agents"');
    // each cell names its column (a phone shows the rows as cards: src/ui/table.tsx)
    expect(html).toContain('<td data-label="Line">7</td><td data-label="Text">Every migration must be reversible.</td>');
    expect(html).toContain('<td data-label="Line">9</td><td data-label="Text">The CI runs on every push</td>');
  });
});
