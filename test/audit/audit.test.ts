/**
 * The organization's audit log (src/audit/): each audited change, performed through its real
 * route, leaves exactly one entry with the right actor, action, object and before/after; the log
 * is append-only; the routes' failure paths.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { joinedMember, makePlatformAdmin, nextTurn, orgWithProject, signedUp, testEnv, type TestEnv, type WebClient } from "../helpers";
import { AUDIT_ROWS, type AuditCtx } from "./audit-rows";

let env: TestEnv;
let ctx: AuditCtx;
beforeAll(async () => {
  env = await testEnv({ SMTP_URL: "smtp://127.0.0.1:9" }); // a closed port: invitation mails wait, so one can be retried
  const { owner, org, project } = await orgWithProject(env, "Audited");
  ctx = { env, owner, org, project, ids: {} };
});
afterAll(() => env.close());

/** Every entry of the active organization of `c`, newest first. */
async function entries(c: WebClient): Promise<any[]> {
  const r = await c.get("/web/orgs/current/audit-log?limit=200");
  expect(r.status).toBe(200);
  return r.body.entries;
}

describe("each audited change leaves exactly one entry with its actor, action, object and before/after", () => {
  for (const row of AUDIT_ROWS) {
    test(row.name, async () => {
      await row.setup?.(ctx);
      const seen = new Set((await entries(ctx.owner)).map((e) => e.id));
      const want = await row.perform(ctx);
      const fresh = (await entries(ctx.owner)).filter((e) => !seen.has(e.id));
      expect(fresh.map((e) => e.action)).toEqual([want.action]);
      const e = fresh[0]!;
      expect(e.actor).toEqual(want.actor ?? { kind: "user", id: ctx.owner.userId, label: ctx.owner.email });
      expect(e.object).toEqual(want.object);
      if (want.before !== undefined) expect(e.before).toEqual(want.before);
      if (want.after !== undefined) expect(e.after).toEqual(want.after);
    });
  }
});

describe("the audit log is append-only", () => {
  test("append-only: an UPDATE of an entry is refused by the database; DELETE (retention) is allowed", async () => {
    const id = (await entries(ctx.owner))[0]!.id;
    await expect(env.database.client.execute({ sql: "UPDATE audit_entries SET action = 'x' WHERE id = ?", args: [id] })).rejects.toThrow(
      /append-only/,
    );
    const del = await env.database.client.execute({ sql: "DELETE FROM audit_entries WHERE id = ?", args: [id] });
    expect(del.rowsAffected).toBe(1);
  });
});

describe("changes made outside the organization's own routes", () => {
  test("a platform administrator's approval of a pending organization is recorded in that organization's log, with the administrator as actor", async () => {
    const creator = await signedUp(env);
    const org = (await creator.post("/web/orgs", { name: "Pending Co" })).body.organization;
    expect(org.status).toBe("pending");
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    expect((await admin.post(`/web/admin/organizations/${org.id}/approve`)).status).toBe(200);
    const log = await entries(creator);
    expect(log.map((e) => e.action)).toEqual(["organization.approve", "organization.created"]);
    expect(log[0]).toMatchObject({
      actor: { kind: "user", id: admin.userId, label: admin.email },
      object: { kind: "organization", id: org.id },
      before: { status: "pending" },
      after: { status: "approved" },
    });
    expect(log[1]).toMatchObject({ actor: { kind: "user", id: creator.userId }, after: { name: "Pending Co", status: "pending" } });
  });

  test("a refused change records nothing (the last owner's demotion: 409 last_owner)", async () => {
    const before = (await entries(ctx.owner)).length;
    const r = await ctx.owner.patch(`/web/orgs/current/members/${ctx.owner.userId}`, { role: "member" });
    expect(`${r.status} ${r.body.error}`).toBe("409 last_owner");
    expect((await entries(ctx.owner)).length).toBe(before);
  });
});

