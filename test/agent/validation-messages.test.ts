/**
 * "Bad input → 400 validation_failed with issues": every issue names its field and says what is
 * expected in words a user understands — never TypeBox's default texts ("Expected union value",
 * "Expected string", "Unexpected property", "Expected required property", …). The routes come
 * from the OPERATIONS table (src/http/openapi.ts) and from the app's other routes with a body or
 * query schema (the pages' forms), so a new route is covered without touching this file; each gets, over a real HTTP server, a wrong-typed value in
 * every field of its body and query, an unknown extra property, and a body missing its required
 * fields — as JSON, and as a browser's form post (the error page lists the issues).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { edge } from "../../src/http/edge";
import { createLogger } from "../../src/lib/log";
import { OPERATIONS } from "../../src/app";
import type { Operation } from "../../src/http/openapi";
import { createKey, expertiseMd, makePlatformAdmin, orgWithProject } from "../helpers";
import { liveEnv, type LiveEnv } from "../mcp-support";

type Schema = Record<string, any>;
interface Issue {
  path: string;
  message: string;
}

/** TypeBox's own error texts (its DefaultErrorFunction): "Expected …", "Unexpected property", "Unknown …". */
const TYPEBOX_DEFAULT = /^(Expected\b|Unexpected property|Unknown (format|error)|Unknown\b)/;

let live: LiveEnv;
let cookie: string;
let key: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  live = await liveEnv();
  const env = live.env;
  const o = await orgWithProject(env);
  await makePlatformAdmin(env, o.owner.userId);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  const k = await createKey(o.owner, o.project.id, [
    "prepare_task",
    "validate",
    "record_validation",
    "deepen",
    "doctor",
    "catalog",
    "discover",
    "install",
    "import",
  ]);
  const prep = await env.request("/api/prepare-task", {
    method: "POST",
    headers: { authorization: `Bearer ${k.value}`, "content-type": "application/json" },
    body: JSON.stringify({ talentIds: ["typescript-strict"] }),
  });
  const inv = await o.owner.post("/web/orgs/current/invitations", { email: "invited@example.com" });
  const exp = await o.owner.post("/web/orgs/current/expertises", { slug: "payments", content: expertiseMd("payments", "Use the ledger.") });
  const spec = await o.owner.post("/web/specializations", { name: "Mine", talents: ["typescript-strict"] });
  if (prep.status !== 201 || inv.status !== 201 || exp.status !== 201 || spec.status !== 201) throw new Error("fixture setup failed");
  cookie = o.owner.cookie!;
  key = k.value;
  Object.assign(ids, {
    project: o.project.id,
    org: o.org.id,
    user: o.owner.userId,
    key: k.key.id,
    resolution: ((await prep.json()) as { resolutionId: string }).resolutionId,
    invitation: inv.body.id,
    expertise: exp.body.id,
    specialization: spec.body.specialization?.id ?? spec.body.id,
  });
}, 60_000);
afterAll(() => live.close());

/** The operation's path with real ids of the fixture in its parameters. */
function urlPath(op: Operation): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === "id") {
      if (op.path.startsWith("/web/projects/") || op.path.startsWith("/api/projects/")) return ids.project!;
      if (op.path.startsWith("/web/orgs/current/expertises/")) return ids.expertise!;
      if (op.path.startsWith("/web/specializations/")) return ids.specialization!;
      if (op.path.startsWith("/web/orgs/current/invitations/") || op.path.startsWith("/web/invitations/")) return ids.invitation!;
      if (op.path.startsWith("/web/admin/organizations/")) return ids.org!;
      return "x";
    }
    const known: Record<string, string> = {
      userId: ids.user!,
      keyId: ids.key!,
      resolutionId: ids.resolution!,
      talentId: "typescript-strict",
      orgId: ids.org!,
      provider: "github",
      domain: "example.com",
      operation: "approve",
      version: "1",
    };
    return known[name] ?? "x";
  });
}

/** A plausible value of a field (to fill the fields not under test, so that the one under test is reached). */
function plausible(s: Schema, field = ""): unknown {
  if (s.enum) return s.enum[0];
  if (s.type === "string" && field)
    return (
      { domains: "example.com", talents: "typescript-strict", talentIds: "typescript-strict", tools: "catalog" }[field] ?? plausible(s)
    );
  if (s.type === "array") return [plausible(s.items ?? { type: "string" }, field)];
  switch (s.type) {
    case "string":
      return s.format === "email"
        ? "someone@example.com"
        : s.format === "uri"
          ? "https://idp.example.com"
          : s.format === "date-time"
            ? "2099-01-01T00:00:00Z"
            : "plausible-value-1";
    case "integer":
      return 1;
    case "boolean":
      return true;
    default:
      return {};
  }
}

