/**
 * docs/design.md "Pages work without JavaScript; htmx enhances them", for a refused save: in Chromium with
 * JavaScript off, the SSO form (`POST /org/sso`) and a project's Settings tab (`POST /projects/:id?tab=settings`)
 * answer their own page again (400 or 409), what was typed kept and the error under the field that caused it
 * (ui/form.tsx); with JavaScript on, htmx swaps the same error into #flash and app.js puts it under the same
 * field — the protocol group's (ui/form.tsx ChoiceField) and the domains' for a domain another organization
 * proved too. The new-project form, a project key's creation (then its value shown once) and /org's invitation form
 * the same way, and /admin's typed slug of a suspend mistyped past the browser's pattern; a key's tools (a group of check
 * boxes) with htmx. The URL stays the form's page; axe-core finds nothing serious;
 * screenshots at 1280×800 and 390×844.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { approveSsoDomains, formPost, joinedMember, makePlatformAdmin, orgWithProject, signedUp } from "../helpers";
import {
  axeViolations,
  expectCleanWithoutScripts,
  expectOnlyStatus,
  screenshot,
  signedInPage,
  submitForm,
  type WatchedPage,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const as = (email: string, javaScript: boolean): Promise<WatchedPage> => signedInPage(browser, live.base, email, PASSWORD, { javaScript });
const path = (p: Page) => {
  const u = new URL(p.url());
  return u.pathname + u.search;
};
const BAD_DOMAINS = '"not" is not an e-mail domain; "a" is not an e-mail domain; "domain" is not an e-mail domain';
const BAD_REPO = "Repository must be a path such as payments-api or group/repo";

/** Fills the SSO form with an OIDC configuration at `domains`. */
async function fillSso(p: Page, domains: string): Promise<void> {
  await p.fill("#sso-domains", domains);
  await p.fill("#oidc-issuer", "https://idp.example.com");
  await p.fill("#oidc-client-id", "refused-client");
  await p.fill("#oidc-client-secret", "refused-secret");
  await p.check("#sso-enforce");
}

