/**
 * Real-browser support (docs/design.md "Pages are tested in a real browser"): Debian's Chromium driven by playwright-core (never a
 * downloaded browser), a page that records console errors (CSP violations among them) and
 * uncaught exceptions, axe-core run inside the page, and screenshots at 1280×800 into
 * docs/screenshots/ when UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT } from "./helpers";
import { liveEnv, type LiveEnv } from "./mcp-support";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Names the browser resolves to 127.0.0.1. Not loopback names, so Chromium treats them as a
 * LAN host over plain HTTP: no Sec-Fetch-* headers, only Origin (what a teammate's browser
 * sends to http://192.168.x.y:8787). Nothing leaves the machine.
 */
export const LAN_HOST = "talentd.test";
export const EVIL_HOST = "evil.test";

/** Starts headless Chromium with the flags this machine needs (no network beyond loopback). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
      `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1, MAP ${EVIL_HOST} 127.0.0.1`,
    ],
  });
}

/** A page in a fresh context (its own cookies) at 1280×800, recording what went wrong in it. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors (CSP violations are reported there) and uncaught exceptions. */
  problems: string[];
}

/** `javaScript: false`: the page's scripts do not run (docs/design.md "Pages work without JavaScript"); the test's own `evaluate` still does. */
export async function newPage(browser: Browser, opts: { javaScript?: boolean } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: opts.javaScript ?? true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // the document's own error status (a 401 page after a wrong password) is what the test asserts
    if (m.text().startsWith("Failed to load resource") && m.location().url === page.url()) return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  return { page, context, problems };
}

const AXE = readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");

/**
 * The serious and critical accessibility violations axe-core finds on the page, as
 * `rule: target…` lines. Evaluated through the DevTools protocol, so the page's CSP (script
 * only from 'self') stays on while it runs.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.targets.join(", ")}`);
}

/** Saves a 1280×800 screenshot as docs/screenshots/<name>.png when UPDATE_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== "1") return;
  const dir = join(ROOT, "docs", "screenshots");
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** A one-route HTTP server on loopback answering `html` at every path (another origin for cross-site tests). */
export function servePage(html: string, hostname = "127.0.0.1"): { origin: (host?: string) => string; stop(): void } {
  const server = Bun.serve({
    hostname,
    port: 0,
    fetch: () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  return { origin: (host = hostname) => `http://${host}:${server.port}`, stop: () => server.stop(true) };
}

/** A loopback server standing for an OAuth client's redirect URI: records each request's query. */
export function callbackServer(): { url: string; received: URLSearchParams[]; stop(): void } {
  const received: URLSearchParams[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      // the browser's /favicon.ico: no icon, and no 404 for the page's problems to report (a stand-in client's page, not ours)
      if (url.pathname === "/favicon.ico") return new Response(null, { status: 204 });
      if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
      received.push(url.searchParams);
      return new Response("<!doctype html><title>Done</title><p>You can close this window.</p>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/callback`, received, stop: () => server.stop(true) };
}

// ---- what the page tests share (one copy: the dashboard, organization, mail and sign-in journeys)

/** The page is usable: axe-core finds nothing serious, nothing went wrong in the console; then its screenshot if named. */
export async function expectClean(w: WatchedPage, name?: string): Promise<void> {
  expect(await axeViolations(w.page)).toEqual([]);
  expect(w.problems).toEqual([]);
  if (name) {
    await w.page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(w.page, name);
  }
}

/**
 * The same check for a page whose scripts are off: nothing went wrong in it, and axe-core finds
 * nothing serious in its HTML. axe runs on timers, which do not fire in a page whose scripts are
 * off: the same HTML is served at the same URL to a page of a JavaScript context, and checked there.
 */
export async function expectCleanWithoutScripts(browser: Browser, w: WatchedPage): Promise<void> {
  expect(w.problems).toEqual([]);
  const url = w.page.url();
  const html = await w.page.content();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const p = await context.newPage();
    await p.route(url, (r) => r.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }));
    await p.goto(url);
    expect(await axeViolations(p)).toEqual([]);
  } finally {
    await context.close();
  }
}

/** A fresh browser context signed in on `base`/login as `email` (with clipboard access: the copy buttons). */
export async function signedInPage(
  browser: Browser,
  base: string,
  email: string,
  password: string,
  opts: { javaScript?: boolean } = {},
): Promise<WatchedPage> {
  const w = await newPage(browser, opts);
  await w.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  await w.page.goto(`${base}/login`);
  await w.page.fill("#email", email);
  await w.page.fill("#password", password);
  await Promise.all([w.page.waitForURL((u) => u.pathname === "/"), w.page.click("form[action='/login'] button[type=submit]")]);
  return w;
}

/**
 * The browser logs every 4xx answer (and htmx its own line): those of the status the test
 * provoked are expected, nothing else is; `atLeastOne` also asks that one was logged.
 */
export function expectOnlyStatus(w: WatchedPage, status: number, atLeastOne = true): void {
  const others = w.problems.filter((p) => !p.includes(`status of ${status}`) && !p.includes(`Error Code ${status} `));
  expect(others).toEqual([]);
  if (atLeastOne) expect(w.problems.length).toBeGreaterThan(0);
  w.problems.length = 0;
}

/** Submits the form of `button` and returns the status of the POST's answer (before any redirect is followed). */
export async function submitForm(page: Page, button: string): Promise<number> {
  const answer = page.waitForResponse((r) => r.request().method() === "POST" && r.request().isNavigationRequest());
  await page.click(button);
  const status = (await answer).status();
  await page.waitForLoadState("load");
  return status;
}

/**
 * One Chromium and one app listening on 127.0.0.1 for a test file (organizations approved at
 * once unless `env` says otherwise): started before its tests and handed to `use`, closed after.
 */
export function withChromiumAndApp(
  use: (browser: Browser, live: LiveEnv) => void,
  env: Record<string, string> = { AUTO_APPROVE_ORGS: "true" },
): void {
  let browser: Browser | undefined;
  let live: LiveEnv | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    live = await liveEnv(env);
    use(browser, live);
  }, 60_000);
  afterAll(async () => {
    await live?.close();
    await browser?.close();
  });
}
