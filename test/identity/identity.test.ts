import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { issueSetupToken } from "../../src/identity/service";
import { signedUp, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const PW = "correct horse battery";

describe("/api/auth: e-mail and password, session cookie", () => {
  test("sign-up → 201, an httpOnly SameSite=Lax session cookie (no Secure on http), then GET /api/auth/session", async () => {
    const c = new WebClient(env);
    const r = await c.call("POST", "/api/auth/sign-up", { email: "Ada@Example.com", password: PW, name: "Ada" });
    expect(r.status).toBe(201);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^talentd_session=[0-9A-Za-z]{20,};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
    const s = await c.get("/api/auth/session");
    expect(s.status).toBe(200);
    expect(s.body.user).toMatchObject({ email: "ada@example.com", name: "Ada", role: "user" });
  });

  test("the session token is stored only as its SHA-256", async () => {
    const c = await signedUp(env);
    const token = c.cookie!.split("=")[1]!;
    const rows = (await env.database.client.execute("SELECT token_hash FROM sessions")).rows.map((r) => String(r.token_hash));
    expect(rows).not.toContain(token);
    expect(rows).toContain(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
  });

  test("with an https BASE_URL the cookie is Secure", async () => {
    const e2 = await testEnv({ BASE_URL: "https://talentd.example.com" });
    try {
      const r = await e2.request("/api/auth/sign-up", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://talentd.example.com" },
        body: JSON.stringify({ email: "s@example.com", password: PW }),
      });
      expect(r.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      e2.close();
    }
  });

  test("cookie prefix rule: under an https BASE_URL the cookie is __Host-talentd_session (Secure, Path=/, no Domain) and only that name is read", async () => {
    const https = await testEnv({ BASE_URL: "https://talentd.example.com" });
    try {
      const c = new WebClient(https);
      const r = await c.call("POST", "/api/auth/sign-up", { email: "host@example.com", password: PW });
      expect(r.status).toBe(201);
      const set = r.headers.get("set-cookie")!;
      expect(set).toMatch(/^__Host-talentd_session=[0-9A-Za-z]{20,}; /);
      expect(set).toContain("; Path=/;");
      expect(set).toContain("; Secure");
      expect(set.toLowerCase()).not.toContain("domain=");
      expect((await c.get("/api/auth/session")).status).toBe(200);
      // the bare name (as a plain-http page or a sibling subdomain could plant it) is not a session here
      const token = c.cookie!.split("=")[1]!;
      const bare = await https.request("/api/auth/session", { headers: { cookie: `talentd_session=${token}` } });
      expect(bare.status).toBe(401);
      const out = await c.call("POST", "/api/auth/sign-out");
      expect(out.headers.get("set-cookie")).toMatch(/^__Host-talentd_session=; .*Max-Age=0; Secure$/);
    } finally {
      https.close();
    }
    // under http the old name, and the prefixed one is not read
    const c = await signedUp(env);
    expect(c.cookie).toMatch(/^talentd_session=/);
    const prefixed = await env.request("/api/auth/session", { headers: { cookie: `__Host-${c.cookie}` } });
    expect(prefixed.status).toBe(401);
    expect((await c.get("/api/auth/session")).status).toBe(200);
  });

  const badSignUps: [string, unknown, number, string][] = [
    ["no e-mail", { password: PW }, 400, "validation_failed"],
    ["not an e-mail", { email: "nope", password: PW }, 400, "validation_failed"],
    ["short password", { email: "short@example.com", password: "123" }, 400, "validation_failed"],
    ["not JSON", "{", 400, "validation_failed"],
  ];
  for (const [name, body, status, code] of badSignUps) {
    test(`sign-up with ${name} → ${status} ${code}`, async () => {
      const r = await env.request("/api/auth/sign-up", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      expect(r.status).toBe(status);
      expect((await r.json()).error).toBe(code);
    });
  }

  test("sign-up with a taken e-mail → 409 conflict", async () => {
    const c = await signedUp(env);
    const r = await new WebClient(env).post("/api/auth/sign-up", { email: c.email, password: PW });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("conflict");
  });

  test("concurrent sign-ups with one e-mail: exactly one 201, the others 409 conflict (never 500), one account", async () => {
    const email = `race-${Date.now()}@example.com`;
    const rs = await Promise.all(Array.from({ length: 5 }, () => new WebClient(env).post("/api/auth/sign-up", { email, password: PW })));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of rs.filter((x) => x.status === 409)) expect(r.body.error).toBe("conflict");
    expect(
      Number((await env.database.client.execute({ sql: "SELECT count(*) AS n FROM users WHERE email = ?", args: [email] })).rows[0]!.n),
    ).toBe(1);
  });

  test("an active session slides: used after the slide interval, its expiry moves a full lifetime ahead", async () => {
    const c = await signedUp(env);
    const { SESSION_TTL_MS } = await import("../../src/auth/sessions");
    const old = Date.now() - 2 * 24 * 3600 * 1000;
    await env.database.client.execute({
      sql: "UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE user_id = ?",
      args: [old, Date.now() + 3600_000, c.userId],
    });
    const before = Date.now();
    const r = await c.get("/api/auth/session");
    expect(r.status).toBe(200);
    expect(Date.parse(r.body.expiresAt)).toBeGreaterThanOrEqual(before + SESSION_TTL_MS);
    const row = (
      await env.database.client.execute({ sql: "SELECT last_seen_at, expires_at FROM sessions WHERE user_id = ?", args: [c.userId] })
    ).rows[0]!;
    expect(Number(row.last_seen_at)).toBeGreaterThanOrEqual(before);
    expect(Number(row.expires_at)).toBeGreaterThanOrEqual(before + SESSION_TTL_MS);
  });

  test("mass assignment: role posted at sign-up is ignored", async () => {
    const c = new WebClient(env);
    await c.post("/api/auth/sign-up", { email: "sneaky@example.com", password: PW, role: "admin" });
    expect((await c.get("/api/auth/session")).body.user.role).toBe("user");
  });

  test("sign-in: a wrong password → 401 invalid_credentials and a security event", async () => {
    const c = await signedUp(env);
    const r = await new WebClient(env).post("/api/auth/sign-in", { email: c.email, password: "wrong password!" });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_credentials");
    const ev = (await env.database.client.execute({ sql: "SELECT kind FROM security_events WHERE email = ?", args: [c.email] })).rows.map(
      (x) => x.kind,
    );
    expect(ev).toContain("sign_in.failure");
  });

  test("sign-in renews the session: a new token, and the browser's old one ends", async () => {
    const c = await signedUp(env);
    const old = c.cookie;
    const r = await c.post("/api/auth/sign-in", { email: c.email, password: PW });
    expect(r.status).toBe(200);
    expect(c.cookie).not.toBe(old);
    const stale = new WebClient(env);
    stale.cookie = old;
    expect((await stale.get("/api/auth/session")).status).toBe(401);
    expect((await c.get("/api/auth/session")).status).toBe(200);
    const ev = (await env.database.client.execute({ sql: "SELECT kind FROM security_events WHERE email = ?", args: [c.email] })).rows.map(
      (x) => x.kind,
    );
    expect(ev).toContain("sign_in.success");
  });

  test("one sign-in limit for every sign-in path: failures on the API lock the OAuth login page out too (429)", async () => {
    const c = await signedUp(env);
    for (let i = 0; i < 5; i++)
      expect((await new WebClient(env).post("/api/auth/sign-in", { email: c.email, password: "wrong password!" })).status).toBe(401);
    const page = await env.request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(env.config.baseUrl).origin },
      body: new URLSearchParams({ email: c.email, password: PW, next: "/" }).toString(),
    });
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).not.toBeNull();
  });

  test("sign-in is rate limited per e-mail: after 5 failures → 429 with Retry-After, even with the right password", async () => {
    const c = await signedUp(env);
    for (let i = 0; i < 5; i++)
      expect((await new WebClient(env).post("/api/auth/sign-in", { email: c.email, password: "wrong password!" })).status).toBe(401);
    const r = await new WebClient(env).post("/api/auth/sign-in", { email: c.email, password: PW });
    expect(r.status).toBe(429);
    expect(r.body.error).toBe("rate_limited");
    expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("password change drops every session of the user and issues a fresh one", async () => {
    const a = await signedUp(env);
    const b = new WebClient(env);
    await b.post("/api/auth/sign-in", { email: a.email, password: PW });
    expect((await b.get("/api/auth/session")).status).toBe(200);
    const bad = await a.post("/api/auth/change-password", { currentPassword: "wrong one!!", newPassword: "new password 123" });
    expect(bad.status).toBe(401);
    const r = await a.post("/api/auth/change-password", { currentPassword: PW, newPassword: "new password 123" });
    expect(r.status).toBe(200);
    expect((await b.get("/api/auth/session")).status).toBe(401);
    expect((await a.get("/api/auth/session")).status).toBe(200);
    expect((await new WebClient(env).post("/api/auth/sign-in", { email: a.email, password: "new password 123" })).status).toBe(200);
  });

  test("sign-out ends the session and clears the cookie", async () => {
    const c = await signedUp(env);
    const token = c.cookie;
    const r = await c.call("POST", "/api/auth/sign-out");
    expect(r.headers.get("set-cookie")).toContain("Max-Age=0");
    const again = new WebClient(env);
    again.cookie = token;
    expect((await again.get("/api/auth/session")).status).toBe(401);
  });

  test("GET /api/auth/session without a cookie → 401 unauthenticated", async () => {
    const r = await new WebClient(env).get("/api/auth/session");
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("unauthenticated");
  });
});

