/**
 * The key API behind the MCP Skills extension (docs/api.md "Skills"): every active
 * talent of the project as a skill with a complete manifest whose digests and sizes are those of
 * exactly what a read returns; a private expertise only for its own organization's projects, at
 * its published version; another organization's expertise answered like a URI naming nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseDocument } from "yaml";
import { splitFrontMatter } from "../../src/catalog/frontMatter";
import { sha256Hex } from "../../src/lib/crypto";
import { createKey, orgWithProject, publishedExpertiseOf, talentMd, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const enc = encodeURIComponent;

/** An organization with a project, the given talents installed, an active expertise and a deepen key. */
async function setup(install: string[], opts: { expertise?: boolean; tools?: string[] } = {}) {
  const o = await orgWithProject(env);
  let ref: string | null = null;
  let expertiseId: string | null = null;
  if (opts.expertise) {
    const e = await publishedExpertiseOf(
      o.owner,
      "payments",
      talentMd(
        "payments",
        {},
        "Refunds go through [the ledger](talent://@ORG/payments/references/ledger.md).".replace("@ORG", `@${o.org.slug}`),
      ),
      { "references/ledger.md": "# Ledger\n\nPost twice.\n", "examples/refund.md": "Refund example.\n" },
    );
    ref = e.ref;
    expertiseId = e.id;
  }
  const talents = [...install, ...(ref ? [ref] : [])];
  if (talents.length > 0) {
    const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  }
  const key = (await createKey(o.owner, o.project.id, opts.tools ?? ["deepen"])).value;
  const get = async (path: string) => {
    const res = await withKey(env, key, path);
    return { status: res.status, body: (await res.json()) as any };
  };
  return { ...o, key, ref, expertiseId, get };
}

