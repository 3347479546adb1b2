/**
 * Password attempts and new accounts are limited, and the limit holds under
 * concurrency (it is taken before the password check, atomically). Over a real socket, so the
 * server sees the caller's address; the many-address cases drive the limits directly (every
 * test connection comes from 127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_LIMITS, createAuthLimiters, takeSignInAttempt } from "../../src/identity/limits";
import { AppError } from "../../src/http/errors";
import { liveEnv, PASSWORD, type LiveEnv } from "../mcp-support";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv();
});
afterAll(async () => {
  await live.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(live.base + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: live.base, ...headers },
    body: JSON.stringify(body),
  });

const statuses = (rs: Response[]) => {
  const out: Record<number, number> = {};
  for (const r of rs) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
};

let seq = 0;
async function account(): Promise<{ email: string; cookie: string }> {
  const email = `limits${++seq}-${Date.now()}@example.com`;
  const r = await live.env.app.handle(
    new Request(`${live.base}/api/auth/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
  );
  expect(r.status).toBe(201);
  return { email, cookie: r.headers.get("set-cookie")!.split(";")[0]! };
}

describe("sign-in: the attempt is taken before the password check, atomically", () => {
  test("19 parallel wrong passwords for one e-mail → exactly 5 checked (401), 14 refused (429 with Retry-After)", async () => {
    const a = await account();
    const rs = await Promise.all(
      Array.from({ length: 19 }, () => post("/api/auth/sign-in", { email: a.email, password: "wrong password!" })),
    );
    expect(statuses(rs)).toEqual({ 401: AUTH_LIMITS.signInPair.limit, 429: 19 - AUTH_LIMITS.signInPair.limit });
    const limited = rs.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited.json()).error).toBe("rate_limited");
  });

  test("200 parallel sign-ins for one e-mail with the right password last → the password is never found (no 200), at most 5 are checked", async () => {
    const a = await account();
    const bodies = Array.from({ length: 200 }, (_, i) => ({ email: a.email, password: i === 199 ? PASSWORD : `wrong password ${i}` }));
    const rs = await Promise.all(bodies.map((b) => post("/api/auth/sign-in", b)));
    const s = statuses(rs);
    expect(s[200]).toBeUndefined();
    expect(s[401]).toBe(AUTH_LIMITS.signInPair.limit);
    expect(s[429]).toBe(200 - AUTH_LIMITS.signInPair.limit);
  });

  test("the /login page takes from the same limits: after 5 API failures it answers 429 on the page", async () => {
    const a = await account();
    for (let i = 0; i < 5; i++) expect((await post("/api/auth/sign-in", { email: a.email, password: "wrong password!" })).status).toBe(401);
    const page = await fetch(`${live.base}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: live.base },
      body: new URLSearchParams({ email: a.email, password: PASSWORD }).toString(),
      redirect: "manual",
    });
    expect(page.status).toBe(429);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("Too many failed sign-ins");
  });

  test("a success gives its attempt back and clears the pair: 4 failures, the right password, 4 failures again → all checked, none refused", () => {
    const l = createAuthLimiters();
    const fail = () => takeSignInAttempt(l, "me@example.com", "192.0.2.1", 1000);
    for (let i = 0; i < 4; i++) fail();
    takeSignInAttempt(l, "me@example.com", "192.0.2.1", 1000).succeeded();
    for (let i = 0; i < 4; i++) fail();
    // the address counted 8 failures, not 9: 12 more are allowed, the 13th is not
    for (let i = 0; i < 12; i++) takeSignInAttempt(l, `other${i}@example.com`, "192.0.2.1", 1000);
    expect(() => takeSignInAttempt(l, "other-last@example.com", "192.0.2.1", 1000)).toThrow("from this address");
  });
});

describe("nobody can lock another person out by knowing their e-mail (limits.ts)", () => {
  const limits = () => createAuthLimiters();
  const refused = (f: () => unknown): string | null => {
    try {
      f();
      return null;
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      return (e as AppError).message;
    }
  };

  test("5 failures from one address lock that pair only: the same e-mail from another address is still checked", () => {
    const l = limits();
    for (let i = 0; i < 5; i++) takeSignInAttempt(l, "victim@example.com", "203.0.113.9", 1000);
    expect(refused(() => takeSignInAttempt(l, "victim@example.com", "203.0.113.9", 1000))).toContain("from this address");
    expect(refused(() => takeSignInAttempt(l, "victim@example.com", "198.51.100.7", 1000))).toBeNull();
  });

  test("20 failures for one e-mail spread over 20 addresses: the ceiling's slow path lets one attempt through every 30 s — the owner waits, never locked out", () => {
    const l = limits();
    const t0 = 1_000_000;
    for (let i = 0; i < AUTH_LIMITS.signInEmail.limit; i++) takeSignInAttempt(l, "victim@example.com", `198.51.100.${i}`, t0);
    const owner = "192.0.2.1";
    const first = takeSignInAttempt(l, "victim@example.com", owner, t0 + 1); // the slow path's one attempt
    first.succeeded();
    expect(refused(() => takeSignInAttempt(l, "victim@example.com", "198.51.100.99", t0 + 2))).toContain(
      "one attempt is allowed every 30 s",
    );
    expect(refused(() => takeSignInAttempt(l, "victim@example.com", owner, t0 + 29_000))).toContain("every 30 s");
    expect(refused(() => takeSignInAttempt(l, "victim@example.com", owner, t0 + 1 + AUTH_LIMITS.signInSlowPathMs))).toBeNull();
  });

  test("20 failures from one address across many e-mails → that address is refused for a fresh e-mail; other addresses are not", () => {
    const l = limits();
    for (let i = 0; i < AUTH_LIMITS.signInAddress.limit; i++) takeSignInAttempt(l, `nobody${i}@example.com`, "203.0.113.50", 5000);
    expect(refused(() => takeSignInAttempt(l, "fresh@example.com", "203.0.113.50", 5000))).toContain("from this address");
    expect(refused(() => takeSignInAttempt(l, "fresh@example.com", "203.0.113.51", 5000))).toBeNull();
  });

  test("over a socket: 20 failures across e-mails from one address → 429 for a fresh e-mail from it", async () => {
    const e2 = await liveEnv();
    try {
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${e2.base}/api/auth/sign-in`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: `nobody${i}@example.com`, password: "wrong password!" }),
        });
        expect(r.status).toBe(401);
      }
      const r = await fetch(`${e2.base}/api/auth/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "fresh@example.com", password: "wrong password!" }),
      });
      expect(r.status).toBe(429);
    } finally {
      await e2.close();
    }
  });
});

describe("change-password and sign-up are limited too", () => {
  test("30 parallel wrong current passwords → 5 checked (401), 25 refused (429); then the right one is refused until the window passes", async () => {
    const a = await account();
    const rs = await Promise.all(
      Array.from({ length: 30 }, () =>
        post("/api/auth/change-password", { currentPassword: "wrong password!", newPassword: "new password 123" }, { cookie: a.cookie }),
      ),
    );
    expect(statuses(rs)).toEqual({ 401: AUTH_LIMITS.changePassword.limit, 429: 30 - AUTH_LIMITS.changePassword.limit });
    const right = await post(
      "/api/auth/change-password",
      { currentPassword: PASSWORD, newPassword: "new password 123" },
      { cookie: a.cookie },
    );
    expect(right.status).toBe(429);
  });

  test("100 parallel sign-ups from one address → 10 accounts (201), 90 refused (429), nothing else stored", async () => {
    const e2 = await liveEnv();
    try {
      const rs = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          fetch(`${e2.base}/api/auth/sign-up`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email: `bulk${i}@example.com`, password: PASSWORD }),
          }),
        ),
      );
      expect(statuses(rs)).toEqual({ 201: AUTH_LIMITS.signUpAddress.limit, 429: 100 - AUTH_LIMITS.signUpAddress.limit });
      const n = Number((await e2.env.database.client.execute("SELECT count(*) AS n FROM users")).rows[0]!.n);
      expect(n).toBe(AUTH_LIMITS.signUpAddress.limit);
    } finally {
      await e2.close();
    }
  });
});
