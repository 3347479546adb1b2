/**
 * The dashboard's one form layout (src/ui/form.tsx) in Chromium: in the catalog's filter bar each
 * label sits with its control — on the same row at laptop widths, right above it on a phone,
 * never split across rows —, and no page of forms is wider than its viewport.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import { expectClean, expectOnlyStatus, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 120_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

type Box = { top: number; bottom: number; left: number; right: number };
/** Each label of the filter bar with its control's box, by the label's text. */
async function filterBoxes(page: Page): Promise<{ text: string; label: Box; control: Box }[]> {
  return page.evaluate(() => {
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    return [...document.querySelectorAll("form.filters label[for]")].map((l) => ({
      text: (l.textContent ?? "").trim(),
      label: box(l),
      control: box(document.getElementById(l.getAttribute("for")!)!),
    }));
  });
}

describe("one form layout: each label with its field", () => {
  test("the catalog's filter bar: each label on its control's row (1280, 1000, 800 px) or right above it (390 px); the forms' pages fit the viewport", async () => {
    const o = await orgWithProject(live.env, "Forms Layout Co");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    const failures: string[] = [];
    for (const width of [1280, 1000, 800, 390]) {
      await w.page.setViewportSize({ width, height: 800 });
      await w.page.goto(`${live.base}/catalog`);
      const boxes = await filterBoxes(w.page);
      expect(boxes.map((b) => b.text)).toEqual(["Search", "Role", "Language", "Kind"]);
      for (const { text, label, control } of boxes) {
        if (width >= 700) {
          // beside: the label's box and its control's overlap vertically, the label on the left
          const sameRow = label.top < control.bottom && control.top < label.bottom;
          if (!sameRow || label.right > control.left + 1) failures.push(`${width}: "${text}" is not beside its control`);
        } else {
          // above: the label ends where its control starts (a few px apart), on the same left edge
          const gap = control.top - label.bottom;
          if (gap < -1 || gap > 12 || Math.abs(label.left - control.left) > 2)
            failures.push(`${width}: "${text}" is not right above its control`);
        }
      }
      if (width === 1280 || width === 390) await screenshot(w.page, width === 390 ? "phone-catalog" : "catalog");
    }
    expect(failures).toEqual([]);

    const pages = [
      "/catalog",
      "/projects/new",
      `/projects/${o.project.id}?tab=settings`,
      `/projects/${o.project.id}?tab=keys`,
      "/org",
      "/org/new",
    ];
    for (const width of [390, 1280]) {
      await w.page.setViewportSize({ width, height: 800 });
      for (const path of pages) {
        await w.page.goto(`${live.base}${path}`);
        const m = await w.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        if (m.scroll > m.inner) failures.push(`${path} at ${width}: ${m.scroll} px wide`);
      }
    }
    expect(failures).toEqual([]);
    await w.page.setViewportSize({ width: 1280, height: 800 });
    await w.page.goto(`${live.base}/projects/${o.project.id}?tab=settings`);
    // the settings form: each label beside its field, the help named by the field
    expect(await w.page.getAttribute("#p-repo", "aria-describedby")).toBe("p-repo-help");
    await expectClean(w, "project-settings");
    await w.context.close();
  });

  test("a field the server refuses (htmx): its message under the field itself, named by its aria-describedby and aria-invalid; gone once the form is sent again", async () => {
    const o = await orgWithProject(live.env, "Forms Errors Co");
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    await w.page.goto(`${live.base}/projects/${o.project.id}?tab=settings`);
    await w.page.fill("#p-budget", "a lot");
    await w.page.click("#settings-h ~ form button[type=submit]");
    await w.page.waitForSelector("#p-budget-error:not([hidden])");
    expect(await w.page.textContent("#p-budget-error")).toContain("must be a whole number of tokens from 500 to 200000");
    expect(await w.page.getAttribute("#p-budget", "aria-describedby")).toBe("p-budget-help p-budget-error");
    expect(await w.page.getAttribute("#p-budget", "aria-invalid")).toBe("true");
    // the alert points to the field, without saying its problem again
    expect(await w.page.textContent("#flash [role=alert]")).toBe("That did not work. Not saved: fix the field marked below.");
    expectOnlyStatus(w, 400);
    await w.page.fill("#p-budget", "4000");
    await w.page.click("#settings-h ~ form button[type=submit]");
    await w.page.waitForSelector("#p-budget-error[hidden]", { state: "attached" });
    expect(await w.page.getAttribute("#p-budget", "aria-invalid")).toBe(null);
    expect(await w.page.getAttribute("#p-budget", "aria-describedby")).toBe("p-budget-help");
    expect(await w.page.textContent("#flash")).toBe(""); // the success cleared the refusal
    await w.context.close();
  });
});
