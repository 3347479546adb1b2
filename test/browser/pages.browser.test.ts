/**
 * Every page and form that exists, used by Chromium as a
 * person uses it — /setup, /login (sign-in, wrong password, account creation and its
 * errors), home and sign-out, /accept-invitation/:id (accept while signed in; create the
 * account there) — and the refusal of cross-site form posts and credentialed fetches.
 *
 * Each scenario runs twice: at http://127.0.0.1:PORT (Chromium sends Sec-Fetch-Site there)
 * and at http://talentd.test:PORT, a name the browser maps to 127.0.0.1 and treats as a LAN
 * host over plain HTTP (no Sec-Fetch-* headers: only Origin decides). Every page is checked
 * with axe-core (no serious or critical violation) and must log no console error (a CSP
 * violation is one).
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { issueSetupToken } from "../../src/identity/service";
import { orgWithProject, signedUp, WebClient } from "../helpers";
import {
  axeViolations,
  EVIL_HOST,
  LAN_HOST,
  launchChromium,
  newPage,
  screenshot,
  servePage,
  type WatchedPage,
  expectClean,
  submitForm,
  expectOnlyStatus,
} from "../browser-support";
import { liveEnv, PASSWORD, type LiveEnv } from "../mcp-support";

/** Browser scenarios take seconds (argon2id sign-ins, page loads): a minute each, not bun's 5 s. */
const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 60_000);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser.close();
});

const submit = submitForm;

/** At 390 px the page does not scroll sideways, the field's error under it and in view when scrolled to; then back to 1280. */
async function fitsPhone(page: Page, shot: string | null): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(m.scroll).toBeLessThanOrEqual(m.inner);
  await page.evaluate(() => document.querySelector(".field-error:not([hidden])")?.scrollIntoView({ block: "center" }));
  if (shot) await screenshot(page, shot);
  await page.setViewportSize({ width: 1280, height: 800 });
}

let seq = 0;
const email = (who: string) => `${who}${++seq}-${Date.now()}@example.com`;

