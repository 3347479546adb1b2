/**
 * docs/design.md "Phones: tables as cards": at 390×844 a table of the kit is a stack of cards —
 * nothing wider than the screen, no table scrolling inside its box, every cell on screen — and a
 * chart's labels stay readable (10 px and more on screen); at 1280×800 the same pages keep their
 * columns, and still nothing scrolls sideways. Activity, the audit log, the organization's members
 * and invitations, the project's overview, insights, adoption and a talent sheet; a dependency graph
 * (drawn top to bottom on a phone) shows every label whole; axe-core clean on each.
 */
import { describe, expect, test as bunTest } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createKey, orgWithProject, withKey } from "../helpers";
import { expectClean, screenshot, signedInPage, withChromiumAndApp } from "../browser-support";
import { PASSWORD, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 180_000);

let browser: Browser, live: LiveEnv;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]));

/** What does not fit: elements past the viewport's right edge, tables scrolling in their box, cells off screen or without a label. */
async function misfits(page: Page): Promise<{ wide: string[]; boxes: string[]; cells: string[]; unlabelled: number; tables: number }> {
  return page.evaluate(() => {
    const inner = document.documentElement.clientWidth;
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${e.className && typeof e.className === "string" ? `.${e.className.split(" ")[0]}` : ""}`;
    // hidden for the eye but read out (a visually hidden caption, a phone's column headers): clipped to a pixel by an ancestor
    const clipped = (e: Element) => {
      for (let a: Element | null = e; a; a = a.parentElement)
        if (a.getBoundingClientRect().width <= 1 && getComputedStyle(a).overflow === "hidden") return true;
      return false;
    };
    const shown = (e: Element) => e.getClientRects().length > 0 && !e.closest("dialog, header") && !clipped(e);
    const wide = [...document.querySelectorAll("main *")]
      .filter((e) => shown(e) && e.getBoundingClientRect().right > inner + 1)
      .slice(0, 6)
      .map((e) => `${Math.round(e.getBoundingClientRect().right)}:${name(e)}`);
    const tables = [...document.querySelectorAll("main table")].filter(shown);
    const boxes = tables
      .map((t) => t.parentElement!)
      .filter((box) => box.scrollWidth > box.clientWidth)
      .map((box) => `${box.getAttribute("aria-label") ?? name(box)}: ${box.scrollWidth} > ${box.clientWidth}`);
    const cells = tables
      .flatMap((t) => [...t.querySelectorAll("tbody td")])
      .filter(
        (td) =>
          td.textContent!.trim() !== "" &&
          (td.getBoundingClientRect().width === 0 || td.getBoundingClientRect().left < -1 || td.getBoundingClientRect().right > inner + 1),
      )
      .slice(0, 6)
      .map((td) => `${td.getAttribute("data-label")}: ${td.textContent!.trim().slice(0, 40)}`);
    const unlabelled = tables.flatMap((t) => [...t.querySelectorAll("tbody td:not([data-label])")]).length;
    return { wide, boxes, cells, unlabelled, tables: tables.length };
  });
}

/** The on-screen size of a chart's visible labels: the smallest, in CSS pixels (font size × the drawing's scale, and each label's box height). */
async function chartLabelPx(page: Page): Promise<{ font: number; box: number; count: number }> {
  return page.evaluate(() => {
    const texts = [...document.querySelectorAll("figure.chart svg text")].filter((t) => t.getClientRects().length > 0) as SVGTextElement[];
    const fonts = texts.map((t) => {
      const svg = t.ownerSVGElement!;
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return Number.parseFloat(getComputedStyle(t).fontSize) * scale;
    });
    const boxes = texts.map((t) => t.getBoundingClientRect().height);
    return { font: Math.min(...fonts), box: Math.min(...boxes), count: texts.length };
  });
}

/** A dependency graph's shown labels: those not wholly inside the figure's visible box, and the smallest drawn height. */
async function graphFit(page: Page): Promise<{ count: number; cut: string[]; smallest: number }> {
  return page.evaluate(() => {
    const texts = [...document.querySelectorAll("figure.graph svg text")].filter((t) => t.getClientRects().length > 0);
    const cut = texts
      .filter((t) => {
        const box = t.closest(".scroll-x")!.getBoundingClientRect();
        const r = t.getBoundingClientRect();
        return r.left < box.left - 0.5 || r.right > box.right + 0.5;
      })
      .map((t) => t.textContent ?? "");
    return { count: texts.length, cut, smallest: Math.min(...texts.map((t) => t.getBoundingClientRect().height)) };
  });
}

describe("phones get cards, not scrolled tables", () => {
  test("at 390 px every table is a stack of labelled cards on screen and chart labels are 10 px or more; at 1280 px columns, all in view", async () => {
    const o = await orgWithProject(live.env, "Phone Cards");
    const pid = o.project.id;
    expect((await o.owner.post(`/web/projects/${pid}/talents`, { talents: ["typescript-strict", "javascript-base"] })).status).toBe(201);
    const k = await createKey(o.owner, pid, ["prepare_task", "validate"], { name: "continuous integration of the payments service" });
    const agent = { "content-type": "application/json", "user-agent": "a-rather-long-agent-name-for-the-activity-table/12.3.4" };
    const served = await withKey(live.env, k.value, "/api/prepare-task", {
      method: "POST",
      headers: agent,
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    expect(served.status).toBe(201);
    // a failed call: the insights' chart of failed calls per day has a column
    const refused = await withKey(live.env, k.value, "/api/prepare-task", {
      method: "POST",
      headers: agent,
      body: JSON.stringify({ talentIds: ["no-such-talent"] }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const invited = await o.owner.post("/web/orgs/current/invitations", {
      email: "a.rather.long.first-name.last-name@subsidiary.example-company.com",
      role: "admin",
    });
    expect(invited.status).toBeLessThan(300);

    const pages: [string, string][] = [
      ["activity", `/projects/${pid}?tab=activity`],
      ["audit", "/org/audit-log"],
      ["org", "/org"],
      ["overview", `/projects/${pid}`],
      ["insights", "/org/insights"],
      ["adoption", "/org/talent-adoption"],
      ["talent sheet", "/catalog/react-testing-library"],
    ];
    const graphs = new Set(["overview", "talent sheet"]);
    const charts = new Set(["insights", "adoption"]);
    const failures: string[] = [];
    const w = await signedInPage(browser, live.base, o.owner.email, PASSWORD);
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
    ] as const) {
      await w.page.setViewportSize({ width, height });
      for (const [name, path] of pages) {
        // on a wide screen the sheet's table of code samples keeps its desktop box, which scrolls: checked on the phone only
        if (name === "talent sheet" && width === 1280) continue;
        await w.page.goto(`${live.base}${path}`);
        const m = await misfits(w.page);
        if (m.tables === 0) failures.push(`${name} at ${width}: no table`);
        if (m.wide.length) failures.push(`${name} at ${width}: wider than the screen: ${m.wide.join(", ")}`);
        if (m.boxes.length) failures.push(`${name} at ${width}: a table scrolls in its box: ${m.boxes.join(", ")}`);
        if (m.cells.length) failures.push(`${name} at ${width}: cells off screen: ${m.cells.join(", ")}`);
        if (m.unlabelled) failures.push(`${name} at ${width}: ${m.unlabelled} cells without their column's label`);
        if (charts.has(name)) {
          const c = await chartLabelPx(w.page);
          if (c.count === 0) failures.push(`${name} at ${width}: no chart label shown`);
          else if (c.font < 10 || c.box < 10)
            failures.push(`${name} at ${width}: chart labels ${c.font.toFixed(1)} px (box ${c.box.toFixed(1)} px)`);
        }
        if (graphs.has(name)) {
          const g = await graphFit(w.page);
          if (g.count === 0) failures.push(`${name} at ${width}: no graph label shown`);
          if (g.cut.length) failures.push(`${name} at ${width}: graph labels cut: ${g.cut.join(", ")}`);
          if (g.smallest < 10) failures.push(`${name} at ${width}: graph labels ${g.smallest.toFixed(1)} px`);
          if (name === "talent sheet") {
            await w.page
              .locator("figure.graph")
              .first()
              .evaluate((f) => f.scrollIntoView());
            await screenshot(w.page, `phone-cards-graph-${width}`);
          }
        }
        if (width === 390) {
          // a row is a card: its cells one under the other, each after its column's name
          const stacked = await w.page.evaluate(() => {
            const row = document.querySelector("main .stack tbody tr");
            if (!row) return null;
            const tops = [...row.querySelectorAll("td")]
              .filter((td) => td.textContent!.trim() !== "")
              .map((td) => td.getBoundingClientRect().top);
            return {
              ascending: tops.every((t, i) => i === 0 || t > tops[i - 1]!),
              label: getComputedStyle(row.querySelector("td[data-label]")!, "::before").content,
            };
          });
          if (!stacked || !stacked.ascending || stacked.label === "none")
            failures.push(`${name} at 390: the first row is not a card of labelled lines (${JSON.stringify(stacked)})`);
        }
        await expectClean(w);
        if (["activity", "audit", "org", "overview"].includes(name)) {
          await w.page
            .locator("main table")
            .first()
            .evaluate((t) => t.scrollIntoView());
          await screenshot(w.page, `phone-cards-${name}-${width}`);
        }
      }
    }
    expect(failures).toEqual([]);
    await w.context.close();
  });
});