describe("CSRF", () => {
  test("a cookie-authenticated POST with a foreign Origin → 403 csrf_rejected", async () => {
    const c = await signedUp(env);
    const r = await c.json("POST", "/web/orgs", { name: "Evil" }, { origin: "https://evil.example" });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("csrf_rejected");
    expect((await c.get("/web/orgs")).body.organizations).toEqual([]);
  });
  test("no Origin and no HX-Request → 403; HX-Request with same-origin Sec-Fetch-Site → allowed", async () => {
    const c = await signedUp(env);
    const noOrigin = await env.request("/web/orgs", {
      method: "POST",
      headers: { cookie: c.cookie!, "content-type": "application/json" },
      body: JSON.stringify({ name: "X" }),
    });
    expect(noOrigin.status).toBe(403);
    const htmx = await env.request("/web/orgs", {
      method: "POST",
      headers: { cookie: c.cookie!, "content-type": "application/json", "hx-request": "true", "sec-fetch-site": "same-origin" },
      body: JSON.stringify({ name: "Htmx Org" }),
    });
    expect(htmx.status).toBeLessThan(300); // accepted (htmx gets a reload, not the JSON)
    expect((await c.get("/web/orgs")).body.organizations.map((o: { name: string }) => o.name)).toContain("Htmx Org");
    const cross = await env.request("/web/orgs", {
      method: "POST",
      headers: { cookie: c.cookie!, "content-type": "application/json", "hx-request": "true", "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ name: "Cross" }),
    });
    expect(cross.status).toBe(403);
  });
  test("sign-in without any Origin (curl, scripts) is accepted; only a foreign Origin is refused", async () => {
    const c = await signedUp(env);
    const r = await env.request("/api/auth/sign-in", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: c.email, password: PW }),
    });
    expect(r.status).toBe(200);
  });
  test("sign-in from a foreign Origin → 403 (login CSRF)", async () => {
    const r = await new WebClient(env).json(
      "POST",
      "/api/auth/sign-in",
      { email: "a@b.co", password: PW },
      { origin: "https://evil.example" },
    );
    expect(r.status).toBe(403);
  });
});

