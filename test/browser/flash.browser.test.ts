/**
 * The #flash alert on a phone, with JavaScript: it is not sticky there (it would cover the form it
 * is about, whose fields carry their own errors), and a refusal no field shows is brought into view.
 */
import { expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { orgWithProject } from "../helpers";
import { PASSWORD, type LiveEnv } from "../mcp-support";
import { expectOnlyStatus, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";

let browser: Browser;
let live: LiveEnv;
withChromiumAndApp((b, l) => {
  browser = b;
  live = l;
});

test("on a phone the refused key form keeps its error under the field and the alert scrolls away; on a desktop the alert stays in view", async () => {
  const { owner, project } = await orgWithProject(live.env);
  const w = await signedInPage(browser, live.base, owner.email, PASSWORD);
  const page = w.page;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${live.base}/projects/${project.id}?tab=keys`);
  for (const box of await page.$$("input[name=tools]")) await box.uncheck();
  await page.fill("input[name=name]", "hook");
  await page.click("text=Create key");
  await page.waitForSelector("#key-tools-error:not([hidden])");
  expect(await page.textContent("#key-tools-error")).toContain("Tools must name at least one tool");
  expectOnlyStatus(w, 400);
  const flash = () =>
    page.evaluate(() => ({
      position: getComputedStyle(document.getElementById("flash")!).position,
      top: document.getElementById("flash")!.getBoundingClientRect().top,
    }));
  expect((await flash()).position).toBe("static");
  await page.evaluate(() => document.getElementById("key-tools-error")!.scrollIntoView({ block: "center" }));
  expect((await flash()).top).toBeLessThan(0); // scrolled away with the page: nothing covers the form
  await screenshot(page, "phone-key-form-refused");
  // a refusal no field shows (a request of no form, refused): its alert is brought into view
  await page.evaluate(() =>
    (window as unknown as { htmx: { ajax(m: string, u: string, o: object): void } }).htmx.ajax("DELETE", "/web/projects/prj_nothing", {
      source: "body",
      swap: "none",
    }),
  );
  await page.waitForFunction(() => document.getElementById("flash")!.getBoundingClientRect().top >= 0);
  expect(await page.textContent("#flash")).toContain("No such project");
  expectOnlyStatus(w, 404, false);
  await page.setViewportSize({ width: 1280, height: 800 });
  expect((await flash()).position).toBe("sticky");
  await w.context.close();
});
