/**
 * Private expertises over HTTP (docs/api-expertises.md; docs/design.md "Organizations and their data",
 * rules 2–3).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EXPERTISE_STATUSES, type ExpertiseStatus } from "../../src/db/schema";
import { LIFECYCLE_MOVES, LIFECYCLE_OPERATIONS } from "../../src/expertises/lifecycle";
import { makePlatformAdmin, orgWithProject, signedUp, talentMd, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const BASE = "/web/orgs/current/expertises";
type Client = Awaited<ReturnType<typeof signedUp>>;

/** An approved organization with an owner, an admin and a member. */
async function team() {
  const { owner, org } = await orgWithProject(env);
  const join = async (role: "admin" | "member") => {
    const c = await signedUp(env);
    const inv = await owner.post("/web/orgs/current/invitations", { email: c.email, role });
    const acc = await c.post(`/web/invitations/${inv.body.id}/accept`);
    if (acc.status !== 200) throw new Error(`accept failed: ${JSON.stringify(acc.body)}`);
    return c;
  };
  return { owner, org, admin: await join("admin"), member: await join("member") };
}

let slugSeq = 0;
const nextSlug = (p = "exp") => `${p}-${++slugSeq}`;

/** Creates an expertise (valid content by default) and returns its detail. */
async function create(c: WebClient, slug = nextSlug(), content = talentMd(slug), files?: Record<string, string>) {
  const r = await c.post(BASE, files ? { slug, content, files } : { slug, content });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const TRIGGERS = { files: ["**/*.ts"], keywords: ["payments"] };

/** Brings a new valid expertise to `state` through the routes. */
async function inState(c: WebClient, state: ExpertiseStatus, slug = nextSlug(state)) {
  const e = await create(c, slug);
  if (state === "draft") return e;
  expect((await c.put(`${BASE}/${e.id}/triggers`, TRIGGERS)).status).toBe(200);
  expect((await c.post(`${BASE}/${e.id}/publish`)).status).toBe(200);
  if (state === "published") return (await c.get(`${BASE}/${e.id}`)).body;
  expect((await c.post(`${BASE}/${e.id}/activate`)).status).toBe(200);
  if (state === "active") return (await c.get(`${BASE}/${e.id}`)).body;
  expect((await c.post(`${BASE}/${e.id}/deactivate`)).status).toBe(200);
  return (await c.get(`${BASE}/${e.id}`)).body;
}

let acme: Awaited<ReturnType<typeof team>>;
beforeAll(async () => {
  acme = await team();
});

describe("authoring", () => {
  test("create → 201 draft: id exp_…, ref @org/slug, revision 1, no version, working copy as sent", async () => {
    const slug = nextSlug("payments");
    const content = talentMd(slug, { triggers: "__omit__" });
    const r = await acme.owner.post(BASE, { slug, content, files: { "references/more.md": "# More\n" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      ref: `@${acme.org.slug}/${slug}`,
      slug,
      status: "draft",
      revision: 1,
      publishedVersion: 0,
      serving: null,
      title: `Title of ${slug}`,
      working: { content, files: { "references/more.md": "# More\n" } },
      triggers: null,
      triggersConfirmedAt: null,
      versions: [],
      allowedOperations: ["publish"],
      verification: { valid: true, triggersConfirmed: false, publishable: false, issues: [] },
      createdBy: { id: acme.owner.userId, email: acme.owner.email },
    });
    expect(r.body.id).toMatch(/^exp_[0-9A-Z]{26}$/);
    expect((await acme.owner.get(`${BASE}/${r.body.id}`)).body).toEqual(r.body);
  });

  test("a draft need not be valid: it is a working copy; the detail says what the validator finds", async () => {
    const r = await acme.admin.post(BASE, { slug: nextSlug("wip"), content: "just some notes" });
    expect(r.status).toBe(201);
    expect(r.body.verification.valid).toBe(false);
    expect(r.body.verification.issues[0].path).toBe(`@${acme.org.slug}/${r.body.slug}/TALENT.md: front matter`);
    expect((await acme.admin.post(BASE, { slug: nextSlug("empty"), content: "" })).status).toBe(201);
  });

  test("mass assignment: status, revision, publishedVersion, triggers in the body change nothing", async () => {
    const slug = nextSlug();
    const r = await acme.owner.post(BASE, {
      slug,
      content: talentMd(slug),
      status: "active",
      revision: 99,
      publishedVersion: 7,
      triggers: TRIGGERS,
      organizationId: "org_x",
    });
    expect(r.body).toMatchObject({ status: "draft", revision: 1, publishedVersion: 0, triggers: null });
  });

  const badCreate: [string, Record<string, unknown>, string][] = [
    ["no slug", { content: "x" }, "slug"],
    ["an upper-case slug", { slug: "Payments", content: "x" }, "slug"],
    ["a slug with a double dash", { slug: "a--b", content: "x" }, "slug"],
    ["a slug of 65 characters", { slug: "a".repeat(65), content: "x" }, "slug"],
    ["a slug that is not a string", { slug: 12, content: "x" }, "slug"],
    ["no content", { slug: "ok-slug" }, "content"],
    ["content that is not a string", { slug: "ok-slug", content: { a: 1 } }, "content"],
    ["content over 256 KiB", { slug: "ok-slug", content: "x".repeat(256 * 1024 + 1) }, "content"],
    ["files that is a list", { slug: "ok-slug", content: "x", files: ["a.md"] }, "files"],
    ["a file path with ..", { slug: "ok-slug", content: "x", files: { "../etc/passwd": "x" } }, "files.../etc/passwd"],
    ["an absolute file path", { slug: "ok-slug", content: "x", files: { "/abs.md": "x" } }, "files./abs.md"],
    ["a file named TALENT.md", { slug: "ok-slug", content: "x", files: { "TALENT.md": "x" } }, "files.TALENT.md"],
    ["a file that is not text", { slug: "ok-slug", content: "x", files: { "a.md": 3 } }, "files.a.md"],
    ["a file over 256 KiB", { slug: "ok-slug", content: "x", files: { "a.md": "y".repeat(256 * 1024 + 1) } }, "files.a.md"],
    [
      "51 files",
      { slug: "ok-slug", content: "x", files: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}.md`, "x"])) },
      "files",
    ],
  ];
  for (const [what, body, path] of badCreate) {
    test(`create with ${what} → 400 validation_failed on ${path}, nothing stored`, async () => {
      const before = (await acme.owner.get(BASE)).body.expertises.length;
      const r = await acme.owner.post(BASE, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect(r.body.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect((await acme.owner.get(BASE)).body.expertises.length).toBe(before);
    });
  }

  test("a body that is not an object → 400", async () => {
    const r = await acme.owner.json("POST", BASE, [1, 2]);
    expect(r.status).toBe(400);
    const raw = await acme.owner.call("POST", BASE, undefined, { "content-type": "application/json" });
    expect(raw.status).toBe(400);
  });

  test("the slug is unique in the organization (409 conflict), not across organizations", async () => {
    const slug = nextSlug("shared");
    await create(acme.owner, slug);
    const dup = await acme.admin.post(BASE, { slug, content: "" });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: "conflict", field: "slug" });
    const other = await orgWithProject(env);
    expect((await other.owner.post(BASE, { slug, content: "" })).status).toBe(201);
  });

  test("the slug of a deleted expertise stays reserved (409 conflict naming the deletion)", async () => {
    const e = await create(acme.owner);
    expect((await acme.owner.del(`${BASE}/${e.id}`)).status).toBe(200);
    const again = await acme.owner.post(BASE, { slug: e.slug, content: "" });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("deleted");
  });

  test("GET of an unknown id → 404 not_found", async () => {
    const r = await acme.owner.get(`${BASE}/exp_01ARZ3NDEKTSV4RRFFQ69G5FAV`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not_found");
  });

  test("form-encoded creation works (files as JSON text)", async () => {
    const slug = nextSlug("form");
    const res = await acme.owner.call("POST", BASE, undefined, {});
    expect(res.status).toBe(400);
    const form = new URLSearchParams({ slug, content: talentMd(slug), files: JSON.stringify({ "notes.md": "n" }) });
    const r = await env.request(BASE, {
      method: "POST",
      headers: { cookie: acme.owner.cookie!, origin: "http://localhost:8787", "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(r.status).toBe(201);
    expect((await r.json()).working.files).toEqual({ "notes.md": "n" });
  });
});

describe("the filtered list (GET /web/orgs/current/expertises?status=&text=&trigger=)", () => {
  let org: Awaited<ReturnType<typeof team>>;
  let ids: Record<string, string>;
  beforeAll(async () => {
    org = await team();
    const draft = await create(
      org.owner,
      "billing-rules",
      talentMd("billing-rules", { title: "Invoices and billing", summary: "How invoices are built. Designate when touching invoices." }),
    );
    const active = await inState(org.owner, "active", "auth-flows");
    const inactive = await inState(org.owner, "inactive", "old-stuff");
    await org.owner.put(`${BASE}/${inactive.id}/triggers`, { files: ["migrations/**", "**/*.sql"], keywords: ["Schema Change"] });
    ids = { draft: draft.id, active: active.id, inactive: inactive.id };
  });
  const slugs = async (q: string) => {
    const r = await org.admin.get(`${BASE}${q}`);
    expect(r.status).toBe(200);
    return r.body.expertises.map((e: { slug: string }) => e.slug);
  };

  test("all of the organization's, by slug; items carry no working content", async () => {
    expect(await slugs("")).toEqual(["auth-flows", "billing-rules", "old-stuff"]);
    const item = (await org.admin.get(BASE)).body.expertises[0];
    expect(item).not.toHaveProperty("working");
    expect(Object.keys(item).sort()).toEqual([
      "createdAt",
      "id",
      "publishedDeclaredVersion",
      "publishedVersion",
      "ref",
      "revision",
      "serving",
      "slug",
      "status",
      "summary",
      "title",
      "triggers",
      "triggersConfirmedAt",
      "updatedAt",
    ]);
  });
  test("status filter (one or several, comma-separated)", async () => {
    expect(await slugs("?status=draft")).toEqual(["billing-rules"]);
    expect(await slugs("?status=active,inactive")).toEqual(["auth-flows", "old-stuff"]);
    expect(await slugs("?status=published")).toEqual([]);
  });
  test("text: case-insensitive over slug, title and summary", async () => {
    expect(await slugs("?text=INVOICE")).toEqual(["billing-rules"]);
    expect(await slugs("?text=auth-fl")).toEqual(["auth-flows"]);
    expect(await slugs("?text=nothing-like-this")).toEqual([]);
  });
  test("trigger: a confirmed keyword (any case), a confirmed glob, or a path one of the globs matches", async () => {
    expect(await slugs("?trigger=schema%20change")).toEqual(["old-stuff"]);
    expect(await slugs("?trigger=payments")).toEqual(["auth-flows"]);
    expect(await slugs("?trigger=migrations/**")).toEqual(["old-stuff"]);
    expect(await slugs("?trigger=db/0001_init.sql")).toEqual(["old-stuff"]);
    expect(await slugs("?trigger=src/app.ts")).toEqual(["auth-flows"]);
  });
  test("deleted expertises are not listed", async () => {
    const e = await create(org.owner, "to-delete");
    expect(await slugs("?text=to-delete")).toEqual(["to-delete"]);
    await org.owner.del(`${BASE}/${e.id}`);
    expect(await slugs("?text=to-delete")).toEqual([]);
  });
  test("bad filters → 400 validation_failed", async () => {
    for (const q of ["?status=archived", "?status=draft,gone", `?text=${"x".repeat(201)}`, `?trigger=${"y".repeat(201)}`]) {
      const r = await org.admin.get(`${BASE}${q}`);
      expect(`${q.slice(0, 20)} → ${r.status} ${r.body.error}`).toBe(`${q.slice(0, 20)} → 400 validation_failed`);
    }
  });
  test("another organization's list does not show them", async () => {
    expect((await acme.owner.get(`${BASE}?text=billing-rules`)).body.expertises).toEqual([]);
    expect(ids.draft).toBeDefined();
  });
});

describe("working version and revision (organization rule 3)", () => {
  test("PATCH with the current revision → 200, revision + 1, content and files replaced", async () => {
    const e = await create(acme.owner, undefined, undefined, { "a.md": "a", "b.md": "b" });
    const r = await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: "new text", files: { "c.md": "c" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ revision: 2, working: { content: "new text", files: { "c.md": "c" } } });
    const only = await acme.admin.patch(`${BASE}/${e.id}`, { expectedRevision: 2, files: {} });
    expect(only.body).toMatchObject({ revision: 3, working: { content: "new text", files: {} } });
    const contentOnly = await acme.admin.patch(`${BASE}/${e.id}`, { expectedRevision: "3", content: "third" });
    expect(contentOnly.body).toMatchObject({ revision: 4, working: { content: "third", files: {} } });
  });

  test("a stale expectedRevision → 409 expertise_revision_conflict with current: the server's working version and revision", async () => {
    const e = await create(acme.owner, undefined, "first", { "x.md": "x" });
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: "second" });
    const r = await acme.admin.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: "mine" });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      error: "expertise_revision_conflict",
      message: expect.stringContaining("revision 2"),
      expectedRevision: 1,
      current: { revision: 2, content: "second", files: { "x.md": "x" }, updatedAt: expect.any(String) },
    });
    expect((await acme.owner.get(`${BASE}/${e.id}`)).body).toMatchObject({ revision: 2, working: { content: "second" } });
    // a revision from the future is stale too
    expect((await acme.admin.patch(`${BASE}/${e.id}`, { expectedRevision: 3, content: "mine" })).status).toBe(409);
  });

  test("20 concurrent PATCHes with the same expectedRevision: exactly one 200, the others 409; the revision grows by exactly the number of successes", async () => {
    const e = await create(acme.owner);
    let revision = 1;
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? acme.owner : acme.admin).patch(`${BASE}/${e.id}`, { expectedRevision: revision, content: `round ${round} writer ${i}` }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length).toBe(1);
      expect(results.filter((r) => r.status === 409).length).toBe(19);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.current.revision).toBe(revision + 1);
      const now = (await acme.owner.get(`${BASE}/${e.id}`)).body;
      expect(now.revision).toBe(revision + 1);
      expect(now.working.content).toBe(ok[0]!.body.working.content);
      revision = now.revision;
    }
    expect(revision).toBe(4);
  });

  const badPatch: [string, Record<string, unknown>, string][] = [
    ["no expectedRevision", { content: "x" }, "expectedRevision"],
    ["a non-integer expectedRevision", { expectedRevision: 1.5, content: "x" }, "expectedRevision"],
    ["a zero expectedRevision", { expectedRevision: 0, content: "x" }, "expectedRevision"],
    ["a textual expectedRevision", { expectedRevision: "one", content: "x" }, "expectedRevision"],
    ["nothing to change", { expectedRevision: 1 }, ""],
    ["content that is not a string", { expectedRevision: 1, content: 5 }, "content"],
    ["a bad file path", { expectedRevision: 1, files: { "a/../b.md": "x" } }, "files.a/../b.md"],
  ];
  for (const [what, body, path] of badPatch) {
    test(`PATCH with ${what} → 400 validation_failed on "${path}", revision unchanged`, async () => {
      const e = await create(acme.owner);
      const r = await acme.owner.patch(`${BASE}/${e.id}`, body);
      expect(r.status).toBe(400);
      expect(r.body.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect((await acme.owner.get(`${BASE}/${e.id}`)).body.revision).toBe(1);
    });
  }

  test("PATCH of an unknown or deleted expertise → 404", async () => {
    expect((await acme.owner.patch(`${BASE}/exp_nope`, { expectedRevision: 1, content: "x" })).status).toBe(404);
    const e = await create(acme.owner);
    await acme.owner.del(`${BASE}/${e.id}`);
    expect((await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: "x" })).status).toBe(404);
  });

  test("editing an active expertise changes only the working version: it keeps serving its published version", async () => {
    const e = await inState(acme.owner, "active");
    const r = await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: e.revision, content: "broken now" });
    expect(r.body).toMatchObject({ status: "active", publishedVersion: 1, serving: 1, verification: { valid: false } });
    const v1 = await acme.owner.get(`${BASE}/${e.id}/versions/1`);
    expect(v1.body.content).toBe(e.working.content);
  });
});

describe("triggers", () => {
  const content = (slug: string) =>
    talentMd(
      slug,
      { triggers: "__omit__", languages: "[sql]" },
      [
        "## Ledger entries",
        "Keep `src/ledger/entries.ts` small; migrations go in `db/migrations/`.",
        "```ts",
        "const entry = ledger.post(amount);",
        "```",
        "```sql",
        "SELECT 1;",
        "```",
      ].join("\n"),
    );

  test("POST …/trigger-proposal: file globs from the languages, keywords from languages, id and title, each with why; nothing from prose; deterministic", async () => {
    const slug = nextSlug("ledger");
    const e = await create(acme.owner, slug, content(slug));
    const a = await acme.owner.post(`${BASE}/${e.id}/trigger-proposal`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ id: e.id, revision: 1, confirmed: null, triggersConfirmedAt: null });
    // the body's `src/ledger/entries.ts`, `db/migrations/` and its ts fence suggest nothing
    expect(a.body.files).toEqual([{ value: "**/*.sql", why: 'language "sql" in the front matter' }]);
    const keywords = a.body.keywords.map((k: { value: string }) => k.value);
    expect(keywords).toEqual(["sql", "ledger", "title"]);
    for (const t of [...a.body.files, ...a.body.keywords]) expect(t.why.length).toBeGreaterThan(5);
    const b = await acme.admin.post(`${BASE}/${e.id}/trigger-proposal`);
    expect(b.body).toEqual(a.body);
    // the proposal depends on the content only, not on the revision or the expertise
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: content(slug) });
    const c = await acme.owner.post(`${BASE}/${e.id}/trigger-proposal`);
    expect({ files: c.body.files, keywords: c.body.keywords }).toEqual({ files: a.body.files, keywords: a.body.keywords });
    expect(c.body.revision).toBe(2);
  });

  test("PUT …/triggers confirms the chosen set: keywords lower-cased, duplicates dropped, triggersConfirmedAt recorded; the revision does not move", async () => {
    const e = await create(acme.owner);
    const r = await acme.owner.put(`${BASE}/${e.id}/triggers`, {
      files: ["src/**/*.ts", "src/**/*.ts"],
      keywords: ["Ledger", "ledger", "  double  entry "],
    });
    expect(r.status).toBe(200);
    expect(r.body.triggers).toEqual({ files: ["src/**/*.ts"], keywords: ["ledger", "double entry"] });
    expect(Date.parse(r.body.triggersConfirmedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(r.body.revision).toBe(1);
    expect(r.body.verification).toMatchObject({ triggersConfirmed: true, publishable: true });
    const only = await acme.owner.put(`${BASE}/${e.id}/triggers`, { keywords: ["ledger"] });
    expect(only.body.triggers).toEqual({ files: [], keywords: ["ledger"] });
  });

  const badTriggers: [string, Record<string, unknown>, string][] = [
    ["nothing", {}, ""],
    ["an empty set", { files: [], keywords: [] }, ""],
    ["a glob with ..", { files: ["../**"] }, "files[0]"],
    ["an absolute glob", { files: ["src/**", "/etc/*"] }, "files[1]"],
    ["an unbalanced glob", { files: ["src/{a,b"] }, "files[0]"],
    ["files that is a string", { files: "**/*.ts" }, "files"],
    ["an empty keyword", { keywords: ["ok", " "] }, "keywords[1]"],
    ["a keyword that is not a string", { keywords: [3] }, "keywords[0]"],
    ["a keyword over 80 characters", { keywords: ["k".repeat(81)] }, "keywords[0]"],
    ["51 globs", { files: Array.from({ length: 51 }, (_, i) => `d${i}/**`) }, "files"],
    ["a bad expectedRevision", { keywords: ["a"], expectedRevision: -1 }, "expectedRevision"],
  ];
  for (const [what, body, path] of badTriggers) {
    test(`PUT …/triggers with ${what} → 400 validation_failed on "${path}", nothing confirmed`, async () => {
      const e = await create(acme.owner);
      const r = await acme.owner.put(`${BASE}/${e.id}/triggers`, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect(r.body.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect((await acme.owner.get(`${BASE}/${e.id}`)).body.triggersConfirmedAt).toBeNull();
    });
  }

  test("PUT …/triggers with a stale expectedRevision → 409 expertise_revision_conflict; with the current one → 200", async () => {
    const e = await create(acme.owner);
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: "changed" });
    const stale = await acme.owner.put(`${BASE}/${e.id}/triggers`, { keywords: ["x"], expectedRevision: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: "expertise_revision_conflict", current: { revision: 2, content: "changed" } });
    expect((await acme.owner.put(`${BASE}/${e.id}/triggers`, { keywords: ["x"], expectedRevision: 2 })).status).toBe(200);
  });

  test("trigger routes on an unknown or deleted expertise → 404", async () => {
    expect((await acme.owner.post(`${BASE}/exp_nope/trigger-proposal`)).status).toBe(404);
    expect((await acme.owner.put(`${BASE}/exp_nope/triggers`, TRIGGERS)).status).toBe(404);
    const e = await create(acme.owner);
    await acme.owner.del(`${BASE}/${e.id}`);
    expect((await acme.owner.post(`${BASE}/${e.id}/trigger-proposal`)).status).toBe(404);
    expect((await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS)).status).toBe(404);
  });

  test("a published version keeps the triggers confirmed when it was published", async () => {
    const e = await inState(acme.owner, "published");
    await acme.owner.put(`${BASE}/${e.id}/triggers`, { keywords: ["changed"] });
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: e.revision, content: e.working.content + "\nMore.\n" });
    await acme.owner.post(`${BASE}/${e.id}/publish`);
    const d = (await acme.owner.get(`${BASE}/${e.id}`)).body;
    expect(d.versions.map((v: { triggers: unknown }) => v.triggers)).toEqual([TRIGGERS, { files: [], keywords: ["changed"] }]);
  });
});

