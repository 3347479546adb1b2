import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { testEnv, shipped, type TestEnv } from "../helpers";
import { isUniqueViolation } from "../../src/db/sqlErrors";
import { edge } from "../../src/http/edge";
import { users } from "../../src/db/schema";
import { createLogger } from "../../src/lib/log";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ BODY_LIMIT: "2048" });
});
afterAll(() => env.close());

describe("health", () => {
  test("GET /healthz → 200 while the process runs", async () => {
    const r = await env.request("/healthz");
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ok" });
  });
  test('GET /readyz → {"status":"ready","database":"sqlite","catalog":{"talents":N,"digest":"sha256:…"}}', async () => {
    const r = await env.request("/readyz");
    expect(r.status).toBe(200);
    const body = await r.json();
    // the engine it runs on: "sqlite" (the embedded file), or "postgres" under TEST_DATABASE=postgres
    const database = env.database.dialect;
    // on PostgreSQL it also says whether this replica leads the background work (one app: it does, once it took the lock)
    const leader = database === "postgres" ? { leader: body.leader } : {};
    if (database === "postgres") expect(typeof body.leader).toBe("boolean");
    expect(body).toEqual({ status: "ready", database, ...leader, catalog: { talents: shipped().list.length, digest: shipped().digest } });
    expect(body.catalog.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
  test("GET /readyz → 503 until the catalog is loaded", async () => {
    const saved = env.state.catalog;
    env.state.catalog = null;
    try {
      const r = await env.request("/readyz");
      expect(r.status).toBe(503);
      expect((await r.json()).error).toBe("not_ready");
    } finally {
      env.state.catalog = saved;
    }
  });
  test("GET /readyz → 503 while draining on shutdown", async () => {
    env.state.draining = true;
    try {
      expect((await env.request("/readyz")).status).toBe(503);
    } finally {
      env.state.draining = false;
    }
  });
});

describe("error model and request ids", () => {
  test("every response carries x-request-id; a sane incoming one is kept", async () => {
    const a = await env.request("/healthz");
    expect(a.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
    const b = await env.request("/healthz", { headers: { "x-request-id": "trace-abc.1" } });
    expect(b.headers.get("x-request-id")).toBe("trace-abc.1");
    const c = await env.request("/healthz", { headers: { "x-request-id": "bad id with spaces" } });
    expect(c.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });
  test("an unknown route → 404 {error: not_found, message}", async () => {
    const r = await env.request("/no/such/route");
    expect(r.status).toBe(404);
    expect(r.headers.get("x-request-id")).toBeTruthy();
    expect(await r.json()).toEqual({ error: "not_found", message: "No such route." });
  });
  test("a body over BODY_LIMIT → 413 payload_too_large, with content-length or chunked, over a real socket", async () => {
    const app = new Elysia({ serve: { maxRequestBodySize: 2048 + 65536 } })
      .use(edge({ log: createLogger("error", () => {}), bodyLimit: 2048, accessLog: false }))
      .post("/echo", ({ body }) => ({ received: JSON.stringify(body).length }));
    app.listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const url = `http://127.0.0.1:${app.server!.port}/echo`;
      const small = await fetch(url, { method: "POST", body: JSON.stringify({ a: 1 }), headers: { "content-type": "application/json" } });
      expect(await small.json()).toEqual({ received: 7 });
      const sized = await fetch(url, { method: "POST", body: "x".repeat(4096), headers: { "content-type": "text/plain" } });
      expect(sized.status).toBe(413);
      expect(await sized.json()).toMatchObject({ error: "payload_too_large", limit: 2048 });
      const chunks = new ReadableStream({
        start(c) {
          for (let i = 0; i < 4; i++) c.enqueue(new TextEncoder().encode(JSON.stringify({ pad: "y".repeat(900) })));
          c.close();
        },
      });
      const chunked = await fetch(url, {
        method: "POST",
        body: chunks,
        headers: { "content-type": "application/json" },
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect((await chunked.json()).error).toBe("payload_too_large");
    } finally {
      await app.stop();
    }
  });
  test("an unexpected exception → 500 internal_error with the request id, never a stack trace", async () => {
    const logs: string[] = [];
    const app = new Elysia()
      .use(edge({ log: createLogger("info", (l) => logs.push(l)), bodyLimit: 1024, accessLog: true }))
      .get("/boom", () => {
        throw new Error("secret internals at /src/x.ts:12");
      });
    const r = await app.handle(new Request("http://localhost/boom"));
    expect(r.status).toBe(500);
    const body = await r.json();
    expect(body.error).toBe("internal_error");
    expect(body.requestId).toBe(r.headers.get("x-request-id"));
    expect(JSON.stringify(body)).not.toContain("secret internals");
    expect(logs.some((l) => l.includes("secret internals"))).toBe(true); // logged for the operator
  });
  test("the access log writes one JSON line per request with the real status", async () => {
    env.logs.length = 0;
    await env.request("/no/such/route");
    await Bun.sleep(5); // the access log is written after the response is handed back
    const line = env.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "request");
    expect(line).toMatchObject({ method: "GET", path: "/no/such/route", status: 404 });
    expect(typeof line.ms).toBe("number");
  });
});

describe("embedded assets (no CDN)", () => {
  test("htmx is served from the binary with an ETag; If-None-Match → 304", async () => {
    const r = await env.request("/assets/htmx.min.js");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("javascript");
    expect((await r.text()).length).toBeGreaterThan(10_000);
    const again = await env.request("/assets/htmx.min.js", { headers: { "if-none-match": r.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect((await env.request("/assets/app.css")).status).toBe(200);
    expect((await env.request("/assets/nope.js")).status).toBe(404);
  });
});

describe("a UNIQUE constraint failure is a 409 conflict, not a 500 (the race between two uniqueness checks)", () => {
  test("recognized in drizzle's wrapped error and in a write job's error; other constraint failures are not", async () => {
    const now = Date.now();
    await env.database.client.execute({
      sql: "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES ('usr_u1', 'u@x.co', '', 'user', ?, ?)",
      args: [now, now],
    });
    const caught = async (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error("expected a failure");
        },
        (e: unknown) => e,
      );
    const viaDrizzle = await caught(
      env.database.write((tx) => tx.insert(users).values({ id: "usr_u2", email: "u@x.co", createdAt: now, updatedAt: now })),
    );
    const viaJob = await caught(
      env.database.writeJob({
        statements: [
          {
            sql: "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES ('usr_u3', 'u@x.co', '', 'user', ?, ?)",
            args: [now, now],
          },
        ],
      }),
    );
    const foreignKey = await caught(
      env.database.writeJob({
        statements: [
          {
            sql: "INSERT INTO projects (id, organization_id, name, description, created_at, updated_at) VALUES ('prj_x', 'org_missing', 'p', '', ?, ?)",
            args: [now, now],
          },
        ],
      }),
    );
    expect([
      isUniqueViolation(viaDrizzle),
      isUniqueViolation(viaJob),
      isUniqueViolation(foreignKey),
      isUniqueViolation(new Error("UNIQUE constraint failed")),
    ]).toEqual([true, true, false, false]);
  });
});

describe("wrong-typed fields are a 400 in the error model, never a 500 or an HTML page", () => {
  const bodies: [string, unknown][] = [
    ["/api/auth/sign-up", { email: { toString: 1 }, password: "xxxxxxxxxxxx" }],
    ["/api/auth/sign-up", { email: "a@b.co", password: { valueOf: 1 } }],
    ["/api/auth/sign-in", { email: { toString: 1 }, password: "x" }],
    ["/api/auth/sign-in", { email: ["a"], password: 12 }],
  ];
  for (const [path, body] of bodies) {
    test(`POST ${path} ${JSON.stringify(body)} → 400 validation_failed JSON naming the field`, async () => {
      const r = await env.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/json");
      const b = await r.json();
      expect(b.error).toBe("validation_failed");
      expect(b.issues.length).toBeGreaterThan(0);
    });
  }
  test("a server run with NODE_ENV=development answers the same 400 (Elysia's mode is fixed by src/production.ts), never Bun's error page", async () => {
    const { BUN, ROOT, tempDir } = await import("../helpers");
    const { freePort } = await import("../mcp-support");
    const { waitReady } = await import("../proc");
    const { join } = await import("node:path");
    const t = tempDir();
    const port = freePort();
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: t.dir,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "development", ACCESS_LOG: "false" },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      await waitReady(`http://127.0.0.1:${port}`);
      const r = await fetch(`http://127.0.0.1:${port}/api/auth/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"email":{"toString":1},"password":"x"}',
      });
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/json");
      const text = await r.text();
      expect(text).not.toContain("node_modules");
      expect(JSON.parse(text).error).toBe("validation_failed");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      t.cleanup();
    }
  }, 30_000);
});

describe("authenticate first, then read the body", () => {
  const malformed = { method: "POST", headers: { "content-type": "application/json" }, body: '{"talentIds": [' };
  test("POST /api/prepare-task with a malformed JSON body and no bearer → 401 invalid_token (not a 400 telling the route parses JSON)", async () => {
    const r = await env.request("/api/prepare-task", malformed);
    expect(r.status).toBe(401);
    expect((await r.json()).error).toBe("invalid_token");
  });
  test("the same body with a valid key → 400 validation_failed: the body is not valid JSON", async () => {
    const { createKey, orgWithProject } = await import("../helpers");
    const o = await orgWithProject(env);
    const k = await createKey(o.owner, o.project.id, ["prepare_task", "record_validation"]);
    for (const path of ["/api/prepare-task", "/api/validation/reports"]) {
      const r = await env.request(path, { ...malformed, headers: { ...malformed.headers, authorization: `Bearer ${k.value}` } });
      expect(r.status).toBe(400);
      const b = await r.json();
      expect(b.error).toBe("validation_failed");
      expect(b.issues[0].message).toBe("the body is not valid JSON or form data");
    }
  });
  test("POST /web/orgs with a malformed body: no session → 401 unauthenticated; with one → 400", async () => {
    const { signedUp } = await import("../helpers");
    const noSession = await env.request("/web/orgs", { ...malformed, headers: { ...malformed.headers, origin: "http://localhost:8787" } });
    expect(noSession.status).toBe(401);
    const c = await signedUp(env);
    const r = await env.request("/web/orgs", {
      ...malformed,
      headers: { ...malformed.headers, origin: "http://localhost:8787", cookie: c.cookie! },
    });
    expect(r.status).toBe(400);
    expect((await r.json()).issues[0].message).toBe("the body is not valid JSON or form data");
  });
});

describe("path parameters that are not valid percent-encoding", () => {
  test("GET /web/projects/:id/resolutions/%E0%A4%A/reports → 400 validation_failed naming the parameter (Elysia hands it over as null; it was a 500)", async () => {
    const { orgWithProject } = await import("../helpers");
    const o = await orgWithProject(env);
    const r = await o.owner.get(`/web/projects/${o.project.id}/resolutions/%E0%A4%A/reports`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    expect(r.body.issues[0].path).toBe("resolutionId");
  });
});
