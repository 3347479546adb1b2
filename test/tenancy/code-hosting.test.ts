/**
 * Code hosting (docs/api.md "Code hosting"): the organization's
 * code hosting, a project's repository, and report evidence `path:line` turned into links.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { evidenceLink } from "../../src/tenancy/codeHosting";
import { createKey, joinedMember, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("GET, PUT, DELETE /web/orgs/current/code-hosting", () => {
  test("members read; owners and admins set and clear it (a member → 403 forbidden)", async () => {
    const o = await orgWithProject(env);
    const member = await joinedMember(env, o.owner);
    expect((await member.get("/web/orgs/current/code-hosting")).body).toEqual({ codeHosting: null });
    const settings = { provider: "github", url: "https://github.com/acme/", defaultBranch: "trunk" };
    expect((await member.put("/web/orgs/current/code-hosting", settings)).status).toBe(403);
    const put = await o.owner.put("/web/orgs/current/code-hosting", settings);
    expect(put.body).toEqual({ codeHosting: { provider: "github", url: "https://github.com/acme", defaultBranch: "trunk" } });
    expect((await member.get("/web/orgs/current/code-hosting")).body.codeHosting.provider).toBe("github");
    expect((await member.del("/web/orgs/current/code-hosting")).status).toBe(403);
    expect((await o.owner.del("/web/orgs/current/code-hosting")).body).toEqual({ codeHosting: null });
  });

  const bad: [string, unknown][] = [
    ["an unknown provider", { provider: "sourceforge", url: "https://x.example" }],
    ["a url that is not http(s)", { provider: "github", url: "ftp://x.example" }],
    ["no url", { provider: "gitlab" }],
    ["other without a {path} template", { provider: "other", url: "https://code.example/{repository}" }],
    ["a branch with spaces", { provider: "github", url: "https://github.com/acme", defaultBranch: "my branch" }],
    ["an unknown field", { provider: "github", url: "https://github.com/acme", token: "secret" }],
  ];
  for (const [name, body] of bad) {
    test(`PUT with ${name} → 400 validation_failed, nothing stored`, async () => {
      const o = await orgWithProject(env);
      const r = await o.owner.put("/web/orgs/current/code-hosting", body);
      expect([r.status, r.body.error]).toEqual([400, "validation_failed"]);
      expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toBeNull();
    });
  }
});

describe("a project's repository and evidence links", () => {
  test("POST /web/projects with repository, PATCH /web/projects/:id; a bad path → 400; another organization's project → 404", async () => {
    const a = await orgWithProject(env);
    const b = await orgWithProject(env);
    const created = await a.owner.post("/web/projects", { name: "API", repository: "payments-api" });
    expect(created.body.project.repository).toBe("payments-api");
    const patched = await a.owner.patch(`/web/projects/${created.body.project.id}`, {
      repository: "group/payments",
      description: "the API",
    });
    expect(patched.body.project).toMatchObject({ repository: "group/payments", description: "the API", name: "API" });
    expect((await a.owner.get(`/web/projects/${created.body.project.id}`)).body.project.repository).toBe("group/payments");
    for (const body of [{ repository: "../etc" }, { repository: "a/./b" }, { repository: "a b" }, {}, { name: "" }]) {
      expect({ body, status: (await a.owner.patch(`/web/projects/${created.body.project.id}`, body)).status }).toEqual({
        body,
        status: 400,
      });
    }
    expect((await b.owner.patch(`/web/projects/${created.body.project.id}`, { name: "mine" })).status).toBe(404);
    expect((await a.owner.patch(`/web/projects/${created.body.project.id}`, { repository: null })).body.project.repository).toBeNull();
  });

  test("a bad repository → 400 validation_failed with the issue `repository must be a path such as payments-api or group/repo` (POST and PATCH), never the union's own text", async () => {
    const o = await orgWithProject(env);
    const issue = { path: "repository", message: "repository must be a path such as payments-api or group/repo" };
    for (const repository of ["../etc", "a/./b", "a b", "x".repeat(201), 42, true]) {
      const created = await o.owner.post("/web/projects", { name: "Bad repo", repository });
      expect({ repository, status: created.status, body: created.body }).toEqual({
        repository,
        status: 400,
        body: expect.objectContaining({ error: "validation_failed", issues: [issue] }),
      });
      const patched = await o.owner.patch(`/web/projects/${o.project.id}`, { repository });
      expect({ repository, status: patched.status, body: patched.body }).toEqual({
        repository,
        status: 400,
        body: expect.objectContaining({ error: "validation_failed", issues: [issue] }),
      });
    }
    expect((await o.owner.get("/web/projects")).body.projects.map((p: { name: string }) => p.name)).not.toContain("Bad repo");
  });

  test("recorded evidence path:line comes back as links to the repository's lines", async () => {
    const o = await orgWithProject(env);
    await o.owner.put("/web/orgs/current/code-hosting", { provider: "github", url: "https://github.com/acme" });
    await o.owner.patch(`/web/projects/${o.project.id}`, { repository: "payments-api" });
    await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const k = await createKey(o.owner, o.project.id, ["prepare_task", "record_validation"]);
    const post = (path: string, body: unknown) =>
      withKey(env, k.value, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const { resolutionId } = await (await post("/api/prepare-task", { talentIds: ["typescript-strict"] })).json();
    expect(
      (
        await post("/api/validation/reports", {
          submissionId: "s1",
          resolutionId,
          expertiseResults: [{ id: "typescript-strict", verdict: "fail", evidence: ["src/pay.ts:42", "src/a-b.ts:3-5"] }],
        })
      ).status,
    ).toBe(201);
    const r = await o.owner.get(`/web/projects/${o.project.id}/resolutions/${resolutionId}/reports`);
    expect(r.body.reports[0].results[0].evidenceLinks).toEqual([
      { evidence: "src/pay.ts:42", url: "https://github.com/acme/payments-api/blob/main/src/pay.ts#L42" },
      { evidence: "src/a-b.ts:3-5", url: "https://github.com/acme/payments-api/blob/main/src/a-b.ts#L3-L5" },
    ]);
  });

  test("link formats per provider; no link without settings or repository, or for evidence that is not path:line", () => {
    const h = (provider: "github" | "gitlab" | "bitbucket" | "other", url: string) => ({ provider, url, defaultBranch: "main" });
    expect(evidenceLink(h("gitlab", "https://gitlab.example/acme"), "api", "a/b.ts:7-9")).toBe(
      "https://gitlab.example/acme/api/-/blob/main/a/b.ts#L7-9",
    );
    expect(evidenceLink(h("bitbucket", "https://bitbucket.org/acme"), "api", "a.py:3")).toBe(
      "https://bitbucket.org/acme/api/src/main/a.py#lines-3",
    );
    expect(evidenceLink(h("other", "https://git.example/{repository}/src/branch/{branch}/{path}#L{line}"), "api", "x.go:12")).toBe(
      "https://git.example/api/src/branch/main/x.go#L12",
    );
    expect(evidenceLink(null, "api", "x.go:1")).toBeNull();
    expect(evidenceLink(h("github", "https://github.com/acme"), null, "x.go:1")).toBeNull();
    expect(evidenceLink(h("github", "https://github.com/acme"), "api", "missing tests")).toBeNull();
  });
});
