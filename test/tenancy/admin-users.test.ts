/**
 * Platform administrators manage accounts (src/tenancy/adminUsers.ts, docs/api.md "Platform
 * administration"): disable / enable, promote / demote, remove; each a security event; the last
 * enabled platform administrator and an organization's last owner are kept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, makePlatformAdmin, orgWithProject, signedUp, testEnv, WebClient, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
let admin: Awaited<ReturnType<typeof signedUp>>;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedUp(env);
  await makePlatformAdmin(env, admin.userId);
});
afterAll(() => env.close());

const eventsOf = async (userId: string): Promise<string[]> =>
  (await admin.get("/web/admin/security-events?limit=500")).body.events.filter((e: any) => e.userId === userId).map((e: any) => e.kind);

describe("admin users: failure paths", () => {
  test("a non-administrator gets 403 forbidden on PATCH and DELETE /web/admin/users/:id, and nothing changes", async () => {
    const c = await signedUp(env);
    const victim = await signedUp(env);
    for (const r of [
      await c.patch(`/web/admin/users/${victim.userId}`, { disabled: true }),
      await c.patch(`/web/admin/users/${c.userId}`, { role: "admin" }),
      await c.del(`/web/admin/users/${victim.userId}`),
    ]) {
      expect(`${r.status} ${r.body.error}`).toBe("403 forbidden");
    }
    expect((await victim.get("/api/auth/session")).status).toBe(200);
    expect((await c.get("/api/auth/session")).body.user.role).toBe("user");
  });

  test("an unknown user → 404 not_found on PATCH and DELETE", async () => {
    for (const r of [await admin.patch("/web/admin/users/usr_nope", { disabled: true }), await admin.del("/web/admin/users/usr_nope")]) {
      expect(`${r.status} ${r.body.error}`).toBe("404 not_found");
    }
  });

  test("an empty or bad change → 400 validation_failed", async () => {
    const u = await signedUp(env);
    expect((await admin.patch(`/web/admin/users/${u.userId}`, {})).body.error).toBe("validation_failed");
    expect((await admin.patch(`/web/admin/users/${u.userId}`, { role: "owner" })).body.error).toBe("validation_failed");
  });

  test("last platform administrator: demoting, disabling or removing the only enabled one → 409 last_platform_admin", async () => {
    const e2 = await testEnv();
    try {
      const only = await signedUp(e2);
      await makePlatformAdmin(e2, only.userId);
      for (const r of [
        await only.patch(`/web/admin/users/${only.userId}`, { role: "user" }),
        await only.patch(`/web/admin/users/${only.userId}`, { disabled: true }),
        await only.del(`/web/admin/users/${only.userId}`),
      ]) {
        expect(`${r.status} ${r.body.error}`).toBe("409 last_platform_admin");
        expect(r.body.message).toContain(only.email);
      }
      // a second administrator, then disabled: still the only enabled one
      const second = await signedUp(e2);
      expect((await only.patch(`/web/admin/users/${second.userId}`, { role: "admin" })).body.user.role).toBe("admin");
      expect((await only.patch(`/web/admin/users/${second.userId}`, { disabled: true })).body.user.disabled).toBe(true);
      expect((await only.patch(`/web/admin/users/${only.userId}`, { role: "user" })).status).toBe(409);
      // enabled again: now one may step down
      await only.patch(`/web/admin/users/${second.userId}`, { disabled: false });
      const r = await only.patch(`/web/admin/users/${only.userId}`, { role: "user" });
      expect(r.body.user).toMatchObject({ role: "user", disabled: false });
    } finally {
      e2.close();
    }
  });

  test("last owner: removing a user who is an organization's only owner → 409 last_owner naming it; nothing is deleted", async () => {
    const { owner, org } = await orgWithProject(env, "Lonely Owner Org");
    const r = await admin.del(`/web/admin/users/${owner.userId}`);
    expect(`${r.status} ${r.body.error}`).toBe("409 last_owner");
    expect(r.body.message).toContain("Lonely Owner Org");
    expect(r.body.organizations).toEqual([{ id: org.id, slug: org.slug, name: "Lonely Owner Org" }]);
    expect((await owner.get("/api/auth/session")).status).toBe(200);
  });
});

describe("admin users: the changes", () => {
  test("disable ends the user's sessions and refuses sign-in (403 account_disabled); enable lets them sign in again; each a security event", async () => {
    const u = await signedUp(env);
    const r = await admin.patch(`/web/admin/users/${u.userId}`, { disabled: true });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ id: u.userId, disabled: true, role: "user" });
    expect((await u.get("/api/auth/session")).status).toBe(401);
    const again = new WebClient(env);
    const refused = await again.post("/api/auth/sign-in", { email: u.email, password: "correct horse battery" });
    expect(`${refused.status} ${refused.body.error}`).toBe("403 account_disabled");
    // a wrong password still says only that
    expect((await again.post("/api/auth/sign-in", { email: u.email, password: "wrong password here" })).body.error).toBe(
      "invalid_credentials",
    );
    expect((await admin.get("/web/admin/users")).body.users.find((x: any) => x.id === u.userId).disabled).toBe(true);
    expect((await admin.patch(`/web/admin/users/${u.userId}`, { disabled: false })).body.user.disabled).toBe(false);
    expect((await again.post("/api/auth/sign-in", { email: u.email, password: "correct horse battery" })).status).toBe(200);
    expect(await eventsOf(u.userId)).toEqual(
      expect.arrayContaining(["user.disabled", "user.enabled", "sign_in.failure", "sign_in.success"]),
    );
  });

  test("every way of signing in refuses a disabled account: createSession itself (password, reset, OAuth, SSO all end there) throws account_disabled", async () => {
    const u = await signedUp(env);
    await admin.patch(`/web/admin/users/${u.userId}`, { disabled: true });
    const { createSession } = await import("../../src/auth/sessions");
    await expect(env.database.write((tx) => createSession(tx, u.userId, {}))).rejects.toMatchObject({ code: "account_disabled" });
  });

  test("promote and demote change the platform role (admin pages open, then close); security events user.promoted, user.demoted", async () => {
    const u = await signedUp(env);
    expect((await u.get("/web/admin/users")).status).toBe(403);
    expect((await admin.patch(`/web/admin/users/${u.userId}`, { role: "admin" })).body.user.role).toBe("admin");
    expect((await u.get("/web/admin/users")).status).toBe(200);
    expect((await admin.patch(`/web/admin/users/${u.userId}`, { role: "user" })).body.user.role).toBe("user");
    expect((await u.get("/web/admin/users")).status).toBe(403);
    expect(await eventsOf(u.userId)).toEqual(expect.arrayContaining(["user.promoted", "user.demoted"]));
  });

  test("remove: the user's sessions and keys end (key → 401), memberships go; a security event user.removed", async () => {
    const { owner } = await orgWithProject(env, "Shared Org");
    const member = await signedUp(env);
    const inv = (await owner.post("/web/orgs/current/invitations", { email: member.email })).body;
    await member.post(`/web/invitations/${inv.id}/accept`);
    await owner.patch(`/web/orgs/current/members/${member.userId}`, { role: "owner" });
    const projectId = (await owner.get("/web/projects")).body.projects[0].id;
    const key = await createKey(owner, projectId, ["catalog"]);
    expect((await withKey(env, key.value, "/api/catalog")).status).toBe(200);
    // the owner has a co-owner now: removal goes through
    const r = await admin.del(`/web/admin/users/${owner.userId}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ removed: owner.userId });
    expect((await owner.get("/api/auth/session")).status).toBe(401);
    expect((await withKey(env, key.value, "/api/catalog")).status).toBe(401);
    expect((await admin.get("/web/admin/users")).body.users.some((x: any) => x.id === owner.userId)).toBe(false);
    expect(await eventsOf(owner.userId)).toContain("user.removed");
  });
});
