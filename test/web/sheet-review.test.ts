/**
 * The talent sheet says when the talent was last reviewed and which versions it covers:
 * `/catalog/<id>` (HTML) and `GET /web/catalog/:id` (JSON) over the shipped catalog.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithProject, testEnv, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe("the talent sheet shows Reviewed <date> and Covers: …", () => {
  test("the page of a talent with both shows its reviewed day and each covered product with its versions", async () => {
    const { owner } = await orgWithProject(env, "Sheet");
    const t = env.state.catalog!.get("angular")!;
    expect(t.reviewed).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const r = await owner.call("GET", "/catalog/angular", undefined, { accept: "text/html" });
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain(` · Reviewed <time datetime="${t.reviewed}">${t.reviewed}</time>`);
    expect(html).toContain("Covers: Angular 21");
    const ef = await (await owner.call("GET", "/catalog/ef-core", undefined, { accept: "text/html" })).text();
    expect(ef).toContain(" · Covers: EF Core 10; .NET 10");
  });

  test("a talent that names no versions shows its reviewed day and no Covers part", async () => {
    const { owner } = await orgWithProject(env, "Sheet2");
    const t = env.state.catalog!.get("git-commit-messages")!;
    expect(t.covers).toBeUndefined();
    const html = await (await owner.call("GET", "/catalog/git-commit-messages", undefined, { accept: "text/html" })).text();
    expect(html).toContain(`Reviewed <time datetime="${t.reviewed}">`);
    expect(html).not.toContain("Covers:");
  });

  test("GET /web/catalog/:id carries reviewed and covers (null and [] when the talent does not say)", async () => {
    const { owner } = await orgWithProject(env, "Sheet3");
    const r = await owner.get("/web/catalog/aspnet-core");
    expect(r.status).toBe(200);
    expect(r.body.reviewed).toBe(env.state.catalog!.get("aspnet-core")!.reviewed);
    expect(r.body.covers).toEqual([{ product: ".NET", versions: ["10"] }]);
    const plain = await owner.get("/web/catalog/git-commit-messages");
    expect(plain.body.covers).toEqual([]);
  });
});