describe("first platform admin: one-time setup link", () => {
  test("the token is single-use, creates an admin, and is not issued once an admin exists", async () => {
    const e2 = await testEnv();
    try {
      const token = (await issueSetupToken(e2.database))!;
      expect(token).toBeTruthy();
      const pageRes = await e2.request(`/setup?token=${token}`);
      expect(pageRes.status).toBe(200);
      expect(await pageRes.text()).toContain('name="password"');
      const post = (email: string) =>
        e2.request("/setup", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", origin: "http://localhost:8787" },
          body: JSON.stringify({ token, email, password: PW }),
        });
      const first = await post("root@example.com");
      expect(first.status).toBe(201);
      expect(first.headers.get("set-cookie")).toContain("talentd_session=");
      const role = (await e2.database.client.execute("SELECT role FROM users WHERE email = 'root@example.com'")).rows[0]!.role;
      expect(role).toBe("admin");
      const second = await post("other@example.com");
      expect(second.status).toBe(403);
      expect(await issueSetupToken(e2.database)).toBeNull();
      expect(await (await e2.request(`/setup?token=${token}`)).text()).toContain("invalid, expired or already used");
    } finally {
      e2.close();
    }
  });
  test("an expired token is refused", async () => {
    const e2 = await testEnv();
    try {
      const token = (await issueSetupToken(e2.database))!;
      await e2.database.client.execute("UPDATE setup_tokens SET expires_at = 1");
      const r = await e2.request("/setup", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", origin: "http://localhost:8787" },
        body: JSON.stringify({ token, email: "late@example.com", password: PW }),
      });
      expect(r.status).toBe(403);
    } finally {
      e2.close();
    }
  });
});

