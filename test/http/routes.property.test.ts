/**
 * Every registered route — the list is read from the app, so a new
 * route is covered without touching this file — gets wrong-typed, prototype-shaped
 * (`{"toString":1}`, `{"__proto__":…}`), oversized, malformed and unicode bodies, path
 * parameters and query strings, as an authenticated caller (a platform administrator's
 * session with Origin, and a project key with every scope), so the input reaches past the
 * guards. Whatever comes in: no 5xx, never the runtime's HTML error page, and every JSON error
 * in the error model (a string `error`; JSON-RPC's error object on /mcp). `FUZZ_RUNS=400` hunts harder
 * (60 runs per route by default: a few seconds).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createKey, makePlatformAdmin, orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
let fixture: {
  cookie: string;
  key: string;
  orgId: string;
  projectId: string;
  resolutionId: string;
  keyId: string;
  userId: string;
  invitationId: string;
  sessionOrg: () => Promise<void>;
};

const ALL_SCOPES = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false", BODY_LIMIT: "65536" });
  const o = await orgWithProject(env);
  await makePlatformAdmin(env, o.owner.userId);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  const k = await createKey(o.owner, o.project.id, ALL_SCOPES);
  const prep = await env.request("/api/prepare-task", {
    method: "POST",
    headers: { authorization: `Bearer ${k.value}`, "content-type": "application/json" },
    body: JSON.stringify({ talentIds: ["typescript-strict"] }),
  });
  const inv = await o.owner.post("/web/orgs/current/invitations", { email: "invited@example.com" });
  fixture = {
    cookie: o.owner.cookie!,
    key: k.value,
    keyId: k.key.id,
    orgId: o.org.id,
    projectId: o.project.id,
    userId: o.owner.userId,
    resolutionId: ((await prep.json()) as { resolutionId: string }).resolutionId,
    invitationId: inv.body.id,
    // a route may switch or suspend the organization (that is its job): put it back before the next route
    sessionOrg: async () => {
      await env.database.client.batch(
        [
          { sql: "UPDATE organizations SET status = 'approved' WHERE id = ?", args: [o.org.id] },
          { sql: "UPDATE sessions SET active_organization_id = ? WHERE user_id = ?", args: [o.org.id, o.owner.userId] },
          { sql: "UPDATE members SET role = 'owner' WHERE organization_id = ? AND user_id = ?", args: [o.org.id, o.owner.userId] },
        ],
        "write",
      );
    },
  };
});
afterAll(() => env.close());

const FIELDS = [
  "email",
  "password",
  "name",
  "slug",
  "talentIds",
  "language",
  "talent",
  "talents",
  "enabled",
  "resolutionId",
  "submissionId",
  "expertiseResults",
  "uri",
  "uris",
  "section",
  "query",
  "k",
  "scope",
  "tools",
  "expiresAt",
  "role",
  "organizationId",
  "content",
  "files",
  "expectedRevision",
  "keywords",
  "globs",
  "token",
  "currentPassword",
  "newPassword",
  "decision",
  "next",
  "client_id",
  "redirect_uri",
  "grant_type",
  "code",
  "refresh_token",
  "code_verifier",
  "jsonrpc",
  "method",
  "params",
  "id",
  "__proto__",
  "constructor",
];
const QUERY_KEYS = [
  "limit",
  "before",
  "cursor",
  "query",
  "k",
  "scope",
  "resolutionId",
  "talent",
  "next",
  "token",
  "project",
  "version",
  "client_id",
  "redirect_uri",
  "response_type",
  "code_challenge",
  "resource",
  "state",
  "days",
];

/** Values that once broke a server somewhere: prototype-shaped objects, huge and odd strings, wrong types. */
const nasty = fc.oneof(
  fc.constant({ toString: 1 }),
  fc.constant({ valueOf: 1 }),
  fc.constant({ toString: 1, valueOf: 1 }),
  fc.constant(JSON.parse('{"__proto__":{"role":"admin","isAdmin":true}}')),
  fc.constant({ constructor: { prototype: { polluted: true } } }),
  fc.constant([{ toString: 1 }]),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constant("x".repeat(5000)),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\u202e",
    "%",
    "%zz",
    "../../etc/passwd",
    "talent://typescript-strict",
    "1.5",
    "-1",
    "1e309",
    "null",
    "[]",
    "{}",
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
);
const value = fc.oneof(nasty, fc.jsonValue({ maxDepth: 2 }));

