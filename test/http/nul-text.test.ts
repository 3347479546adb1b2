/**
 * A NUL character (U+0000) in a path or a field: SQLite stores it, PostgreSQL refuses it in text
 * (SQLSTATE 22021). Either way such a request names nothing stored, so it is answered in the error
 * model — 404 where the lookup finds nothing, 400 validation_failed where PostgreSQL refused the
 * text — and never a 500. Runs on both engines (test/postgres-files.txt).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithProject, type TestEnv, testEnv, type WebClient } from "../helpers";

describe("a NUL character in a path or a field is bad input, never a 500 (on SQLite and PostgreSQL)", () => {
  let env: TestEnv;
  let owner: WebClient;
  let projectId: string;
  beforeAll(async () => {
    env = await testEnv();
    const made = await orgWithProject(env);
    owner = made.owner;
    projectId = made.project.id;
  });
  afterAll(() => env.close());

  const requests: [string, string, unknown?][] = [
    ["GET", "/web/projects/%00"],
    ["GET", "/web/projects/%00/keys"],
    ["PATCH", "/web/projects/%00", { name: "x" }],
    ["GET", "/web/orgs/current/expertises/%00"],
    ["POST", "/web/orgs/current/invitations/%00/resend", {}],
  ];
  for (const [method, path, body] of requests)
    test(`${method} ${path} → 400 or 404 in the error model`, async () => {
      const r = await owner.json(method, path, body);
      expect([400, 404]).toContain(r.status);
      expect(typeof r.body.error).toBe("string");
      expect(r.body.error).not.toBe("internal_error");
    });

  test("a field holding a NUL: stored as sent on SQLite, refused (400) on PostgreSQL, never a 500", async () => {
    const r = await owner.patch(`/web/projects/${projectId}`, { name: "a\u0000b" });
    expect(r.status).not.toBe(500);
    if (process.env.TEST_DATABASE === "postgres") expect(r.body.error).toBe("validation_failed");
  });
});