describe("retention", () => {
  test("retention: housekeeping purges entries older than EVENT_RETENTION_DAYS with the events, and keeps the rest", async () => {
    const { purgeOldEvents } = await import("../../src/ops/housekeeping");
    const before = (await entries(ctx.owner)).length;
    const old = Date.now() - 100 * 86_400_000;
    await env.database.client.execute({
      sql: `INSERT INTO audit_entries (id, organization_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id)
            VALUES ('aud_old', ?, ?, 'system', 'system', 'talentd', 'old.thing', 'thing', 'x')`,
      args: [ctx.org.id, old],
    });
    await nextTurn();
    expect((await entries(ctx.owner)).length).toBe(before + 1);
    const gone = await purgeOldEvents(env.database, 90);
    expect(gone.auditEntries).toBe(1);
    expect((await entries(ctx.owner)).length).toBe(before);
  });
});

describe("GET /web/orgs/current/audit-log: filters, paging and failure paths", () => {
  test("filters by action, object kind, actor and time window; pages by cursor without repeats", async () => {
    const all = await entries(ctx.owner);
    const action = all[0]!.action;
    const byAction = (await ctx.owner.get(`/web/orgs/current/audit-log?action=${action}`)).body.entries;
    expect(byAction.length).toBeGreaterThan(0);
    expect(byAction.every((e: any) => e.action === action)).toBe(true);
    const byKind = (await ctx.owner.get("/web/orgs/current/audit-log?objectKind=member")).body.entries;
    expect(byKind.every((e: any) => e.object.kind === "member")).toBe(true);
    const byActor = (await ctx.owner.get(`/web/orgs/current/audit-log?actor=${encodeURIComponent(ctx.owner.email)}`)).body.entries;
    expect(byActor.every((e: any) => e.actor.label === ctx.owner.email)).toBe(true);
    const future = (await ctx.owner.get("/web/orgs/current/audit-log?from=2999-01-01")).body.entries;
    expect(future).toEqual([]);
    const past = (await ctx.owner.get("/web/orgs/current/audit-log?to=2000-01-01")).body.entries;
    expect(past).toEqual([]);
    const ids: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const r = await ctx.owner.get(`/web/orgs/current/audit-log?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      ids.push(...r.body.entries.map((e: any) => e.id));
      cursor = r.body.nextCursor;
    }
    expect(ids).toEqual(all.map((e) => e.id));
  });

  test("a bad filter, limit or cursor → 400 validation_failed naming it", async () => {
    for (const [q, field] of [
      ["from=yesterday", "from"],
      ["to=2020-13-45", "to"],
      ["limit=0", "limit"],
      ["cursor=bm9wZTox", "cursor"],
    ] as const) {
      const r = await ctx.owner.get(`/web/orgs/current/audit-log?${q}`);
      expect(`${r.status} ${r.body.error}`).toBe("400 validation_failed");
      expect(JSON.stringify(r.body)).toContain(field);
    }
    const r = await ctx.owner.get("/web/orgs/current/audit-log/export?format=xml");
    expect(`${r.status} ${r.body.error}`).toBe("400 validation_failed");
  });

  test("owners and admins only: a member gets 403 forbidden, a visitor 401 unauthenticated (list and export)", async () => {
    const m = await joinedMember(env, ctx.owner);
    for (const path of ["/web/orgs/current/audit-log", "/web/orgs/current/audit-log/export"]) {
      expect(`${(await m.get(path)).status} ${(await m.get(path)).body.error}`).toBe("403 forbidden");
      const visitor = await env.request(path);
      expect(visitor.status).toBe(401);
    }
    const none = await signedUp(env);
    expect((await none.get("/web/orgs/current/audit-log")).body.error).toBe("no_active_organization");
  });

  test("another organization's entries are never listed", async () => {
    const other = await orgWithProject(env, "Elsewhere");
    const mine = await entries(other.owner);
    expect(mine.some((e) => e.object.id === ctx.org.id)).toBe(false);
    expect(mine.map((e) => e.action)).toEqual(["project.created", "organization.created"]);
  });
});
