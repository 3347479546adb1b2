/**
 * The whole interactive connection of an agent, as Claude Code, Cursor
 * or VS Code make it — the real MCP SDK client with its OAuth client provider gets 401, reads
 * the protected-resource and authorization-server metadata, registers itself, and opens the
 * authorization URL; Chromium (a person) signs in on /login and answers the consent page;
 * the client exchanges the code for a token and calls a tool. Nothing rewrites a header or
 * helps in between: the browser goes where the server sends it, the client reads what the
 * server answers. Allow and Deny.
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { orgWithProject } from "../helpers";
import { axeViolations, callbackServer, newPage, screenshot, withChromiumAndApp } from "../browser-support";
import { CLIENT_INFO, MemoryOAuthProvider, PASSWORD, toolJson, type LiveEnv } from "../mcp-support";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 60_000);

let browser: Browser, live: LiveEnv;
let callback: ReturnType<typeof callbackServer>;
withChromiumAndApp((b, l) => ([browser, live] = [b, l]), {});
beforeAll(() => {
  callback = callbackServer();
});
afterAll(() => {
  callback.stop();
});

/** Waits until the client's redirect URI has been reached `n` times; returns the last query. */
async function reached(n: number): Promise<URLSearchParams> {
  for (let i = 0; i < 800 && callback.received.length < n; i++) await Bun.sleep(25); // up to 20 s on a loaded machine
  expect(callback.received.length).toBe(n);
  return callback.received.at(-1)!;
}

/** The client's first attempt: 401 → discovery → registration → the authorization URL. */
async function firstAttempt(url: string, provider: MemoryOAuthProvider): Promise<StreamableHTTPClientTransport> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await expect(new Client(CLIENT_INFO).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.discovery?.resourceMetadata?.resource).toBe(url); // RFC 9728 metadata was read
  expect(provider.discovery?.authorizationServerUrl).toBe(live.base); // RFC 8414
  expect(provider.info?.client_id).toMatch(/^ocl_/); // RFC 7591 registration
  expect(provider.authorizationUrl).toBeDefined();
  return transport;
}

/** What the person does: opens the authorization URL, signs in on /login, lands on the consent page. */
async function signInToConsent(page: Page, authorizationUrl: URL, email: string): Promise<void> {
  await page.goto(authorizationUrl.toString());
  expect(new URL(page.url()).pathname).toBe("/login");
  // the sign-in step names the application asking, and where it returns
  expect(await page.textContent("#sign-in-client")).toContain(`Test Agent (returns to ${new URL(callback.url).host})`);
  await screenshot(page, "oauth-sign-in");
  await page.fill("#email", email);
  await page.fill("#password", PASSWORD);
  await Promise.all([page.waitForURL((u) => u.pathname === "/oauth/authorize"), page.click("form[action='/login'] button[type=submit]")]);
  expect(await page.textContent("h1")).toBe("Authorize Test Agent");
}

describe("an agent connects interactively: SDK OAuth client + a person in Chromium", () => {
  test("Allow: 401 → metadata → registration → browser sign-in and consent → token → svc_doctor answers", async () => {
    const o = await orgWithProject(live.env);
    const url = `${live.base}/mcp/${o.project.id}`;
    const provider = new MemoryOAuthProvider(callback.url);
    const transport = await firstAttempt(url, provider);

    const w = await newPage(browser);
    await signInToConsent(w.page, provider.authorizationUrl!, o.owner.email);
    expect(await w.page.textContent("main")).toContain(o.project.name);
    expect(await axeViolations(w.page)).toEqual([]);
    await screenshot(w.page, "oauth-consent");
    const before = callback.received.length;
    await Promise.all([w.page.waitForURL((u) => u.href.startsWith(callback.url)), w.page.click("button[value=allow]")]);
    const query = await reached(before + 1);
    expect(query.get("state")).toBe(provider.lastState);
    expect(query.get("iss")).toBe(live.base);
    const code = query.get("code");
    expect(code).toMatch(/^svc_ac_/);
    expect(w.problems).toEqual([]);
    await w.context.close();

    await transport.finishAuth(code!);
    expect(provider.saved?.access_token).toMatch(/^svc_at_/);
    const client = new Client(CLIENT_INFO);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    const doctor = await client.callTool({ name: "svc_doctor", arguments: {} });
    expect(doctor.isError).toBeFalsy();
    expect(toolJson(doctor)).toBeObject();
    await client.close();
  });

  test("Deny: the client's redirect URI receives error=access_denied with its state, and no code", async () => {
    const o = await orgWithProject(live.env);
    const url = `${live.base}/mcp/${o.project.id}`;
    const provider = new MemoryOAuthProvider(callback.url);
    await firstAttempt(url, provider);
    const w = await newPage(browser);
    await signInToConsent(w.page, provider.authorizationUrl!, o.owner.email);
    const before = callback.received.length;
    await Promise.all([w.page.waitForURL((u) => u.href.startsWith(callback.url)), w.page.click("button[value=deny]")]);
    const query = await reached(before + 1);
    expect(query.get("error")).toBe("access_denied");
    expect(query.get("state")).toBe(provider.lastState);
    expect(query.get("code")).toBeNull();
    expect(provider.saved).toBeUndefined();
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  test("a person already signed in goes straight to the consent page (no second sign-in)", async () => {
    const o = await orgWithProject(live.env);
    const provider = new MemoryOAuthProvider(callback.url);
    await firstAttempt(`${live.base}/mcp/${o.project.id}`, provider);
    const w = await newPage(browser);
    await w.page.goto(`${live.base}/login`);
    await w.page.fill("#email", o.owner.email);
    await w.page.fill("#password", PASSWORD);
    await Promise.all([w.page.waitForURL((u) => u.pathname === "/"), w.page.click("form[action='/login'] button[type=submit]")]);
    await w.page.goto(provider.authorizationUrl!.toString());
    expect(new URL(w.page.url()).pathname).toBe("/oauth/authorize");
    expect(await w.page.textContent("h1")).toBe("Authorize Test Agent");
    await w.context.close();
  });
});
