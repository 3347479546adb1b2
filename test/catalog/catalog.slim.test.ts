import { afterAll, describe, expect, test } from "bun:test";
import { generateCatalog } from "../../bench/lib";
import { loadCatalog, slimCatalog } from "../../src/catalog/startup";
import { silentLogger } from "../../src/lib/log";
import { activeItems } from "../../src/selection/sources";
import { createKey, orgWithProject, tempDir, testEnv, withKey } from "../helpers";

const gen = tempDir();
afterAll(gen.cleanup);

describe("a large TALENTS_DIR is slimmed after start (RSS) and serves the same bytes", () => {
  // slimming reads the stored bytes back synchronously on the local file's read connection: on
  // PostgreSQL (no synchronous client) the catalog stays whole in memory (docs/operations.md)
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "prepare-task, pinned and live reads, playbook and search answer identically before and after slimming",
    async () => {
      generateCatalog(gen.dir, 250);
      const { catalog, extraFolders } = await loadCatalog(gen.dir, silentLogger);
      expect(extraFolders.size).toBe(250);
      const env = await testEnv({}, catalog);
      try {
        const o = await orgWithProject(env);
        const ids = ["gen-talent-3", "gen-talent-4", "gen-talent-10"];
        await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: [...ids, "gen-talent-2", "gen-talent-9"] });
        const key = (await createKey(o.owner, o.project.id, ["prepare_task", "validate", "deepen"])).value;
        const call = async (path: string, body?: unknown) => {
          const r = await withKey(
            env,
            key,
            path,
            body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
          );
          return { status: r.status, body: await r.json() };
        };
        const p1 = await call("/api/prepare-task", { talentIds: ids });
        expect(p1.status).toBe(201);
        const uris = ids.flatMap((id) => [{ uri: `talent://${id}` }, { uri: `talent://${id}/references/details.md` }]);
        const snapshot = async (resolutionId: string) => ({
          book: (await call(`/api/validation/playbook?resolutionId=${resolutionId}&talent=gen-talent-4`)).body,
          pinned: (await call("/api/talents/get", { resolutionId, uris })).body,
          live: (await call("/api/talents/get", { uri: "talent://gen-talent-9/references/details.md" })).body,
          search: (await call("/api/search?query=area9&scope=catalog&k=5")).body,
        });
        const before = await snapshot(p1.body.resolutionId);

        await slimCatalog(env.database, catalog, extraFolders, silentLogger);
        expect(Object.getOwnPropertyDescriptor(catalog.get("gen-talent-4")!, "body")?.get).toBeDefined();

        expect(await snapshot(p1.body.resolutionId)).toEqual(before);
        const p2 = await call("/api/prepare-task", { talentIds: ids });
        expect(p2.body.talents).toEqual(p1.body.talents);
        expect(p2.body.prerequisites).toEqual(p1.body.prerequisites);
        // the project's active talents were kept from before the slimming (by the selection's rows):
        // they are the catalog's lazy twins now, not the full talents the slimming let go of
        const active = await activeItems({ database: env.database, catalog }, { id: o.project.id, organizationId: o.org.id });
        for (const id of [...ids, "gen-talent-2", "gen-talent-9"]) expect(active.get(id)!.talent).toBe(catalog.get(id)!);
      } finally {
        env.close();
      }
    },
  );

  test("a small TALENTS_DIR (under 200 talents) stays fully in memory", async () => {
    const small = tempDir();
    try {
      generateCatalog(small.dir, 20);
      const { catalog, extraFolders } = await loadCatalog(small.dir, silentLogger);
      const env = await testEnv({}, catalog);
      try {
        await slimCatalog(env.database, catalog, extraFolders, silentLogger);
        expect(Object.getOwnPropertyDescriptor(catalog.get("gen-talent-4")!, "body")?.get).toBeUndefined();
      } finally {
        env.close();
      }
    } finally {
      small.cleanup();
    }
  });
});
