/**
 * Disabling or uninstalling a talent that enabled talents of the project need asks first, naming them (docs/design.md
 * "Risky selection changes name what they break"): with htmx the question is the #flash answer with a confirm button,
 * without JavaScript a confirmation page posting the same form with confirm; nothing changes before the confirmation;
 * the status line of the confirmed change names what it left without. A JSON caller is not asked: its answer names them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, orgWithProject, testEnv, type TestEnv, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const NEEDED = "javascript-base is needed by node-http-services, react-components and typescript-strict";

async function projectWithDependents() {
  const p = await orgWithProject(env);
  const r = await p.owner.post(`/web/projects/${p.project.id}/talents`, {
    talents: ["javascript-base", "typescript-strict", "react-components", "node-http-services"],
  });
  expect(r.status).toBe(201);
  const state = async (id: string) =>
    ((await p.owner.get(`/web/projects/${p.project.id}/installed`)).body.talents as { id: string; state: string }[]).find(
      (t) => t.id === id,
    )?.state;
  return { ...p, target: `/web/projects/${p.project.id}/talents/javascript-base`, state };
}

describe("disable or uninstall a talent others need: asked first, naming them", () => {
  test("htmx disable of a needed talent → 400 asking in #flash with a confirm button; nothing disabled; confirm=yes disables and the status names the dependents", async () => {
    const p = await projectWithDependents();
    const asked = await htmxForm(env, p.owner, "PATCH", p.target, { enabled: "false" });
    expect(asked.status).toBe(400);
    expect(asked.headers.get("hx-retarget")).toBe("#flash");
    expect(textOfId(asked.html, "confirm-change")).toContain(`${NEEDED}. Disable it anyway?`);
    expect(asked.html).toContain(`hx-patch="${p.target}"`);
    expect(asked.html).toContain('hx-target="#installed"');
    expect(asked.html).toContain('<input type="hidden" name="enabled" value="false"/>');
    expect(asked.html).toContain('<input type="hidden" name="confirm" value="yes"/>');
    expect(asked.html).toContain(">Keep it as it is</a>");
    expect(await p.state("javascript-base")).toBe("active");
    const done = await htmxForm(env, p.owner, "PATCH", p.target, { enabled: "false", confirm: "yes" });
    expect(done.status).toBe(200);
    expect(done.html).toContain('id="installed"');
    expect(done.html).toContain("Disabled javascript-base; node-http-services, react-components and typescript-strict now miss it");
    expect(await p.state("javascript-base")).toBe("disabled");
  });

  test("without JavaScript: the disable post answers a confirmation page with the same form (enabled=false) plus confirm; confirm=1 disables", async () => {
    const p = await projectWithDependents();
    const asked = await formPost(env, p.owner, `${p.target}?_method=PATCH`, { enabled: "false" });
    expect(asked.status).toBe(400);
    expect(asked.html).toContain(`${NEEDED}. Disable it anyway?`);
    expect(asked.html).toContain('<input type="hidden" name="enabled" value="false"/>');
    expect(asked.html).toContain("Disable javascript-base anyway</button>");
    expect(await p.state("javascript-base")).toBe("active");
    const done = await formPost(env, p.owner, `${p.target}?_method=PATCH`, { enabled: "false", confirm: "1" });
    expect(done.status).toBe(303);
    expect(await p.state("javascript-base")).toBe("disabled");
  });

  test("uninstall of a needed talent: htmx and the form without JavaScript ask naming the dependents; confirmed, it is uninstalled", async () => {
    const p = await projectWithDependents();
    const htmx = await htmxForm(env, p.owner, "DELETE", p.target, {});
    expect(htmx.status).toBe(400);
    expect(textOfId(htmx.html, "confirm-change")).toContain(`${NEEDED}. Uninstall it anyway?`);
    const page = await formPost(env, p.owner, `${p.target}?_method=DELETE`, {});
    expect(page.status).toBe(400);
    expect(page.html).toContain(`${NEEDED}. Uninstall it anyway?`);
    expect(await p.state("javascript-base")).toBe("active");
    const done = await htmxForm(env, p.owner, "DELETE", p.target, { confirm: "yes" });
    expect(done.status).toBe(200);
    expect(done.html).toContain("Uninstalled javascript-base; node-http-services, react-components and typescript-strict now miss it");
    expect(await p.state("javascript-base")).toBeUndefined();
  });

  test("a talent nobody enabled needs is disabled at once; a dependent that is disabled does not count", async () => {
    const p = await projectWithDependents();
    const leaf = await htmxForm(env, p.owner, "PATCH", `/web/projects/${p.project.id}/talents/typescript-strict`, { enabled: "false" });
    expect(leaf.status).toBe(200);
    expect(leaf.html).toContain("Disabled typescript-strict");
    for (const id of ["react-components", "node-http-services"])
      await htmxForm(env, p.owner, "PATCH", `/web/projects/${p.project.id}/talents/${id}`, { enabled: "false" });
    const base = await htmxForm(env, p.owner, "PATCH", p.target, { enabled: "false" });
    expect(base.status).toBe(200);
    expect(await p.state("javascript-base")).toBe("disabled");
  });

  test("a JSON caller is not asked: the disable goes through and its answer names the dependents", async () => {
    const p = await projectWithDependents();
    const r = await p.owner.patch(p.target, { enabled: false });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: "javascript-base",
      state: "disabled",
      changed: true,
      dependents: ["node-http-services", "react-components", "typescript-strict"],
    });
  });
});
