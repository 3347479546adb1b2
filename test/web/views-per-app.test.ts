/**
 * Each app answers htmx with its own views over its own database: the fragment registry belongs
 * to the app instance (src/ui/views.ts ViewRegistry), so building a second app in the same
 * process (as `bun test` files do) does not re-point the first app's fragments at the second's data.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createKey, orgWithProject, testEnv, type TestEnv } from "../helpers";

const envs: TestEnv[] = [];
afterAll(() => envs.forEach((e) => e.close()));

/** The key rows of the keys fragment an htmx POST of a new key answers. */
async function keyRowsAfterCreating(
  env: TestEnv,
  client: Awaited<ReturnType<typeof orgWithProject>>["owner"],
  projectId: string,
): Promise<number> {
  const r = await client.call(
    "POST",
    `/web/projects/${projectId}/keys`,
    { name: `htmx key ${Date.now()}`, tools: ["prepare_task"] },
    { "hx-request": "true" },
  );
  expect(r.status).toBe(201);
  expect(r.headers.get("content-type")).toContain("text/html");
  const html = await r.text();
  return (html.match(/<tr\b/g) ?? []).length - 1; // the header row aside
}

describe("the view registry belongs to the app", () => {
  test("two apps in one process: an htmx key creation on the first app answers the first app's keys, before and after the second app exists", async () => {
    const a = await testEnv();
    envs.push(a);
    const { owner, project } = await orgWithProject(a, "Views A");
    for (let i = 0; i < 2; i++) await createKey(owner, project.id, ["prepare_task"]);
    expect(await keyRowsAfterCreating(a, owner, project.id)).toBe(3);
    const b = await testEnv();
    envs.push(b);
    const other = await orgWithProject(b, "Views B");
    await createKey(other.owner, other.project.id, ["prepare_task"]);
    // before the registry was per app, B's registration captured B's database: A's fragment read B's rows (0 for A's project)
    expect(await keyRowsAfterCreating(a, owner, project.id)).toBe(4);
    expect(await keyRowsAfterCreating(b, other.owner, other.project.id)).toBe(2);
  });
});