describe("lifecycle (docs/api-expertises.md state machine)", () => {
  test("the documented table", () => {
    expect(LIFECYCLE_MOVES).toEqual({
      publish: { draft: "published", published: "published", active: "active", inactive: "inactive" },
      activate: { published: "active" },
      deactivate: { active: "inactive" },
      reactivate: { inactive: "active" },
    });
  });

  for (const from of EXPERTISE_STATUSES) {
    for (const op of LIFECYCLE_OPERATIONS) {
      const to = LIFECYCLE_MOVES[op][from];
      test(`${op} from ${from} → ${to ? `200 ${to}` : "409 invalid_transition"}`, async () => {
        const e = await inState(acme.owner, from);
        const versionsBefore = e.versions.length;
        if (from === "draft") await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS);
        if (op === "publish" && from !== "draft") {
          // something new to publish
          const p = await acme.owner.patch(`${BASE}/${e.id}`, {
            expectedRevision: e.revision,
            content: e.working.content + "\nOne more line.\n",
          });
          expect(p.status).toBe(200);
        }
        const r = await acme.owner.post(`${BASE}/${e.id}/${op}`);
        const after = (await acme.owner.get(`${BASE}/${e.id}`)).body;
        if (to) {
          expect(r.status).toBe(200);
          expect(r.body.status).toBe(to);
          expect(after.status).toBe(to);
          if (op === "publish") {
            expect(r.body.published).toEqual({ version: versionsBefore + 1, created: true });
            expect(after.publishedVersion).toBe(versionsBefore + 1);
            expect(after.versions.length).toBe(versionsBefore + 1);
            expect(after.serving).toBe(to === "active" ? versionsBefore + 1 : null);
          } else {
            expect(after.versions.length).toBe(versionsBefore);
            expect(after.serving).toBe(to === "active" ? after.publishedVersion : null);
          }
        } else {
          expect(r.status).toBe(409);
          expect(r.body).toMatchObject({ error: "invalid_transition", status: from, operation: op });
          expect(r.body.message).toContain(from);
          expect(r.body.allowed).toEqual(LIFECYCLE_OPERATIONS.filter((o) => LIFECYCLE_MOVES[o][from]));
          expect(after.status).toBe(from);
          expect(after.versions.length).toBe(versionsBefore);
        }
      });
    }
    test(`DELETE from ${from} → 200, then 404 on every route`, async () => {
      const e = await inState(acme.owner, from);
      const d = await acme.owner.del(`${BASE}/${e.id}`);
      expect(d.status).toBe(200);
      expect(d.body).toEqual({ deleted: e.id });
      const calls: [string, string, unknown?][] = [
        ["GET", ""],
        ["PATCH", "", { expectedRevision: e.revision, content: "x" }],
        ["DELETE", ""],
        ["POST", "/trigger-proposal"],
        ["PUT", "/triggers", TRIGGERS],
        ...LIFECYCLE_OPERATIONS.map((op): [string, string] => ["POST", `/${op}`]),
        ["GET", "/versions/1"],
      ];
      for (const [method, suffix, body] of calls) {
        const r = await acme.owner.json(
          method,
          `${BASE}/${e.id}${suffix}`,
          body ?? (method === "GET" || method === "DELETE" ? undefined : {}),
        );
        expect(`${method} ${suffix} → ${r.status}`).toBe(`${method} ${suffix} → 404`);
      }
    });
  }

  test("activate needs a published version: from draft the 409 says so", async () => {
    const e = await create(acme.owner);
    const r = await acme.owner.post(`${BASE}/${e.id}/activate`);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("publish it first");
  });

  test("lifecycle on an unknown id → 404", async () => {
    for (const op of LIFECYCLE_OPERATIONS) expect((await acme.owner.post(`${BASE}/exp_nope/${op}`)).status).toBe(404);
  });
});

