/**
 * The catalog page (docs/design.md "Catalog: talents first", "Catalog selection across search"):
 * the talents come before the specializations, which are collapsed and filtered by `?spec=`
 * without JavaScript; in grouped install the ticks travel with the search and the next page (one
 * GET form), and "Install selected" posts that same form; Markdown in a card is drawn, escaped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

type Owner = Awaited<ReturnType<typeof orgWithProject>>["owner"];
const html = (c: Owner, path: string) => c.call("GET", path, undefined, { accept: "text/html" }).then((r) => r.text());
/** The ids of the ticked boxes of a grouped install page. */
const ticked = (page: string) =>
  [...page.matchAll(/<input type="checkbox" name="talents" value="([^"]+)"([^>]*)>/g)]
    .filter((m) => / checked/.test(m[2]!))
    .map((m) => m[1]);
const nextCursor = (page: string) => /<button type="submit" name="cursor" value="([^"]+)"/.exec(page)?.[1];

describe("the catalog shows its talents first", () => {
  test("talents come before the specializations, which are collapsed, counted and one link away", async () => {
    const o = await orgWithProject(env);
    const page = await html(o.owner, "/catalog");
    const firstTalent = page.indexOf('class="card talent-card"');
    const specs = page.indexOf('id="specializations"');
    expect(firstTalent).toBeGreaterThan(0);
    expect(specs).toBeGreaterThan(firstTalent);
    expect(page).toMatch(/<details class="card specs" id="specializations">/); // not open
    const total = Number(/Specializations \((\d+)\)/.exec(page)?.[1]);
    expect(total).toBeGreaterThan(20);
    expect(page).toContain('href="/catalog?spec=#specializations"');
  });

  test("the specialization filter (?spec=) opens the block and keeps only the matching ones, the talents' search kept", async () => {
    const o = await orgWithProject(env);
    const page = await html(o.owner, "/catalog?query=sql&spec=react");
    expect(page).toMatch(/<details class="card specs" id="specializations" open="">/);
    const shown = [...page.slice(page.indexOf('id="specializations"')).matchAll(/name="specialization" value="([^"]+)"/g)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toContain("react-spa");
    expect(shown).not.toContain("go-service");
    expect(page).toMatch(new RegExp(`${shown.length} of \\d+ match “react”`));
    // the filter form carries the talents' search along
    expect(page).toContain('<input type="hidden" name="query" value="sql"/>');
    // nothing matches: said so
    expect(await html(o.owner, "/catalog?spec=no-such-words")).toContain("No specialization matches.");
    // empty: every one, opened
    const all = await html(o.owner, "/catalog?spec=");
    expect(all).toContain("open=");
    expect([...all.matchAll(/name="specialization" value=/g)].length).toBe(Number(/Specializations \((\d+)\)/.exec(all)?.[1]));
  });

  test("a card draws its summary's `code` as <code>", async () => {
    const o = await orgWithProject(env);
    const page = await html(o.owner, "/catalog?query=pydantic");
    expect(page).toContain("<code>ConfigDict</code>");
    expect(page).not.toContain("`ConfigDict`");
  });
});

describe("grouped install: what is ticked survives a search and the next page", () => {
  test("one GET form holds the search, the ticks and More; Install selected posts it to the install route", async () => {
    const o = await orgWithProject(env);
    const pid = o.project.id;
    const page = await html(o.owner, `/catalog?project=${pid}&relevance=all`);
    const form = page.slice(page.indexOf('<form method="get" action="/catalog" id="catalog-pick">'));
    expect(form.length).toBeLessThan(page.length);
    const end = form.indexOf("</form>");
    for (const part of ['name="query"', 'name="talents"', 'name="cursor"', `formaction="/web/projects/${pid}/talents"`])
      expect(form.indexOf(part)).toBeLessThan(end);
    // the form's first button (what Enter in the search box presses) is Search
    expect(/<button[^>]*>([^<]*)</.exec(form)?.[1]).toBe("Search");
  });

  test("a search with ticks keeps them (as cards first), and so does the next page; prerequisites are derived again", async () => {
    const o = await orgWithProject(env);
    const pid = o.project.id;
    // ticked sql-base, then searched for typescript: sql-base is still ticked, shown although it does not match
    const searched = await html(o.owner, `/catalog?project=${pid}&relevance=all&query=typescript&talents=sql-base`);
    expect(ticked(searched)).toEqual(["sql-base"]);
    expect(searched).toContain('value="typescript-strict"');
    // ticked typescript-strict too: its prerequisite javascript-base comes along, marked as such
    const both = await html(o.owner, `/catalog?project=${pid}&relevance=all&query=typescript&talents=sql-base&talents=typescript-strict`);
    expect(ticked(both).sort()).toEqual(["javascript-base", "sql-base", "typescript-strict"]);
    expect(both).toContain('<input type="hidden" name="prerequisites" value="javascript-base"/>');
    // the next page, as the More button sends it: the form's fields with the cursor
    const cursor = nextCursor(await html(o.owner, `/catalog?project=${pid}&relevance=all&talents=sql-base`));
    expect(cursor).toBeDefined();
    const paged = await html(
      o.owner,
      `/catalog?project=${pid}&relevance=all&prerequisites=javascript-base&talents=sql-base&talents=typescript-strict&talents=javascript-base&cursor=${cursor}`,
    );
    expect(ticked(paged).sort()).toEqual(["javascript-base", "sql-base", "typescript-strict"]);
    // unticking typescript-strict: its prerequisite is no longer ticked for it
    const unticked = await html(o.owner, `/catalog?project=${pid}&relevance=all&prerequisites=javascript-base&talents=sql-base`);
    expect(ticked(unticked)).toEqual(["sql-base"]);
  });

  test("Install selected with the whole form (search fields, cursor and all) installs the ticked talents at once", async () => {
    const o = await orgWithProject(env);
    const pid = o.project.id;
    const r = await formPost(env, o.owner, `/web/projects/${pid}/talents`, [
      ["project", pid],
      ["return", `/projects/${pid}`],
      ["prerequisites", "javascript-base"],
      ["query", "typescript"],
      ["role", ""],
      ["language", ""],
      ["kind", ""],
      ["relevance", "all"],
      ["talents", "sql-base"],
      ["talents", "typescript-strict"],
      ["talents", "javascript-base"],
    ]);
    expect(r.status).toBe(303);
    expect(r.location).toStartWith(`/projects/${pid}`);
    const installed = (await o.owner.get(`/web/projects/${pid}/installed`)).body;
    const ids = (installed.items ?? installed.talents ?? installed)
      .map((x: { talentId?: string; id?: string }) => x.talentId ?? x.id)
      .sort();
    expect(ids).toEqual(["javascript-base", "sql-base", "typescript-strict"]);
  });
});
