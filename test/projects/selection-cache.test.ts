/**
 * The selection cache (src/selection/service.ts listInstalled) must be exact: whatever changes
 * a project's installed talents — this app, another connection, another process — the very
 * next call sees it (prepare-task serves only talents active in the project).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { createKey, nextTurn, orgWithProject, testEnv, withKey, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv({ AUTO_APPROVE_ORGS: "true" });
});
afterAll(() => env.close());

async function setup() {
  const { owner, project } = await orgWithProject(env);
  const ids = env.state.catalog!.list.slice(0, 3).map((t) => t.id);
  expect((await owner.post(`/web/projects/${project.id}/talents`, { talents: ids })).status).toBe(201);
  const k = await createKey(owner, project.id, ["prepare_task"]);
  const designable = async () =>
    ((await (await withKey(env, k.value, "/api/prepare-task/designable")).json()) as { talents: { id: string }[] }).talents
      .map((t) => t.id)
      .sort();
  const prepare = (talentIds: string[]) =>
    withKey(env, k.value, "/api/prepare-task", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ talentIds }),
    });
  return { owner, project, ids, designable, prepare };
}

describe("the selection is re-read after any change to it, by anyone", () => {
  test("changes through the app: disable, enable, uninstall, install are seen on the next call", async () => {
    const s = await setup();
    expect(await s.designable()).toEqual([...s.ids].sort());
    expect((await s.prepare([s.ids[0]!])).status).toBe(201); // a commit that does not touch the selection
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/${s.ids[0]}`, { enabled: false })).status).toBe(200);
    expect(await s.designable()).toEqual([s.ids[1]!, s.ids[2]!].sort());
    expect((await s.prepare([s.ids[0]!])).status).toBe(400);
    expect((await s.owner.patch(`/web/projects/${s.project.id}/talents/${s.ids[0]}`, { enabled: true })).status).toBe(200);
    expect((await s.prepare([s.ids[0]!])).status).toBe(201);
    expect((await s.owner.del(`/web/projects/${s.project.id}/talents/${s.ids[1]}`)).status).toBe(200);
    expect(await s.designable()).toEqual([s.ids[0]!, s.ids[2]!].sort());
  });

  // another connection and process open the SQLite file
  test.skipIf(process.env.TEST_DATABASE === "postgres")(
    "changes made outside the app (another connection, another process) are seen on the next call",
    async () => {
      const s = await setup();
      for (let i = 0; i < 3; i++) expect(await s.designable()).toEqual([...s.ids].sort()); // warm any cache
      const other = createClient({ url: env.config.databaseUrl, timeout: 5000 } as Parameters<typeof createClient>[0]); // waits for the service's own commits
      await other.execute({
        sql: "UPDATE installed_talents SET enabled = 0 WHERE project_id = ? AND talent_id = ?",
        args: [s.project.id, s.ids[0]!],
      });
      other.close();
      await nextTurn(); // the next request arrives in a later turn than the commit's acknowledgment
      expect(await s.designable()).toEqual([s.ids[1]!, s.ids[2]!].sort());
      expect((await s.prepare([s.ids[0]!])).status).toBe(400);

      const path = env.config.databaseUrl.slice("file:".length);
      const proc = Bun.spawn([
        process.execPath,
        "-e",
        `const D = require("libsql"); const d = new D(${JSON.stringify(path)}); d.exec("PRAGMA busy_timeout = 5000"); d.prepare("DELETE FROM installed_talents WHERE project_id = ? AND talent_id = ?").run(${JSON.stringify(s.project.id)}, ${JSON.stringify(s.ids[2])}); d.close();`,
      ]);
      expect(await proc.exited).toBe(0);
      await nextTurn();
      expect(await s.designable()).toEqual([s.ids[1]!]);
    },
  );

  test("selection_rev is internal: the project API does not show it", async () => {
    const s = await setup();
    const shown = (await s.owner.get(`/web/projects/${s.project.id}`)).body;
    expect(JSON.stringify(shown)).not.toContain("selection");
    expect(JSON.stringify((await s.owner.get("/web/projects")).body)).not.toContain("selection");
  });
});
