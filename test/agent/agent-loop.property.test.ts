import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
let key: string;
let resolutionId: string;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
  const o = await orgWithProject(env);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  key = (
    await createKey(o.owner, o.project.id, [
      "prepare_task",
      "validate",
      "record_validation",
      "deepen",
      "doctor",
      "catalog",
      "discover",
      "install",
    ])
  ).value;
  const p = await withKey(env, key, "/api/prepare-task", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ talentIds: ["typescript-strict"] }),
  });
  resolutionId = (await p.json()).resolutionId;
});
afterAll(() => env.close());

const TABLES = ["resolutions", "resolution_items", "reports", "report_results", "installed_talents", "content_blobs"];
async function rowCounts(): Promise<string> {
  const out = [];
  for (const t of TABLES) out.push(`${t}=${(await env.database.client.execute(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n}`);
  return out.join(" ");
}

/** JSON values biased toward the routes' field names, so the properties reach deep validation. */
const fieldNames = fc.constantFrom(
  "talentIds",
  "language",
  "submissionId",
  "resolutionId",
  "expertiseResults",
  "uri",
  "uris",
  "section",
  "query",
  "k",
  "scope",
  "talent",
  "talents",
  "enabled",
  "id",
  "verdict",
  "evidence",
  "missing",
  "note",
);
const leaf = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("typescript-strict", "talent://typescript-strict", "fail", "pass", "src/a.ts:1", "", "__proto__"),
  fc.constant(resolutionId!),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fieldNames, tie("value"), { maxKeys: 5 }),
  ),
})).value;

const BODY_ROUTES: [string, string][] = [
  ["POST", "/api/prepare-task"],
  ["POST", "/api/validation/reports"],
  ["POST", "/api/talents/get"],
  ["PATCH", "/api/projects/current/talents"],
];
const QUERY_ROUTES = [
  "/api/search",
  "/api/validation/playbook",
  "/api/catalog",
  "/api/prepare-task/designable",
  "/api/doctor",
  "/api/discovery/playbook",
];

describe("property: random key-API input never produces a 500 and never writes a row when refused", () => {
  test("random JSON bodies on every body route", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...BODY_ROUTES), json, async ([method, path], body) => {
        const before = await rowCounts();
        const r = await withKey(env, key, path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        expect(r.status).toBeLessThan(500);
        const parsed = await r.json();
        if (r.status >= 400) {
          expect(typeof parsed.error).toBe("string");
          expect(await rowCounts()).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("raw, possibly malformed bodies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...BODY_ROUTES),
        fc.string({ maxLength: 200 }),
        fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded"),
        async ([method, path], raw, type) => {
          const before = await rowCounts();
          const r = await withKey(env, key, path, { method, headers: { "content-type": type }, body: raw });
          expect(r.status).toBeLessThan(500);
          if (r.status >= 400) expect(await rowCounts()).toBe(before);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("random query strings on every GET route", async () => {
    const params = fc.dictionary(
      fc.constantFrom("query", "k", "scope", "resolutionId", "talent", "limit", "cursor"),
      fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.constant(resolutionId!)),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...QUERY_ROUTES), params, async (path, q) => {
        const before = await rowCounts();
        const r = await withKey(env, key, `${path}?${new URLSearchParams(q)}`);
        expect(r.status).toBeLessThan(500);
        expect(await rowCounts()).toBe(before);
      }),
      { numRuns: 300 },
    );
  });
});
