/**
 * docs/design.md "Every page fits a phone": each dashboard page, seen by an organization owner
 * who is also a platform administrator (the longest menu), at 390×844 never scrolls sideways
 * (the menu folds into a <details>, tables become cards (phone-cards.browser.test.ts), long values wrap), and
 * at 1280×800 neither does it and the header stays one line.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createKey, makePlatformAdmin, orgWithProject, publishedExpertise, withKey } from "../helpers";
import { screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 180_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

/** How wide the document is against the viewport, and how far apart the header's parts start (one line: a few px). */
async function measure(page: Page): Promise<{ scroll: number; inner: number; rows: number; wide: string[] }> {
  return page.evaluate(() => {
    const header = document.querySelector("header.top") as HTMLElement | null;
    // one line: every child of the header (and of its menu) starts on the brand's row
    const parts = [...(header?.querySelectorAll(":scope > *, .menu-body > *") ?? [])].filter((e) => e.getClientRects().length > 0);
    const tops = parts.map((e) => e.getBoundingClientRect().top);
    const inner = window.innerWidth;
    // the elements that stick out, to name them in the failure
    const wide = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > inner + 1 && !e.parentElement?.closest(".scroll-x, dialog") && !e.closest("header"))
      .slice(0, 6)
      .map(
        (e) =>
          `${Math.round(e.getBoundingClientRect().right)}:${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${e.className ? `.${String(e.className).split(" ")[0]}` : ""}`,
      );
    return {
      scroll: document.documentElement.scrollWidth,
      inner,
      rows: tops.length ? Math.max(...tops) - Math.min(...tops) : 0,
      wide,
    };
  });
}

describe("every page fits a phone (390 px) and a laptop (1280 px)", () => {
  test("no page scrolls sideways at 390×844 or 1280×800, and at 1280 the header of a platform administrator is one line", async () => {
    const o = await orgWithProject(live.env, "Phone Width Organization With A Long Name");
    const pid = o.project.id;
    await makePlatformAdmin(live.env, o.owner.userId);
    expect((await o.owner.post(`/web/projects/${pid}/talents`, { talents: ["typescript-strict", "javascript-base"] })).status).toBe(201);
    const k = await createKey(o.owner, pid, ["prepare_task", "validate"], { name: "continuous integration of the payments service" });
    const served = await withKey(live.env, k.value, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "a-rather-long-agent-name-for-the-activity-table/12.3.4" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    expect(served.status).toBe(201);
    const exp = await publishedExpertise(o.owner, o.org.slug, "payments");

    const pages: [string, string][] = [
      ["home", "/"],
      ["project overview", `/projects/${pid}`],
      ["project activity", `/projects/${pid}?tab=activity`],
      ["project keys", `/projects/${pid}?tab=keys`],
      ["project settings", `/projects/${pid}?tab=settings`],
      ["project onboarding", `/projects/${pid}/onboarding`],
      ["new project", "/projects/new"],
      ["catalog", "/catalog"],
      ["talent sheet", "/catalog/typescript-strict"],
      ["organization", "/org"],
      ["new organization", "/org/new"],
      ["expertises", "/org/expertises"],
      ["an expertise", `/org/expertises/${exp.id}`],
      ["import rules", "/org/expertises/import"],
      ["insights", "/org/insights"],
      ["adoption", "/org/talent-adoption"],
      ["sso", "/org/sso"],
      ["organization mail", "/org/mail"],
      ["administration", "/admin"],
      ["admin users", "/admin/users"],
      ["admin mail", "/admin/mail"],
      ["security events", "/admin/security-events"],
      ["account", "/account"],
      ["account link", "/account/link"],
    ];
    const shots: Record<string, string> = {
      home: "home",
      "talent sheet": "talent",
      "security events": "security-events",
      // the forms on the one form layout (src/ui/form.tsx)
      expertises: "expertises",
      "an expertise": "expertise",
      sso: "sso",
      "organization mail": "mail",
    };
    const failures: string[] = [];
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    for (const [width, height, prefix] of [
      [390, 844, "phone"],
      [1280, 800, "wide"],
    ] as const) {
      await w.page.setViewportSize({ width, height });
      for (const [name, path] of pages) {
        const r = await w.page.goto(`${live.base}${path}`);
        if ((r?.status() ?? 0) >= 400) failures.push(`${name} (${path}) answered ${r?.status()}`);
        const m = await measure(w.page);
        if (m.scroll > m.inner) failures.push(`${name} (${path}) at ${width}: ${m.scroll} px wide (${m.wide.join(", ")})`);
        if (width === 1280 && m.rows > 20)
          failures.push(`${name} (${path}) at 1280: the header runs on more than one line (${m.rows} px apart)`);
        if (shots[name]) await screenshot(w.page, `${prefix}-${shots[name]}`);
      }
    }
    expect(failures).toEqual([]);
    await w.context.close();
  });
});
