/**
 * The policy page's pickers (docs/design.md "Pickers, not typed ids"): required talents are check boxes filtered by
 * `?q=` without JavaScript (the ticked ones always shown), posted as a list; a lock's rule input offers a datalist.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, orgWithProject, testEnv, type TestEnv, type WebClient } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

async function html(c: WebClient, path: string): Promise<string> {
  const r = await c.call("GET", path, undefined, { accept: "text/html" });
  expect(r.status).toBe(200);
  return r.text();
}
const boxes = (page: string) =>
  [...page.matchAll(/name="requiredTalents" value="([^"]+)"( checked="")?/g)].map((m) => `${m[1]}${m[2] ? "*" : ""}`);

describe("the required talents' picker", () => {
  test("every catalog talent is a check box; ?q= keeps those matching id or title, and the ticked ones whatever the filter", async () => {
    const { owner } = await orgWithProject(env);
    const all = boxes(await html(owner, "/org/policy"));
    expect(all.length).toBeGreaterThan(50);
    expect(all).toContain("secrets-handling");
    await owner.put("/web/orgs/current/policy", { requiredTalents: ["go-base"] });
    const filtered = boxes(await html(owner, "/org/policy?q=secret"));
    expect(filtered[0]).toBe("go-base*");
    expect(filtered.slice(1).every((id) => id.includes("secret"))).toBe(true);
    expect(filtered).toContain("secrets-handling");
  });

  test("a form post of ticked boxes (repeated requiredTalents, with the picker's empty field) saves them; none ticked saves none", async () => {
    const { owner } = await orgWithProject(env);
    const saved = await formPost(env, owner, "/org/policy", [
      ["requiredTalents", ""],
      ["requiredTalents", "secrets-handling"],
      ["requiredTalents", "go-base"],
      ["allowedTalents", ""],
    ]);
    expect(saved.status).toBe(303);
    expect((await owner.get("/web/orgs/current/policy")).body.policy.requiredTalents).toEqual(["secrets-handling", "go-base"]);
    const page = boxes(await html(owner, "/org/policy"));
    expect(page.slice(0, 2)).toEqual(["secrets-handling*", "go-base*"]);
    const none = await formPost(env, owner, "/org/policy", [
      ["requiredTalents", ""],
      ["allowedTalents", ""],
    ]);
    expect(none.status).toBe(303);
    expect((await owner.get("/web/orgs/current/policy")).body.policy.requiredTalents).toEqual([]);
  });

  test("the lock form's rule input lists the rules with a detector (a datalist)", async () => {
    const { owner } = await orgWithProject(env);
    const page = await html(owner, "/org/policy");
    expect(page).toContain('list="policy-rule-options"');
    expect(page).toMatch(/<datalist id="policy-rule-options"><option value="[A-Z0-9]+-\d+">/);
    expect(page).toContain('<option value="TS-005">typescript-strict: ');
  });
});
