/**
 * The dashboard's pages on their failure paths, as HTML (the browser journeys are in
 * dashboard.browser.test.ts): an unknown id or another organization's is the 404 page, never
 * JSON and never data; a signed-out visitor is sent to /login with the page to come back to.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expertiseMd, orgWithProject, publishedExpertiseOf, testEnv, WebClient, type TestEnv } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function page(c: WebClient, path: string) {
  const r = await c.call("GET", path, undefined, { accept: "text/html" });
  return { status: r.status, type: r.headers.get("content-type") ?? "", location: r.headers.get("location"), html: await r.text() };
}

describe("the dashboard's pages on their failure paths", () => {
  test("an unknown talent, an unknown project, and another organization's project (as a page, in grouped install, in onboarding) → the 404 page in HTML, nothing of A", async () => {
    const a = await orgWithProject(env, "Pi");
    const b = await orgWithProject(env, "Rho");
    for (const path of [
      "/catalog/no-such-talent",
      "/projects/prj_nope",
      `/projects/${a.project.id}`,
      `/projects/${a.project.id}/onboarding`,
      `/catalog?project=${a.project.id}`,
    ]) {
      const p = await page(b.owner, path);
      expect(`${path} ${p.status}`).toBe(`${path} 404`);
      expect(p.type).toContain("text/html");
      expect(p.html).toContain("Not found");
      expect(p.html).not.toContain(a.project.name);
    }
  });

  test("a signed-out visitor of a page is sent to /login?next=<the page>", async () => {
    const anon = new WebClient(env);
    for (const path of ["/projects/new", "/catalog"]) {
      const p = await page(anon, path);
      expect(p.status).toBe(303);
      expect(p.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });
});

describe("the project page's kept renders never show a stale selection", () => {
  const stateOf = (html: string, id: string) => {
    const row = html.split("<tr>").find((r) => r.includes(`>${id}</a>`));
    return row ? (/class="state (\w+)"/.exec(row)?.[1] ?? "?") + (row.includes("no longer servable") ? " unservable" : "") : "absent";
  };
  test("install, disable, uninstall, and an expertise deactivated (selection unchanged) each show on the next view", async () => {
    const { owner, project } = await orgWithProject(env, "Memo");
    const path = `/projects/${project.id}`;
    expect(stateOf((await page(owner, path)).html, "typescript-strict")).toBe("absent");
    expect((await owner.post(`/web/projects/${project.id}/talents`, { talents: ["typescript-strict"] })).status).toBe(201);
    expect(stateOf((await page(owner, path)).html, "typescript-strict")).toBe("active");
    expect(stateOf((await page(owner, path)).html, "typescript-strict")).toBe("active");
    expect((await owner.patch(`/web/projects/${project.id}/talents/typescript-strict`, { enabled: false })).status).toBe(200);
    expect(stateOf((await page(owner, path)).html, "typescript-strict")).toBe("disabled");

    const e = await publishedExpertiseOf(owner, "memo-pay", expertiseMd("memo-pay", "Keep money exact."));
    expect((await owner.post(`/web/projects/${project.id}/talents`, { talents: [e.ref, "typescript-strict"] })).status).toBe(201);
    expect(stateOf((await page(owner, path)).html, e.ref)).toBe("active");
    expect((await owner.post(`/web/orgs/current/expertises/${e.id}/deactivate`)).status).toBe(200);
    expect(stateOf((await page(owner, path)).html, e.ref)).toBe("active unservable");

    expect((await owner.del(`/web/projects/${project.id}/talents/typescript-strict`)).status).toBe(200);
    expect(stateOf((await page(owner, path)).html, "typescript-strict")).toBe("absent");
  });

  test("/catalog: a new custom specialization, a renamed project and another active organization each show on the next view", async () => {
    const { owner, project } = await orgWithProject(env, "MemoCat");
    const first = (await page(owner, "/catalog")).html;
    expect(first).toContain(`>${project.name}</option>`);
    expect(first).not.toContain("Memo bundle");
    expect((await owner.post("/web/specializations", { name: "Memo bundle", talents: ["typescript-strict"] })).status).toBe(201);
    expect((await owner.patch(`/web/projects/${project.id}`, { name: "Renamed memo project" })).status).toBe(200);
    const second = (await page(owner, "/catalog")).html;
    expect(second).toContain("Memo bundle");
    expect(second).toContain(">Renamed memo project</option>");
    expect(second).not.toContain(`>${project.name}</option>`);
    const other = (await owner.post("/web/orgs", { name: "Memo second org" })).body.organization;
    expect((await owner.post("/web/orgs/active", { organizationId: other.id })).status).toBeLessThan(400);
    const header = (await page(owner, "/")).html;
    expect(header).toMatch(/<option value="[^"]+" selected="">Memo second org \(pending\)<\/option>/);
  });
});
