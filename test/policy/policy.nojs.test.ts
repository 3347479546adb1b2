/**
 * `/org/policy`'s form without JavaScript (src/policy/pages.tsx): it posts to `POST /org/policy`, which saves as
 * `PUT /web/orgs/current/policy` does (303 back to the page with its status line) or, on a refusal, answers the page
 * again (400 or 409, not the error page) with the lists as typed and each problem under the list it concerns. With htmx
 * the JSON route's refusal is the #flash fragment naming that list (app.js puts it under it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formPost, htmxForm, joinedMember, orgWithProject, testEnv, type TestEnv, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const policyOf = async (c: { get: (p: string) => Promise<{ body: any }> }) => (await c.get("/web/orgs/current/policy")).body.policy;

describe("POST /org/policy: a refused policy answers its form again, each problem under its list", () => {
  test("an unknown id in each list → 400 with the form, each unknown id under its own list, both lists kept as typed; nothing saved", async () => {
    const { owner } = await orgWithProject(env);
    const r = await formPost(env, owner, "/org/policy", {
      requiredTalents: "secrets-handling\nno-such-talent",
      allowedTalents: "go-base, nope-2",
    });
    expect(r.status).toBe(400);
    expect(r.html).toContain('id="policy-form"');
    expect(r.html).not.toContain("That did not work"); // not the error page
    expect(textOfId(r.html, "policy-required-field-error")).toContain('unknown talent "no-such-talent"');
    expect(textOfId(r.html, "policy-required-field-error")).not.toContain("nope-2");
    expect(textOfId(r.html, "policy-allowed-field-error")).toContain('unknown talent "nope-2"');
    expect(textOfId(r.html, "policy-refused")).toBe("Not saved: fix the 2 fields marked below.");
    // the picker keeps what was sent ticked, the unknown id marked so
    expect(r.html).toContain('<input type="checkbox" name="requiredTalents" value="secrets-handling" checked=""/>');
    expect(r.html).toContain('value="no-such-talent" checked=""/> <code>no-such-talent</code><span class="error small"> not known</span>');
    // an older form's text of the allow-list comes back as ticked boxes of "only", its unknown id marked too
    expect(r.html).toContain('<input type="checkbox" name="allowedTalents" value="go-base" checked=""/>');
    expect(r.html).toContain('value="nope-2" checked=""/> <code>nope-2</code><span class="error small"> not known</span>');
    expect(r.html).toContain('name="allowedMode" value="only" checked=""');
    expect((await policyOf(owner)).requiredTalents).toEqual([]);
  });

  test("a body that is not a form or an object (JSON null, a string) → the page, never a 500; nothing saved", async () => {
    const { owner } = await orgWithProject(env);
    for (const body of [null, "text", 7]) {
      const r = await owner.call("POST", "/org/policy", body, { accept: "text/html" });
      expect({ body, status: r.status < 500 }).toEqual({ body, status: true });
    }
    expect((await policyOf(owner)).requiredTalents).toEqual([]);
  });

  test("required talents that conflict → 409 with the conflict under the required list; a bad list → 400 under it", async () => {
    const { owner } = await orgWithProject(env);
    const r = await formPost(env, owner, "/org/policy", { requiredTalents: "npm-workspaces\npnpm-workspaces", allowedTalents: "" });
    expect(r.status).toBe(409);
    expect(textOfId(r.html, "policy-required-field-error")).toContain("npm-workspaces × pnpm-workspaces");
    expect(textOfId(r.html, "policy-allowed-field-error")).toBeNull();
    const tooLong = await formPost(env, owner, "/org/policy", { requiredTalents: "x".repeat(201), allowedTalents: "" });
    expect(tooLong.status).toBe(400);
    expect(textOfId(tooLong.html, "policy-required-field-error")).toContain("must be an array of talent ids");
    expect((await policyOf(owner)).requiredTalents).toEqual([]);
  });

  test("a good form → 303 to /org/policy with the status cookie, the policy saved; a member → 404; another site → 403", async () => {
    const { owner } = await orgWithProject(env);
    const cross = await formPost(env, owner, "/org/policy", { requiredTalents: "secrets-handling" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    const r = await formPost(env, owner, "/org/policy", { requiredTalents: "secrets-handling", allowedTalents: "" });
    expect([r.status, r.location]).toEqual([303, "/org/policy"]);
    expect(r.setCookie ?? "").toContain("status");
    expect((await policyOf(owner)).requiredTalents).toEqual(["secrets-handling"]);
    const member = await joinedMember(env, owner);
    const refused = await formPost(env, member, "/org/policy", { requiredTalents: "", allowedTalents: "" });
    expect(refused.status).toBe(404);
    expect((await policyOf(owner)).requiredTalents).toEqual(["secrets-handling"]);
  });

  test("with htmx, PUT /web/orgs/current/policy's refusals name their list in #flash: an unknown id's issue, a conflict's field", async () => {
    const { owner } = await orgWithProject(env);
    const put = (fields: Record<string, string>) => htmxForm(env, owner, "PUT", "/web/orgs/current/policy", fields);
    const unknown = await put({ requiredTalents: "no-such-talent", allowedTalents: "" });
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('<li data-field="requiredTalents" data-message="unknown talent &quot;no-such-talent&quot;');
    const conflict = await put({ requiredTalents: "npm-workspaces pnpm-workspaces", allowedTalents: "" });
    expect(conflict.status).toBe(409);
    expect(conflict.html).toContain('<p data-field="requiredTalents" data-message="The required talents conflict');
    const json = await owner.call("PUT", "/web/orgs/current/policy", { requiredTalents: ["no-such-talent"], allowedTalents: ["nope"] });
    const body = await json.json();
    expect([json.status, body.error, body.ids]).toEqual([400, "unknown_talents", ["no-such-talent", "nope"]]);
    expect(body.issues.map((i: { path: string }) => i.path)).toEqual(["requiredTalents", "allowedTalents"]);
  });
});