describe("publication: the validator's findings, confirmed triggers, immutable versions", () => {
  test("invalid content → 400 validation_failed with the validator's findings as issues (path '<file>: <field>')", async () => {
    const slug = nextSlug("bad");
    const e = await create(acme.owner, slug, talentMd(slug, { budget: "50", rules: "[]" }));
    await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS);
    const r = await acme.owner.post(`${BASE}/${e.id}/publish`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    const file = `@${acme.org.slug}/${slug}/TALENT.md`;
    expect(r.body.issues).toEqual(
      expect.arrayContaining([
        { path: `${file}: budget`, message: expect.stringContaining("100 to 4000") },
        { path: `${file}: rules`, message: expect.stringContaining("3 to 12") },
      ]),
    );
    expect((await acme.owner.get(`${BASE}/${e.id}`)).body).toMatchObject({ status: "draft", publishedVersion: 0, versions: [] });
  });

  test("front matter id must equal the slug: the message names the expertise's id, never a folder", async () => {
    const slug = nextSlug("idm");
    const e = await create(acme.owner, slug, talentMd("some-other-id"));
    await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS);
    const r = await acme.owner.post(`${BASE}/${e.id}/publish`);
    expect(r.status).toBe(400);
    expect(r.body.issues).toContainEqual({
      path: `@${acme.org.slug}/${slug}/TALENT.md: id`,
      message: `"some-other-id" must be the expertise's id "${slug}" (the slug it was created with)`,
    });
  });

  test("links are checked against the public catalog: requires/conflicts must exist, pointers must reach an existing file", async () => {
    const cases: [string, Record<string, string>, string, Record<string, string>, number, string?][] = [
      ["requires a public talent", { requires: "[typescript-strict]" }, "Body.", {}, 200],
      ["requires an unknown talent", { requires: "[no-such-talent]" }, "Body.", {}, 400, "requires"],
      ["conflicts with an unknown talent", { conflicts: "[no-such-talent]" }, "Body.", {}, 400, "conflicts"],
      ["points to a public talent's file", {}, "See [keyset](talent://api-pagination/references/keyset-pagination.md).", {}, 200],
      ["points to a missing public file", {}, "See [x](talent://api-pagination/references/none.md).", {}, 400, "body"],
      ["points to an unknown talent", {}, "See [x](talent://no-such-talent).", {}, 400, "body"],
      ["points to its own file", {}, "See [more](talent://@ORG/SLUG/references/more.md).", { "references/more.md": "# More" }, 200],
      ["points to a missing own file", {}, "See [more](talent://@ORG/SLUG/references/gone.md).", {}, 400, "body"],
      ["points to another expertise", {}, "See [x](talent://@ORG/other/README.md).", {}, 400, "body"],
    ];
    for (const [what, over, body, files, status, field] of cases) {
      const slug = nextSlug("link");
      const e = await create(
        acme.owner,
        slug,
        talentMd(slug, over, body.replace("@ORG", `@${acme.org.slug}`).replace("SLUG", slug)),
        files,
      );
      await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS);
      const r = await acme.owner.post(`${BASE}/${e.id}/publish`);
      expect(`${what} → ${r.status}`).toBe(`${what} → ${status}`);
      if (field) expect(r.body.issues.map((i: { path: string }) => i.path)).toContain(`@${acme.org.slug}/${slug}/TALENT.md: ${field}`);
    }
  });

  test("no triggers (none confirmed, none in the front matter) → 409 invalid_transition, reason triggers_not_confirmed; invalid content is reported first (400)", async () => {
    const slug = nextSlug("notrig");
    const e = await create(acme.owner, slug, talentMd(slug, { triggers: "__omit__" }));
    const r = await acme.owner.post(`${BASE}/${e.id}/publish`);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: "invalid_transition", status: "draft", operation: "publish", reason: "triggers_not_confirmed" });
    const bad = await create(acme.owner, undefined, "not a talent");
    expect((await acme.owner.post(`${BASE}/${bad.id}/publish`)).status).toBe(400);
  });

  test("publish with a stale expectedRevision → 409 expertise_revision_conflict; with the current one → 200", async () => {
    const e = await create(acme.owner);
    await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS);
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: 1, content: e.working.content + "\nEdit.\n" });
    const stale = await acme.owner.post(`${BASE}/${e.id}/publish`, { expectedRevision: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toBe("expertise_revision_conflict");
    expect(stale.body.current.revision).toBe(2);
    expect((await acme.owner.post(`${BASE}/${e.id}/publish`, { expectedRevision: "x" })).status).toBe(400);
    expect((await acme.owner.post(`${BASE}/${e.id}/publish`, { expectedRevision: 2 })).status).toBe(200);
  });

  test("publishing what the latest version already holds adds no version (created: false)", async () => {
    const e = await inState(acme.owner, "published");
    const again = await acme.owner.post(`${BASE}/${e.id}/publish`);
    expect(again.status).toBe(200);
    expect(again.body.published).toEqual({ version: 1, created: false });
    expect(again.body.versions.length).toBe(1);
    // the same content with other confirmed triggers is a new version
    await acme.owner.put(`${BASE}/${e.id}/triggers`, { keywords: ["other"] });
    expect((await acme.owner.post(`${BASE}/${e.id}/publish`)).body.published).toEqual({ version: 2, created: true });
  });

  test("versions are immutable and listed: GET …/versions/:n reads what was published, whatever the working copy became", async () => {
    const e = await inState(acme.owner, "active");
    const v1Content = e.working.content;
    const v2Content = v1Content.replace("Do the thing well.", "Do the thing better.");
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: e.revision, content: v2Content, files: { "notes.md": "v2 notes" } });
    const pub = await acme.admin.post(`${BASE}/${e.id}/publish`);
    expect(pub.body).toMatchObject({ status: "active", publishedVersion: 2, serving: 2 });
    await acme.owner.patch(`${BASE}/${e.id}`, { expectedRevision: e.revision + 1, content: "scratch", files: {} });
    const d = (await acme.owner.get(`${BASE}/${e.id}`)).body;
    expect(d.versions).toEqual([
      {
        version: 1,
        publishedAt: expect.any(String),
        publishedBy: { id: acme.owner.userId, email: acme.owner.email },
        contentDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        files: {},
        triggers: TRIGGERS,
        declaredVersion: "1.0.0",
      },
      {
        version: 2,
        publishedAt: expect.any(String),
        publishedBy: { id: acme.admin.userId, email: acme.admin.email },
        contentDigest: expect.stringMatching(/^sha256:/),
        files: { "notes.md": expect.stringMatching(/^sha256:/) },
        triggers: TRIGGERS,
        declaredVersion: "1.0.0",
      },
    ]);
    const v1 = await acme.owner.get(`${BASE}/${e.id}/versions/1`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ version: 1, content: v1Content, files: {} });
    const v2 = await acme.owner.get(`${BASE}/${e.id}/versions/2`);
    expect(v2.body).toMatchObject({
      version: 2,
      content: v2Content,
      files: { "notes.md": "v2 notes" },
      fileDigests: { "notes.md": d.versions[1].files["notes.md"] },
    });
    expect((await acme.owner.get(`${BASE}/${e.id}/versions/3`)).status).toBe(404);
    const bad = await acme.owner.get(`${BASE}/${e.id}/versions/one`);
    expect(bad.status).toBe(400);
  });
});

