/**
 * Trusted proxies (TRUSTED_PROXIES): behind nginx or Caddy every connection comes from the
 * proxy, so a per-address limit would be one limit for everybody. A listed peer's
 * X-Forwarded-For names the client (right-most untrusted hop); anybody else's is ignored.
 * Over real sockets: the test's connections come from 127.0.0.1, trusted or not per server.
 * The auth limits are settings, so these servers use small ones.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_LIMIT_SETTINGS, loadConfig } from "../../src/config";
import { ConfigError } from "../../src/configParsers";
import { AUTH_LIMITS } from "../../src/identity/limits";
import { clientAddress, normalizeAddress, parseTrustedProxies } from "../../src/lib/proxies";
import { liveEnv, type LiveEnv } from "../mcp-support";

let direct: LiveEnv; // 127.0.0.1 not trusted (a proxy elsewhere is)
let proxied: LiveEnv; // 127.0.0.1 is the proxy, and so is 10.0.0.0/8 (an inner hop)
beforeAll(async () => {
  const limits = {
    SIGNIN_FAILURE_LIMIT: "2",
    SIGNIN_PAIR_FAILURE_LIMIT: "2",
    SIGNUP_LIMIT_PER_HOUR: "1",
    OAUTH_REGISTRATION_LIMIT_PER_MINUTE: "1",
  };
  direct = await liveEnv({ ...limits, TRUSTED_PROXIES: "10.0.0.0/8" });
  proxied = await liveEnv({ ...limits, TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8", ACCESS_LOG: "true" });
});
afterAll(async () => {
  await direct.close();
  await proxied.close();
});

let seq = 0;
/** A failed sign-in (an unknown e-mail) as seen through `xff`; the status. */
async function failSignIn(live: LiveEnv, xff?: string): Promise<number> {
  const headers: Record<string, string> = { "content-type": "application/json", origin: live.base };
  if (xff !== undefined) headers["x-forwarded-for"] = xff;
  const body = JSON.stringify({ email: `nobody${++seq}@example.com`, password: "wrong password!" });
  return (await fetch(`${live.base}/api/auth/sign-in`, { method: "POST", headers, body })).status;
}

/** The address the last security event of `kind` recorded. */
async function lastEventIp(live: LiveEnv, kind: string): Promise<string | null> {
  const r = await live.env.database.client.execute({
    sql: "SELECT ip FROM security_events WHERE kind = ? ORDER BY created_at DESC, id DESC LIMIT 1",
    args: [kind],
  });
  return (r.rows[0]?.ip as string | null) ?? null;
}

