/**
 * Refusals that name an unknown id say which known ids are closest (docs/design.md "Did you mean"): the policy's
 * talents (JSON and the form posted without JavaScript), a locked hook rule, an install by id. Code and status stay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, formPost, orgWithProject, testEnv, type TestEnv, textOfId, withKey } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("an unknown id is refused with the closest known ids", () => {
  test('policy: "secret-handling" → 400 unknown_talents saying did you mean "secrets-handling", the issue carrying suggestions; nothing saved', async () => {
    const { owner } = await orgWithProject(env);
    const r = await owner.put("/web/orgs/current/policy", { requiredTalents: ["secret-handling"] });
    expect([r.status, r.body.error]).toEqual([400, "unknown_talents"]);
    expect(r.body.message).toContain('Unknown talent "secret-handling" — did you mean "secrets-handling"?');
    expect(r.body.issues).toEqual([
      {
        path: "requiredTalents",
        id: "secret-handling",
        suggestions: ["secrets-handling"],
        message: expect.stringContaining('unknown talent "secret-handling" — did you mean "secrets-handling"?'),
      },
    ]);
    expect(r.body.suggestions).toEqual({ "secret-handling": ["secrets-handling"] });
    expect((await owner.get("/web/orgs/current/policy")).body.policy.requiredTalents).toEqual([]);
  });

  test("policy form without JavaScript (an old form's text): the suggestion is under the required list", async () => {
    const { owner } = await orgWithProject(env);
    const r = await formPost(env, owner, "/org/policy", { requiredTalents: "secret-handling", allowedTalents: "" });
    expect(r.status).toBe(400);
    expect(textOfId(r.html, "policy-required-field-error")).toContain(
      'unknown talent "secret-handling" — did you mean "secrets-handling"?',
    );
  });

  test('a lock on "TS-05" → 400 validation_failed under rule, did you mean "TS-005"', async () => {
    const { owner } = await orgWithProject(env);
    const r = await owner.post("/web/orgs/current/policy/hook-rules", { rule: "TS-05", choice: "block" });
    expect([r.status, r.body.error]).toEqual([400, "validation_failed"]);
    expect(r.body.issues[0].path).toBe("rule");
    expect(r.body.issues[0].suggestions).toContain("TS-005");
    expect(r.body.message).toContain('did you mean "TS-005"');
  });

  test("installing an unknown id → 400 unknown_talents with the closest catalog ids; nothing installed", async () => {
    const { owner, project } = await orgWithProject(env);
    const r = await owner.post(`/web/projects/${project.id}/talents`, { talents: ["javascript-bsae"] });
    expect([r.status, r.body.error]).toEqual([400, "unknown_talents"]);
    expect(r.body.message).toContain('did you mean "javascript-base"?');
    expect(r.body.suggestions).toEqual({ "javascript-bsae": ["javascript-base"] });
    expect((await owner.get(`/web/projects/${project.id}/installed`)).body.talents).toEqual([]);
  });

  test("designating a misspelt talent (POST /api/prepare-task) → 400 unknown_talents naming the closest active talent; nothing resolved", async () => {
    const { owner, project } = await orgWithProject(env);
    await owner.post(`/web/projects/${project.id}/talents`, { talents: ["javascript-base", "typescript-strict"] });
    const key = await createKey(owner, project.id, ["prepare_task"]);
    const r = await withKey(env, key.value, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strcit"] }),
    });
    const body = await r.json();
    expect([r.status, body.error]).toEqual([400, "unknown_talents"]);
    expect(body.message).toStartWith('Unknown talent "typescript-strcit" — did you mean "typescript-strict"?');
    expect(body.suggestions).toEqual({ "typescript-strcit": ["typescript-strict"] });
  });
});
