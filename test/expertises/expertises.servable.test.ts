/**
 * What the agent loop may serve of an organization's expertises (src/expertises/servable.ts):
 * active only, at the latest published version; deactivated or deleted ones
 * are no longer servable, while every published version stays readable for pinned resolutions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getExpertiseVersion, getServableExpertise, listServableExpertises } from "../../src/expertises/servable";
import { digestOf } from "../../src/lib/crypto";
import { nextTurn, orgWithProject, shipped, talentMd, testEnv, type TestEnv, type WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const BASE = "/web/orgs/current/expertises";
const TRIGGERS = { files: ["src/payments/**"], keywords: ["payments", "refund"] };

async function make(c: WebClient, slug: string, opts: { activate?: boolean; body?: string; files?: Record<string, string> } = {}) {
  const created = await c.post(BASE, { slug, content: talentMd(slug, {}, opts.body ?? "Do the thing well."), files: opts.files ?? {} });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await c.put(`${BASE}/${id}/triggers`, TRIGGERS)).status).toBe(200);
  expect((await c.post(`${BASE}/${id}/publish`)).status).toBe(200);
  if (opts.activate !== false) expect((await c.post(`${BASE}/${id}/activate`)).status).toBe(200);
  return id;
}

async function publishNew(c: WebClient, id: string, body: string) {
  const d = (await c.get(`${BASE}/${id}`)).body;
  const p = await c.patch(`${BASE}/${id}`, { expectedRevision: d.revision, content: talentMd(d.slug, {}, body) });
  expect(p.status).toBe(200);
  const r = await c.post(`${BASE}/${id}/publish`);
  expect(r.status).toBe(200);
  return r.body.published.version as number;
}

describe("servable expertises (the contract the agent loop calls)", () => {
  let acme: Awaited<ReturnType<typeof orgWithProject>>;
  let ids: Record<string, string>;
  beforeAll(async () => {
    acme = await orgWithProject(env);
    ids = {
      active: await make(acme.owner, "active-one", {
        body: "Read [more](talent://@ORG/active-one/references/more.md).".replace("@ORG", `@${acme.org.slug}`),
        files: { "references/more.md": "# More\nDetails." },
      }),
      second: await make(acme.owner, "active-two"),
      published: await make(acme.owner, "published-only", { activate: false }),
    };
    const draft = await acme.owner.post(BASE, { slug: "draft-one", content: talentMd("draft-one") });
    ids.draft = draft.body.id;
  });

  test("listServableExpertises: active ones only, by slug, each a validated expertise Talent of its latest version", async () => {
    const list = await listServableExpertises(env.database, acme.org.id, shipped());
    expect(list.map((s) => s.ref)).toEqual([`@${acme.org.slug}/active-one`, `@${acme.org.slug}/active-two`]);
    const one = list[0]!;
    expect(one.expertiseId).toBe(ids.active!);
    expect(one.version).toBe(1);
    const ref = `@${acme.org.slug}/active-one`;
    expect(one.talent).toMatchObject({
      id: ref,
      kind: "expertise",
      uri: `talent://${ref}`,
      version: "1",
      triggers: TRIGGERS,
      title: "Title of active-one",
    });
    expect([...one.talent.files.keys()].sort()).toEqual(["TALENT.md", "references/more.md"]);
    expect(one.talent.files.get("references/more.md")!.content).toBe("# More\nDetails.");
    expect(one.talent.compact).toContain("## Rules");
    expect(one.talent.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test("getServableExpertise by ref: the active one; undefined for draft, published-only, unknown, malformed or another organization's ref", async () => {
    const s = await getServableExpertise(env.database, acme.org.id, `@${acme.org.slug}/active-two`, shipped());
    expect(s?.expertiseId).toBe(ids.second!);
    for (const ref of [
      `@${acme.org.slug}/draft-one`,
      `@${acme.org.slug}/published-only`,
      `@${acme.org.slug}/nope`,
      "active-two",
      `${acme.org.slug}/active-two`,
      "@other-org/active-two",
    ]) {
      expect(await getServableExpertise(env.database, acme.org.id, ref, shipped())).toBeUndefined();
    }
    const other = await orgWithProject(env);
    expect(await getServableExpertise(env.database, other.org.id, `@${acme.org.slug}/active-two`, shipped())).toBeUndefined();
    expect(await listServableExpertises(env.database, other.org.id, shipped())).toEqual([]);
  });

  test("publishing v2 of an active expertise: served at v2 from then on; v1 stays readable through getExpertiseVersion", async () => {
    const id = await make(acme.owner, "versioned", { body: "Version one body." });
    const v2 = await publishNew(acme.owner, id, "Version two body.");
    expect(v2).toBe(2);
    const served = await getServableExpertise(env.database, acme.org.id, `@${acme.org.slug}/versioned`, shipped());
    expect(served?.version).toBe(2);
    expect(served?.talent.version).toBe("2");
    expect(served?.talent.body).toBe("Version two body.");
    const v1 = await getExpertiseVersion(env.database, id, 1, shipped());
    expect(v1?.talent.body).toBe("Version one body.");
    expect(v1?.talent.version).toBe("1");
    expect(v1?.ref).toBe(`@${acme.org.slug}/versioned`);
    expect(await getExpertiseVersion(env.database, id, 3, shipped())).toBeUndefined();
    expect(await getExpertiseVersion(env.database, id, 0, shipped())).toBeUndefined();
    expect(await getExpertiseVersion(env.database, "exp_nope", 1, shipped())).toBeUndefined();
    // a draft edit changes nothing served
    const d = (await acme.owner.get(`${BASE}/${id}`)).body;
    await acme.owner.patch(`${BASE}/${id}`, { expectedRevision: d.revision, content: "scratch" });
    expect((await getServableExpertise(env.database, acme.org.id, `@${acme.org.slug}/versioned`, shipped()))?.talent.body).toBe(
      "Version two body.",
    );
  });

  test("deactivated: no longer servable; reactivated: served again; its versions stay readable meanwhile", async () => {
    const id = await make(acme.owner, "toggled");
    const ref = `@${acme.org.slug}/toggled`;
    expect(await getServableExpertise(env.database, acme.org.id, ref, shipped())).toBeDefined();
    await acme.owner.post(`${BASE}/${id}/deactivate`);
    expect(await getServableExpertise(env.database, acme.org.id, ref, shipped())).toBeUndefined();
    expect((await listServableExpertises(env.database, acme.org.id, shipped())).map((s) => s.ref)).not.toContain(ref);
    expect((await getExpertiseVersion(env.database, id, 1, shipped()))?.ref).toBe(ref);
    await acme.owner.post(`${BASE}/${id}/reactivate`);
    expect((await getServableExpertise(env.database, acme.org.id, ref, shipped()))?.version).toBe(1);
  });

  test("deleted: never servable again; pinned versions still readable (existing resolutions audit against them)", async () => {
    const id = await make(acme.owner, "deleted-one");
    const ref = `@${acme.org.slug}/deleted-one`;
    expect((await acme.owner.del(`${BASE}/${id}`)).status).toBe(200);
    expect(await getServableExpertise(env.database, acme.org.id, ref, shipped())).toBeUndefined();
    expect((await listServableExpertises(env.database, acme.org.id, shipped())).map((s) => s.ref)).not.toContain(ref);
    const pinned = await getExpertiseVersion(env.database, id, 1, shipped());
    expect(pinned?.talent.id).toBe(ref);
  });

  test("the same version read twice is the same object (cached by content digest: versions are immutable)", async () => {
    const a = await getExpertiseVersion(env.database, ids.active!, 1, shipped());
    const b = await getExpertiseVersion(env.database, ids.active!, 1, shipped());
    expect(a!.talent).toBe(b!.talent);
  });
});

describe("servable expertises: the content check of today applies to versions published before it", () => {
  test("a version stored with variation selectors (published before the check refused them) is not served, by list or by ref", async () => {
    const o = await orgWithProject(env);
    const id = await make(o.owner, "legacy-one");
    const ref = `@${o.org.slug}/legacy-one`;
    expect((await listServableExpertises(env.database, o.org.id, shipped())).map((s) => s.ref)).toEqual([ref]);
    // what the version table would hold had it been published before: its TALENT.md with invisible code points
    const content = talentMd("legacy-one", {}, `Do the thing well.${"\u{E0100}\u{E0101}".repeat(20)}`);
    const digest = digestOf(content);
    const c = env.database.client;
    await c.execute({
      sql: "INSERT INTO content_blobs (digest, content, size, created_at) VALUES (?, ?, ?, ?)",
      args: [digest, content, Buffer.byteLength(content), Date.now()],
    });
    await c.execute({
      sql: `INSERT INTO expertise_versions (expertise_id, version, content_digest, files, triggers, published_by, published_at)
            VALUES (?, 2, ?, '{}', ?, NULL, ?)`,
      args: [id, digest, JSON.stringify(TRIGGERS), Date.now()],
    });
    await c.execute({ sql: "UPDATE expertises SET published_version = 2 WHERE id = ?", args: [id] });
    await nextTurn();
    expect(await listServableExpertises(env.database, o.org.id, shipped())).toEqual([]);
    expect(await getServableExpertise(env.database, o.org.id, ref, shipped())).toBeUndefined();
  });
});