/** Values of the wrong type for a schema: a number for a string, a string for a boolean, an array or an integer, and so on. */
function wrongValues(s: Schema): unknown[] {
  switch (s.type) {
    case "string":
      return [42, { nested: true }];
    case "integer":
      return ["not-a-number", true];
    case "boolean":
      return ["maybe", 7];
    case "array":
      return [42, { nested: true }, [{ nested: true }]];
    case "object":
      return [42, "text"];
    default:
      return [42];
  }
}

interface Probe {
  op: Operation;
  where: "body" | "query";
  /** The field given a wrong value, or the one left out ("" for an unknown extra property). */
  field: string;
  what: string;
  body?: Record<string, unknown>;
  query?: string;
}

/** `GET /web/projects/:id/talents/*` and `GET /web/projects/{id}/talents/{talentId}` alike. */
const shape = (method: string, path: string) => `${method} ${path.replace(/\/$/, "").replace(/:[A-Za-z]+|\*|\{[^}]+\}/g, "{}")}`;

/**
 * The routes to probe: the OPERATIONS table, and every other registered route whose body or
 * query has a schema (the pages' forms, e.g. `POST /setup`), read from the app.
 */
function operations(): Operation[] {
  const documented = new Set(OPERATIONS.map((op) => shape(op.method, op.path)));
  const extra: Operation[] = [];
  for (const r of live.env.app.routes as { method: string; path: string; hooks?: { body?: Schema; query?: Schema } }[]) {
    const { body, query } = r.hooks ?? {};
    if ((!body && !query) || documented.has(shape(r.method, r.path)) || !["GET", "POST", "PUT", "PATCH", "DELETE"].includes(r.method))
      continue;
    extra.push({
      method: r.method as Operation["method"],
      path: r.path
        .replace(/\/$/, "")
        .replace(/:([A-Za-z]+)/g, "{$1}")
        .replace(/\*$/, "{talentId}"),
      summary: "",
      access: "public",
      ...(body?.type === "object" ? { body } : {}),
      ...(query?.type === "object"
        ? { query: Object.entries((query.properties ?? {}) as Record<string, Schema>).map(([name, schema]) => ({ name, schema })) }
        : {}),
    });
  }
  return [...OPERATIONS, ...extra];
}

function probes(): Probe[] {
  const out: Probe[] = [];
  for (const op of operations()) {
    if (op.body) {
      const props = (op.body.properties ?? {}) as Record<string, Schema>;
      const required = (op.body.required ?? []) as string[];
      const base = Object.fromEntries(required.map((r) => [r, plausible(props[r]!, r)]));
      for (const [field, schema] of Object.entries(props)) {
        for (const wrong of wrongValues(schema))
          out.push({ op, where: "body", field, what: `${field}=${JSON.stringify(wrong)}`, body: { ...base, [field]: wrong } });
      }
      for (const field of required) {
        const { [field]: _, ...rest } = base;
        out.push({ op, where: "body", field, what: `${field} missing`, body: rest });
      }
      out.push({ op, where: "body", field: "", what: "an unknown property", body: { ...base, unexpectedField: 1 } });
    }
    for (const q of op.query ?? []) {
      const s = q.schema as Schema;
      const bad =
        s.type === "integer" ? ["not-a-number", "1.5", String((s.maximum ?? 1e9) + 1)] : s.enum ? ["not-one-of-them"] : ["x".repeat(3000)];
      for (const v of bad)
        out.push({ op, where: "query", field: q.name, what: `?${q.name}=${v.slice(0, 20)}`, query: `${q.name}=${encodeURIComponent(v)}` });
    }
  }
  return out;
}

/**
 * What is wrong with one issue of a 400: a TypeBox default text, or no field named. The field is
 * named by the issue's path and the message either names it too ("tools must be a list …") or
 * reads as what the path must be ("must be a whole number from 1 to 90": pages show
 * `<code>days</code> must be …`, the answer's message `days: must be …`). An issue of the whole
 * body (path "") names the fields it is about ("send at least one of name, description").
 */
function issueProblem(issue: Issue, fields: string[] = []): string | null {
  if (typeof issue?.message !== "string" || typeof issue.path !== "string") return "not {path, message} strings";
  const message = issue.message.trim();
  if (TYPEBOX_DEFAULT.test(message)) return `TypeBox's default text "${issue.message}"`;
  const field =
    issue.path
      .split(/[./]/)
      .filter((p) => !/^\d+$/.test(p))
      .pop() ?? "";
  if (!field) return fields.some((f) => message.includes(f)) ? null : `no field named (path "${issue.path}", "${issue.message}")`;
  if (
    !message.toLowerCase().includes(field.toLowerCase().replace(/s$/, "")) &&
    !/^(must|is|are|missing|needs?|cannot|has|should)\b/.test(message)
  )
    return `the message "${issue.message}" does not name its field ${issue.path}`;
  return null;
}

