/** Pure pieces of the authorization server: PKCE, redirect URI rules, resource and scope parsing. */
import { describe, expect, test } from "bun:test";
import { redirectUriProblem, redirectUriRegistered } from "../../src/oauth/clients";
import { s256 } from "../../src/oauth/grants";
import { mcpResource, parseResource, parseScopes, resourceMetadataUrl } from "../../src/oauth/resource";

const BASE = "https://talentd.example";
const PRJ = "prj_01J0000000000000000000000A";

describe("PKCE S256 (RFC 7636)", () => {
  test("the RFC 7636 appendix B vector", () => {
    expect(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });
});

describe("redirect URIs (https, or loopback http on any port)", () => {
  const cases: [string, boolean][] = [
    ["https://app.example/cb", true],
    ["http://localhost:3000/callback", true],
    ["http://127.0.0.1/cb", true],
    ["http://[::1]:9999/cb", true],
    ["http://app.example/cb", false],
    ["http://127.0.0.2.nip.io/cb", false],
    ["cursor://anysphere.cursor-mcp/oauth/callback", false],
    ["javascript:alert(1)", false],
    ["https://app.example/cb#frag", false],
    ["/relative", false],
  ];
  for (const [uri, ok] of cases) test(`${uri} → ${ok ? "accepted" : "refused"}`, () => expect(redirectUriProblem(uri) === null).toBe(ok));

  test("matching: exact, except the port of a loopback http URI", () => {
    const reg = ["http://127.0.0.1:8000/cb", "https://app.example/cb"];
    expect(redirectUriRegistered(reg, "http://127.0.0.1:8000/cb")).toBe(true);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:51234/cb")).toBe(true);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:51234/other")).toBe(false);
    expect(redirectUriRegistered(reg, "http://localhost:8000/cb")).toBe(false);
    expect(redirectUriRegistered(reg, "https://app.example:8443/cb")).toBe(false);
    expect(redirectUriRegistered(reg, "https://app.example/cb?x=1")).toBe(false);
    // only the port may vary (RFC 8252 §7.3): the rest is the registered string, never a normalised one
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555/x/../cb")).toBe(false);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555/./cb")).toBe(false);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555//cb")).toBe(false);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555/CB")).toBe(false);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555/cb?")).toBe(false);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555/cb#x")).toBe(false);
    expect(redirectUriRegistered(reg, "http://127.0.0.1:5555/%63b")).toBe(false);
    expect(redirectUriRegistered(reg, "http://user@127.0.0.1:5555/cb")).toBe(false);
    // registered without a port: any port, the same path
    expect(redirectUriRegistered(["http://127.0.0.1/cb"], "http://127.0.0.1:5555/cb")).toBe(true);
    expect(redirectUriRegistered(["http://127.0.0.1/cb"], "http://127.0.0.1:5555/x/../cb")).toBe(false);
  });
});

describe("resources and scopes", () => {
  test("the canonical MCP URLs and their metadata URLs", () => {
    expect(mcpResource(BASE, PRJ)).toBe(`${BASE}/mcp/${PRJ}`);
    expect(mcpResource(BASE)).toBe(`${BASE}/mcp`);
    expect(resourceMetadataUrl(BASE, PRJ)).toBe(`${BASE}/.well-known/oauth-protected-resource/mcp/${PRJ}`);
    expect(resourceMetadataUrl(BASE)).toBe(`${BASE}/.well-known/oauth-protected-resource`);
  });

  test("parseResource accepts only this service's MCP URLs", () => {
    expect(parseResource(BASE, `${BASE}/mcp/${PRJ}`)).toEqual({ projectId: PRJ });
    expect(parseResource(BASE, `${BASE}/mcp`)).toEqual({ projectId: null });
    for (const r of [
      `${BASE}/mcp/${PRJ}/`,
      `${BASE}/mcp/x`,
      `${BASE}/`,
      "https://other.example/mcp",
      `${BASE}/mcp/${PRJ}?a=1`,
      `${BASE}/mcp/${PRJ}#f`,
    ]) {
      expect(parseResource(BASE, r)).toBeNull();
    }
  });

  test("parseScopes: canonical order, duplicates dropped, offline_access tolerated, unknown ones listed", () => {
    expect(parseScopes("doctor validate doctor offline_access")).toEqual({ scopes: ["validate", "doctor"], unknown: [] });
    expect(parseScopes("admin doctor")).toEqual({ scopes: ["doctor"], unknown: ["admin"] });
    expect(parseScopes(undefined)).toEqual({ scopes: [], unknown: [] });
  });
});
