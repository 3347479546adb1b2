import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, joinedMember, makePlatformAdmin, orgWithProject, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";
import { type ScenarioRow, scenarioTable } from "../scenarios";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("failure paths of identity, tenancy and admin routes, with the spec's status and code", () => {
  test("change-password: no session → 401 unauthenticated; a too short new password → 400 validation_failed, the old one still works", async () => {
    expect(
      (await new WebClient(env).post("/api/auth/change-password", { currentPassword: "x", newPassword: "long enough 123" })).body.error,
    ).toBe("unauthenticated");
    const c = await signedUp(env);
    const r = await c.post("/api/auth/change-password", { currentPassword: "correct horse battery", newPassword: "short" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    expect((await new WebClient(env).post("/api/auth/sign-in", { email: c.email, password: "correct horse battery" })).status).toBe(200);
  });

  test("POST /web/orgs/active without organizationId → 400; without a session → 401", async () => {
    const c = await signedUp(env);
    const r = await c.post("/web/orgs/active", {});
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    expect((await new WebClient(env).post("/web/orgs/active", { organizationId: "org_x" })).status).toBe(401);
  });

  test("GET /web/admin/security-events with a bad limit or cursor → 400", async () => {
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    for (const q of ["limit=0", "limit=501", "limit=abc", "before=yesterday"]) {
      const r = await admin.get(`/web/admin/security-events?${q}`);
      expect(`${q} → ${r.status} ${r.body.error}`).toBe(`${q} → 400 validation_failed`);
    }
  });

  test("a plain member cannot change roles (403) nor remove another member (403); nothing changes", async () => {
    const { owner } = await orgWithProject(env);
    const m = await signedUp(env);
    const other = await signedUp(env);
    for (const u of [m, other]) {
      const inv = (await owner.post("/web/orgs/current/invitations", { email: u.email })).body;
      await u.post(`/web/invitations/${inv.id}/accept`);
    }
    const patch = await m.patch(`/web/orgs/current/members/${other.userId}`, { role: "admin" });
    expect(patch.status).toBe(403);
    expect(patch.body.error).toBe("forbidden");
    const del = await m.del(`/web/orgs/current/members/${other.userId}`);
    expect(del.status).toBe(403);
    const members = (await owner.get("/web/orgs/current/members")).body.members as { userId: string; role: string }[];
    expect(members.find((x) => x.userId === other.userId)?.role).toBe("member");
  });

  test("accepting an invitation without a session → 401; GET /setup without a token shows the invalid-link page", async () => {
    const { owner } = await orgWithProject(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: "nobody@example.com" })).body;
    expect((await new WebClient(env).post(`/web/invitations/${inv.id}/accept`)).status).toBe(401);
    const page = await env.request("/setup");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("invalid, expired or already used");
  });
});

/** Every route of the project-key API with the scope the spec's table gives it, and a request that would pass with that scope. */
const KEY_ROUTES: [method: string, path: (projectId: string) => string, scope: string, body?: unknown][] = [
  ["GET", () => "/api/prepare-task/designable", "prepare_task"],
  ["POST", () => "/api/prepare-task", "prepare_task", { talentIds: ["typescript-strict"] }],
  ["GET", () => "/api/validation/playbook?resolutionId=res_x", "validate"],
  ["POST", () => "/api/validation/reports", "record_validation", { submissionId: "s1", resolutionId: "res_x", expertiseResults: [] }],
  ["GET", () => "/api/search?query=strict", "deepen"],
  ["POST", () => "/api/talents/get", "deepen", { uri: "talent://typescript-strict" }],
  ["GET", () => "/api/doctor", "doctor"],
  ["GET", () => "/api/catalog", "catalog"],
  ["GET", () => "/api/discovery/playbook", "discover"],
  ["PATCH", (id) => `/api/projects/${id}/talents`, "install", { talent: "sql-base" }],
];
const ALL_SCOPES = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