/** A probe may switch the active organization or change the owner's role (that is a route's job): put them back. */
async function resetSession(): Promise<void> {
  await live.env.database.client.batch(
    [
      { sql: "UPDATE organizations SET status = 'approved' WHERE id = ?", args: [ids.org!] },
      { sql: "UPDATE sessions SET active_organization_id = ? WHERE user_id = ?", args: [ids.org!, ids.user!] },
      { sql: "UPDATE members SET role = 'owner' WHERE organization_id = ? AND user_id = ?", args: [ids.org!, ids.user!] },
    ],
    "write",
  );
}

async function send(p: Probe, form = false): Promise<Response> {
  await resetSession();
  const headers: Record<string, string> = { origin: live.base, cookie, authorization: `Bearer ${key}` };
  let body: string | undefined;
  if (p.body) {
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      headers.accept = "text/html";
      body = new URLSearchParams(
        Object.entries(p.body).flatMap(([k, v]) =>
          Array.isArray(v) ? v.map((x) => [k, String(x)]) : [[k, typeof v === "object" ? "[object]" : String(v)]],
        ),
      ).toString();
    } else {
      headers["content-type"] = "application/json";
      body = JSON.stringify(p.body);
    }
  }
  return fetch(`${live.base}${urlPath(p.op)}${p.query ? `?${p.query}` : ""}`, {
    method: p.op.method,
    headers,
    body,
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });
}