describe("the /login page's forms over HTTP (failure paths; the browser tests use them as a person does)", () => {
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  const users = async (email: string) =>
    Number((await env.database.client.execute({ sql: "SELECT count(*) AS n FROM users WHERE email = ?", args: [email] })).rows[0]!.n);

  test("POST /login/sign-up from another site (Origin or Sec-Fetch-Site) → 403 page, no account", async () => {
    for (const headers of [
      { origin: "https://evil.example" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ] as Record<string, string>[]) {
      const email = `csrf-${Math.random().toString(36).slice(2)}@example.com`;
      const r = await env.request("/login/sign-up", form({ email, password: PW, next: "/" }, headers));
      expect(r.status).toBe(403);
      expect(r.headers.get("content-type")).toContain("text/html");
      expect(await users(email)).toBe(0);
    }
  });
  test("POST /login/sign-up with a malformed e-mail or a name over 100 characters → 400 page naming it, no account", async () => {
    const bad = await env.request("/login/sign-up", form({ email: "not-an-email", password: PW }));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("is not an e-mail address");
    const email = `long-${Date.now()}@example.com`;
    const long = await env.request("/login/sign-up", form({ email, name: "n".repeat(101), password: PW }));
    expect(long.status).toBe(400);
    expect(await long.text()).toContain("at most 100 characters");
    expect(await users(email)).toBe(0);
  });
  test("POST /login/sign-up with next=//evil.example → 303 to /, never off-site", async () => {
    const r = await env.request(
      "/login/sign-up",
      form({ email: `next-${Date.now()}@example.com`, password: PW, next: "//evil.example/x" }),
    );
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/");
  });
  test("POST /logout: without a session → 303 /login; with one from another site → 403 and the session lives on; from this site → ended", async () => {
    const none = await env.request("/logout", form({}));
    expect(none.status).toBe(303);
    expect(none.headers.get("location")).toBe("/login");
    const c = await signedUp(env);
    const cross = await env.request("/logout", form({}, { cookie: c.cookie!, origin: "https://evil.example" }));
    expect(cross.status).toBe(403);
    expect((await c.get("/api/auth/session")).status).toBe(200);
    const own = await env.request("/logout", form({}, { cookie: c.cookie!, origin: "http://localhost:8787" }));
    expect(own.status).toBe(303);
    expect(own.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await c.get("/api/auth/session")).status).toBe(401);
  });
});
