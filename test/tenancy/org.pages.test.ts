/**
 * The organization and platform administration pages without a browser (the
 * journeys are in org.browser.test.ts): who sees which page and which part of it, the 404 page
 * for a non-administrator, /login for a signed-out visitor, the approval banner on every page
 * of a pending organization, and the HTML answers of the tenancy routes (a fragment for htmx,
 * a 303 for a form posted without JavaScript, the server's refusal in the page's alert area).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resetRequestsSettled } from "../../src/identity/passwordReset";
import { makePlatformAdmin, orgWithProject, signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** An answer's HTML as the eye reads it: without the <wbr> where a long e-mail or link may wrap (ui/parts.tsx Breakable). */
const readable = async (r: Response) => (await r.text()).replaceAll("<wbr/>", "");

async function page(c: WebClient, path: string) {
  const r = await c.call("GET", path, undefined, { accept: "text/html" });
  return { status: r.status, type: r.headers.get("content-type") ?? "", location: r.headers.get("location"), html: await readable(r) };
}

const htmx = { "hx-request": "true" };

/** The links of the page's main navigation. */
function navLinks(html: string): string[] {
  const nav = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? "";
  return [...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
}

async function member(owner: WebClient) {
  const m = await signedUp(env);
  const inv = (await owner.post("/web/orgs/current/invitations", { email: m.email })).body;
  expect((await m.post(`/web/invitations/${inv.id}/accept`)).status).toBe(200);
  return m;
}

describe("who sees the organization and administration pages", () => {
  test("a signed-out visitor of /org, /org/new, /admin, /admin/users, /admin/security-events is sent to /login?next=<the page>", async () => {
    const anon = new WebClient(env);
    for (const path of ["/org", "/org/new", "/admin", "/admin/users", "/admin/security-events", "/admin/mail"]) {
      const p = await page(anon, path);
      expect(`${path} ${p.status} ${p.location}`).toBe(`${path} 303 /login?next=${encodeURIComponent(path)}`);
    }
  });

  test("a non-administrator (an organization's owner) opening /admin, /admin/users or /admin/security-events gets the 404 page in HTML, with nothing of the lists", async () => {
    const a = await orgWithProject(env, "Quasar");
    const other = await orgWithProject(env, "Pulsar");
    for (const path of ["/admin", "/admin?status=pending", "/admin/users", "/admin/security-events", "/admin/mail"]) {
      const p = await page(a.owner, path);
      expect(`${path} ${p.status}`).toBe(`${path} 404`);
      expect(p.type).toContain("text/html");
      expect(p.html).toContain("Not found");
      expect(p.html).not.toContain("Pulsar");
      expect(p.html).not.toContain(other.owner.email);
    }
  });

  test("the navigation by role: a member sees Projects, Catalog, Organization; an owner also Expertises, Insights, Adoption; a platform administrator also Administration", async () => {
    const a = await orgWithProject(env, "Nebula");
    const m = await member(a.owner);
    expect(navLinks((await page(m, "/")).html)).toEqual(["/", "/catalog", "/org"]);
    expect(navLinks((await page(a.owner, "/")).html)).toEqual([
      "/",
      "/catalog",
      "/org",
      "/org/expertises",
      "/org/insights",
      "/org/talent-adoption",
    ]);
    await makePlatformAdmin(env, m.userId);
    expect(navLinks((await page(m, "/org")).html)).toEqual(["/", "/catalog", "/org", "/admin"]);
    // one link is current: the longest the path is under
    const html = (await page(a.owner, "/org")).html;
    expect([...html.matchAll(/<a href="([^"]+)" aria-current="page"/g)].map((x) => x[1])).toEqual(["/org"]);
  });

  test("/org for a member: status, members (no role control, no remove, only Leave on their row), code hosting read-only; no invitations, no links to the owner/admin pages", async () => {
    const a = await orgWithProject(env, "Comet");
    await a.owner.put("/web/orgs/current/code-hosting", { provider: "github", url: "https://github.com/comet" });
    const pendingInvite = `waiting-${Date.now()}@example.com`;
    await a.owner.post("/web/orgs/current/invitations", { email: pendingInvite });
    const m = await member(a.owner);
    const p = await page(m, "/org");
    expect(p.status).toBe(200);
    expect(p.html).toContain("Approval status");
    expect(p.html).toContain(a.owner.email);
    expect(p.html).toContain("https://github.com/comet");
    for (const hidden of [
      "Invitations",
      pendingInvite,
      "accept-invitation",
      "hx-patch",
      "Remove<",
      "/org/expertises",
      "/org/insights",
      "/org/talent-adoption",
      "/org/sso",
      "/org/mail",
      'hx-put="/web/orgs/current/code-hosting"',
    ]) {
      expect(`${hidden}: ${p.html.includes(hidden)}`).toBe(`${hidden}: false`);
    }
    expect(p.html).toContain("Leave Comet");
    // the owner sees all of it
    const o = await page(a.owner, "/org");
    for (const shown of [
      "Invitations",
      pendingInvite,
      "/accept-invitation/",
      "hx-patch",
      "/org/sso",
      "/org/mail",
      "/org/expertises",
      "/org/insights",
      "/org/talent-adoption",
      'hx-put="/web/orgs/current/code-hosting"',
    ]) {
      expect(`${shown}: ${o.html.includes(shown)}`).toBe(`${shown}: true`);
    }
  });

  test("/org for an admin (not owner): role controls without the owner role, none on an owner's row, no Remove for an owner; invitations without the owner role", async () => {
    const a = await orgWithProject(env, "Aster");
    const adm = await member(a.owner);
    await a.owner.patch(`/web/orgs/current/members/${adm.userId}`, { role: "admin" });
    const plain = await member(a.owner);
    const html = (await page(adm, "/org")).html;
    const row = (email: string) => new RegExp(`<tr data-member="${email.replace(/[.]/g, "\\.")}">([\\s\\S]*?)</tr>`).exec(html)![1]!;
    const ownerRow = row(a.owner.email);
    expect(ownerRow).not.toContain("<select");
    expect(ownerRow).not.toContain("Remove");
    const plainRow = row(plain.email);
    expect(plainRow).toContain("<select");
    expect(plainRow).not.toContain('value="owner"');
    expect(plainRow).toContain("Remove");
    const invite = /<select id="invite-role"[\s\S]*?<\/select>/.exec(html)![0];
    expect(invite).not.toContain('value="owner"');
    expect(html).toContain('href="/org/expertises"');
  });

  test("a pending organization: /org is its status page (no members, no settings), and every page carries the banner that explains it; none once approved", async () => {
    const c = await signedUp(env);
    const org = (await c.post("/web/orgs", { name: "Waiting Room" })).body.organization;
    for (const path of ["/", "/org", "/org/new"]) {
      const p = await page(c, path);
      expect(`${path} ${p.status}`).toBe(`${path} 200`);
      expect(p.html).toContain('id="approval-banner"');
      expect(p.html).toContain("Waiting Room is pending approval");
    }
    const status = await page(c, "/org");
    expect(status.html).toContain("Approval status");
    expect(status.html).not.toContain("Members (");
    expect(status.html).not.toContain("Code hosting");
    expect(navLinks(status.html)).toEqual(["/", "/org"]);
    // the error page of a business page of a pending organization says why
    const projects = await page(c, "/projects/new");
    expect(projects.status).toBe(403);
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    expect((await admin.post(`/web/admin/organizations/${org.id}/approve`)).status).toBe(200);
    const after = await page(c, "/");
    expect(after.html).not.toContain('id="approval-banner"');
    expect((await page(c, "/org")).html).toContain("Members (1)");
  });

  test("someone without an organization: /org leads to /org/new", async () => {
    const c = await signedUp(env);
    const p = await page(c, "/org");
    expect(p.status).toBe(200);
    expect(p.html).toContain('href="/org/new"');
    expect(p.html).not.toContain("approval-banner");
  });
});

describe("the HTML answers of the tenancy routes", () => {
  test("POST /web/orgs from the /org/new form without JavaScript → 303 /org; with htmx → HX-Redirect /org; a taken slug → 409 in the alert area", async () => {
    const c = await signedUp(env);
    const nav = await c.call("POST", "/web/orgs", { name: "Form Co", slug: `form-co-${Date.now()}` }, { accept: "text/html" });
    expect(nav.status).toBe(303);
    expect(nav.headers.get("location")).toBe("/org");
    const slug = `hx-co-${Date.now()}`;
    const hx = await c.call("POST", "/web/orgs", { name: "Hx Co", slug }, htmx);
    expect(hx.headers.get("hx-redirect")).toBe("/org");
    const taken = await c.call("POST", "/web/orgs", { name: "Hx Co", slug }, htmx);
    expect(taken.status).toBe(409);
    expect(taken.headers.get("hx-retarget")).toBe("#flash");
    expect(await readable(taken)).toContain("is taken");
  });

  test("role change through htmx → the members section with what changed; the last owner's demotion → 409 last_owner in the alert area, nothing changed", async () => {
    const a = await orgWithProject(env, "Meteor");
    const m = await member(a.owner);
    const r = await a.owner.call("PATCH", `/web/orgs/current/members/${m.userId}`, { role: "admin" }, htmx);
    expect(r.status).toBe(200);
    const html = await readable(r);
    expect(html).toContain('id="members"');
    expect(html).toContain(`${m.email} is now admin.`);
    const refused = await a.owner.call("PATCH", `/web/orgs/current/members/${a.owner.userId}`, { role: "member" }, htmx);
    expect(refused.status).toBe(409);
    expect(refused.headers.get("hx-retarget")).toBe("#flash");
    expect(await readable(refused)).toContain("The last owner cannot be demoted");
    expect(
      (await a.owner.get("/web/orgs/current/members")).body.members.find((x: { userId: string }) => x.userId === a.owner.userId).role,
    ).toBe("owner");
  });

  test("changing one's own role through htmx → HX-Redirect /org (what the page shows depends on that role)", async () => {
    const a = await orgWithProject(env, "Zenith");
    const m = await member(a.owner);
    await a.owner.patch(`/web/orgs/current/members/${m.userId}`, { role: "owner" });
    const r = await a.owner.call("PATCH", `/web/orgs/current/members/${a.owner.userId}`, { role: "member" }, htmx);
    expect(r.headers.get("hx-redirect")).toBe("/org");
    const p = await page(a.owner, "/org");
    expect(p.html).not.toContain('id="invitations"');
  });

  test("a rejected or suspended organization: the banner says what it means", async () => {
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const c = await signedUp(env);
    const org = (await c.post("/web/orgs", { name: "Declined Co" })).body.organization;
    await admin.post(`/web/admin/organizations/${org.id}/reject`);
    expect((await page(c, "/")).html).toContain("Declined Co is rejected.");
    await admin.post(`/web/admin/organizations/${org.id}/approve`);
    await admin.post(`/web/admin/organizations/${org.id}/suspend`);
    const suspended = (await page(c, "/org")).html;
    expect(suspended).toContain("Declined Co is suspended.");
    expect(suspended).toContain("until a platform administrator reactivates it");
  });

  test("removing a member through htmx → the section without them; leaving → HX-Redirect /", async () => {
    const a = await orgWithProject(env, "Orbit");
    const m1 = await member(a.owner);
    const m2 = await member(a.owner);
    const r = await a.owner.call("DELETE", `/web/orgs/current/members/${m1.userId}`, undefined, htmx);
    expect(r.status).toBe(200);
    const html = await readable(r);
    expect(html).toContain("The member was removed");
    expect(html).not.toContain(m1.email);
    const leave = await m2.call("DELETE", `/web/orgs/current/members/${m2.userId}`, undefined, htmx);
    expect(leave.headers.get("hx-redirect")).toBe("/");
  });

  test("invite, resend, revoke through htmx → the invitations section with the accept link; without JavaScript the invite form → 303 /org", async () => {
    const a = await orgWithProject(env, "Quark");
    const email = `inv-${Date.now()}@example.com`;
    const sent = await a.owner.call("POST", "/web/orgs/current/invitations", { email, role: "admin" }, htmx);
    expect(sent.status).toBe(201);
    const html = await readable(sent);
    expect(html).toContain(`${email} is invited as admin`);
    const id = /accept-invitation\/(inv_[0-9A-Z]+)/.exec(html)![1]!;
    expect(html).toContain("No mail server is configured");
    const resent = await a.owner.call("POST", `/web/orgs/current/invitations/${id}/resend`, {}, htmx);
    expect(await readable(resent)).toContain(`The invitation of ${email} was sent again`);
    const revoked = await a.owner.call("DELETE", `/web/orgs/current/invitations/${id}`, undefined, htmx);
    const after = await readable(revoked);
    expect(after).toContain("The invitation was revoked");
    expect(after).not.toContain(`accept-invitation/${id}`);
    const form = await a.owner.call(
      "POST",
      "/web/orgs/current/invitations",
      { email: `f-${email}`, return: "/org" },
      { accept: "text/html" },
    );
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/org");
  });

  test("a platform administrator's decision through htmx → the organizations table with what changed; a decision the state does not allow → 409 in the alert area", async () => {
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const c = await signedUp(env);
    const org = (await c.post("/web/orgs", { name: "Decided Co" })).body.organization;
    const r = await admin.call("POST", `/web/admin/organizations/${org.id}/approve`, {}, htmx);
    expect(r.status).toBe(200);
    const html = await readable(r);
    expect(html).toContain('id="admin-orgs"');
    expect(html).toContain("Decided Co is now approved.");
    const again = await admin.call("POST", `/web/admin/organizations/${org.id}/approve`, {}, htmx);
    expect(again.status).toBe(409);
    expect(again.headers.get("hx-retarget")).toBe("#flash");
    expect(await readable(again)).toContain("Cannot approve an organization that is approved");
    const page2 = await page(admin, "/admin?status=approved");
    expect(page2.html).toContain("Decided Co");
    expect(page2.html).toContain("Suspend…");
    expect((await page(admin, "/admin?status=pending")).html).not.toContain("Decided Co");
  });

  test("the readings answer htmx with their sections: status, members, invitations, code hosting, the administrators' organizations (JSON otherwise, unchanged)", async () => {
    const a = await orgWithProject(env, "Vega");
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const cases: [WebClient, string, string][] = [
      [a.owner, "/web/orgs/current/status", 'id="status"'],
      [a.owner, "/web/orgs/current/members", 'id="members"'],
      [a.owner, "/web/orgs/current/invitations", 'id="invitations"'],
      [a.owner, "/web/orgs/current/code-hosting", 'id="code-hosting"'],
      [admin, "/web/admin/organizations", 'id="admin-orgs"'],
    ];
    for (const [c, path, marker] of cases) {
      const r = await c.call("GET", path, undefined, htmx);
      expect(`${path} ${r.status} ${r.headers.get("content-type")}`).toBe(`${path} 200 text/html; charset=utf-8`);
      expect(await readable(r)).toContain(marker);
      const json = await c.get(path);
      expect(json.status).toBe(200);
    }
  });

  test("security events are paged: ?before= shows older events, a bad before is ignored", async () => {
    const admin = await signedUp(env);
    await makePlatformAdmin(env, admin.userId);
    const now = Date.now();
    for (let i = 0; i < 60; i++) {
      await env.database.client.execute({
        sql: "INSERT INTO security_events (id, kind, email, created_at) VALUES (?, 'sign_in.failure', ?, ?)",
        args: [`sev_page_${i}`, `paged${i}@example.com`, now - 1_000_000 - i * 1000],
      });
    }
    const first = await page(admin, "/admin/security-events");
    expect(first.status).toBe(200);
    const older = /href="\/admin\/security-events\?before=(\d+)"/.exec(first.html);
    expect(older).not.toBeNull();
    const second = await page(admin, `/admin/security-events?before=${older![1]}`);
    expect(second.html).toContain("paged59@example.com");
    expect(second.html).toContain('href="/admin/security-events"');
    expect((await page(admin, "/admin/security-events?before=abc")).status).toBe(200);
  });
});

describe("/admin/mail: undelivered mails of no organization (password resets) for platform administrators", () => {
  test("a reset mail waiting for SMTP is listed with its address and subject, never its link; an organization's owner gets the 404 page", async () => {
    const smtpEnv = await testEnv({ SMTP_URL: "smtp://127.0.0.1:9", MAIL_FROM: "talentd@example.com" });
    try {
      const admin = await signedUp(smtpEnv);
      await makePlatformAdmin(smtpEnv, admin.userId);
      const person = await signedUp(smtpEnv);
      expect((await new WebClient(smtpEnv).post("/api/auth/password-reset", { email: person.email })).status).toBe(202);
      await resetRequestsSettled(); // the mail is queued just after the answer
      const p = await page(admin, "/admin/mail");
      expect(p.status).toBe(200);
      expect(p.html).toContain(person.email);
      expect(p.html).toContain(">pending<");
      expect(p.html).not.toContain("reset-password?token=");
      const owner = (await orgWithProject(smtpEnv, "Mailless")).owner;
      expect((await page(owner, "/admin/mail")).status).toBe(404);
    } finally {
      smtpEnv.close();
    }
  });
});
