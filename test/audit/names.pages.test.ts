/**
 * Names, not ids (docs/design.md "Names, not ids, in logs"): the audit log page, the security events page and
 * Admin → Organizations say a project's, a key's and a person's name where an entry holds its id — the id kept in the
 * `title` (hover) —, tools as a plain comma list; the export and the JSON keep the ids as stored. Names are read in
 * one query per page, however many rows it shows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { idsIn, readNames } from "../../src/audit/names";
import type { Database } from "../../src/db/client";
import { createKey, makePlatformAdmin, orgWithProject, signedUp, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** A page's HTML. */
const html = async (c: { call(m: string, p: string): Promise<Response> }, path: string) => {
  const r = await c.call("GET", path);
  expect(r.status).toBe(200);
  return r.text();
};
/** What a person reads: the text of the HTML, attributes left out. */
const shown = (h: string) =>
  h
    .replace(/<\/td>|<br\/?>|<\/div>/g, " | ")
    .replace(/<[^>]*>/g, "")
    .replace(/\s+/g, " ");

describe("the audit log and the security events name what their details hold", () => {
  test("/org/audit-log: a key's entry shows its project's name (not prj_…), tools as a comma list; the id kept in the title; the export unchanged", async () => {
    const o = await orgWithProject(env, "Names Audit");
    const k = await createKey(o.owner, o.project.id, ["prepare_task", "validate"], { name: "ci hook" });
    const page = await html(o.owner, "/org/audit-log?action=key.created");
    const start = page.indexOf('<tr id="audit-');
    const row = page.slice(start, page.indexOf("</tr>", start));
    expect(shown(row)).toContain(`project: ${o.project.name}`);
    expect(shown(row)).toContain("tools: prepare_task, validate");
    expect(shown(row)).toContain("ci hook"); // the object, a key, by its name
    expect(shown(row)).not.toMatch(/prj_[0-9A-Z]/);
    expect(shown(row)).not.toMatch(/key_[0-9A-Z]/);
    expect(shown(row)).not.toContain("[");
    expect(row).toContain(`<span title="${o.project.id}">${o.project.name}</span>`);
    expect(row).toContain(`<span title="${k.key.id}">ci hook</span>`);
    // the JSON and the export keep the ids as stored
    const json = (await o.owner.get("/web/orgs/current/audit-log?action=key.created")).body.entries[0];
    expect(json.after.projectId).toBe(o.project.id);
    const lines = await (await o.owner.call("GET", "/web/orgs/current/audit-log/export?action=key.created&format=jsonl")).text();
    expect(JSON.parse(lines.trim().split("\n")[0]!).after).toMatchObject({ projectId: o.project.id, tools: ["prepare_task", "validate"] });
  });

  test("/admin/security-events: key.created names its project and key, tools as a list, no JSON; the ids in the titles", async () => {
    const o = await orgWithProject(env, "Names Security");
    const k = await createKey(o.owner, o.project.id, ["doctor", "validate"], { name: "nightly" });
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const page = await html(admin, "/admin/security-events");
    const at = page.indexOf(`title="${k.key.id}"`);
    expect(at).toBeGreaterThan(0);
    const row = page.slice(page.lastIndexOf("<tr>", at), page.indexOf("</tr>", at));
    expect(shown(row)).toContain(`key: nightly; project: ${o.project.name}; tools: validate, doctor`);
    expect(shown(row)).not.toMatch(/(prj|key)_[0-9A-Z]/);
    expect(row).not.toContain("{&quot;");
    expect(row).toContain(`<span title="${o.project.id}">${o.project.name}</span>`);
  });

  test("Admin → Organizations: a pending organization shows who asked for it (name and e-mail) and when", async () => {
    const asker = await signedUp(env, `dana.lead.${Date.now()}@acme.test`);
    await asker.patch("/web/account", { name: "Dana Lead" });
    const org = (await asker.post("/web/orgs", { name: "Names Pending Co" })).body.organization;
    expect(org.status).toBe("pending");
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const page = await html(admin, "/admin?status=pending");
    const row = page.slice(page.indexOf(`data-org="${org.slug}"`), page.indexOf("</tr>", page.indexOf(`data-org="${org.slug}"`)));
    expect(shown(row)).toContain(`Dana Lead (${asker.email})`);
    expect(shown(row)).toMatch(/on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(row).toContain(`title="${asker.userId}"`);
    expect(page).toContain("Asked for by");
  });

  test("names are read in one query for the whole page, whatever the number of ids; an id of another organization is not named", async () => {
    const a = await orgWithProject(env, "Names Many");
    const b = await orgWithProject(env, "Names Other");
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push((await createKey(a.owner, a.project.id, ["validate"], { name: `k${i}` })).key.id);
    let reads = 0;
    const counted = new Proxy(env.database, {
      get(target, p, receiver) {
        if (p === "all") return (...args: Parameters<Database["all"]>) => (reads++, target.all(...args));
        return Reflect.get(target, p, receiver);
      },
    }) as Database;
    const ids = idsIn([{ projectId: a.project.id, keyIds: keys }, b.project.id, a.owner.userId, "not-an-id"]);
    const names = await readNames(counted, a.org.id, ids);
    expect(reads).toBe(1);
    expect(names.get(a.project.id)).toBe(a.project.name);
    expect(keys.map((id) => names.get(id))).toEqual(["k0", "k1", "k2", "k3", "k4"]);
    expect(names.get(a.owner.userId)).toBe(a.owner.email);
    expect(names.has(b.project.id)).toBe(false);
  });
});
