/**
 * POST /projects/:id/automation-key (the automation key's form without JavaScript) on its failure
 * paths: signed out, another organization's project, an unknown one, and a rotation not confirmed
 * (the confirmation page, the key unchanged); a first key needs no confirmation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const keysOf = async (projectId: string) =>
  Number(
    (
      await env.database.client.execute({
        sql: "SELECT count(*) AS n FROM api_keys WHERE project_id = ? AND revoked_at IS NULL",
        args: [projectId],
      })
    ).rows[0]!.n,
  );

describe("POST /projects/:id/automation-key: failure paths", () => {
  test("signed out: no key is made, the sign-in page is where it leads", async () => {
    const o = await orgWithProject(env);
    const r = await env.request(`/projects/${o.project.id}/automation-key`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(env.config.baseUrl).origin, accept: "text/html" },
      body: "",
    });
    expect([r.status, r.headers.get("location")?.startsWith("/login")]).toEqual([303, true]);
    expect(await keysOf(o.project.id)).toBe(0);
  });

  test("another organization's project and an unknown one: the 404 page, nothing made", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const other = await formPost(env, a.owner, `/projects/${b.project.id}/automation-key`, {});
    expect(other.status).toBe(404);
    expect(other.html).not.toContain(b.project.name);
    expect(await keysOf(b.project.id)).toBe(0);
    expect((await formPost(env, a.owner, "/projects/prj_nope/automation-key", {})).status).toBe(404);
  });

  test("a first key needs no confirmation; a rotation without confirm=yes answers the question (400) and keeps the key", async () => {
    const o = await orgWithProject(env);
    const first = await formPost(env, o.owner, `/projects/${o.project.id}/automation-key`, {});
    expect(first.status).toBe(200);
    expect(first.html).not.toContain("no longer works");
    const before = (
      await env.database.client.execute({
        sql: "SELECT id FROM api_keys WHERE project_id = ? AND revoked_at IS NULL",
        args: [o.project.id],
      })
    ).rows;
    const asked = await formPost(env, o.owner, `/projects/${o.project.id}/automation-key`, {});
    expect(asked.status).toBe(400);
    const after = (
      await env.database.client.execute({
        sql: "SELECT id FROM api_keys WHERE project_id = ? AND revoked_at IS NULL",
        args: [o.project.id],
      })
    ).rows;
    expect(after).toEqual(before);
  });
});
