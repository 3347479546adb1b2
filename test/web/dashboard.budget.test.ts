/**
 * "No CDN, no client framework; JavaScript sent to the browser (htmx included)
 * ≤ 60 KB gzipped in all." Every script a dashboard page loads is read from the page itself,
 * fetched from this server, gzipped and added up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const BUDGET = 60 * 1024;

describe("the dashboard's JavaScript budget", () => {
  test("JavaScript sent to the browser (htmx included) ≤ 60 KB gzipped in all, all of it from this server (no CDN)", async () => {
    const { owner, project } = await orgWithProject(env, "Budget");
    const pages = [
      "/",
      "/org",
      "/org/new",
      "/projects/new",
      `/projects/${project.id}`,
      `/projects/${project.id}/onboarding`,
      "/catalog",
      `/catalog?project=${project.id}`,
      "/catalog/typescript-strict",
      "/login",
    ];
    const scripts = new Set<string>();
    for (const page of pages) {
      const r = await owner.call("GET", page);
      expect(`${page} ${r.status}`).toBe(`${page} 200`);
      const html = await r.text();
      const srcs = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
      // inline scripts would escape the budget and the CSP (script-src 'self'): there are none
      expect(`${page}: ${[...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>/g)].length} inline`).toBe(`${page}: 0 inline`);
      for (const src of srcs) {
        expect(src.startsWith("/assets/")).toBe(true);
        scripts.add(src);
      }
    }
    expect(scripts.has("/assets/htmx.min.js")).toBe(true);
    let gzipped = 0;
    const sizes: string[] = [];
    for (const src of scripts) {
      const r = await env.request(src);
      expect(r.status).toBe(200);
      const bytes = new Uint8Array(await r.arrayBuffer());
      const gz = Bun.gzipSync(bytes, { level: 9 }).byteLength;
      sizes.push(`${src} ${gz} B`);
      gzipped += gz;
    }
    if (gzipped > BUDGET) throw new Error(`${gzipped} B gzipped, over ${BUDGET}: ${sizes.join(", ")}`);
    expect(gzipped).toBeGreaterThan(10_000); // htmx alone is ~17 KB gzipped: the sum counted it
  });
});
