/**
 * A resolution's items pin each talent's files (path → digest). The map is
 * written once per talent version as a content-addressed blob and each item stores its digest
 * (prepare-task was bound by the bytes its commits wrote); resolutions written before hold the
 * map itself. Both must read the same, forever (spec: a resolution is frozen).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loopProject, publishedExpertise, sql } from "../activity-support";
import { testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ ACCESS_LOG: "false" });
});
afterAll(() => env.close());

const itemsOf = (resolutionId: string) =>
  env.database.all<{ talent_id: string; files: string }>(
    "SELECT talent_id, files FROM resolution_items WHERE resolution_id = ? ORDER BY position",
    [resolutionId],
  );

describe("pinned files: a blob's digest per item, and the map itself in older rows", () => {
  test("an item stores the digest of the blob holding its files map; two resolutions of the same talents share the blob", async () => {
    const s = await loopProject(env);
    const a = await s.prepare(["typescript-strict", "javascript-base"]);
    const b = await s.prepare(["typescript-strict"]);
    const [ia, ib] = [await itemsOf(a), await itemsOf(b)];
    for (const i of [...ia, ...ib]) expect(i.files).toMatch(/^"sha256:[0-9a-f]{64}"$/);
    expect(ib[0]!.files).toBe(ia[0]!.files);
    const blob = await env.database.get<{ content: string }>("SELECT content FROM content_blobs WHERE digest = ?", [
      JSON.parse(ia[0]!.files),
    ]);
    const map = JSON.parse(blob!.content) as Record<string, string>;
    expect(Object.keys(map)).toContain("TALENT.md");
    for (const d of Object.values(map)) expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test("the items are written as designated (two bound arguments, the designation and the project; the rest literals kept per talent version): position, id, kind, version, digest and expertise of each, for talents and a private expertise, in either order", async () => {
    const s = await loopProject(env);
    const e = await publishedExpertise(s.owner, s.org.slug, "pay-rules");
    expect((await s.api("PATCH", "/api/projects/current/talents", { talent: e.ref })).status).toBeLessThan(300);
    for (const ids of [
      ["typescript-strict", e.ref, "javascript-base"],
      ["javascript-base", "typescript-strict"],
      [e.ref, "typescript-strict", "javascript-base"],
    ]) {
      const r = await s.api("POST", "/api/prepare-task", { talentIds: ids });
      expect(r.status).toBe(201);
      const rows = await env.database.all<{
        position: number;
        talent_id: string;
        kind: string;
        version: string;
        digest: string;
        expertise_id: string | null;
      }>(
        "SELECT position, talent_id, kind, version, digest, expertise_id FROM resolution_items WHERE resolution_id = ? ORDER BY position",
        [r.body.resolutionId],
      );
      expect(rows).toEqual(
        (r.body.talents as { id: string; kind: string; version: string; digest: string }[]).map((t, i) => ({
          position: i,
          talent_id: t.id,
          kind: t.kind,
          version: t.version,
          digest: t.digest,
          expertise_id: t.kind === "expertise" ? e.id : null,
        })),
      );
      expect(rows.map((x) => x.talent_id)).toEqual(ids);
    }
  });

  test("a resolution written before (the map in the row) reads exactly as one written now: the same playbook and the same pinned reads", async () => {
    const s = await loopProject(env);
    const now = await s.prepare(["typescript-strict", "javascript-base"]);
    const before = await s.prepare(["typescript-strict", "javascript-base"]);
    // turn `before` into a resolution as migration 0009 leaves an old one: a designation of its own
    // (its id), whose items hold the old format (each item's map itself); `now` keeps the shared one
    await sql(
      env,
      "INSERT INTO designation_items SELECT ?1, d.position, d.project_id, d.talent_id, d.kind, d.version, d.digest, d.definition_digest, d.files, d.expertise_id FROM designation_items d JOIN resolutions r ON r.designation_id = d.designation_id WHERE r.id = ?1",
      [before],
    );
    await sql(env, "UPDATE resolutions SET designation_id = id WHERE id = ?", [before]);
    for (const i of await itemsOf(before)) {
      const blob = await env.database.get<{ content: string }>("SELECT content FROM content_blobs WHERE digest = ?", [JSON.parse(i.files)]);
      await sql(env, "UPDATE designation_items SET files = ? WHERE designation_id = ? AND talent_id = ?", [
        blob!.content,
        before,
        i.talent_id,
      ]);
    }
    expect((await itemsOf(now))[0]!.files.startsWith('"sha256:')).toBe(true);
    expect((await itemsOf(before))[0]!.files.startsWith("{")).toBe(true);
    const read = async (id: string) => {
      const playbook = await s.api("GET", `/api/validation/playbook?resolutionId=${id}&talent=typescript-strict`);
      const file = await s.api("POST", "/api/talents/get", { uri: "talent://typescript-strict", resolutionId: id });
      expect([playbook.status, file.status]).toEqual([200, 200]);
      // the two differ only by their id and creation time (and the signature over them)
      const strip = (o: Record<string, unknown>) =>
        JSON.parse(
          JSON.stringify(o)
            .replaceAll(id, "<id>")
            .replace(/"createdAt":"[^"]*"/g, '"createdAt":"<t>"')
            .replace(/"attestation":"[^"]*"/g, '"attestation":"<jws>"'),
        );
      return { playbook: strip(playbook.body), file: strip(file.body) };
    };
    expect(await read(before)).toEqual(await read(now));
  });

  test("a missing blob of pinned files is an error, never an empty list of files", async () => {
    const s = await loopProject(env);
    const id = await s.prepare(["typescript-strict"]);
    await sql(env, "UPDATE designation_items SET files = ? WHERE designation_id = (SELECT designation_id FROM resolutions WHERE id = ?)", [
      JSON.stringify(`sha256:${"0".repeat(64)}`),
      id,
    ]);
    const r = await s.api("GET", `/api/validation/playbook?resolutionId=${id}&talent=typescript-strict`);
    expect(r.status).toBe(500);
  });
});

describe("designations (migration 0009): a resolution's items are its designation's, written once per project and order", () => {
  const designationOf = async (resolutionId: string) =>
    (await env.database.get<{ d: string }>("SELECT designation_id AS d FROM resolutions WHERE id = ?", [resolutionId]))!.d;
  const itemRows = async (designationId: string) =>
    (await env.database.get<{ n: number }>("SELECT count(*) AS n FROM designation_items WHERE designation_id = ?", [designationId]))!.n;

  test("the same talents at the same versions in the same order share one designation, its items written once; another order, or another project, has its own; a deleted project's go with it", async () => {
    const s = await loopProject(env);
    const a = await s.prepare(["typescript-strict", "javascript-base"]);
    const b = await s.prepare(["typescript-strict", "javascript-base"]);
    const c = await s.prepare(["javascript-base", "typescript-strict"]);
    const [da, db, dc] = [await designationOf(a), await designationOf(b), await designationOf(c)];
    expect(da).toMatch(/^dsg_[0-9a-f]{32}$/);
    expect(db).toBe(da);
    expect(dc).not.toBe(da);
    expect([await itemRows(da), await itemRows(dc)]).toEqual([2, 2]);
    // every resolution reads its own items, in its order, through resolution_items
    expect((await itemsOf(b)).map((i) => i.talent_id)).toEqual(["typescript-strict", "javascript-base"]);
    expect((await itemsOf(c)).map((i) => i.talent_id)).toEqual(["javascript-base", "typescript-strict"]);
    expect(await itemsOf(b)).toEqual(await itemsOf(a));

    const t = await loopProject(env);
    const d = await t.prepare(["typescript-strict", "javascript-base"]);
    const dd = await designationOf(d);
    expect(dd).not.toBe(da);
    expect(await itemRows(dd)).toBe(2);
    expect((await t.owner.del(`/web/projects/${t.project.id}`)).status).toBe(200);
    expect(await itemRows(dd)).toBe(0);
    expect(await itemRows(da)).toBe(2);
    // and the first project's playbook still reads its items
    expect((await s.api("GET", `/api/validation/playbook?resolutionId=${b}&talent=typescript-strict`)).status).toBe(200);
  });

  test("the same designated ids after a new version of one of them is published make a new designation (the kept statement is reused only for the same item objects)", async () => {
    const s = await loopProject(env);
    const e = await publishedExpertise(s.owner, s.org.slug, "ledger-rules");
    expect((await s.api("PATCH", "/api/projects/current/talents", { talent: e.ref })).status).toBeLessThan(300);
    const ids = [e.ref, "typescript-strict"];
    const [a, b] = [await s.prepare(ids), await s.prepare(ids)];
    expect(await designationOf(b)).toBe(await designationOf(a));

    const detail = await s.owner.get(`/web/orgs/current/expertises/${e.id}`);
    const content = (await s.owner.get(`/web/orgs/current/expertises/${e.id}/versions/1`)).body.content as string;
    const edit = await s.owner.patch(`/web/orgs/current/expertises/${e.id}`, {
      expectedRevision: detail.body.revision,
      content: content.replace("How we bill", "How we now bill"),
    });
    expect(edit.status).toBe(200);
    expect((await s.owner.post(`/web/orgs/current/expertises/${e.id}/publish`)).body.published).toMatchObject({ version: 2 });

    const c = await s.prepare(ids);
    const dc = await designationOf(c);
    expect(dc).not.toBe(await designationOf(a));
    const items = await env.database.all<{ talent_id: string; version: string }>(
      "SELECT talent_id, version FROM resolution_items WHERE resolution_id = ? ORDER BY position",
      [c],
    );
    expect(items).toEqual([
      { talent_id: e.ref, version: "2" },
      { talent_id: "typescript-strict", version: expect.any(String) },
    ]);
    expect(await itemRows(dc)).toBe(2);
    // and the first resolutions still read version 1
    expect(
      (
        await env.database.all<{ version: string }>("SELECT version FROM resolution_items WHERE resolution_id = ? ORDER BY position", [a])
      )[0]!.version,
    ).toBe("1");
  });
});