describe("TRUSTED_PROXIES: X-Forwarded-For counts only from a listed peer", () => {
  test("from an untrusted peer a spoofed X-Forwarded-For changes nothing: the limiter counts the socket's address", async () => {
    expect(await failSignIn(direct, "198.51.100.1")).toBe(401);
    expect(await failSignIn(direct, "198.51.100.2")).toBe(401);
    expect(await failSignIn(direct, "198.51.100.3")).toBe(429);
    expect(await lastEventIp(direct, "sign_in.rate_limited")).toBe("127.0.0.1");
  });

  test("from a trusted peer two forwarded addresses get separate limits, and the security event records the forwarded one", async () => {
    expect(await failSignIn(proxied, "198.51.100.10")).toBe(401);
    expect(await lastEventIp(proxied, "sign_in.failure")).toBe("198.51.100.10");
    expect(await failSignIn(proxied, "198.51.100.10")).toBe(401);
    expect(await failSignIn(proxied, "198.51.100.10")).toBe(429);
    expect(await lastEventIp(proxied, "sign_in.rate_limited")).toBe("198.51.100.10");
    expect(await failSignIn(proxied, "198.51.100.11")).toBe(401);
    expect(await lastEventIp(proxied, "sign_in.failure")).toBe("198.51.100.11");
  });

  test("the right-most untrusted hop is the client: a left-most spoof is not, a trusted inner hop is skipped", async () => {
    expect(await failSignIn(proxied, "203.0.113.66, 198.51.100.20")).toBe(401);
    expect(await lastEventIp(proxied, "sign_in.failure")).toBe("198.51.100.20");
    expect(await failSignIn(proxied, "203.0.113.66, 198.51.100.21, 10.1.2.3")).toBe(401);
    expect(await lastEventIp(proxied, "sign_in.failure")).toBe("198.51.100.21");
  });

  test("the access log records the client's address, not the proxy's", async () => {
    const r = await fetch(`${proxied.base}/healthz`, { headers: { "x-forwarded-for": "198.51.100.30", "x-request-id": "proxy-log-1" } });
    expect(r.status).toBe(200);
    await Bun.sleep(20); // the line is written after the response
    const line = proxied.env.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === "proxy-log-1");
    expect(line?.ip).toBe("198.51.100.30");
  });

  test("OAuth client registration is limited per forwarded address (OAUTH_REGISTRATION_LIMIT_PER_MINUTE)", async () => {
    const register = (xff: string) =>
      fetch(`${proxied.base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": xff },
        body: JSON.stringify({ client_name: "x", redirect_uris: ["http://127.0.0.1:9/cb"] }),
      }).then((r) => r.status);
    expect(await register("198.51.100.40")).toBe(201);
    expect(await register("198.51.100.40")).toBe(429);
    expect(await register("198.51.100.41")).toBe(201);
  });
});

describe("the auth limits are settings, today's values by default", () => {
  test("SIGNUP_LIMIT_PER_HOUR=1: the second sign-up from a forwarded address is refused, another address still signs up", async () => {
    const signUp = (xff: string) =>
      fetch(`${proxied.base}/api/auth/sign-up`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: proxied.base, "x-forwarded-for": xff },
        body: JSON.stringify({ email: `new${++seq}@example.com`, password: "a long password!" }),
      }).then((r) => r.status);
    expect(await signUp("198.51.100.50")).toBe(201);
    expect(await signUp("198.51.100.50")).toBe(429);
    expect(await signUp("198.51.100.51")).toBe(201);
  });

  test("the defaults are the limits' documented values; a bad count is a configuration error naming the setting", () => {
    const c = loadConfig({ DATA_DIR: "/tmp" });
    expect(c.authLimits).toEqual({
      signInPair: 5,
      signInAddress: 20,
      signInEmail: 20,
      changePassword: 5,
      signUpAddress: 10,
      resetAddress: 10,
      resetEmail: 3,
      oauthRegistrations: 30,
      oauthRegistrationsGlobal: 300,
      oauthMetadataFetches: 10,
      oauthMetadataFetchesGlobal: 60,
    });
    expect(AUTH_LIMITS.signInPair.limit).toBe(AUTH_LIMIT_SETTINGS.signInPair.default);
    expect(c.trustedProxies.ranges).toHaveLength(0);
    expect(() => loadConfig({ DATA_DIR: "/tmp", SIGNIN_FAILURE_LIMIT: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: "/tmp", SIGNIN_FAILURE_LIMIT: "0" })).toThrow("SIGNIN_FAILURE_LIMIT");
    expect(() => loadConfig({ DATA_DIR: "/tmp", TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(
      'TRUSTED_PROXIES: "10.0.0.0/33" is not an IP address or CIDR',
    );
    expect(() => loadConfig({ DATA_DIR: "/tmp", TRUSTED_PROXIES: "nginx" })).toThrow("TRUSTED_PROXIES");
  });
});

describe("the client address from a peer and X-Forwarded-For (proxies.ts)", () => {
  const trusted = parseTrustedProxies("127.0.0.1 10.0.0.0/8, fd00::/8");

  test("an untrusted peer's header is ignored; no TRUSTED_PROXIES ignores every header", () => {
    expect(clientAddress("192.0.2.9", "198.51.100.1", trusted)).toBe("192.0.2.9");
    expect(clientAddress("127.0.0.1", "198.51.100.1", parseTrustedProxies(""))).toBe("127.0.0.1");
    expect(clientAddress(null, "198.51.100.1", trusted)).toBeNull();
  });

  test("an IPv4-mapped IPv6 peer matches an IPv4 entry, and is told as IPv4", () => {
    expect(clientAddress("::ffff:10.0.0.5", "198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(clientAddress("::ffff:192.0.2.9", "198.51.100.1", trusted)).toBe("192.0.2.9");
  });

  test("IPv6 CIDRs and addresses, with one spelling for every form of an address", () => {
    expect(clientAddress("fd12::1", "2001:DB8:0:0::7", trusted)).toBe("2001:db8::7");
    expect(clientAddress("fe80::1", "2001:db8::7", trusted)).toBe("fe80::1");
    expect(normalizeAddress("[2001:db8:0:0:1:0:0:1]")).toBe("2001:db8::1:0:0:1");
    expect(normalizeAddress("::")).toBe("::");
    expect(normalizeAddress("not an address")).toBeNull();
  });

  test("right-most untrusted wins; all trusted → the left-most; ports are dropped; garbage stops at the last vouched hop", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.66, 198.51.100.1, 10.9.9.9", trusted)).toBe("198.51.100.1");
    expect(clientAddress("127.0.0.1", "10.1.1.1, 10.2.2.2", trusted)).toBe("10.1.1.1");
    expect(clientAddress("127.0.0.1", "198.51.100.1:5678", trusted)).toBe("198.51.100.1");
    expect(clientAddress("127.0.0.1", "[2001:db8::2]:443", trusted)).toBe("2001:db8::2");
    expect(clientAddress("127.0.0.1", "198.51.100.1, unknown, 10.2.2.2", trusted)).toBe("10.2.2.2");
  });
});