describe("every 400 validation_failed names the field and says what is expected (never TypeBox's default texts)", () => {
  test("the issue check itself refuses TypeBox's texts and a message without its field", () => {
    expect(issueProblem({ path: "tools", message: "Expected union value" })).toContain("default");
    expect(issueProblem({ path: "name", message: "Expected string" })).toContain("default");
    expect(issueProblem({ path: "x", message: "Unexpected property" })).toContain("default");
    expect(issueProblem({ path: "name", message: "Expected required property" })).toContain("default");
    expect(issueProblem({ path: "enabled", message: "true or false" })).toContain("does not name");
    expect(issueProblem({ path: "enabled", message: "must be true or false" })).toBeNull();
    expect(issueProblem({ path: "", message: "invalid request" }, ["name"])).toContain("no field");
    expect(issueProblem({ path: "", message: "send at least one of name, description" }, ["name", "description"])).toBeNull();
    expect(issueProblem({ path: "talents.0", message: "each of talents must be a talent id" })).toBeNull();
  });

  test("wrong types, unknown properties and missing fields on every route with a body or a query (JSON, over HTTP)", async () => {
    const all = probes();
    expect(all.length).toBeGreaterThan(150);
    expect(all.some((p) => p.op.path === "/setup" && p.where === "body")).toBe(true); // a page's form, not in OPERATIONS
    const failures: string[] = [];
    let refused = 0;
    const answered = new Map<string, Set<number>>();
    for (const p of all) {
      if (p.op.path === "/api/auth/sign-out") continue;
      const r = await send(p);
      const text = await r.text();
      const opKey = `${p.op.method} ${p.op.path}`;
      if (!answered.has(opKey)) answered.set(opKey, new Set());
      answered.get(opKey)!.add(r.status);
      if (r.status !== 400) continue;
      const body = JSON.parse(text);
      if (body.error !== "validation_failed") continue;
      refused++;
      const label = `${p.op.method} ${p.op.path} ${p.what}`;
      if (!Array.isArray(body.issues) || body.issues.length === 0) {
        failures.push(`${label}: no issues`);
        continue;
      }
      for (const issue of body.issues as Issue[]) {
        const problem = issueProblem(
          issue,
          Object.keys((p.op.body?.properties ?? {}) as object).concat((p.op.query ?? []).map((q) => q.name)),
        );
        if (problem) failures.push(`${label}: ${problem}`);
      }
      if (TYPEBOX_DEFAULT.test(String(body.message).replace(/^[\w.]+: /, ""))) failures.push(`${label}: message "${body.message}"`);
    }
    expect(refused).toBeGreaterThan(100);
    // each route's input was really checked: a 400 from each, but for the sign-in redirects that tell errors as /login?error=
    expect(
      [...answered]
        .filter(([, statuses]) => !statuses.has(400) && [...statuses].some((s) => s < 300 || s >= 400))
        .map(([k, v]) => `${k} → ${[...v].join(",")}`),
    ).toEqual([]);
    expect([...new Set(failures)]).toEqual([]);
  }, 120_000);

  test("a browser form post with missing or unknown fields gets the error page without TypeBox's texts", async () => {
    const failures: string[] = [];
    for (const p of probes().filter((x) => x.where === "body" && x.op.path.startsWith("/web/") && !x.what.includes("="))) {
      const r = await send(p, true);
      const text = await r.text();
      if (r.status !== 400) continue;
      // ("Expected revision" is a field's name in words: an expertise's expectedRevision)
      for (const m of text.matchAll(/(Expected (?!revision\b)[a-z ]+|Unexpected property)/g))
        failures.push(`${p.op.method} ${p.op.path} ${p.what}: "${m[1]}" on the page`);
    }
    expect([...new Set(failures)]).toEqual([]);
  }, 120_000);

  test("POST /web/projects/{id}/keys: tools and expiresAt of the wrong type name the field and what it takes", async () => {
    const url = `${live.base}/web/projects/${ids.project}/keys`;
    const post = (body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: { origin: live.base, cookie, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const tools = await post({ name: "k", tools: 42 });
    expect(tools.status).toBe(400);
    expect(await tools.json()).toEqual({
      error: "validation_failed",
      message: "tools must name at least one tool: a list of tool names, or a comma-separated string",
      issues: [{ path: "tools", message: "tools must name at least one tool: a list of tool names, or a comma-separated string" }],
    });
    const expires = await post({ name: "k", tools: ["catalog"], expiresAt: 5 });
    expect(expires.status).toBe(400);
    expect((await expires.json()).issues).toEqual([
      {
        path: "expiresAt",
        message: "expiresAt must be a date and time such as 2030-01-31T00:00:00Z, or null for a key that does not expire",
      },
    ]);
  });
});

describe("the general sentences, on schemas no route uses yet (src/http/schemaIssues.ts)", () => {
  // normalize off: the app strips unknown properties by default, so "Unexpected property" comes only from a route that opts out
  const app = new Elysia({ normalize: false })
    .use(edge({ log: createLogger("error", () => {}), bodyLimit: 65536, accessLog: false }))
    .post("/strict", () => ({ ok: true }), {
      body: t.Object(
        {
          count: t.Integer({ minimum: 1, maximum: 9 }),
          tags: t.Array(t.String({ maxLength: 5 }), { minItems: 1, maxItems: 3 }),
          mode: t.Optional(t.Union([t.Literal("fast"), t.Literal("slow")])),
          when: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()])),
          on: t.Optional(t.Boolean()),
        },
        { additionalProperties: false },
      ),
    })
    .patch("/some", () => ({ ok: true }), {
      body: t.Object({ a: t.Optional(t.String()), b: t.Optional(t.String()) }, { minProperties: 1 }),
    });
  const issuesOf = async (path: string, body: unknown, method = "POST") => {
    const r = await app.handle(
      new Request(`http://localhost${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    );
    expect(r.status).toBe(400);
    return ((await r.json()) as { issues: Issue[] }).issues;
  };
  const ok = { count: 2, tags: ["a"] };

  test("wrong types and bounds: the field and what it takes", async () => {
    expect(await issuesOf("/strict", { count: "two", tags: "a" })).toEqual([
      { path: "count", message: "count must be a whole number from 1 to 9" },
      { path: "tags", message: "tags must be a list of 1 to 3 items, each text of at most 5 characters" },
    ]);
    expect(await issuesOf("/strict", { ...ok, count: 10 })).toEqual([
      { path: "count", message: "count must be a whole number from 1 to 9" },
    ]);
    expect(await issuesOf("/strict", { ...ok, tags: ["a", 7] })).toEqual([
      { path: "tags.1", message: "each item of tags must be text of at most 5 characters" },
    ]);
    expect(await issuesOf("/strict", { ...ok, mode: "medium" })).toEqual([{ path: "mode", message: "mode must be one of fast, slow" }]);
    expect(await issuesOf("/strict", { ...ok, when: 5 })).toEqual([
      { path: "when", message: "when must be a date and time such as 2030-01-31T00:00:00Z or null" },
    ]);
    expect(await issuesOf("/strict", { ...ok, on: "yes" })).toEqual([{ path: "on", message: "on must be true or false" }]);
  });

  test("a missing field is required (one issue, not two); an unknown one is not a field; a body that is not an object; too few properties", async () => {
    expect(await issuesOf("/strict", { tags: ["a"] })).toEqual([
      { path: "count", message: "count is required: a whole number from 1 to 9" },
    ]);
    expect(await issuesOf("/strict", { ...ok, colour: "red" })).toEqual([
      { path: "colour", message: "colour is not a field of this request (its fields: count, tags, mode, when, on)" },
    ]);
    // Elysia hands the validator an array body as an object ({"0": 1})
    expect(await issuesOf("/strict", [1])).toEqual([
      { path: "count", message: "count is required: a whole number from 1 to 9" },
      { path: "tags", message: "tags is required: a list of 1 to 3 items, each text of at most 5 characters" },
      { path: "0", message: "0 is not a field of this request (its fields: count, tags, mode, when, on)" },
    ]);
    expect(await issuesOf("/some", {}, "PATCH")).toEqual([{ path: "", message: "send at least one of a, b" }]);
  });
});
