/**
 * The organization's audit log page (`/org/audit-log`) in Chromium: its owner sees who changed
 * what, newest first; the filter form narrows the entries with htmx (only the results swapped,
 * the address kept in step) and without JavaScript (a plain GET form; "Older entries" is a link);
 * a member gets the 404 page. Its entries, the security events and Admin → Organizations say names, not ids (the id
 * on hover), at 1280 and 390 px. axe-core and no console error on each.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createKey, joinedMember, makePlatformAdmin, orgWithProject, signedUp } from "../helpers";
import {
  axeViolations,
  expectClean,
  expectCleanWithoutScripts,
  expectOnlyStatus,
  screenshot,
  signedInPage,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const actions = (p: Page) => p.locator("#audit-results tbody td:nth-child(3)").allTextContents();

/** An organization whose owner invited someone, made a key and installed talents: a few entries. */
async function auditedOrg(name: string) {
  const o = await orgWithProject(live.env, name);
  await o.owner.post("/web/orgs/current/invitations", { email: `invitee-${Date.now()}@example.com` });
  await createKey(o.owner, o.project.id, ["validate"], { name: "ci hook" });
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["javascript-base"] });
  return o;
}

describe("/org/audit-log in Chromium", () => {
  test("the owner sees the entries newest first; the filter swaps only the results with htmx and keeps the address", async () => {
    const o = await auditedOrg("Audit Page");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/org/audit-log`);
    expect(await w.page.textContent("h1")).toBe("Audit log");
    expect(await actions(w.page)).toEqual([
      "talents.installed",
      "key.created",
      "invitation.created",
      "project.created",
      "organization.created",
    ]);
    await expectClean(w, "org-audit-log");
    await w.page.fill("#audit-action", "key.created");
    await Promise.all([
      w.page.waitForResponse((r) => r.url().includes("/org/audit-log?") && r.request().headers()["hx-request"] === "true"),
      w.page.click("form.filters button[type=submit]"),
    ]);
    await w.page.waitForFunction(() => document.querySelectorAll("#audit-results tbody tr").length === 1);
    expect(await actions(w.page)).toEqual(["key.created"]);
    expect(new URL(w.page.url()).searchParams.get("action")).toBe("key.created");
    expect(await w.page.getAttribute("#audit-results a[href*='format=csv']", "href")).toBe(
      "/web/orgs/current/audit-log/export?action=key.created&format=csv",
    );
    await expectClean(w);
    await w.context.close();
  });

  test("without JavaScript: the filter form is a GET and 'Older entries' a link", async () => {
    const o = await auditedOrg("Audit NoJS");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD, { javaScript: false });
    await w.page.goto(`${live.base}/org/audit-log?limit=2`);
    expect(await actions(w.page)).toEqual(["talents.installed", "key.created"]);
    await w.page.click("text=Older entries");
    await w.page.waitForLoadState("load");
    expect(await actions(w.page)).toEqual(["invitation.created", "project.created"]);
    await w.page.fill("#audit-objectKind", "project");
    await w.page.click("form.filters button[type=submit]");
    await w.page.waitForLoadState("load");
    expect(await actions(w.page)).toEqual(["talents.installed", "project.created"]);
    await expectCleanWithoutScripts(browser, w);
    await w.context.close();
  });

  test("a member gets the 404 page", async () => {
    const o = await auditedOrg("Audit Member");
    const m = await joinedMember(live.env, o.owner);
    const w = await signedInPage(browser, live.base, m.email, PASSWORD);
    const r = await w.page.goto(`${live.base}/org/audit-log`);
    expect(r?.status()).toBe(404);
    expect(await w.page.textContent("main")).toContain("owners and admins");
    expectOnlyStatus(w, 404, false);
    await w.context.close();
  });

  for (const width of [1280, 390]) {
    test(`names, not ids, at ${width} px: the audit log's key entry names its project and key (ids in the titles); the security events and Admin → Organizations name people`, async () => {
      const o = await auditedOrg(`Audit Names ${width}`);
      const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
      await w.page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await w.page.goto(`${live.base}/org/audit-log?action=key.created`);
      const change = w.page.locator("#audit-results tbody tr").first().locator("td").nth(4);
      expect(await change.textContent()).toBe(
        `project: ${o.project.name}; name: ci hook; tools: validate; expires at: none; automation: no`,
      );
      expect(await change.locator(`span[title="${o.project.id}"]`).textContent()).toBe(o.project.name);
      expect(await w.page.locator("#audit-results tbody").textContent()).not.toMatch(/(prj|key|usr)_[0-9A-Z]/);
      expect(await axeViolations(w.page)).toEqual([]);
      await screenshot(w.page, `audit-names-${width}`);
      expect(w.problems).toEqual([]);
      await w.context.close();

      const admin = await signedUp(live.env);
      await makePlatformAdmin(live.env, admin.userId);
      const pending = await signedUp(live.env, `asker.${width}.${Date.now()}@acme.test`);
      const asked = await pending.post("/web/orgs", { name: `Asked For ${width}` });
      expect(asked.status).toBe(201);
      const a = await signedInPage(browser, live.base, admin.email, PASSWORD);
      await a.page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await a.page.goto(`${live.base}/admin/security-events`);
      const detail = a.page.locator(`td:has(span[title="${o.project.id}"])`).first();
      expect(await detail.textContent()).toContain(`project: ${o.project.name}; tools: validate`);
      expect(await axeViolations(a.page)).toEqual([]);
      await screenshot(a.page, `audit-names-security-events-${width}`);
      await a.page.goto(`${live.base}/admin?status=${asked.body.organization.status}`);
      expect(await a.page.locator(`tr[data-org="${asked.body.organization.slug}"]`).textContent()).toContain(pending.email);
      expect(await axeViolations(a.page)).toEqual([]);
      await screenshot(a.page, `audit-names-admin-${width}`);
      expect(a.problems).toEqual([]);
      await a.context.close();
    });
  }
});
