/**
 * docs/design.md "Pages work without JavaScript; htmx enhances them", in
 * Chromium with JavaScript disabled: each of the controls that htmx sends as PUT, PATCH or
 * DELETE is a real form posting `?_method=` (src/http/methodOverride.ts) or to its page (a project's
 * settings, the code hosting: a refusal answers the page again, the error under its field), and does its change
 * without a script. Destructive ones ask on a server page (cancel changes nothing); typed-name
 * deletions are checked by the server (a wrong name changes nothing). Errors (400 with its
 * issues, 409) land on a page. With JavaScript on, the same controls are driven by htmx in
 * dashboard/org/org.expertises/sso.page browser tests, unchanged.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createKey, expertiseMd, joinedMember, orgWithProject } from "../helpers";
import {
  expectCleanWithoutScripts,
  expectOnlyStatus,
  screenshot,
  servePage,
  signedInPage,
  submitForm,
  type WatchedPage,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const noJs = (email: string): Promise<WatchedPage> => signedInPage(browser, live.base, email, PASSWORD, { javaScript: false });
const main = (p: Page) => p.textContent("main").then((t) => t ?? "");
const path = (p: Page) => {
  const u = new URL(p.url());
  return u.pathname + u.search;
};

const expectClean = (w: WatchedPage): Promise<void> => expectCleanWithoutScripts(browser, w);

/** A destructive control: its post answers the question page (400, nothing changed yet); the page is usable. */
async function asked(w: WatchedPage, button: string, question: string): Promise<void> {
  expect(await submitForm(w.page, button)).toBe(400);
  expect(await main(w.page)).toContain(question);
  expect(await main(w.page)).toContain("Nothing was changed yet.");
  await expectClean(w);
}

/** Confirms on the question page: the change is made and the browser is sent back (303). */
async function confirmed(w: WatchedPage, back: string): Promise<void> {
  expect(await submitForm(w.page, "main form button.danger")).toBe(303);
  expect(path(w.page)).toBe(back);
}

