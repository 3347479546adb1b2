import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, makePlatformAdmin, orgWithProject, signedUp, testEnv, WebClient, withKey, type TestEnv } from "./helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("failure paths of identity, tenancy and admin routes, with the spec's status and code", () => {
  test("change-password: no session → 401 unauthenticated; a too short new password → 400 validation_failed, the old one still works", async () => {
    expect((await new WebClient(env).post("/api/auth/change-password", { currentPassword: "x", newPassword: "long enough 123" })).body.error).toBe("unauthenticated");
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

  test("GET /api/prepare-task/designable with a key lacking prepare_task → 403 insufficient_scope", async () => {
    const { owner, project } = await orgWithProject(env);
    const k = await createKey(owner, project.id, ["doctor"]);
    const r = await withKey(env, k.value, "/api/prepare-task/designable");
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: "insufficient_scope", requiredScope: "prepare_task" });
  });
});
