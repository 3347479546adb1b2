/**
 * The organization's talent policy (docs/api.md "Organization policy"): required talents are
 * installed and active in every project, new ones included, with their prerequisites; the
 * project routes refuse to disable or uninstall them (409 required_by_policy); an allow-list
 * refuses other installs (409 not_allowed_by_policy); doctor and `talentd ci verify` report a
 * required talent a selection lacks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { clientProject, gitRepo, removeRepos, talentd } from "../client-support";
import {
  createKey,
  formPost,
  joinedMember,
  nextTurn,
  orgWithProject,
  publishedExpertise,
  WebClient,
  withKey,
  type TestEnv,
} from "../helpers";

let live: LiveEnv;
let env: TestEnv;
beforeAll(async () => {
  live = await liveEnv();
  env = live.env;
});
afterAll(async () => {
  await live.close();
  removeRepos();
});

const installedState = async (c: { get: (p: string) => Promise<{ body: any }> }, projectId: string) => {
  const body = (await c.get(`/web/projects/${projectId}/installed`)).body;
  const rows: { id: string; state: string }[] = body.talents ?? body.installed ?? [];
  return Object.fromEntries(rows.map((r) => [r.id, r.state]));
};

describe("PUT /web/orgs/current/policy: required talents enter every project with their prerequisites", () => {
  test("a required talent is installed and active in the existing projects (a disabled one enabled) and in a new project, with its prerequisites", async () => {
    const { owner, project } = await orgWithProject(env);
    expect((await owner.post(`/web/projects/${project.id}/talents`, { talent: "rest-api-design" })).status).toBe(201);
    expect((await owner.patch(`/web/projects/${project.id}/talents/rest-api-design`, { enabled: false })).status).toBe(200);
    const put = await owner.put("/web/orgs/current/policy", { requiredTalents: ["api-pagination"] });
    expect(put.status).toBe(200);
    expect(put.body.policy).toMatchObject({ requiredTalents: ["api-pagination"], allowedTalents: null, setBy: { id: owner.userId } });
    expect(put.body.projects).toEqual([{ projectId: project.id, installed: ["api-pagination", "rest-api-design"] }]);
    expect(await installedState(owner, project.id)).toMatchObject({ "api-pagination": "active", "rest-api-design": "active" });

    const fresh = (await owner.post("/web/projects", { name: "After the policy" })).body.project;
    expect(await installedState(owner, fresh.id)).toEqual({ "api-pagination": "active", "rest-api-design": "active" });
    expect((await owner.get("/web/orgs/current/policy")).body.policy.requiredTalents).toEqual(["api-pagination"]);
  });

  test("an expertise of the organization (@org/slug) can be required: it enters every project as an expertise, with its public prerequisites; another organization's is unknown", async () => {
    const { owner, org, project } = await orgWithProject(env);
    const ledger = await publishedExpertise(owner, org.slug, "ledger");
    const put = await owner.put("/web/orgs/current/policy", { requiredTalents: [ledger.ref] });
    expect(put.status).toBe(200);
    const installed = (await owner.get(`/web/projects/${project.id}/installed`)).body.talents;
    expect(installed.map((t: { id: string; kind: string; requiredByPolicy: boolean }) => [t.id, t.kind, t.requiredByPolicy])).toEqual([
      [ledger.ref, "expertise", true],
      ["javascript-base", "talent", false],
      ["typescript-strict", "talent", false],
    ]);
    const other = await orgWithProject(env);
    const refused = await other.owner.put("/web/orgs/current/policy", { requiredTalents: [ledger.ref] });
    expect([refused.status, refused.body.error]).toEqual([400, "unknown_talents"]);
  });

  test("policy routes are for owners and admins: a member gets 403 forbidden; an unknown id is 400 unknown_talents; a bad body 400 validation_failed", async () => {
    const { owner } = await orgWithProject(env);
    const member = await joinedMember(env, owner);
    expect((await member.get("/web/orgs/current/policy")).body.error).toBe("forbidden");
    const put = await member.put("/web/orgs/current/policy", { requiredTalents: [] });
    expect([put.status, put.body.error]).toEqual([403, "forbidden"]);
    const unknown = await owner.put("/web/orgs/current/policy", { requiredTalents: ["no-such-talent"] });
    expect([unknown.status, unknown.body.error, unknown.body.ids]).toEqual([400, "unknown_talents", ["no-such-talent"]]);
    const bad = await owner.put("/web/orgs/current/policy", { requiredTalents: "x".repeat(300) });
    expect([bad.status, bad.body.error]).toEqual([400, "validation_failed"]);
    const missing = await owner.put("/web/orgs/current/policy", {});
    expect([missing.status, missing.body.error]).toEqual([400, "validation_failed"]);
  });
  test("policy routes need a session: signed out, GET and PUT are 401 unauthenticated and nothing is set; a project key is not a session either", async () => {
    const { owner, project } = await orgWithProject(env);
    const anon = new WebClient(env);
    const get = await anon.get("/web/orgs/current/policy");
    expect([get.status, get.body.error]).toEqual([401, "unauthenticated"]);
    const put = await anon.put("/web/orgs/current/policy", { requiredTalents: ["api-pagination"] });
    expect([put.status, put.body.error]).toEqual([401, "unauthenticated"]);
    const key = await createKey(owner, project.id, ["prepare_task"]);
    const byKey = await withKey(env, key.value, "/web/orgs/current/policy", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ requiredTalents: ["api-pagination"] }),
    });
    expect(byKey.status).toBe(401);
    expect((await owner.get("/web/orgs/current/policy")).body.policy.requiredTalents).toEqual([]);
  });
});

describe("required_by_policy: a required talent cannot be disabled nor uninstalled through the project routes", () => {
  test("a member and an admin get 409 required_by_policy naming the policy and who set it, on the web and key routes; nothing changes", async () => {
    const { owner, project } = await orgWithProject(env);
    expect((await owner.put("/web/orgs/current/policy", { requiredTalents: ["secrets-handling"] })).status).toBe(200);
    const member = await joinedMember(env, owner);
    const admin = await joinedMember(env, owner);
    expect((await owner.patch(`/web/orgs/current/members/${admin.userId}`, { role: "admin" })).status).toBe(200);
    for (const who of [member, admin]) {
      const off = await who.patch(`/web/projects/${project.id}/talents/secrets-handling`, { enabled: false });
      expect([off.status, off.body.error, off.body.ids]).toEqual([409, "required_by_policy", ["secrets-handling"]]);
      expect(off.body.message).toContain(`set by ${owner.email}`);
      expect(off.body.message).toContain("/org/policy");
      expect(off.body.policy).toMatchObject({ page: "/org/policy", setBy: owner.email });
      const gone = await who.del(`/web/projects/${project.id}/talents/secrets-handling`);
      expect([gone.status, gone.body.error]).toEqual([409, "required_by_policy"]);
    }
    const key = await createKey(owner, project.id, ["install"]);
    const viaKey = await withKey(env, key.value, "/api/projects/current/talents", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talents: ["secrets-handling"], enabled: false }),
    });
    expect([viaKey.status, (await viaKey.json()).error]).toEqual([409, "required_by_policy"]);
    expect((await installedState(owner, project.id))["secrets-handling"]).toBe("active");
  });
});

describe("not_allowed_by_policy: with an allow-list, a project installs only the allowed and the required talents", () => {
  test("an install outside the allow-list is 409 not_allowed_by_policy naming the policy; an allowed one installs; no allow-list allows anything", async () => {
    const { owner, project } = await orgWithProject(env);
    const set = await owner.put("/web/orgs/current/policy", { requiredTalents: ["secrets-handling"], allowedTalents: ["sql-base"] });
    expect(set.body.policy.allowedTalents).toEqual(["sql-base"]);
    const refused = await owner.post(`/web/projects/${project.id}/talents`, { talents: ["sql-base", "go-base"] });
    expect([refused.status, refused.body.error, refused.body.ids]).toEqual([409, "not_allowed_by_policy", ["go-base"]]);
    expect(refused.body.message).toContain("the organization's talent policy");
    expect(await installedState(owner, project.id)).toEqual({ "secrets-handling": "active" });
    expect((await owner.post(`/web/projects/${project.id}/talents`, { talent: "sql-base" })).status).toBe(201);
    // the allow-list cleared (a form's blank field, JSON's null): anything installs again
    expect((await owner.put("/web/orgs/current/policy", { requiredTalents: ["secrets-handling"], allowedTalents: null })).status).toBe(200);
    expect((await owner.post(`/web/projects/${project.id}/talents`, { talent: "go-base" })).status).toBe(201);
  });
});

describe("doctor and talentd ci verify report a required talent the selection lacks", () => {
  test("a project whose database lacks a required talent (written before the policy's install) is unhealthy in doctor and fails ci verify", async () => {
    const p = await clientProject(live, ["sql-base"]);
    expect((await p.owner.put("/web/orgs/current/policy", { requiredTalents: ["secrets-handling"] })).status).toBe(200);
    // an older database: the required talent's row is not there (removed outside the service)
    await env.database.client.execute({
      sql: "DELETE FROM installed_talents WHERE project_id = ? AND talent_id = 'secrets-handling'",
      args: [p.project.id],
    });
    await nextTurn();
    const doctor = await (await withKey(env, p.key, "/api/doctor")).json();
    expect(doctor.healthy).toBe(false);
    expect(doctor.requiredByPolicy).toEqual([{ id: "secrets-handling", problem: "missing" }]);
    expect(doctor.advice).toContain("policy requires secrets-handling (missing)");
    // the insights' projects at fault say it too
    const atFault = (await p.owner.get("/web/orgs/current/insights")).body.projects;
    expect(atFault).toEqual([
      expect.objectContaining({ projectId: p.project.id, requiredByPolicy: [{ id: "secrets-handling", problem: "missing" }] }),
    ]);
    const repo = gitRepo();
    expect((await talentd(["lock"], repo, p.env)).code).toBe(0);
    const verify = await talentd(["ci", "verify", "--json"], repo, p.env);
    expect(verify.code).toBe(1);
    expect(JSON.parse(verify.stdout).doctor.problems).toEqual(["required by the organization's policy: secrets-handling is not installed"]);
  });
});

describe("/org/policy without JavaScript, and the project page's lock", () => {
  test("the form posts (PUT by _method) and comes back to the page, which lists the required talent and who set it; the project page locks it and offers neither disable nor uninstall; a member gets the 404 page", async () => {
    const { owner, project } = await orgWithProject(env);
    const saved = await formPost(env, owner, "/web/orgs/current/policy?_method=PUT", {
      requiredTalents: "secrets-handling\n",
      allowedTalents: "",
    });
    expect([saved.status, saved.location]).toEqual([303, "/org/policy"]);
    const html = await (await owner.call("GET", "/org/policy", undefined, { accept: "text/html" })).text();
    expect(html).toContain("<code>secrets-handling</code>");
    expect(html).toContain(`Set by ${owner.email}`);
    expect(html).toContain("Any talent may be installed.");
    const projectPage = await (await owner.call("GET", `/projects/${project.id}`, undefined, { accept: "text/html" })).text();
    expect(projectPage).toContain('class="tag required"');
    expect(projectPage).toContain(`, set by ${owner.email}`);
    expect(projectPage).not.toContain('Uninstall<span class="visually-hidden"> secrets-handling');
    const member = await joinedMember(env, owner);
    expect((await member.call("GET", "/org/policy", undefined, { accept: "text/html" })).status).toBe(404);
  });
});

describe("required talents are served only when designated: the playbook and the insights show which were not", () => {
  test("a resolution that did not designate a required talent names it in its playbook (requiredNotDesignated) and in the insights, JSON and page", async () => {
    const p = await clientProject(live, ["sql-base"]);
    const post = (path: string, body: unknown) =>
      withKey(env, p.key, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const before = await (await post("/api/prepare-task", { talentIds: ["sql-base"] })).json();
    // no policy: the playbook's answer is as it was
    expect(
      (await (await withKey(env, p.key, `/api/validation/playbook?resolutionId=${before.resolutionId}`)).json()).requiredNotDesignated,
    ).toBe(undefined);
    expect((await p.owner.put("/web/orgs/current/policy", { requiredTalents: ["secrets-handling"] })).status).toBe(200);
    const served = await (await post("/api/prepare-task", { talentIds: ["sql-base"] })).json();
    expect(served.talents.map((t: { id: string }) => t.id)).toEqual(["sql-base"]);
    const pb = await (await withKey(env, p.key, `/api/validation/playbook?resolutionId=${served.resolutionId}`)).json();
    expect(pb.requiredNotDesignated).toEqual(["secrets-handling"]);
    const both = await (await post("/api/prepare-task", { talentIds: ["sql-base", "secrets-handling"] })).json();
    const pb2 = await (await withKey(env, p.key, `/api/validation/playbook?resolutionId=${both.resolutionId}`)).json();
    expect(pb2.requiredNotDesignated).toEqual([]);

    const insights = (await p.owner.get("/web/orgs/current/insights")).body.requiredNotDesignated;
    expect(insights).toMatchObject({ requiredTalents: ["secrets-handling"], resolutions: 3, lacking: 2 });
    expect(insights.recent.map((r: { resolutionId: string }) => r.resolutionId).sort()).toEqual(
      [before.resolutionId, served.resolutionId].sort(),
    );
    expect(insights.recent[0]).toMatchObject({ projectId: p.project.id, requiredNotDesignated: ["secrets-handling"] });
    const html = await (await p.owner.call("GET", "/org/insights", undefined, { accept: "text/html" })).text();
    expect(html).toContain("Required talents not designated");
    expect(html).toContain(served.resolutionId);
  });
});

describe("the activity journal of a policy save: one event per project, each with its own id", () => {
  test("saving a policy that installs in three projects writes each project's install event to its activity, ids unique per event, not per request", async () => {
    const { owner } = await orgWithProject(env);
    for (const name of ["Second", "Third"]) expect((await owner.post("/web/projects", { name })).status).toBe(201);
    const projects: { id: string }[] = (await owner.get("/web/projects")).body.projects;
    expect(projects.length).toBe(3);
    const put = await owner.put("/web/orgs/current/policy", { requiredTalents: ["secrets-handling"] });
    expect(put.status).toBe(200);
    expect(put.body.projects.length).toBe(3);
    const ids: string[] = [];
    for (const p of projects) {
      const events = (await owner.get(`/web/projects/${p.id}/traces`)).body.events as {
        id: string;
        kind: string;
        talentsEntered: string[];
      }[];
      const installs = events.filter((e) => e.kind === "install");
      expect(installs.map((e) => e.talentsEntered)).toEqual([["secrets-handling"]]);
      ids.push(installs[0]!.id);
    }
    expect(new Set(ids).size).toBe(3);
  });
});