describe("the pages without JavaScript: every state-changing control posts a form", () => {
  test("project: disable and enable a talent, uninstall (a cancel changes nothing), revoke a key, settings (a bad field's 400 shown on a page), delete with the typed name (a wrong one refused on the tab, under the field)", async () => {
    const o = await orgWithProject(live.env, "NoJS Projects");
    const pid = o.project.id;
    expect((await o.owner.post(`/web/projects/${pid}/talents`, { talents: ["typescript-strict", "javascript-base"] })).status).toBe(201);
    const k = await createKey(o.owner, pid, ["validate"], { name: "nojs hook" });
    const installed = async () =>
      Object.fromEntries(
        ((await o.owner.get(`/web/projects/${pid}/installed`)).body.talents as { id: string; state: string }[]).map((t) => [t.id, t.state]),
      );
    const w = await noJs(o.owner.email);
    const page = w.page;
    await page.goto(`${live.base}/projects/${pid}`);
    await expectClean(w);

    // 1. toggle (PATCH): the page comes back with the new state
    expect(await submitForm(page, "#installed button:has-text('Disable typescript-strict')")).toBe(303);
    expect(path(page)).toBe(`/projects/${pid}`);
    expect(await page.locator("#installed button:has-text('Enable typescript-strict')").count()).toBe(1);
    expect((await installed())["typescript-strict"]).toBe("disabled");
    expect(await submitForm(page, "#installed button:has-text('Enable typescript-strict')")).toBe(303);
    expect((await installed())["typescript-strict"]).toBe("active");

    // 2. uninstall (DELETE): asked on a page; Cancel goes back and changes nothing; confirmed, it is gone
    await asked(w, "#installed button:has-text('Uninstall typescript-strict')", "Uninstall typescript-strict from this project?");
    await screenshot(page, "nojs-confirm");
    await Promise.all([page.waitForURL((u) => u.pathname === `/projects/${pid}`), page.click("main a:text('Cancel')")]);
    expect((await installed())["typescript-strict"]).toBe("active");
    await asked(w, "#installed button:has-text('Uninstall typescript-strict')", "Uninstall typescript-strict from this project?");
    await confirmed(w, `/projects/${pid}`);
    expect(await page.textContent("#installed")).not.toContain("typescript-strict");
    expect((await installed())["typescript-strict"]).toBeUndefined();

    // 3. revoke a key (DELETE), back on the keys tab
    await page.goto(`${live.base}/projects/${pid}?tab=keys`);
    await asked(w, "#keys button:has-text('Revoke nojs hook')", "Revoke the key “nojs hook”? Calls with it fail at once.");
    expect((await o.owner.get(`/web/projects/${pid}/keys`)).body.keys[0].status).toBe("active");
    await confirmed(w, `/projects/${pid}?tab=keys`);
    expect((await o.owner.get(`/web/projects/${pid}/keys`)).body.keys.find((x: { id: string }) => x.id === k.key.id).status).toBe(
      "revoked",
    );

    // 4. settings (posted to the page itself): a field the server refuses answers the tab again, the error under it; then a rename
    await page.goto(`${live.base}/projects/${pid}?tab=settings`);
    await page.fill("#p-repo", "../elsewhere");
    expect(await submitForm(page, "#settings-form button[type=submit]")).toBe(400);
    expect(await page.textContent("#p-repo-error")).toBe("Repository must be a path such as payments-api or group/repo");
    expect(await page.inputValue("#p-repo")).toBe("../elsewhere");
    expectOnlyStatus(w, 400, false);
    await expectClean(w);
    await page.goto(`${live.base}/projects/${pid}?tab=settings`);
    await page.fill("#p-name", "Renamed without JS");
    expect(await submitForm(page, "#settings-form button[type=submit]")).toBe(303);
    expect(path(page)).toBe(`/projects/${pid}?tab=settings`);
    expect(await page.inputValue("#p-name")).toBe("Renamed without JS");
    expect((await o.owner.get(`/web/projects/${pid}`)).body.project.name).toBe("Renamed without JS");

    // 5. delete (DELETE) with the typed name: the button works without a script; the server checks the name
    expect(await page.locator("button.danger:has-text('Delete')").isDisabled()).toBe(false);
    // (a wrong one: the Settings tab again at its own address, the problem under the field, what was typed kept)
    await page.fill("#confirm-name", "Renamed without J");
    expect(await submitForm(page, "button.danger:has-text('Delete')")).toBe(400);
    expect(path(page)).toBe(`/projects/${pid}?tab=settings&form=delete`);
    expect(await page.textContent("#confirm-name-error")).toBe(
      '"Renamed without J" is not "Renamed without JS": type the project\'s name exactly',
    );
    expect(await page.inputValue("#confirm-name")).toBe("Renamed without J");
    expect((await o.owner.get(`/web/projects/${pid}`)).status).toBe(200);
    await expectClean(w);
    await page.fill("#confirm-name", "Renamed without JS");
    expect(await submitForm(page, "button.danger:has-text('Delete')")).toBe(303);
    expect(path(page)).toBe("/");
    expect((await o.owner.get(`/web/projects/${pid}`)).status).toBe(404);
    expectOnlyStatus(w, 400, false);
    await w.context.close();
  });

  test("organization: change a role, remove a member, revoke an invitation, save code hosting (a bad URL's 400 shown) and clear it, the last owner not offered “Leave” (one posted anyway: 409 on a page), a member leaves", async () => {
    const o = await orgWithProject(live.env, "NoJS Org");
    const m1 = await joinedMember(live.env, o.owner);
    const m2 = await joinedMember(live.env, o.owner);
    await o.owner.post("/web/orgs/current/invitations", { email: "pending-nojs@example.com" });
    const roles = async () =>
      Object.fromEntries(
        ((await o.owner.get("/web/orgs/current/members")).body.members as { email: string; role: string }[]).map((m) => [m.email, m.role]),
      );
    const w = await noJs(o.owner.email);
    const page = w.page;
    await page.goto(`${live.base}/org`);
    await expectClean(w);

    // 6. a member's role (PATCH)
    await page.selectOption(`#role-${m1.userId}`, "admin");
    expect(await submitForm(page, `tr[data-member='${m1.email}'] button:has-text('Change')`)).toBe(303);
    expect(path(page)).toBe("/org");
    expect((await roles())[m1.email]).toBe("admin");

    // 7. remove a member (DELETE), asked first
    await asked(
      w,
      `tr[data-member='${m2.email}'] button:has-text('Remove')`,
      `Remove ${m2.email} from NoJS Org? They lose access at once and their keys stop working.`,
    );
    expect((await roles())[m2.email]).toBe("member");
    await confirmed(w, "/org");
    expect((await roles())[m2.email]).toBeUndefined();

    // 8. revoke an invitation (DELETE)
    await asked(
      w,
      "tr[data-invitation='pending-nojs@example.com'] button:has-text('Revoke')",
      "Revoke the invitation of pending-nojs@example.com? Its link stops working.",
    );
    await confirmed(w, "/org");
    expect((await o.owner.get("/web/orgs/current/invitations")).body.invitations).toEqual([]);

    // 9. code hosting (posted to /org/code-hosting): a URL the server refuses answers /org again, the error under the URL; then saved
    await page.fill("#ch-url", "ftp://example.com/acme");
    expect(await submitForm(page, "#code-hosting button:has-text('Save code hosting')")).toBe(400);
    expect(await page.textContent("#ch-url-error")).toBe("must be an http(s) URL");
    expect(await page.inputValue("#ch-url")).toBe("ftp://example.com/acme");
    expectOnlyStatus(w, 400, false);
    await expectClean(w);
    await page.goto(`${live.base}/org`);
    await page.fill("#ch-url", "https://github.com/acme");
    expect(await submitForm(page, "#code-hosting button:has-text('Save code hosting')")).toBe(303);
    expect(path(page)).toBe("/org");
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toMatchObject({
      provider: "github",
      url: "https://github.com/acme",
      defaultBranch: "main",
    });

    // 10. clear it (DELETE), asked first
    await asked(w, "#code-hosting button:has-text('Clear')", "Clear the code hosting? Evidence is no longer linked to the repositories.");
    await confirmed(w, "/org");
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toBeNull();

    // 11. the last owner is not offered "Leave"; a leave posted anyway (a page from before) is the server's 409 on a page; nothing changed
    expect(await page.locator(`tr[data-member='${o.owner.email}'] button:has-text('Leave NoJS Org')`).count()).toBe(0);
    expect(await page.textContent(`tr[data-member='${o.owner.email}'] [data-last-owner]`)).toContain("The only owner");
    const refused = page.waitForResponse((r) => r.request().method() === "POST" && r.request().isNavigationRequest());
    await page.evaluate((userId) => {
      const form = document.createElement("form");
      form.method = "post";
      form.action = `/web/orgs/current/members/${userId}?_method=DELETE`;
      for (const [name, value] of [
        ["confirm", "yes"],
        ["return", "/org"],
      ]) {
        const input = document.createElement("input");
        Object.assign(input, { type: "hidden", name, value });
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    }, o.owner.userId);
    expect((await refused).status()).toBe(409);
    await page.waitForLoadState("load");
    expect(await main(page)).toContain("The last owner cannot be removed; make someone else owner first.");
    expectOnlyStatus(w, 409, false);
    await expectClean(w);
    expect((await roles())[o.owner.email]).toBe("owner");
    await w.context.close();

    // 12. a member leaves: back to the home page, no longer a member
    const mw = await noJs(m1.email);
    await mw.page.goto(`${live.base}/org`);
    await asked(mw, `tr[data-member='${m1.email}'] button:has-text('Leave NoJS Org')`, "Leave NoJS Org?");
    await confirmed(mw, "/");
    expect((await roles())[m1.email]).toBeUndefined();
    expectOnlyStatus(mw, 400, false);
    await mw.context.close();
  });

  test("single sign-on and expertises: remove SSO, confirm triggers, delete an expertise with its slug typed (a wrong slug refused on its own page, under the field)", async () => {
    const o = await orgWithProject(live.env, "NoJS Expertise");
    expect(
      (
        await o.owner.post("/web/orgs/current/sso", {
          type: "oidc",
          domains: ["nojs-sso.example"],
          oidc: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" },
        })
      ).status,
    ).toBe(200);
    const created = await o.owner.post("/web/orgs/current/expertises", {
      slug: "nojs-rules",
      content: expertiseMd("nojs-rules", "Pay with care."),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const w = await noJs(o.owner.email);
    const page = w.page;

    // 13. remove SSO (DELETE on a path that also has a POST route), asked first
    await page.goto(`${live.base}/org/sso`);
    await asked(
      w,
      "button:has-text('Remove single sign-on')",
      "Remove single sign-on? People of these domains will sign in with passwords again.",
    );
    expect((await o.owner.get("/web/orgs/current/sso")).body.sso).not.toBeNull();
    await confirmed(w, "/org/sso");
    expect((await o.owner.get("/web/orgs/current/sso")).body.sso).toBeNull();

    // 14. triggers (PUT): the proposal is a page without a script, its confirmation a form
    await page.goto(`${live.base}/org/expertises/${id}`);
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get("propose") === "1"),
      page.click("#triggers button:has-text('Propose triggers')"),
    ]);
    const keywords = await page.inputValue("#trigger-keywords");
    expect(keywords.length).toBeGreaterThan(0);
    expect(await submitForm(page, "#proposal button:has-text('Confirm triggers')")).toBe(303);
    expect(path(page)).toBe(`/org/expertises/${id}?done=triggers`);
    expect(await page.textContent("#triggers")).toContain("Confirmed");
    expect((await o.owner.get(`/web/orgs/current/expertises/${id}`)).body.triggers.keywords).toEqual(
      keywords
        .split("\n")
        .map((s) => s.trim())
        .filter(Boolean),
    );
    await expectClean(w);

    // 15. delete with the slug typed: wrong → refused by the server on the expertise's own page (the problem under the
    // field, what was typed kept), nothing deleted; right → gone
    await page.fill("#confirm-name", "nojs-rule");
    expect(await submitForm(page, "button.danger:has-text('Delete')")).toBe(400);
    expect(path(page)).toBe(`/org/expertises/${id}?form=delete`);
    expect(await page.textContent("#confirm-name-error")).toBe('"nojs-rule" is not "nojs-rules": type the expertise\'s name exactly');
    expect(await page.inputValue("#confirm-name")).toBe("nojs-rule");
    expect(await page.getAttribute("#confirm-name", "aria-invalid")).toBe("true");
    expect((await o.owner.get(`/web/orgs/current/expertises/${id}`)).status).toBe(200);
    await expectClean(w);
    await page.fill("#confirm-name", "nojs-rules");
    expect(await submitForm(page, "button.danger:has-text('Delete')")).toBe(303);
    expect(path(page)).toBe("/org/expertises?done=deleted");
    expect((await o.owner.get(`/web/orgs/current/expertises/${id}`)).status).toBe(404);
    expectOnlyStatus(w, 400, false);
    await w.context.close();
  });

  test("a page of another origin (same site: the cookie goes along) posting ?_method=DELETE with the confirmation is refused by the CSRF rule (403) and changes nothing", async () => {
    const o = await orgWithProject(live.env, "NoJS CSRF");
    const w = await noJs(o.owner.email);
    const target = `${live.base}/web/projects/${o.project.id}?_method=DELETE`;
    const evil = servePage(
      `<!doctype html><html lang="en"><title>x</title><form method="post" action="${target}"><input type="hidden" name="confirm" value="${o.project.name}"><button type="submit">Win a prize</button></form></html>`,
      "127.0.0.1",
    );
    try {
      await w.page.goto(evil.origin());
      const answer = w.page.waitForResponse((r) => r.url() === target);
      await w.page.click("button");
      const res = await answer;
      expect(res.status()).toBe(403);
      expect(await res.text()).toMatch(/from another site|are not accepted/);
    } finally {
      evil.stop();
    }
    expect((await o.owner.get(`/web/projects/${o.project.id}`)).status).toBe(200);
    await w.context.close();
  });

  test("with JavaScript on, the same forms are htmx's as before: each destructive one asks once (its dialog, never the server's page), the section is swapped in place", async () => {
    const o = await orgWithProject(live.env, "JS Still");
    const pid = o.project.id;
    await createKey(o.owner, pid, ["validate"], { name: "js hook" });
    const member = await joinedMember(live.env, o.owner);
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const page = w.page;
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    const posts: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") posts.push(`${r.method()} ${new URL(r.url()).pathname}${new URL(r.url()).search}`);
    });
    const stillSamePage = () => page.evaluate(() => (window as unknown as { marker?: number }).marker === 1);
    const mark = () => page.evaluate(() => ((window as unknown as { marker?: number }).marker = 1));

    // a key revoked: one dialog, a DELETE (no _method), the keys section swapped
    await page.goto(`${live.base}/projects/${pid}?tab=keys`);
    await mark();
    await page.click("#keys button:has-text('Revoke js hook')");
    await page.waitForSelector("#keys .state.revoked");
    expect(dialogs).toEqual(["Revoke the key “js hook”? Calls with it fail at once."]);
    expect(posts).toEqual([`DELETE /web/projects/${pid}/keys/${(await o.owner.get(`/web/projects/${pid}/keys`)).body.keys[0].id}`]);
    expect(await stillSamePage()).toBe(true);

    // code hosting saved (PUT, no dialog) then cleared (one dialog), each swapped in place
    await page.goto(`${live.base}/org`);
    await mark();
    posts.length = 0;
    await page.fill("#ch-url", "https://gitlab.example.com/acme");
    await page.selectOption("#ch-provider", "gitlab");
    await page.click("#code-hosting button:has-text('Save code hosting')");
    await page.waitForFunction(() => document.querySelector("#code-hosting .notice")?.textContent === "Code hosting saved.");
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toMatchObject({
      provider: "gitlab",
      url: "https://gitlab.example.com/acme",
    });
    await page.click("#code-hosting button:has-text('Clear')");
    await page.waitForFunction(() => document.querySelector("#code-hosting")?.textContent?.includes("Code hosting cleared."));
    expect((await o.owner.get("/web/orgs/current/code-hosting")).body.codeHosting).toBeNull();
    expect(posts).toEqual(["PUT /web/orgs/current/code-hosting", "DELETE /web/orgs/current/code-hosting"]);
    expect(dialogs.slice(1)).toEqual(["Clear the code hosting? Evidence is no longer linked to the repositories."]);
    expect(await stillSamePage()).toBe(true);

    // single sign-on removed: one dialog, then the page (HX-Redirect)
    await o.owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: ["js-still.example"],
      oidc: { issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s" },
    });
    await page.goto(`${live.base}/org/sso`);
    await Promise.all([page.waitForLoadState("load"), page.click("button:has-text('Remove single sign-on')")]);
    await page.waitForFunction(() => !document.body.textContent?.includes("Remove single sign-on"));
    expect(dialogs.slice(2)).toEqual(["Remove single sign-on? People of these domains will sign in with passwords again."]);
    expect((await o.owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
    expect(w.problems).toEqual([]);
    await w.context.close();

    // a member leaves: one dialog, then the home page
    const mw = await signedInPage(browser, live.base, member.email, PASSWORD);
    const memberDialogs: string[] = [];
    mw.page.on("dialog", (d) => {
      memberDialogs.push(d.message());
      void d.accept();
    });
    await mw.page.goto(`${live.base}/org`);
    await Promise.all([
      mw.page.waitForURL((u) => u.pathname === "/"),
      mw.page.click(`tr[data-member='${member.email}'] button:has-text('Leave JS Still')`),
    ]);
    expect(memberDialogs).toEqual(["Leave JS Still? You lose access to its projects at once, and your keys of its projects stop working."]);
    expect(((await o.owner.get("/web/orgs/current/members")).body.members as { email: string }[]).map((m) => m.email)).not.toContain(
      member.email,
    );
    expect(mw.problems).toEqual([]);
    await mw.context.close();
  });
});
