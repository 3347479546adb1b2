/**
 * docs/design.md "Form refusals" in Chromium at 1280×800 and 390×844: a refused form says each problem once, under its
 * field in a person's words, and the #flash alert says one sentence pointing to the fields (never the problem again,
 * never an API path); a successful retry clears every earlier refusal — the alert and each field's error — with
 * JavaScript (htmx) and without, and the status line names what was made. The Keys tab and /org's invitation form;
 * axe-core finds nothing serious. Screenshots `forms-retry-*.png`.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { joinedMember, orgWithProject } from "../helpers";
import {
  axeViolations,
  expectOnlyStatus,
  screenshot,
  signedInPage,
  submitForm,
  type WatchedPage,
  withChromiumAndApp,
} from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

const as = (email: string, javaScript: boolean): Promise<WatchedPage> => signedInPage(browser, live.base, email, PASSWORD, { javaScript });

/** The field errors on screen, by id, and the text of the alert areas (#flash and any form's top line). */
async function refusalsOnScreen(p: Page): Promise<{ fields: Record<string, string>; alerts: string }> {
  return p.evaluate(() => {
    const fields: Record<string, string> = {};
    for (const e of document.querySelectorAll<HTMLElement>(".field-error"))
      if (!e.hidden && e.textContent!.trim()) fields[e.id] = e.textContent!.trim();
    const alerts = [...document.querySelectorAll("#flash, p.error[role=alert]")].map((e) => e.textContent!.trim()).join(" | ");
    return { fields, alerts: alerts.replace(/^\s*\|\s*/, "") };
  });
}