for (const host of ["127.0.0.1", LAN_HOST]) {
  const shots = host === "127.0.0.1"; // one set of screenshots is enough
  describe(`pages in Chromium at http://${host}:PORT`, () => {
    let live: LiveEnv;
    let w: WatchedPage;
    beforeAll(async () => {
      live = await liveEnv({ AUTO_APPROVE_ORGS: "false" }, { host });
    });
    afterAll(async () => {
      await live.close();
    });
    const fresh = async () => {
      w = await newPage(browser);
      return w.page;
    };
    const done = async () => {
      await w.context.close();
    };

    test("/setup: the one-time link creates the platform administrator, who lands signed in on the home page; the link then says it is used", async () => {
      const token = (await issueSetupToken(live.env.database))!;
      const page = await fresh();
      await page.goto(`${live.base}/setup?token=${token}`);
      await expectClean(w);
      if (shots) await screenshot(page, "setup");
      // one form layout: an address that has an account is refused (409) under the e-mail field, what was typed kept
      const taken = await signedUp(live.env);
      await page.fill("#email", taken.email);
      await page.fill("#name", "Root Admin");
      await page.fill("#password", PASSWORD);
      expect(await submit(page, "button[type=submit]")).toBe(409);
      expect(await page.textContent("#email-error")).toContain("An account with this e-mail exists");
      expect(await page.getAttribute("#email", "aria-describedby")).toBe("email-error");
      expect(await page.getAttribute("#email", "aria-invalid")).toBe("true");
      expect(await page.inputValue("#name")).toBe("Root Admin");
      expect(await axeViolations(page)).toEqual([]);
      expectOnlyStatus(w, 409, false);
      if (shots) await screenshot(page, "setup-field-error");
      await fitsPhone(page, shots ? "phone-setup-field-error" : null);
      const admin = email("root");
      await page.fill("#email", admin);
      await page.fill("#password", PASSWORD);
      expect(await submit(page, "button[type=submit]")).toBe(303);
      expect(new URL(page.url()).pathname).toBe("/");
      expect(await page.textContent("main")).toContain("Welcome, Root Admin");
      // the home page's status line says what was done
      expect(await page.textContent("#action-status")).toBe(`You are the platform administrator, signed in as ${admin}.`);
      if (shots) await screenshot(page, "setup-done");
      expect(await page.textContent("header")).toContain(admin);
      const role = (await live.env.database.client.execute({ sql: "SELECT role FROM users WHERE email = ?", args: [admin] })).rows[0]?.role;
      expect(role).toBe("admin");
      await page.goto(`${live.base}/setup?token=${token}`);
      expect(await page.textContent("main")).toContain("invalid, expired or already used");
      await done();
    });

    test("/login: account creation (e-mail, name, password) signs the person in; sign-out ends it; a wrong password shows the error on the page (401, not JSON); the right one signs in", async () => {
      const page = await fresh();
      const me = email("new");
      const home = await page.goto(`${live.base}/`);
      expect(new URL(page.url()).pathname).toBe("/login"); // signed out: home sends to /login
      expect(home?.status()).toBe(200);
      await expectClean(w);
      if (shots) await screenshot(page, "login");
      await page.fill("#new-email", me);
      await page.fill("#new-name", "Ada");
      await page.fill("#new-password", PASSWORD);
      expect(await submit(page, "#create-account button[type=submit]")).toBe(303);
      expect(new URL(page.url()).pathname).toBe("/");
      expect(await page.textContent("main")).toContain("Welcome, Ada");
      expect(await page.textContent("main")).toContain("No organization yet");
      await expectClean(w);
      if (shots) await screenshot(page, "home-new-account");

      expect(await submit(page, "header button[type=submit]")).toBe(303); // sign out
      expect(new URL(page.url()).pathname).toBe("/login");
      await page.goto(`${live.base}/`);
      expect(new URL(page.url()).pathname).toBe("/login");

      await page.fill("#email", me);
      await page.fill("#password", "not the password at all");
      expect(await submit(page, "form[action='/login'] button[type=submit]")).toBe(401);
      expect(new URL(page.url()).pathname).toBe("/login");
      expect(await page.textContent("form[action='/login'] .error")).toContain("E-mail or password is wrong");
      expect(await page.inputValue("#email")).toBe(me); // what the person typed is kept
      await expectClean(w);
      if (shots) await screenshot(page, "login-wrong-password");

      await page.fill("#password", PASSWORD);
      expect(await submit(page, "form[action='/login'] button[type=submit]")).toBe(303);
      expect(new URL(page.url()).pathname).toBe("/");
      expect(await page.textContent("header")).toContain(me);
      await done();
    });

    test("/login account creation: a taken address and a short password are explained on the page, next to the form, with what was typed kept", async () => {
      const taken = await signedUp(live.env);
      const page = await fresh();
      await page.goto(`${live.base}/login`);
      await page.fill("#new-email", taken.email);
      await page.fill("#new-name", "Someone");
      await page.fill("#new-password", PASSWORD);
      expect(await submit(page, "#create-account button[type=submit]")).toBe(409);
      expect(await page.textContent("#create-account .error")).toContain(`An account with ${taken.email} already exists`);
      expect(await page.inputValue("#new-name")).toBe("Someone");
      await expectClean(w);
      if (shots) await screenshot(page, "login-taken-address");

      // the server's rule, not only the browser's: drop the input's minlength as an old browser would
      await page.fill("#new-email", email("short"));
      await page.fill("#new-password", "short");
      await page.evaluate(() => document.querySelector("#new-password")!.removeAttribute("minlength"));
      expect(await submit(page, "#create-account button[type=submit]")).toBe(400);
      expect(await page.textContent("#create-account .error")).toContain("The password must be at least 10 characters");
      await expectClean(w);
      await done();
    });

    test("/login?next=…: after sign-in the browser returns to the page it came from on this site, never to another site", async () => {
      const u = await signedUp(live.env);
      const page = await fresh();
      for (const [next, landing] of [
        ["/setup?token=x", "/setup"],
        ["/\t/evil.example/x", "/"],
        ["/\\evil.example", "/"],
      ] as const) {
        await page.goto(`${live.base}/login?next=${encodeURIComponent(next)}`);
        await page.fill("#email", u.email);
        await page.fill("#password", PASSWORD);
        expect(await submit(page, "form[action='/login'] button[type=submit]")).toBe(303);
        const url = new URL(page.url());
        expect(url.origin).toBe(live.base);
        expect(url.pathname).toBe(landing);
      }
      await done();
    });

    test("/accept-invitation/:id: the invitee signed in accepts and joins; a visitor without an account creates it there and joins", async () => {
      const o = await orgWithProject(live.env);
      // signed in as the invitee
      const invitee = await signedUp(live.env);
      const inv1 = (await o.owner.post("/web/orgs/current/invitations", { email: invitee.email, role: "member" })).body;
      const page = await fresh();
      await page.goto(`${live.base}/login?next=${encodeURIComponent(`/accept-invitation/${inv1.id}`)}`);
      await page.fill("#email", invitee.email);
      await page.fill("#password", PASSWORD);
      expect(await submit(page, "form[action='/login'] button[type=submit]")).toBe(303);
      expect(new URL(page.url()).pathname).toBe(`/accept-invitation/${inv1.id}`);
      await expectClean(w);
      if (shots) await screenshot(page, "invitation-signed-in");
      expect(await submit(page, "button[type=submit]:text('Accept and join')")).toBe(200);
      expect(await page.textContent("h1")).toContain(`Welcome to ${o.org.name}`);
      const joined = await invitee.get("/web/orgs");
      expect(joined.body.organizations.map((x: { id: string }) => x.id)).toContain(o.org.id);
      await done();

      // a visitor who has no account yet
      const newcomer = email("newcomer");
      const inv2 = (await o.owner.post("/web/orgs/current/invitations", { email: newcomer, role: "admin" })).body;
      const page2 = await fresh();
      // one form layout: an invited address that already has an account is refused (409) under the e-mail field
      const existing = await signedUp(live.env);
      const inv3 = (await o.owner.post("/web/orgs/current/invitations", { email: existing.email, role: "member" })).body;
      await page2.goto(`${live.base}/accept-invitation/${inv3.id}`);
      await page2.fill("#name", "Already Here");
      await page2.fill("#password", PASSWORD);
      expect(await submit(page2, "button[type=submit]:text('Create account and join')")).toBe(409);
      expect(await page2.textContent("#email-error")).toContain(`An account with ${existing.email} exists: sign in instead.`);
      expect(await page2.getAttribute("#email", "aria-describedby")).toBe("email-help email-error");
      expect(await page2.getAttribute("#email", "aria-invalid")).toBe("true");
      expect(await page2.inputValue("#name")).toBe("Already Here");
      expect(await axeViolations(page2)).toEqual([]);
      expectOnlyStatus(w, 409, false);
      if (shots) await screenshot(page2, "invitation-field-error");
      await fitsPhone(page2, shots ? "phone-invitation-field-error" : null);
      await page2.goto(`${live.base}/accept-invitation/${inv2.id}`);
      await expectClean(w);
      if (shots) await screenshot(page2, "invitation-new-account");
      expect(await page2.inputValue("#email")).toBe(newcomer);
      await page2.fill("#name", "Newcomer");
      await page2.fill("#password", PASSWORD);
      expect(await submit(page2, "button[type=submit]:text('Create account and join')")).toBe(200);
      expect(await page2.textContent("h1")).toContain(`Welcome to ${o.org.name}`);
      expect(await page2.textContent("#action-status")).toBe(`You joined ${o.org.name} as admin.`); // the status line says what was done
      await page2.goto(`${live.base}/`);
      expect(await page2.textContent("main")).toContain(o.project.name); // the active organization is the new one
      await expectClean(w);
      if (shots) await screenshot(page2, "home-with-project");
      await done();
    });

    describe("cross-site requests are refused (403 csrf_rejected), whatever the browser sends", () => {
      /** Signs a fresh browser context in on the real /login page; returns the page. */
      const signedInPage = async (who: { email: string }) => {
        const page = await fresh();
        await page.goto(`${live.base}/login`);
        await page.fill("#email", who.email);
        await page.fill("#password", PASSWORD);
        expect(await submit(page, "form[action='/login'] button[type=submit]")).toBe(303);
        return page;
      };
      const orgNames = async (c: WebClient) => ((await c.get("/web/orgs")).body.organizations as { name: string }[]).map((x) => x.name);
      const autoSubmit = (action: string, fields: Record<string, string>) =>
        `<!doctype html><title>win a prize</title><form id="f" method="post" action="${action}">${Object.entries(fields)
          .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
          .join("")}</form><script>document.getElementById("f").submit()</script>`;

      // another port of the same host is the same site (the SameSite=Lax cookie goes along) but another origin
      for (const attacker of ["same-site", "cross-site"] as const) {
        test(`a page of another origin (${attacker}) that auto-submits a form to POST /web/orgs with the person's cookie → refused, nothing created`, async () => {
          const victim = await signedUp(live.env);
          const page = await signedInPage(victim);
          const evilHost = attacker === "same-site" ? new URL(live.base).hostname : EVIL_HOST;
          const evil = servePage(autoSubmit(`${live.base}/web/orgs`, { name: "Evil Corp" }), "127.0.0.1");
          try {
            const answer = page.waitForResponse((r) => r.url() === `${live.base}/web/orgs`);
            await page.goto(evil.origin(evilHost));
            const res = await answer;
            // same-site: the cookie went along and the origin check refused it; cross-site: Lax kept the cookie home
            expect(res.status()).toBe(attacker === "same-site" ? 403 : 401);
            // the browser navigated: it is shown an error page, never a JSON body
            expect(res.headers()["content-type"]).toContain("text/html");
            expect(await res.text()).toMatch(attacker === "same-site" ? /from another site|are not accepted/ : /Sign in/);
          } finally {
            evil.stop();
          }
          expect(await orgNames(victim)).toEqual([]);
          await done();
        });
      }

      test("a same-site page's fetch with credentials: 'include' (a simple form-encoded POST, no preflight) → refused, nothing created", async () => {
        const victim = await signedUp(live.env);
        const page = await signedInPage(victim);
        const evil = servePage("<!doctype html><title>x</title><p>nothing to see</p>", "127.0.0.1");
        try {
          const seen = page.waitForResponse((r) => r.url() === `${live.base}/web/orgs`);
          await page.goto(evil.origin(new URL(live.base).hostname));
          await page.evaluate(async (url) => {
            await fetch(url, {
              method: "POST",
              credentials: "include",
              mode: "no-cors",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "name=Fetched+Corp",
            });
          }, `${live.base}/web/orgs`);
          expect((await seen).status()).toBe(403);
        } finally {
          evil.stop();
        }
        expect(await orgNames(victim)).toEqual([]);
        await done();
      });

      test("login CSRF: another origin's page that auto-submits the attacker's credentials to /login → refused; the browser is not signed in as the attacker", async () => {
        const attackerAccount = await signedUp(live.env);
        const page = await fresh();
        const evil = servePage(
          autoSubmit(`${live.base}/login`, { email: attackerAccount.email, password: PASSWORD, next: "/" }),
          "127.0.0.1",
        );
        try {
          const answer = page.waitForResponse((r) => r.url() === `${live.base}/login` && r.request().method() === "POST");
          await page.goto(evil.origin(new URL(live.base).hostname));
          expect((await answer).status()).toBe(403);
        } finally {
          evil.stop();
        }
        await page.goto(`${live.base}/`);
        expect(new URL(page.url()).pathname).toBe("/login");
        await done();
      });

      test("the same forms posted from this site's own pages are accepted (the control of the refusals above)", async () => {
        const victim = await signedUp(live.env);
        const page = await signedInPage(victim);
        await page.goto(`${live.base}/`);
        expect(await submit(page, "header button[type=submit]")).toBe(303); // sign-out is a same-origin form POST
        expect(new URL(page.url()).pathname).toBe("/login");
        await done();
      });
    });
  });
}