/** A JSON text written by hand, so keys like __proto__ reach the server literally (duplicates too). */
const objectText = fc
  .array(fc.tuple(fc.constantFrom(...FIELDS), value), { maxLength: 6 })
  .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`);

const bodyOf = fc.oneof(
  { weight: 6, arbitrary: objectText.map((text) => ({ type: "application/json", text })) },
  { weight: 1, arbitrary: value.map((v) => ({ type: "application/json", text: JSON.stringify(v) })) },
  { weight: 1, arbitrary: fc.constantFrom("{not json", "[", '{"a":', "\u0000", "").map((text) => ({ type: "application/json", text })) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...FIELDS), fc.string({ maxLength: 40 })), { maxLength: 5 })
      .map((e) => ({ type: "application/x-www-form-urlencoded", text: new URLSearchParams(e).toString() })),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((text) => ({ type: "text/plain", text })) },
  { weight: 1, arbitrary: fc.constant({ type: "application/json", text: JSON.stringify({ name: "y".repeat(70_000) }) }) }, // over BODY_LIMIT
);

const queryOf = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.constantFrom(...QUERY_KEYS),
        fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("1.5", "-1", "0", "1e3", "abc", "%", "x".repeat(3000), "\u202e")),
      ),
      { maxLength: 4 },
    )
    .map((e) => new URLSearchParams(e).toString()),
  fc.constantFrom("limit=%zz", "query=%E0%A4%A", "k=%00", ""),
);

function pathParam(real: string[]) {
  return fc.oneof(
    fc.constantFrom(...real),
    fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom("%E0%A4%A", "..%2F..%2F", "%00", "__proto__", "x".repeat(300)),
  );
}

/** The route's path with each parameter drawn from real ids and odd strings. */
function pathOf(path: string) {
  const parts = path.split("/").map((seg) => {
    if (seg === "*") return pathParam(["typescript-strict", "javascript-base", "htmx.min.js", "app.css"]);
    if (!seg.startsWith(":")) return fc.constant(seg);
    const name = seg.slice(1);
    const real: Record<string, string[]> = {
      id: [fixture.projectId, fixture.invitationId, fixture.orgId, "exp_unknown"],
      projectId: [fixture.projectId],
      keyId: [fixture.keyId],
      userId: [fixture.userId],
      resolutionId: [fixture.resolutionId],
      operation: ["approve", "reject", "suspend", "reactivate", "nope"],
      version: ["1", "0", "1.5"],
    };
    return pathParam(real[name] ?? ["x"]);
  });
  return fc.tuple(...parts).map((p) => p.join("/"));
}

/** What the error model allows a response to be, whatever the input. */
async function checkAnswer(method: string, url: string, res: Response): Promise<string | null> {
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  if (res.status >= 500) return `${res.status}: ${text.slice(0, 300)}`;
  if (/node_modules|at <anonymous>|\.ts:\d+:\d+/.test(text)) return `a stack or source path in the answer: ${text.slice(0, 300)}`;
  if (res.status >= 400 && type.includes("application/json")) {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return `invalid JSON error body: ${text.slice(0, 200)}`;
    }
    const rpc = url.includes("/mcp") && body?.jsonrpc === "2.0" && typeof body.error?.message === "string";
    if (!rpc && typeof body?.error !== "string") return `error body without a string error: ${text.slice(0, 200)}`;
  }
  if (res.status >= 400 && !type.includes("json") && !type.includes("text/html") && text !== "")
    return `error with content-type ${type}: ${text.slice(0, 120)}`;
  return null;
}

describe("every registered route, whatever it is sent (fast-check)", () => {
  test("no 5xx, no error page, the error model's body — the route list read from the app", async () => {
    const routes = env.app.routes
      .map((r) => ({ method: r.method, path: r.path }))
      .sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE")); // deletions last: they remove the fixtures
    expect(routes.length).toBeGreaterThan(60);
    const failures: string[] = [];
    for (const route of routes) {
      await fixture.sessionOrg();
      const methods = route.method === "ALL" ? ["GET", "POST", "DELETE"] : [route.method];
      const signsOut = route.path === "/api/auth/sign-out" || route.path === "/logout";
      await fc
        .assert(
          fc.asyncProperty(fc.constantFrom(...methods), pathOf(route.path), queryOf, bodyOf, async (method, path, query, body) => {
            const url = `${env.config.baseUrl}${path}${query ? `?${query}` : ""}`;
            const headers: Record<string, string> = {
              origin: env.config.baseUrl,
              authorization: `Bearer ${fixture.key}`,
              accept: "application/json, text/event-stream",
              ...(signsOut ? {} : { cookie: fixture.cookie }),
            };
            const hasBody = !["GET", "HEAD", "OPTIONS"].includes(method);
            if (hasBody) headers["content-type"] = body.type;
            const res = await env.app.handle(
              new Request(url, { method, headers, body: hasBody ? body.text : undefined, signal: AbortSignal.timeout(10_000) }),
            );
            const problem = await checkAnswer(method, url, res);
            if (problem)
              failures.push(
                `${method} ${route.path} (${url.slice(env.config.baseUrl.length, 200)}) ${body.text.slice(0, 120)} → ${problem}`,
              );
            return problem === null;
          }),
          { numRuns: Number(process.env.FUZZ_RUNS ?? 60), endOnFailure: true },
        )
        .catch(() => {}); // collected below with every route's first counterexample
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

describe("the answer check itself", () => {
  test("refuses a 500, a stack in a page, an error body without a string error, and accepts the error model", async () => {
    const r = (status: number, body: string, type = "application/json") =>
      new Response(body, { status, headers: { "content-type": type } });
    expect(await checkAnswer("GET", "/x", r(500, '{"error":"internal_error"}'))).toContain("500");
    expect(await checkAnswer("GET", "/x", r(400, "<pre>at <anonymous> (/app/node_modules/elysia/x.js:1:2)</pre>", "text/html"))).toContain(
      "stack",
    );
    expect(await checkAnswer("GET", "/x", r(400, '{"message":"no code"}'))).toContain("without a string error");
    expect(await checkAnswer("GET", "/x", r(400, '{"error":"validation_failed","message":"m"}'))).toBeNull();
    expect(
      await checkAnswer("POST", "/mcp/x", r(400, '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}')),
    ).toBeNull();
  });
});