describe("GET /api/skills: each active talent is a skill with a complete manifest", () => {
  test('"each active talent of the project is a skill at skill://<id>/SKILL.md"; an expertise at skill://~<org>/<slug>/SKILL.md; a disabled talent is not served', async () => {
    const s = await setup(["typescript-strict", "api-pagination", "react-hooks"], { expertise: true });
    await s.owner.patch(`/web/projects/${s.project.id}/talents/react-hooks`, { enabled: false });
    const r = await s.get("/api/skills");
    expect(r.status).toBe(200);
    expect(r.body.skills.map((k: { uri: string }) => k.uri)).toEqual([
      "skill://api-pagination/SKILL.md",
      "skill://typescript-strict/SKILL.md",
      `skill://~${s.org.slug}/payments/SKILL.md`,
    ]);
    expect(r.body.nextCursor).toBeNull();
  });

  test('"resources lists every file exactly once with a sha256: digest and the byte size of exactly what the read returns" (recomputed for every file)', async () => {
    const s = await setup(["typescript-strict", "api-pagination"], { expertise: true });
    const { skills } = (await s.get("/api/skills")).body;
    let files = 0;
    for (const skill of skills) {
      const uris = skill.resources.map((x: { uri: string }) => x.uri);
      expect(new Set(uris).size).toBe(uris.length);
      expect(uris[0]).toBe(skill.uri);
      for (const res of skill.resources) {
        const read = await s.get(`/api/skills/file?uri=${enc(res.uri)}`);
        expect(read.status).toBe(200);
        expect(read.body.uri).toBe(res.uri);
        expect(res.digest).toBe(`sha256:${sha256Hex(read.body.text)}`);
        expect(res.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(res.size).toBe(new TextEncoder().encode(read.body.text).length);
        files++;
      }
    }
    // typescript-strict (SKILL.md + 2 references), api-pagination (+ 1), payments (+ 2)
    expect(files).toBe(3 + 2 + 3);
  });

  test('"frontmatter carries name (= id) and description (= summary) and passes the rest through": the SKILL.md read parses to exactly the entry\'s frontmatter', async () => {
    const s = await setup(["typescript-strict"], { expertise: true });
    const { skills } = (await s.get("/api/skills")).body;
    const ts = skills.find((k: { uri: string }) => k.uri === "skill://typescript-strict/SKILL.md");
    expect(ts.frontmatter).toMatchObject({
      name: "typescript-strict",
      description: env.state.catalog!.get("typescript-strict")!.summary,
      metadata: { version: env.state.catalog!.get("typescript-strict")!.version, title: "Strict TypeScript" },
    });
    expect(JSON.parse(ts.frontmatter.metadata.rules).map((r: { id: string }) => r.id)).toContain("TS-001");
    const pay = skills.find((k: { uri: string }) => k.uri.endsWith("/payments/SKILL.md"));
    // an expertise's name is its slug (the last segment of its skill path), at its published version
    expect(pay.frontmatter).toMatchObject({ name: "payments", metadata: { version: "1" } });
    for (const skill of skills) {
      const text = (await s.get(`/api/skills/file?uri=${enc(skill.uri)}`)).body.text as string;
      expect(parseDocument(splitFrontMatter(text)!.yaml).toJS()).toEqual(skill.frontmatter);
    }
    // own pointers are relative links inside the skill (they resolve against its root)
    const payText = (await s.get(`/api/skills/file?uri=${enc(pay.uri)}`)).body.text as string;
    expect(payText).toContain("Refunds go through [the ledger](references/ledger.md).");
  });

  test("paged: limit and nextCursor walk every skill once; a cursor that this route did not return → 400 validation_failed naming cursor; limit out of range → 400", async () => {
    const s = await setup(["typescript-strict", "api-pagination", "react-hooks", "sql-base"], { expertise: true });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await s.get(`/api/skills?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      expect(r.body.skills.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.skills.map((k: { uri: string }) => k.uri));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual((await s.get("/api/skills")).body.skills.map((k: { uri: string }) => k.uri));
    for (const bad of ["nope", "%%%", Buffer.from("before:x").toString("base64url"), "x".repeat(401)]) {
      const r = await s.get(`/api/skills?cursor=${enc(bad)}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect(r.body.issues[0].path).toBe("cursor");
    }
    for (const limit of ["0", "201", "1.5", "x"]) expect((await s.get(`/api/skills?limit=${limit}`)).status).toBe(400);
  });
});

describe("GET /api/skills/entry, /file, /directory", () => {
  test("entry: the SKILL.md URI of a served skill → {skill} as listed; any other URI → 404 not_found", async () => {
    const s = await setup(["typescript-strict"]);
    const listed = (await s.get("/api/skills")).body.skills[0];
    const r = await s.get(`/api/skills/entry?uri=${enc("skill://typescript-strict/SKILL.md")}`);
    expect(r).toEqual({ status: 200, body: { skill: listed } });
    for (const uri of [
      "skill://typescript-strict/references/strict-flags.md",
      "skill://typescript-strict",
      "skill://sql-base/SKILL.md",
      "talent://typescript-strict",
      "skill://",
    ]) {
      const miss = await s.get(`/api/skills/entry?uri=${enc(uri)}`);
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ error: "not_found", message: `No skill is served at ${uri}.` });
    }
    expect((await s.get("/api/skills/entry")).status).toBe(400);
    expect((await s.get(`/api/skills/entry?uri=${"x".repeat(1001)}`)).status).toBe(400);
  });

  test("directory: the root lists SKILL.md (named as the skill, with its description) and folders as inode/directory; a folder lists its files; a file or an unknown path → 404; paged", async () => {
    const s = await setup(["typescript-strict"], { expertise: true });
    const root = await s.get(`/api/skills/directory?uri=${enc("skill://typescript-strict")}`);
    expect(root.status).toBe(200);
    expect(root.body.resources).toEqual([
      {
        uri: "skill://typescript-strict/SKILL.md",
        name: "typescript-strict",
        description: env.state.catalog!.get("typescript-strict")!.summary,
        mimeType: "text/markdown",
        size: expect.any(Number),
      },
      { uri: "skill://typescript-strict/references", name: "references", mimeType: "inode/directory" },
    ]);
    const refs = await s.get(`/api/skills/directory?uri=${enc("skill://typescript-strict/references")}`);
    expect(refs.body.resources.map((x: { name: string }) => x.name)).toEqual(["narrowing.md", "strict-flags.md"]);
    const org = await s.get(`/api/skills/directory?uri=${enc(`skill://~${s.org.slug}`)}`);
    expect(org.body.resources).toEqual([{ uri: `skill://~${s.org.slug}/payments`, name: "payments", mimeType: "inode/directory" }]);
    const first = await s.get(`/api/skills/directory?uri=${enc(`skill://~${s.org.slug}/payments`)}&limit=2`);
    expect(first.body.resources.map((x: { name: string }) => x.name)).toEqual(["payments", "examples"]);
    const second = await s.get(
      `/api/skills/directory?uri=${enc(`skill://~${s.org.slug}/payments`)}&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body).toMatchObject({ resources: [{ name: "references", mimeType: "inode/directory" }], nextCursor: null });
    const file = await s.get(`/api/skills/directory?uri=${enc("skill://typescript-strict/SKILL.md")}`);
    expect(file.body).toEqual({ error: "not_found", message: "skill://typescript-strict/SKILL.md is not a directory resource." });
    for (const uri of ["skill://typescript-strict/nope", "skill://sql-base", "skill://~nobody", "skill://"]) {
      expect((await s.get(`/api/skills/directory?uri=${enc(uri)}`)).body).toEqual({
        error: "not_found",
        message: `No directory resource is served at ${uri}.`,
      });
    }
    expect((await s.get(`/api/skills/directory?uri=${enc("skill://typescript-strict")}&cursor=zzz`)).status).toBe(400);
  });

  test("file: a directory URI → 404 saying to list it; unknown, escaping or undecodable URIs → 404, never a 500", async () => {
    const s = await setup(["typescript-strict"]);
    const dir = await s.get(`/api/skills/file?uri=${enc("skill://typescript-strict/references")}`);
    expect(dir.status).toBe(404);
    expect(dir.body.message).toContain("is a directory resource: list it with resources/directory/read");
    for (const uri of [
      "skill://typescript-strict/../sql-base/SKILL.md",
      "skill://typescript-strict//SKILL.md",
      "skill://typescript-strict/%E0%A4%A",
      "skill://typescript-strict/TALENT.md",
      "skill://%7E/x",
      "SKILL.md",
      "skill://~/x/SKILL.md",
    ]) {
      const r = await s.get(`/api/skills/file?uri=${enc(uri)}`);
      expect(r).toEqual({ status: 404, body: { error: "not_found", message: `No skill file is served at ${uri}.` } });
    }
  });
});

describe("who sees what", () => {
  test('"another organization\'s expertise never listed or readable": its URIs get the very answers of URIs that name nothing', async () => {
    const owner = await setup([], { expertise: true });
    const stranger = await setup(["typescript-strict"]);
    const listed = JSON.stringify((await stranger.get("/api/skills")).body);
    expect(listed).not.toContain("payments");
    expect(listed).not.toContain(owner.org.slug);
    const real = `skill://~${owner.org.slug}/payments`;
    const fake = `skill://~${owner.org.slug}/no-such-thing`;
    const same = async (path: (u: string) => string, suffix: string) => {
      const a = await stranger.get(path(real + suffix));
      const b = await stranger.get(path(fake + suffix));
      expect(a.status).toBe(404);
      expect(JSON.stringify(a.body).replaceAll(real, "U")).toBe(JSON.stringify(b.body).replaceAll(fake, "U"));
    };
    await same((u) => `/api/skills/entry?uri=${enc(u)}`, "/SKILL.md");
    await same((u) => `/api/skills/file?uri=${enc(u)}`, "/SKILL.md");
    await same((u) => `/api/skills/file?uri=${enc(u)}`, "/references/ledger.md");
    await same((u) => `/api/skills/directory?uri=${enc(u)}`, "");
    await same((u) => `/api/skills/directory?uri=${enc(u)}`, "/references");
    const org = await stranger.get(`/api/skills/directory?uri=${enc(`skill://~${owner.org.slug}`)}`);
    expect(org.body).toEqual({ error: "not_found", message: `No directory resource is served at skill://~${owner.org.slug}.` });
    // its own organization's project sees it
    expect((await owner.get(`/api/skills/file?uri=${enc(real + "/SKILL.md")}`)).status).toBe(200);
  });

  test('"private expertises appear … at their published version": an edited working copy changes nothing until the next publication; a deactivated one is not served', async () => {
    const s = await setup([], { expertise: true });
    const uri = `skill://~${s.org.slug}/payments/SKILL.md`;
    const before = (await s.get(`/api/skills/entry?uri=${enc(uri)}`)).body.skill;
    const base = `/web/orgs/current/expertises/${s.expertiseId}`;
    const detail = (await s.owner.get(base)).body;
    const edited = await s.owner.patch(base, {
      expectedRevision: detail.revision,
      content: talentMd("payments", { version: "2.0.0" }, "Refunds are reversed postings."),
    });
    expect(edited.status).toBe(200);
    expect((await s.get(`/api/skills/entry?uri=${enc(uri)}`)).body.skill).toEqual(before);
    expect((await s.owner.post(`${base}/publish`, { expectedRevision: edited.body.revision })).status).toBe(200);
    const after = (await s.get(`/api/skills/entry?uri=${enc(uri)}`)).body.skill;
    expect(after.frontmatter.metadata.version).toBe("2");
    expect(after.resources[0].digest).not.toBe(before.resources[0].digest);
    expect((await s.get(`/api/skills/file?uri=${enc(uri)}`)).body.text).toContain("Refunds are reversed postings.");
    expect((await s.owner.post(`${base}/deactivate`)).status).toBe(200);
    expect((await s.get("/api/skills")).body.skills).toEqual([]);
    expect((await s.get(`/api/skills/entry?uri=${enc(uri)}`)).status).toBe(404);
  });

  test("every route needs the deepen scope (403 insufficient_scope naming it) and a valid key (401)", async () => {
    const s = await setup(["typescript-strict"], {
      tools: ["prepare_task", "validate", "record_validation", "doctor", "catalog", "discover", "install"],
    });
    const u = enc("skill://typescript-strict/SKILL.md");
    for (const path of [
      "/api/skills",
      `/api/skills/entry?uri=${u}`,
      `/api/skills/file?uri=${u}`,
      `/api/skills/directory?uri=${enc("skill://typescript-strict")}`,
    ]) {
      const r = await s.get(path);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: "insufficient_scope", requiredScope: "deepen" });
      expect((await env.request(path)).status).toBe(401);
    }
  });

  test("each call is traced with its kind (skills_list, skill_get, skill_directory, skill_read)", async () => {
    const s = await setup(["typescript-strict"]);
    const u = enc("skill://typescript-strict/SKILL.md");
    await s.get("/api/skills");
    await s.get(`/api/skills/entry?uri=${u}`);
    await s.get(`/api/skills/directory?uri=${enc("skill://typescript-strict")}`);
    await s.get(`/api/skills/file?uri=${u}`);
    const events = (await s.owner.get(`/web/projects/${s.project.id}/traces`)).body.events as { kind: string; status: number }[];
    expect(
      events
        .map((e) => `${e.kind}:${e.status}`)
        .slice(0, 4)
        .reverse(),
    ).toEqual(["skills_list:200", "skill_get:200", "skill_directory:200", "skill_read:200"]);
  });
});
