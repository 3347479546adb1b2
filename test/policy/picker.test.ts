/**
 * The policy page's pickers (docs/design.md "Pickers, not typed ids"): required talents are check boxes filtered by
 * `?q=` without JavaScript (the ticked ones always shown), posted as a list; a lock's rule input offers a datalist.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, joinedMember, orgWithProject, testEnv, type TestEnv, type WebClient } from "../helpers";

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

const allowedBoxes = (page: string) =>
  [...page.matchAll(/name="allowedTalents" value="([^"]+)"( checked="")?/g)].map((m) => `${m[1]}${m[2] ? "*" : ""}`);
const policyOf = async (c: WebClient) => (await c.get("/web/orgs/current/policy")).body.policy;

describe("the allowed talents' picker", () => {
  test("any or only the ticked: the page shows the mode and the boxes; ?aq= filters them (the ticked stay), ?q= is kept along", async () => {
    const { owner } = await orgWithProject(env);
    const any = await html(owner, "/org/policy");
    expect(any).toContain('name="allowedMode" value="any" checked=""');
    expect(allowedBoxes(any).length).toBeGreaterThan(50);
    expect(allowedBoxes(any).some((b) => b.endsWith("*"))).toBe(false);
    await owner.put("/web/orgs/current/policy", { requiredTalents: [], allowedTalents: ["go-base"] });
    const only = await html(owner, "/org/policy?q=go&aq=sql");
    expect(only).toContain('name="allowedMode" value="only" checked=""');
    const filtered = allowedBoxes(only);
    expect(filtered[0]).toBe("go-base*");
    expect(filtered).toContain("sql-base");
    expect(filtered.length).toBeLessThan(allowedBoxes(any).length / 2);
    // each filter's GET form carries the other one
    expect(only).toMatch(/<form id="policy-allowed-filter"[^>]*><input type="hidden" name="q" value="go"\/?>/);
    expect(only).toContain('form="policy-allowed-filter"');
  });

  test("a filter that matches none offers the closest ids (did you mean), each a link filtering by it", async () => {
    const { owner } = await orgWithProject(env);
    const page = await html(owner, "/org/policy?aq=secrets-handlng");
    const note = /<p class="muted small" id="policy-allowed-picker-hidden">([\s\S]*?)<\/p>/.exec(page)![1]!;
    expect(note).toContain("did you mean");
    expect(note).toContain('<a href="/org/policy?aq=secrets-handling#policy-allowed-field">secrets-handling</a>');
    const required = await html(owner, "/org/policy?q=secrets-handlng");
    expect(required).toContain('<a href="/org/policy?q=secrets-handling#policy-form-card">secrets-handling</a>');
  });

  test("a form post: only with ticked boxes saves them; only with none saves an empty allow-list; any saves none whatever is ticked", async () => {
    const { owner } = await orgWithProject(env);
    const post = (mode: string, ids: string[]) =>
      formPost(env, owner, "/org/policy", [
        ["requiredTalents", ""],
        ["allowedMode", mode],
        ["allowedTalents", ""],
        ...ids.map((id): [string, string] => ["allowedTalents", id]),
      ]);
    expect((await post("only", ["sql-base", "go-base"])).status).toBe(303);
    expect((await policyOf(owner)).allowedTalents).toEqual(["sql-base", "go-base"]);
    expect(allowedBoxes(await html(owner, "/org/policy")).slice(0, 2)).toEqual(["sql-base*", "go-base*"]);
    expect((await post("only", [])).status).toBe(303);
    expect((await policyOf(owner)).allowedTalents).toEqual([]);
    expect((await post("any", ["sql-base"])).status).toBe(303);
    expect((await policyOf(owner)).allowedTalents).toBeNull();
  });

  test("failure paths: an unknown ticked id → 400, under the allowed field in words with the closest ids, ticks kept, nothing saved; a bad mode → 400; a member → 404", async () => {
    const { owner } = await orgWithProject(env);
    const bad = await formPost(env, owner, "/org/policy", [
      ["requiredTalents", ""],
      ["allowedMode", "only"],
      ["allowedTalents", "sql-base"],
      ["allowedTalents", "secrets-handlng"],
    ]);
    expect(bad.status).toBe(400);
    const error = /<p class="field-error" id="policy-allowed-field-error">([^<]*)<\/p>/.exec(bad.html)![1]!;
    expect(error).toContain("unknown talent &quot;secrets-handlng&quot; — did you mean &quot;secrets-handling&quot;?");
    expect(allowedBoxes(bad.html).slice(0, 2)).toEqual(["sql-base*", "secrets-handlng*"]);
    expect(bad.html).toContain('name="allowedMode" value="only" checked=""');
    expect((await policyOf(owner)).allowedTalents).toBeNull();
    const mode = await formPost(env, owner, "/org/policy", [
      ["requiredTalents", ""],
      ["allowedMode", "some"],
    ]);
    expect(mode.status).toBe(400);
    expect(/id="policy-allowed-field-error">([^<]*)</.exec(mode.html)![1]).toContain("must be &quot;any&quot;");
    // htmx's PUT of the same form (form-encoded)
    const htmx = await env.request("/web/orgs/current/policy", {
      method: "PUT",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(env.config.baseUrl).origin,
        cookie: owner.cookie!,
        "hx-request": "true",
      },
      body: "requiredTalents=&allowedMode=only&allowedTalents=&allowedTalents=go-base",
    });
    expect(htmx.status).toBe(204); // htmx: back to the page (HX-Redirect), its status line saying what was saved
    expect((await policyOf(owner)).allowedTalents).toEqual(["go-base"]);
    const member = await joinedMember(env, owner);
    const refused = await formPost(env, member, "/org/policy", [["allowedMode", "any"]]);
    expect(refused.status).toBe(404);
    expect((await policyOf(owner)).allowedTalents).toEqual(["go-base"]);
  });
});