/** Screenshots of the refused form at 1280×800 and 390×844, the error in view. */
async function shots(p: Page, name: string, at: string): Promise<void> {
  for (const [width, height, suffix] of [
    [1280, 800, ""],
    [390, 844, "-phone"],
  ] as const) {
    await p.setViewportSize({ width, height });
    await p.locator(at).scrollIntoViewIfNeeded();
    await screenshot(p, `${name}${suffix}`);
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

describe("a refused save answers the form's own page, with and without JavaScript", () => {
  test("SSO without JavaScript: bad domains → 400 at /org/sso, the error under the domains, what was typed kept (not the secret); a proven domain → 409 the same way", async () => {
    const other = await orgWithProject(live.env, "Refused Sso Other");
    expect(
      (
        await other.owner.post("/web/orgs/current/sso", {
          type: "oidc",
          domains: ["taken-refused.example"],
          oidc: { issuer: "https://idp.example.com", clientId: "x", clientSecret: "y" },
        })
      ).status,
    ).toBe(200);
    await approveSsoDomains(live.env, other.org.id, ["taken-refused.example"]);
    const o = await orgWithProject(live.env, "Refused Sso NoJS");
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/org/sso`);
    await fillSso(p, "not a domain");
    expect(await submitForm(p, '#sso-form button[type="submit"]')).toBe(400);
    expect(path(p)).toBe("/org/sso");
    expect(await p.textContent("#sso-domains-error")).toBe(BAD_DOMAINS);
    expect(await p.isVisible("#sso-domains-error")).toBe(true);
    expect(await p.getAttribute("#sso-domains", "aria-invalid")).toBe("true");
    expect(await p.textContent("#sso-form-refused")).toBe("Not saved: fix the field marked below.");
    expect(await p.inputValue("#sso-domains")).toBe("not a domain");
    expect(await p.inputValue("#oidc-client-id")).toBe("refused-client");
    expect(await p.isChecked("#sso-enforce")).toBe(true);
    expect(await p.inputValue("#oidc-client-secret")).toBe("");
    expect(await p.content()).not.toContain("refused-secret");
    expect(await p.isVisible("#sso-type-error")).toBe(false);
    expectOnlyStatus(w, 400, false);
    await expectCleanWithoutScripts(browser, w);
    await shots(p, "org-sso-refused-nojs", "#sso-domains");

    await fillSso(p, "free-refused.example, taken-refused.example");
    expect(await submitForm(p, '#sso-form button[type="submit"]')).toBe(409);
    expect(path(p)).toBe("/org/sso");
    expect(await p.textContent("#sso-domains-error")).toContain("taken-refused.example is verified by another organization");
    expect(await p.inputValue("#sso-domains")).toBe("free-refused.example, taken-refused.example");
    expectOnlyStatus(w, 409, false);
    await expectCleanWithoutScripts(browser, w);
    expect((await o.owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
    await w.context.close();
  });

  test("SSO with JavaScript: the same refusals swapped in by htmx, each under its field (the protocol group's too); the URL stays /org/sso", async () => {
    const o = await orgWithProject(live.env, "Refused Sso JS");
    const w = await as(o.owner.email, true);
    const p = w.page;
    await p.goto(`${live.base}/org/sso`);
    await fillSso(p, "not a domain");
    await p.click('#sso-form button[type="submit"]');
    await p.waitForSelector("#sso-domains-error:not([hidden])");
    expect(await p.textContent("#sso-domains-error")).toBe(BAD_DOMAINS);
    expect(await p.inputValue("#oidc-client-id")).toBe("refused-client");
    expect(path(p)).toBe("/org/sso");
    expect(await axeViolations(p)).toEqual([]);
    await shots(p, "org-sso-refused-js", "#sso-domains");

    // no protocol chosen: the group's own error, the fieldset named by it
    await p.evaluate(() => {
      for (const r of document.querySelectorAll<HTMLInputElement>('input[name="type"]')) r.checked = false;
    });
    await p.fill("#sso-domains", "refused-js.example");
    await p.click('#sso-form button[type="submit"]');
    await p.waitForSelector("#sso-type-error:not([hidden])");
    expect(await p.textContent("#sso-type-error")).toBe("must be oidc or saml");
    expect(await p.getAttribute("#sso-type", "aria-describedby")).toBe("sso-type-error");
    expect(await p.isVisible("#sso-domains-error")).toBe(false); // cleared when the form was sent again
    expect(await axeViolations(p)).toEqual([]);
    await p.locator("#sso-type").scrollIntoViewIfNeeded();
    await screenshot(p, "org-sso-refused-protocol");
    expectOnlyStatus(w, 400);

    // a domain another organization proved (409): its sentence under the domains too
    const other = await orgWithProject(live.env, "Refused Sso JS Other");
    const taken = {
      type: "oidc",
      domains: ["taken-refused-js.example"],
      oidc: { issuer: "https://idp.example.com", clientId: "x", clientSecret: "y" },
    };
    expect((await other.owner.post("/web/orgs/current/sso", taken)).status).toBe(200);
    await approveSsoDomains(live.env, other.org.id, ["taken-refused-js.example"]);
    await p.check('input[name="type"][value="oidc"]');
    await fillSso(p, "taken-refused-js.example");
    await p.click('#sso-form button[type="submit"]');
    await p.waitForSelector("#sso-domains-error:not([hidden])");
    expect(await p.textContent("#sso-domains-error")).toBe(
      "taken-refused-js.example is verified by another organization: a domain belongs to one organization at most.",
    );
    expect(await p.isVisible("#sso-type-error")).toBe(false);
    expect(await axeViolations(p)).toEqual([]);
    expectOnlyStatus(w, 409);
    expect((await o.owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
    await w.context.close();
  });

  test("project Settings without JavaScript and with: a bad repository → the tab again (400) or htmx, the error under the repository, what was typed kept", async () => {
    const o = await orgWithProject(live.env, "Refused Settings");
    const pid = o.project.id;
    for (const javaScript of [false, true]) {
      const w = await as(o.owner.email, javaScript);
      const p = w.page;
      await p.goto(`${live.base}/projects/${pid}?tab=settings`);
      await p.fill("#p-name", "Typed name");
      await p.fill("#p-repo", "../elsewhere");
      if (javaScript) {
        await p.click("#settings-form button[type=submit]");
        await p.waitForSelector("#p-repo-error:not([hidden])");
        expect(await axeViolations(p)).toEqual([]);
      } else {
        expect(await submitForm(p, "#settings-form button[type=submit]")).toBe(400);
        await expectCleanWithoutScripts(browser, w);
      }
      expect(path(p)).toBe(`/projects/${pid}?tab=settings`);
      expect(await p.textContent("#p-repo-error")).toBe(BAD_REPO);
      expect(await p.getAttribute("#p-repo", "aria-invalid")).toBe("true");
      expect(await p.inputValue("#p-repo")).toBe("../elsewhere");
      expect(await p.inputValue("#p-name")).toBe("Typed name");
      expectOnlyStatus(w, 400, javaScript);
      await w.context.close();
    }
    expect((await o.owner.get(`/web/projects/${pid}`)).body.project.name).toBe(o.project.name);
  });

  test("a new project without JavaScript: a bad repository → /projects/new again (400), the error under the repository, what was typed kept", async () => {
    const o = await orgWithProject(live.env, "Refused New");
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/projects/new`);
    await p.fill("#name", "Typed project");
    await p.fill("#repository", "a b");
    expect(await submitForm(p, "#new-project-form button[type=submit]")).toBe(400);
    expect(path(p)).toBe("/projects/new");
    expect(await p.textContent("#repository-error")).toBe(BAD_REPO);
    expect(await p.inputValue("#name")).toBe("Typed project");
    expect(await p.inputValue("#repository")).toBe("a b");
    expectOnlyStatus(w, 400, false);
    await expectCleanWithoutScripts(browser, w);
    expect((await o.owner.get("/web/projects")).body.projects).toHaveLength(1);
    await w.context.close();
  });

  test("a key's tools with JavaScript: none chosen → the refusal under the group of check boxes (ChoiceField), the name kept", async () => {
    const o = await orgWithProject(live.env, "Refused Key Tools");
    const w = await as(o.owner.email, true);
    const p = w.page;
    await p.goto(`${live.base}/projects/${o.project.id}?tab=keys`);
    await p.fill("#key-name", "no tools");
    for (const box of await p.locator('#key-tools input[name="tools"]').all()) await box.uncheck();
    await p.click("#keys button[type=submit]:text('Create key')");
    await p.waitForSelector("#key-tools-error:not([hidden])");
    expect(await p.textContent("#key-tools-error")).toContain("Tools must name at least one tool");
    expect(await p.getAttribute("#key-tools", "aria-describedby")).toBe("key-tools-error");
    expect(await p.inputValue("#key-name")).toBe("no tools");
    expect(await axeViolations(p)).toEqual([]);
    expectOnlyStatus(w, 400);
    await w.context.close();
  });
  test("a key without JavaScript: no tools and a past expiry → the Keys tab again (400), each error under its field, what was typed kept; then the new key shown once", async () => {
    const o = await orgWithProject(live.env, "Refused Key NoJS");
    const pid = o.project.id;
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/projects/${pid}?tab=keys`);
    await p.fill("#key-name", "nightly job");
    for (const box of await p.locator('#key-tools input[name="tools"]').all()) await box.uncheck();
    await p.fill("#key-expires", "2001-01-01");
    expect(await submitForm(p, "#keys button[type=submit]:text('Create key')")).toBe(400);
    expect(path(p)).toBe(`/projects/${pid}/keys`);
    expect(await p.textContent("#key-tools-error")).toContain("choose at least one of");
    expect(await p.textContent("#key-expires-error")).toBe("must be in the future");
    expect(await p.getAttribute("#key-expires", "aria-invalid")).toBe("true");
    expect(await p.inputValue("#key-name")).toBe("nightly job");
    expect(await p.inputValue("#key-expires")).toBe("2001-01-01");
    expectOnlyStatus(w, 400, false);
    await expectCleanWithoutScripts(browser, w);
    await shots(p, "refused-key-nojs", "#key-tools");
    expect((await o.owner.get(`/web/projects/${pid}/keys`)).body.keys).toEqual([]);
    await p.check('#key-tools input[value="validate"]');
    await p.fill("#key-expires", "");
    expect(await submitForm(p, "#keys button[type=submit]:text('Create key')")).toBe(200);
    const shown = await p.textContent("#keys");
    expect(shown).toMatch(/svc_pk_[A-Za-z0-9_-]+/);
    expect(shown).toContain("nightly job");
    await expectCleanWithoutScripts(browser, w);
    expect((await o.owner.get(`/web/projects/${pid}/keys`)).body.keys.map((k: { name: string }) => k.name)).toEqual(["nightly job"]);
    await w.context.close();
  });

  test("an invitation without JavaScript: already a member → /org again (409), the error under the e-mail, what was typed kept", async () => {
    const o = await orgWithProject(live.env, "Refused Invite NoJS");
    const member = await joinedMember(live.env, o.owner);
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/org`);
    await p.fill("#invite-email", member.email);
    await p.selectOption("#invite-role", "admin");
    expect(await submitForm(p, "#invitations button[type=submit]:text('Send the invitation')")).toBe(409);
    expect(path(p)).toBe("/org/invitations");
    expect(await p.textContent("#invite-email-error")).toBe(`${member.email} is already a member.`);
    expect(await p.getAttribute("#invite-email", "aria-invalid")).toBe("true");
    expect(await p.inputValue("#invite-email")).toBe(member.email);
    expect(await p.inputValue("#invite-role")).toBe("admin");
    expectOnlyStatus(w, 409, false);
    await expectCleanWithoutScripts(browser, w);
    await shots(p, "refused-invitation-nojs", "#invite-email");
    expect((await o.owner.get("/web/orgs/current/invitations")).body.invitations).toEqual([]);
    await w.context.close();
  });
  test("a mistyped slug of a suspend (past the browser's pattern): /admin again (400) with that form open and the problem under the field, axe clean", async () => {
    const o = await orgWithProject(live.env, "Refused Stop");
    const admin = await signedUp(live.env);
    await makePlatformAdmin(live.env, admin.userId);
    const r = await formPost(live.env, admin, `/admin/organizations/${o.org.id}/suspend`, { confirm: "wrong" });
    expect(r.status).toBe(400);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await context.newPage();
      const url = `${live.base}/admin/organizations/${o.org.id}/suspend`;
      await p.route(url, (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: r.html }));
      await p.goto(url);
      const id = `#confirm-suspend-${o.org.id}`;
      expect(await p.isVisible(id)).toBe(true); // its details open
      expect(await p.inputValue(id)).toBe("wrong");
      expect(await p.textContent(`${id}-error`)).toBe(`"wrong" is not "${o.org.slug}": type the organization's slug exactly`);
      expect(await axeViolations(p)).toEqual([]);
    } finally {
      await context.close();
    }
    expect(
      (await live.env.database.client.execute({ sql: "SELECT status FROM organizations WHERE id = ?", args: [o.org.id] })).rows[0]!.status,
    ).toBe("approved");
  });
});
