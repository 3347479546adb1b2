/**
 * The cross-site rule (http/csrf.ts, docs/api.md "Cross-site requests") and the return path after sign-in
 * (http/next.ts) as tables. The browser tests (pages.browser.test.ts) show that Chromium's
 * real headers land in the right rows.
 */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { checkSameOrigin } from "../../src/http/csrf";
import { AppError } from "../../src/http/errors";
import { safeNext } from "../../src/http/next";

const config = loadConfig({ BASE_URL: "http://talentd.example:8787" });
const URL_ = "http://talentd.example:8787/web/orgs";

function verdict(method: string, headers: Record<string, string>, cookieAuth: boolean): string {
  try {
    checkSameOrigin(config, new Request(URL_, { method, headers: { host: "talentd.example:8787", ...headers } }), cookieAuth);
    return "accepted";
  } catch (e) {
    if (e instanceof AppError && e.code === "csrf_rejected" && e.status === 403) return "refused";
    throw e;
  }
}

describe("checkSameOrigin: what a browser sends decides it", () => {
  const rows: [string, string, Record<string, string>, boolean, "accepted" | "refused"][] = [
    ["GET changes nothing", "GET", { origin: "https://evil.example" }, true, "accepted"],
    [
      "Sec-Fetch-Site: same-origin (Chromium on HTTPS and loopback), even with Origin: null",
      "POST",
      { "sec-fetch-site": "same-origin", origin: "null" },
      true,
      "accepted",
    ],
    ["Sec-Fetch-Site: none (typed by the person)", "POST", { "sec-fetch-site": "none" }, true, "accepted"],
    [
      "Sec-Fetch-Site: same-site (another port of this host)",
      "POST",
      { "sec-fetch-site": "same-site", origin: "http://talentd.example:9999" },
      true,
      "refused",
    ],
    [
      "Sec-Fetch-Site: cross-site, even with a same-origin Origin",
      "POST",
      { "sec-fetch-site": "cross-site", origin: "http://talentd.example:8787" },
      true,
      "refused",
    ],
    ["Sec-Fetch-Site: cross-site with HX-Request", "POST", { "sec-fetch-site": "cross-site", "hx-request": "true" }, true, "refused"],
    ["no Sec-Fetch-Site (plain HTTP on a LAN), Origin = BASE_URL's", "POST", { origin: "http://talentd.example:8787" }, true, "accepted"],
    [
      "no Sec-Fetch-Site, Origin = the request's own Host (the server reached by another name)",
      "POST",
      { origin: "http://10.0.0.5:8787", host: "10.0.0.5:8787" },
      true,
      "accepted",
    ],
    ["no Sec-Fetch-Site, Origin: null (an opaque origin: sandboxed frame, no-referrer page)", "POST", { origin: "null" }, true, "refused"],
    ["no Sec-Fetch-Site, Origin of another site", "POST", { origin: "https://evil.example" }, true, "refused"],
    ["no Sec-Fetch-Site, Origin of another port of this host", "POST", { origin: "http://talentd.example:9999" }, true, "refused"],
    ["no Sec-Fetch-Site, a malformed Origin", "POST", { origin: "not a url" }, true, "refused"],
    ["neither header, HX-Request (cannot cross origins without a preflight)", "POST", { "hx-request": "true" }, true, "accepted"],
    ["neither header, cookie-authenticated (curl without Origin)", "DELETE", {}, true, "refused"],
    ["neither header, a route that creates a session (curl sign-in)", "POST", {}, false, "accepted"],
    ["a route that creates a session, from another site (login CSRF)", "POST", { origin: "https://evil.example" }, false, "refused"],
    ["a route that creates a session, Sec-Fetch-Site: same-site", "POST", { "sec-fetch-site": "same-site" }, false, "refused"],
  ];
  for (const [name, method, headers, cookieAuth, expected] of rows) {
    test(`${method} ${name} → ${expected}`, () => {
      expect(verdict(method, headers, cookieAuth)).toBe(expected);
    });
  }
  test("the refusal names what to do: the origin to use, or the Origin header to send", () => {
    const message = (headers: Record<string, string>) => {
      try {
        checkSameOrigin(config, new Request(URL_, { method: "POST", headers }), true);
      } catch (e) {
        return (e as AppError).message;
      }
      return "";
    };
    expect(message({ origin: "https://evil.example" })).toBe(
      "Requests from https://evil.example are not accepted; use http://talentd.example:8787.",
    );
    expect(message({})).toContain('send the header "Origin: http://talentd.example:8787"');
  });
});

describe("safeNext: only a path of this site, as the browser will read it", () => {
  const rows: [string | null, string][] = [
    ["/oauth/authorize?client_id=x&state=y", "/oauth/authorize?client_id=x&state=y"],
    ["/accept-invitation/inv_1#top", "/accept-invitation/inv_1#top"],
    [null, "/"],
    ["", "/"],
    ["https://evil.example/x", "/"],
    ["//evil.example/x", "/"],
    ["/\t/evil.example/x", "/"], // browsers drop the tab: //evil.example/x
    ["/\n/evil.example/x", "/"],
    ["/\\evil.example/x", "/"], // browsers read \ as /
    ["/\\/evil.example/x", "/"],
    ["/.//evil.example/x", "/"], // resolves to the path //evil.example/x
    ["javascript:alert(1)", "/"],
    ["/" + "a".repeat(5000), "/"],
  ];
  for (const [next, expected] of rows) {
    test(`${JSON.stringify(next)} → ${expected}`, () => {
      expect(safeNext(next)).toBe(expected);
    });
  }
});
