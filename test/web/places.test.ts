/**
 * The organization's and the platform's pages are declared once, each by its domain beside its
 * handlers and collected by app.ts (PLACES, src/ui/places.ts): every page the app serves at
 * `/org/<page>` or `/admin/<page>` is declared (a deeper page is reached from its parent; `/org/new`
 * is the way in, not a place), every declared place is served, and the header, the organization
 * page's list and the palette show what the declarations say.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PLACES } from "../../src/app";
import { orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

/** Pages that are not places: the form that makes an organization. */
const NOT_PLACES = new Set(["/org/new"]);

describe("places: each organization and administration page declared once", () => {
  test("every served /org/<page> and /admin/<page> is declared, and every declared place is served", () => {
    const served = (env.app as unknown as { routes: { method: string; path: string }[] }).routes
      .filter((r) => r.method === "GET" && /^\/(org|admin)(\/[a-z-]+)?$/.test(r.path) && r.path !== "/org")
      .map((r) => r.path)
      .filter((p) => !NOT_PLACES.has(p));
    const declared = [...PLACES.org.map((p) => p.href.replace(/#.*$/, "")), ...PLACES.admin.map((p) => p.href)].filter((p) => p !== "/org");
    expect([...new Set(served)].sort()).toEqual([...new Set(declared)].sort());
  });

  test("an owner's header links the header places; /org lists every admin place with its text; the palette finds them", async () => {
    const o = await orgWithProject(env);
    const r = await o.owner.call("GET", "/org", undefined, { accept: "text/html" });
    expect(r.status).toBe(200);
    const html = await r.text();
    const nav = /<nav[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? "";
    for (const p of PLACES.org.filter((p) => p.header)) expect(nav).toContain(`href="${p.href}"`);
    for (const p of PLACES.org.filter((p) => !p.header && p.admin)) expect(nav).not.toContain(`href="${p.href}"`);
    for (const p of PLACES.org.filter((p) => p.admin)) expect(html).toContain(`<a href="${p.href}">${p.title}</a>`);
    for (const p of PLACES.org) {
      const found = await o.owner.get(`/web/search?q=${encodeURIComponent(p.label.toLowerCase())}`);
      expect({ place: p.href, listed: JSON.stringify(found.body).includes(`"href":"${p.href}"`) }).toEqual({ place: p.href, listed: true });
    }
  });
});