describe("every key-API route (docs/api.md 'Key API'): no bearer → 401 invalid_token; a key without the route's scope → 403 insufficient_scope naming it", () => {
  test("all ten routes, before any body or query is looked at", async () => {
    const { owner, project } = await orgWithProject(env);
    for (const [method, path, scope, body] of KEY_ROUTES) {
      const init = (extra: Record<string, string> = {}): RequestInit => ({
        method,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...extra },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const bare = await env.request(path(project.id), init());
      expect(`${method} ${path("p")} → ${bare.status} ${(await bare.json()).error}`).toBe(`${method} ${path("p")} → 401 invalid_token`);
      expect(bare.headers.get("www-authenticate")).toContain('error="invalid_token"');

      const others = await createKey(
        owner,
        project.id,
        ALL_SCOPES.filter((s) => s !== scope),
      );
      const r = await env.request(path(project.id), init({ authorization: `Bearer ${others.value}` }));
      expect(`${method} ${path("p")} → ${r.status}`).toBe(`${method} ${path("p")} → 403`);
      expect(await r.json()).toMatchObject({ error: "insufficient_scope", requiredScope: scope });
      expect(r.headers.get("www-authenticate")).toContain(`scope="${scope}"`);
    }
  });
});

/** Every /web route, signed out (the project's id in the paths is a real one). */
const SIGNED_OUT_ROWS: ScenarioRow[] = [
  { method: "GET", path: "/web/orgs", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs", body: { name: "x" }, status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/status", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs/active", body: { organizationId: "org_x" }, status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/members", status: 401, code: "unauthenticated" },
  { method: "PATCH", path: "/web/orgs/current/members/usr_x", body: { role: "admin" }, status: 401, code: "unauthenticated" },
  { method: "DELETE", path: "/web/orgs/current/members/usr_x", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/invitations", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs/current/invitations", body: { email: "x@example.com" }, status: 401, code: "unauthenticated" },
  { method: "DELETE", path: "/web/orgs/current/invitations/inv_x", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/invitations/inv_x/accept", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/admin/organizations", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/admin/organizations/org_x/approve", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/admin/users", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/admin/security-events", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/projects", body: { name: "x" }, status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}", status: 401, code: "unauthenticated" },
  { method: "DELETE", path: "/web/projects/{project}", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}/keys", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/projects/{project}/keys", body: { name: "x", tools: ["catalog"] }, status: 401, code: "unauthenticated" },
  { method: "DELETE", path: "/web/projects/{project}/keys/key_x", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}/installed", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/projects/{project}/talents", body: { talent: "sql-base" }, status: 401, code: "unauthenticated" },
  { method: "PATCH", path: "/web/projects/{project}/talents/sql-base", body: { enabled: false }, status: 401, code: "unauthenticated" },
  { method: "DELETE", path: "/web/projects/{project}/talents/sql-base", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}/traces", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}/resolutions/res_x/reports", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}/traces/summary", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/projects/{project}/talents/sql-base/usage", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/activity/summary", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/insights", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/talent-adoption", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/expertises", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs/current/expertises", body: { slug: "x", content: "x" }, status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/expertises/exp_x", status: 401, code: "unauthenticated" },
  {
    method: "PATCH",
    path: "/web/orgs/current/expertises/exp_x",
    body: { content: "x", expectedRevision: 1 },
    status: 401,
    code: "unauthenticated",
  },
  { method: "DELETE", path: "/web/orgs/current/expertises/exp_x", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs/current/expertises/exp_x/trigger-proposal", status: 401, code: "unauthenticated" },
  { method: "PUT", path: "/web/orgs/current/expertises/exp_x/triggers", body: { triggers: {} }, status: 401, code: "unauthenticated" },
  {
    method: "POST",
    path: "/web/orgs/current/expertises/exp_x/publish",
    body: { expectedRevision: 1 },
    status: 401,
    code: "unauthenticated",
  },
  { method: "POST", path: "/web/orgs/current/expertises/exp_x/activate", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs/current/expertises/exp_x/deactivate", status: 401, code: "unauthenticated" },
  { method: "POST", path: "/web/orgs/current/expertises/exp_x/reactivate", status: 401, code: "unauthenticated" },
  { method: "GET", path: "/web/orgs/current/expertises/exp_x/versions/1", status: 401, code: "unauthenticated" },
];

describe("every /web route: no session → 401 unauthenticated, nothing else revealed", () => {
  scenarioTable(
    "identity, tenancy, admin, projects, keys, selection, traces, reports, activity, insights, adoption and expertise routes",
    async () => ({ env, ids: { project: (await orgWithProject(env)).project.id } }),
    SIGNED_OUT_ROWS,
    { every: (r, s) => expect(JSON.stringify(r.body)).not.toContain(s.ids!.project!) },
  );

  scenarioTable(
    "a plain member on the admin-only invitation routes → 403 forbidden",
    async () => {
      const { owner } = await orgWithProject(env);
      const pending = (await owner.post("/web/orgs/current/invitations", { email: "pending@example.com" })).body;
      const m = await joinedMember(env, owner);
      return { env, clients: { owner, member: m }, ids: { pending: pending.id } };
    },
    [
      { method: "GET", path: "/web/orgs/current/invitations", as: "member", status: 403, code: "forbidden" },
      { method: "DELETE", path: "/web/orgs/current/invitations/{pending}", as: "member", status: 403, code: "forbidden" },
    ],
    {
      after: [
        "…and the pending invitation is still there",
        async (s) => expect((await s.clients!.owner!.get("/web/orgs/current/invitations")).body.invitations).toHaveLength(1),
      ],
    },
  );
});

describe("limit takes whole numbers only, on every route that pages by it", () => {
  test("each route whose OpenAPI operation has a limit answers limit=1.5, 1e1, 0x10 and -0 with 400 validation_failed and the sentence 'limit: must be a whole number from 1 to N'; the /org/audit-log page too", async () => {
    const { owner, project } = await orgWithProject(env);
    await makePlatformAdmin(env, owner.userId);
    const key = await createKey(owner, project.id, ["catalog", "deepen", "validate"]);
    const doc = (await env.request("/openapi.json").then((r) => r.json())) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const paged = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.parameters?.some((p) => p.name === "limit" && p.in === "query"))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    // the list the document gives (a new paged route joins it by its own OpenAPI row)
    expect(paged.length).toBeGreaterThanOrEqual(7);
    for (const route of paged) {
      const [method, template] = route.split(" ") as [string, string];
      expect(method).toBe("GET");
      const path = template.replace("{id}", project.id) + (template.endsWith("/directory") ? "?uri=skill%3A%2F%2Ftypescript-strict&" : "?");
      for (const bad of ["1.5", "1e1", "0x10", "-0"]) {
        const r = path.startsWith("/api/")
          ? await env.request(`${path}limit=${bad}`, { headers: { authorization: `Bearer ${key.value}` } }).then(async (x) => ({
              status: x.status,
              body: await x.json(),
            }))
          : await owner.get(`${path}limit=${bad}`);
        expect(`${route} limit=${bad} → ${r.status} ${r.body.error}`).toBe(`${route} limit=${bad} → 400 validation_failed`);
        // the sentence says what limit takes: 1.5 is a number, so "a number" alone does not tell why it was refused
        expect(r.body.message).toMatch(/^limit: must be a whole number from 1 to \d+$/);
      }
    }
    const page = await owner.call("GET", "/org/audit-log?limit=1.5");
    expect(page.status).toBe(400);
  });
});