/** The same page at 1280×800 and 390×844, `at` in view. */
async function shots(p: Page, name: string, at: string): Promise<void> {
  for (const [width, height, suffix] of [
    [1280, 800, "-1280"],
    [390, 844, "-390"],
  ] as const) {
    await p.setViewportSize({ width, height });
    await p.locator(at).scrollIntoViewIfNeeded();
    await screenshot(p, `${name}${suffix}`);
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

describe("a refusal said once, beside its field; a successful retry clears it", () => {
  for (const width of [1280, 390]) {
    test(`Keys tab with JavaScript at ${width} px: no tools → the problem once, under the tools, the alert one sentence; the retry → no refusal left, “Key “temp key” created”`, async () => {
      const o = await orgWithProject(live.env, `Retry Keys ${width}`);
      const w = await as(o.owner.email, true);
      const p = w.page;
      await p.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await p.goto(`${live.base}/projects/${o.project.id}?tab=keys`);
      await p.fill("#key-name", "temp key");
      for (const box of await p.locator('#key-tools input[name="tools"]').all()) await box.uncheck();
      await p.click("#keys button[type=submit]:text('Create key')");
      await p.waitForSelector("#key-tools-error:not([hidden])");
      const refused = await refusalsOnScreen(p);
      expect(Object.keys(refused.fields)).toEqual(["key-tools-error"]);
      const problem = refused.fields["key-tools-error"]!;
      expect(problem).toStartWith("Tools must name at least one tool");
      // the alert: one sentence, not the problem again, no API path
      expect(refused.alerts).toBe("That did not work. Not saved: fix the field marked below.");
      expect(await p.evaluate(() => getComputedStyle(document.getElementById("flash")!).position)).toBe("static");
      expect(await p.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("tools");
      expect(await axeViolations(p)).toEqual([]);
      if (width === 1280) await shots(p, "forms-retry-refused-key", "#key-tools");
      if (width === 1280) await shots(p, "forms-retry-refused-key-alert", "#flash");
      expectOnlyStatus(w, 400);

      await p.check('#key-tools input[value="validate"]');
      await p.click("#keys button[type=submit]:text('Create key')");
      await p.waitForFunction(() => document.querySelector("#action-status")?.textContent === "Key “temp key” created — copy it now");
      expect(await refusalsOnScreen(p)).toEqual({ fields: {}, alerts: "" });
      expect(await p.textContent("#keys")).toMatch(/svc_pk_[A-Za-z0-9_-]+/);
      expect(await axeViolations(p)).toEqual([]);
      if (width === 1280) await shots(p, "forms-retry-key-created", "#action-status");
      expect(w.problems).toEqual([]);
      await w.context.close();
    });

    test(`/org invitation with JavaScript at ${width} px: already a member → under the e-mail only; inviting someone new → no refusal left, the line names them`, async () => {
      const o = await orgWithProject(live.env, `Retry Invite ${width}`);
      const member = await joinedMember(live.env, o.owner);
      const w = await as(o.owner.email, true);
      const p = w.page;
      await p.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await p.goto(`${live.base}/org`);
      await p.fill("#invite-email", member.email);
      await p.click("#invitations button[type=submit]:text('Send the invitation')");
      await p.waitForSelector("#invite-email-error:not([hidden])");
      const refused = await refusalsOnScreen(p);
      expect(refused.fields).toEqual({ "invite-email-error": `${member.email} is already a member.` });
      expect(refused.alerts).toBe("That clashes with what is there. Not saved: fix the field marked below.");
      expect(refused.alerts).not.toContain(member.email);
      expect(await axeViolations(p)).toEqual([]);
      if (width === 1280) await shots(p, "forms-retry-refused-invitation", "#invite-email");
      expectOnlyStatus(w, 409);

      const fresh = `sam.dev.${width}@retry.example`;
      await p.fill("#invite-email", fresh);
      await p.click("#invitations button[type=submit]:text('Send the invitation')");
      await p.waitForFunction((email) => document.querySelector("#invitations")?.textContent?.includes(`${email} is invited`), fresh);
      expect(await refusalsOnScreen(p)).toEqual({ fields: {}, alerts: "" });
      expect(await axeViolations(p)).toEqual([]);
      if (width === 1280) await shots(p, "forms-retry-invited", "#invitations");
      expect(w.problems).toEqual([]);
      await w.context.close();
    });
  }

  test("without JavaScript: the Keys tab and the invitation, refused then retried → the page again without any refusal, the status line naming the key", async () => {
    const o = await orgWithProject(live.env, "Retry NoJS");
    const member = await joinedMember(live.env, o.owner);
    const w = await as(o.owner.email, false);
    const p = w.page;
    await p.goto(`${live.base}/projects/${o.project.id}?tab=keys`);
    await p.fill("#key-name", "temp key");
    for (const box of await p.locator('#key-tools input[name="tools"]').all()) await box.uncheck();
    expect(await submitForm(p, "#keys button[type=submit]:text('Create key')")).toBe(400);
    const refused = await refusalsOnScreen(p);
    expect(Object.keys(refused.fields)).toEqual(["key-tools-error"]);
    expect(refused.alerts).toBe("Not saved: fix the field marked below.");
    await p.check('#key-tools input[value="validate"]');
    expect(await submitForm(p, "#keys button[type=submit]:text('Create key')")).toBe(200);
    expect(await refusalsOnScreen(p)).toEqual({ fields: {}, alerts: "" });
    expect(await p.textContent("#action-status")).toBe("Key “temp key” created — copy it now");

    await p.goto(`${live.base}/org`);
    await p.fill("#invite-email", member.email);
    expect(await submitForm(p, "#invitations button[type=submit]:text('Send the invitation')")).toBe(409);
    expect((await refusalsOnScreen(p)).fields).toEqual({ "invite-email-error": `${member.email} is already a member.` });
    await p.fill("#invite-email", "sam.dev.nojs@retry.example");
    expect(await submitForm(p, "#invitations button[type=submit]:text('Send the invitation')")).toBe(303);
    expect(await refusalsOnScreen(p)).toEqual({ fields: {}, alerts: "" });
    expect(await p.textContent("#action-status")).toContain("sam.dev.nojs@retry.example is invited");
    expectOnlyStatus(w, 409, false);
    await w.context.close();
  });
});
