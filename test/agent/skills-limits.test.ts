/**
 * The Skills extension's per-skill limits: "Servers SHOULD NOT serve a skill that exceeds either limit"
 * (512 resources, SKILL.md included; 16 MiB, the sum of the files' sizes). A talent over either is not
 * listed and its entry is the same 404 as a URI that names nothing; one at the limit is served whole.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadCatalog } from "../../src/catalog/startup";
import { createLogger } from "../../src/lib/log";
import { SKILL_MAX_BYTES, SKILL_MAX_FILES } from "../../src/skills/service";
import { createKey, orgWithProject, talentMd, tempDir, testEnv, withKey, writeFiles, type TestEnv } from "../helpers";

const tmp = tempDir("talentd-skill-limits-");
let env: TestEnv;
let key: string;

/** A talent folder with `refs` reference files of `bytes` bytes each. */
function folder(id: string, refs: number, bytes: number): Record<string, string> {
  const files: Record<string, string> = { [`${id}/TALENT.md`]: talentMd(id) };
  for (let i = 0; i < refs; i++)
    files[`${id}/references/r${String(i).padStart(3, "0")}.md`] = "Keep it short.\n".repeat(Math.ceil(bytes / 15)).slice(0, bytes);
  return files;
}

beforeAll(async () => {
  const dir = join(tmp.dir, "talents");
  // 512 files in all (SKILL.md + 511), 513 files, and 65 files of 260,000 bytes (16.9 MB > 16 MiB)
  writeFiles(dir, {
    ...folder("at-file-limit", SKILL_MAX_FILES - 1, 10),
    ...folder("over-file-limit", SKILL_MAX_FILES, 10),
    ...folder("over-byte-limit", 65, 260_000),
  });
  const { catalog } = await loadCatalog(
    dir,
    createLogger("error", () => {}),
  );
  for (const id of ["at-file-limit", "over-file-limit", "over-byte-limit"]) expect(catalog.get(id)?.id).toBe(id);
  env = await testEnv({ TALENTS_DIR: dir }, catalog);
  const o = await orgWithProject(env);
  const r = await o.owner.post(`/web/projects/${o.project.id}/talents`, {
    talents: ["at-file-limit", "over-file-limit", "over-byte-limit"],
  });
  expect(r.status).toBe(201);
  key = (await createKey(o.owner, o.project.id, ["deepen"])).value;
});
afterAll(() => {
  env?.close();
  tmp.cleanup();
});

describe("Skills extension limits: 512 resources and 16 MiB per skill", () => {
  test("a skill of exactly 512 files is listed with all 512; skills over 512 files or 16 MiB are not listed", async () => {
    const r = await withKey(env, key, "/api/skills");
    expect(r.status).toBe(200);
    const body = (await r.json()) as { skills: { uri: string; resources: { size: number }[] }[] };
    expect(body.skills.map((s) => s.uri)).toEqual(["skill://at-file-limit/SKILL.md"]);
    expect(body.skills[0]!.resources).toHaveLength(SKILL_MAX_FILES);
    const over = env.state.catalog!.get("over-byte-limit")!;
    expect([...over.files.values()].reduce((n, f) => n + Buffer.byteLength(f.content), 0)).toBeGreaterThan(SKILL_MAX_BYTES);
  });

  test("skills/get of a skill over either limit is the 404 of an unknown skill", async () => {
    for (const id of ["over-file-limit", "over-byte-limit", "no-such-skill"]) {
      const r = await withKey(env, key, `/api/skills/entry?uri=${encodeURIComponent(`skill://${id}/SKILL.md`)}`);
      expect(`${id} ${r.status}`).toBe(`${id} 404`);
      expect(((await r.json()) as { error: string }).error).toBe("not_found");
    }
    const ok = await withKey(env, key, `/api/skills/entry?uri=${encodeURIComponent("skill://at-file-limit/SKILL.md")}`);
    expect(ok.status).toBe(200);
  });
});