describe("who may call the expertise routes (organization rules 1–2): owner and admin; member, other organization and platform admin see 404", () => {
  let other: Awaited<ReturnType<typeof orgWithProject>>;
  let platform: Client;
  beforeAll(async () => {
    other = await orgWithProject(env);
    platform = await signedUp(env);
    await makePlatformAdmin(env, platform.userId);
    await platform.post("/web/orgs", { name: "Platform admins' own org" });
  });

  /** Each route, with the state its expertise must be in for the call to succeed and the body to send. */
  const routes: {
    name: string;
    method: string;
    path: (id: string) => string;
    state: ExpertiseStatus | null;
    body?: (e: any) => unknown;
    ok: number;
  }[] = [
    { name: "list", method: "GET", path: () => BASE, state: null, ok: 200 },
    { name: "create", method: "POST", path: () => BASE, state: null, body: () => ({ slug: nextSlug("m"), content: "" }), ok: 201 },
    { name: "detail", method: "GET", path: (id) => `${BASE}/${id}`, state: "draft", ok: 200 },
    {
      name: "patch",
      method: "PATCH",
      path: (id) => `${BASE}/${id}`,
      state: "draft",
      body: (e) => ({ expectedRevision: e.revision, content: "changed" }),
      ok: 200,
    },
    { name: "delete", method: "DELETE", path: (id) => `${BASE}/${id}`, state: "draft", ok: 200 },
    { name: "trigger-proposal", method: "POST", path: (id) => `${BASE}/${id}/trigger-proposal`, state: "draft", ok: 200 },
    { name: "triggers", method: "PUT", path: (id) => `${BASE}/${id}/triggers`, state: "draft", body: () => TRIGGERS, ok: 200 },
    { name: "publish", method: "POST", path: (id) => `${BASE}/${id}/publish`, state: "draft", ok: 200 },
    { name: "activate", method: "POST", path: (id) => `${BASE}/${id}/activate`, state: "published", ok: 200 },
    { name: "deactivate", method: "POST", path: (id) => `${BASE}/${id}/deactivate`, state: "active", ok: 200 },
    { name: "reactivate", method: "POST", path: (id) => `${BASE}/${id}/reactivate`, state: "inactive", ok: 200 },
    { name: "version", method: "GET", path: (id) => `${BASE}/${id}/versions/1`, state: "published", ok: 200 },
  ];

  async function prepare(state: ExpertiseStatus | null) {
    if (!state) return { id: "", revision: 1 };
    const e = await inState(acme.owner, state);
    if (state === "draft") await acme.owner.put(`${BASE}/${e.id}/triggers`, TRIGGERS); // publishable
    return (await acme.owner.get(`${BASE}/${e.id}`)).body;
  }
  const call = (c: WebClient, r: (typeof routes)[number], e: any) =>
    c.json(r.method, r.path(e.id), r.body ? r.body(e) : r.method === "GET" || r.method === "DELETE" ? undefined : {});

  for (const r of routes) {
    for (const who of ["owner", "admin"] as const) {
      test(`${r.name}: ${who} → ${r.ok}`, async () => {
        const e = await prepare(r.state);
        const res = await call(acme[who], r, e);
        expect(`${res.status} ${res.body.error ?? ""}`).toBe(`${r.ok} `);
      });
    }
    for (const who of ["member", "another organization's owner", "a platform admin without membership"] as const) {
      test(`${r.name}: ${who} → 404 not_found, nothing changes`, async () => {
        const e = await prepare(r.state);
        const before = e.id ? (await acme.owner.get(`${BASE}/${e.id}`)).body : (await acme.owner.get(BASE)).body;
        const c = who === "member" ? acme.member : who === "another organization's owner" ? other.owner : platform;
        const res = await call(c, r, e);
        if (r.name === "list" && who !== "member") {
          // the list answers, with the caller's own organization's expertises only
          expect(res.status).toBe(200);
          expect(res.body.expertises.map((x: { id: string }) => x.id)).not.toContain(e.id || "none");
          for (const x of res.body.expertises) expect(x.ref.startsWith(`@${acme.org.slug}/`)).toBe(false);
          return;
        }
        if (r.name === "create" && who !== "member") {
          // creates in the caller's own organization, never in another
          expect(res.status).toBe(201);
          expect(res.body.ref.startsWith(`@${acme.org.slug}/`)).toBe(false);
          return;
        }
        expect(`${res.status} ${res.body.error}`).toBe("404 not_found");
        const after = e.id ? (await acme.owner.get(`${BASE}/${e.id}`)).body : (await acme.owner.get(BASE)).body;
        expect(after).toEqual(before);
      });
    }
  }

  test("a member's 404 is the same answer as an unknown id's, even with a malformed body", async () => {
    const e = await prepare("draft");
    const member = await acme.member.patch(`${BASE}/${e.id}`, { nonsense: true });
    const unknown = await acme.owner.patch(`${BASE}/exp_nope`, { expectedRevision: 1, content: "x" });
    expect(member.status).toBe(404);
    expect(member.body).toEqual(unknown.body);
    expect((await acme.member.post(BASE, { slug: "Bad Slug" })).status).toBe(404);
    expect((await acme.member.get(`${BASE}?status=bogus`)).status).toBe(404);
  });

  test("an unapproved organization → 403 organization_not_approved on every route", async () => {
    const c = await signedUp(env);
    await c.post("/web/orgs", { name: "Waiting Room" });
    const e = { id: "exp_whatever", revision: 1 };
    for (const r of routes) {
      const res = await call(c, r, e);
      expect(`${r.name} → ${res.status} ${res.body.error}`).toBe(`${r.name} → 403 organization_not_approved`);
    }
  });

  test("no session → 401 unauthenticated; a foreign Origin → 403 csrf_rejected", async () => {
    const anon = new WebClient(env);
    expect((await anon.get(BASE)).status).toBe(401);
    expect((await anon.post(BASE, { slug: "x", content: "" })).status).toBe(401);
    const cross = await acme.owner.call("POST", BASE, { slug: nextSlug(), content: "" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
  });

  test("switching the active organization switches the scope", async () => {
    const c = await signedUp(env);
    await makePlatformAdmin(env, c.userId); // its organizations are approved at creation
    const a = (await c.post("/web/orgs", { name: "Scope A" })).body.organization;
    const ea = await create(c);
    await c.post("/web/orgs", { name: "Scope B" });
    expect((await c.get(`${BASE}/${ea.id}`)).status).toBe(404);
    await c.post("/web/orgs/active", { organizationId: a.id });
    expect((await c.get(`${BASE}/${ea.id}`)).status).toBe(200);
  });
});
