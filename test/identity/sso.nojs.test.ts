/**
 * The /org/sso form's refusals (src/identity/pages/sso.tsx, ssoForm.tsx), over app.handle: posted without
 * JavaScript to `POST /org/sso`, a refused save answers the form's page again (400 or 409, not the error page)
 * with what was typed — never the client secret — and each problem under its field: the protocol group's, the
 * enforce box's, the domains'; nothing is saved. With htmx the JSON route's refusal is the #flash fragment whose
 * issues app.js puts under the same fields. A save without JavaScript is a 303 back to /org/sso.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { approveSsoDomains, joinedMember, orgWithProject, testEnv, type TestEnv, type WebClient, textOfId } from "../helpers";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const FORM = {
  return: "/org/sso",
  type: "oidc",
  domains: "nojs-sso.example",
  oidc_issuer: "https://idp.example.com",
  oidc_client_id: "cid",
  oidc_client_secret: "the-nojs-secret",
};

/** Posts the form as a browser does: urlencoded, HTML first; `htmx` as htmx does instead. */
function post(client: WebClient, path: string, fields: Record<string, string>, htmx = false): Promise<Response> {
  const headers: Record<string, string> = {
    origin: new URL(env.config.baseUrl).origin,
    cookie: client.cookie!,
    "content-type": "application/x-www-form-urlencoded",
    ...(htmx ? { "hx-request": "true", accept: "*/*" } : { accept: "text/html,application/xhtml+xml" }),
  };
  return env.request(path, { method: "POST", headers, body: new URLSearchParams(fields).toString(), redirect: "manual" });
}

describe("the SSO form without JavaScript: a refusal answers the form again", () => {
  test("bad domains and a missing client ID → 400 page at the form, each problem under its field, the typed values kept, the secret never echoed; nothing saved", async () => {
    const { owner } = await orgWithProject(env, "Nojs Sso Bad");
    const r = await post(owner, "/org/sso", { ...FORM, domains: "not a domain", oidc_client_id: "", enforce: "true" });
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toContain("text/html");
    const html = await r.text();
    expect(html).toContain('id="sso-form"');
    expect(html).not.toContain("That did not work"); // not the error page
    expect(textOfId(html, "sso-domains-error")).toBe(
      '"not" is not an e-mail domain; "a" is not an e-mail domain; "domain" is not an e-mail domain',
    );
    expect(textOfId(html, "oidc-client-id-error")).toBe("Client ID is required (at most 300 characters)");
    expect(textOfId(html, "sso-type-error")).toBeNull();
    expect(textOfId(html, "sso-form-refused")).toBe("Not saved: fix the 2 fields marked below.");
    // the control is named by its error and marked invalid
    expect(html).toMatch(
      /<input id="sso-domains" name="domains"[^>]*aria-describedby="sso-domains-help sso-domains-error"[^>]*aria-invalid="true"/,
    );
    // what was typed is kept (the enforce box too); the secret is not sent back
    expect(html).toContain('value="not a domain"');
    expect(html).toMatch(/<input id="sso-enforce" type="checkbox" name="enforce" value="true" checked=""/);
    expect(html).not.toContain("the-nojs-secret");
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
  });

  test("an unknown protocol → 400 with the problem under the protocol group (the fieldset named by it), neither choice checked", async () => {
    const { owner } = await orgWithProject(env, "Nojs Sso Type");
    const { type: _none, ...noType } = FORM;
    const r = await post(owner, "/org/sso", { ...noType, type: "ldap" });
    expect(r.status).toBe(400);
    const html = await r.text();
    expect(textOfId(html, "sso-type-error")).toBe("must be oidc or saml");
    expect(html).toMatch(/<fieldset class="field choice" id="sso-type" data-issue-path="type" aria-describedby="sso-type-error">/);
    expect(html).not.toMatch(/name="type" value="oidc" checked/); // "ldap" was sent: neither choice is checked
    expect(textOfId(html, "sso-domains-error")).toBeNull();
    // the enforce box's error slot (its issue comes from a JSON body only: a form sends a string)
    expect(html).toContain('id="sso-enforce-error"');
    expect(html).toMatch(/<input id="sso-enforce" type="checkbox" name="enforce" value="true"\/>/); // not sent: unchecked, no error
  });

  test("a domain another organization proved → 409 page with the problem under the domains; the other fields kept", async () => {
    const other = await orgWithProject(env, "Nojs Sso Other");
    expect((await post(other.owner, "/org/sso", { ...FORM, domains: "taken-nojs.example" })).status).toBe(303);
    await approveSsoDomains(env, other.org.id, ["taken-nojs.example"]);
    const { owner } = await orgWithProject(env, "Nojs Sso Taken");
    const r = await post(owner, "/org/sso", { ...FORM, domains: "free-nojs.example, taken-nojs.example" });
    expect(r.status).toBe(409);
    const html = await r.text();
    expect(textOfId(html, "sso-domains-error")).toBe(
      "taken-nojs.example is verified by another organization: a domain belongs to one organization at most.",
    );
    expect(html).toContain('value="free-nojs.example, taken-nojs.example"');
    expect(html).toContain('value="https://idp.example.com"');
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toBeNull();
    // with htmx: the #flash fragment names the field, for app.js to put it under the domains
    const h = await post(owner, "/web/orgs/current/sso", { ...FORM, domains: "taken-nojs.example" }, true);
    expect(h.status).toBe(409);
    expect(h.headers.get("hx-retarget")).toBe("#flash");
    expect(await h.text()).toContain('<p data-field="domains" data-message="taken-nojs.example is verified by another organization');
  });

  test("with htmx the same refusal is the #flash fragment naming each field (app.js puts it under them)", async () => {
    const { owner } = await orgWithProject(env, "Nojs Sso Htmx");
    const r = await post(owner, "/web/orgs/current/sso", { ...FORM, type: "", domains: "not-a-domain" }, true);
    expect(r.status).toBe(400);
    expect(r.headers.get("hx-retarget")).toBe("#flash");
    const html = await r.text();
    expect(html).toContain('<li data-field="type" data-message="must be oidc or saml">Type: must be oidc or saml</li>');
    expect(html).toContain(
      '<li data-field="domains/0" data-message="&quot;not-a-domain&quot; is not an e-mail domain">Domain 1: &quot;not-a-domain&quot; is not an e-mail domain</li>',
    );
  });

  test("a good save without JavaScript → 303 to /org/sso with the status cookie; a member gets the 404 page, an unsigned post 401, another site 403", async () => {
    const { owner } = await orgWithProject(env, "Nojs Sso Ok");
    const r = await post(owner, "/org/sso", { ...FORM, enforce: "true" });
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/org/sso");
    expect(r.headers.get("set-cookie")).toContain("talentd_status=");
    expect((await owner.get("/web/orgs/current/sso")).body.sso).toMatchObject({ domains: ["nojs-sso.example"], enforce: true });

    const member = await joinedMember(env, owner);
    const m = await post(member, "/org/sso", { ...FORM, domains: "member-nojs.example" });
    expect(m.status).toBe(404);
    const anon = await env.request("/org/sso", {
      method: "POST",
      headers: { origin: new URL(env.config.baseUrl).origin, "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      body: new URLSearchParams(FORM).toString(),
      redirect: "manual",
    });
    expect([303, 401]).toContain(anon.status);
    const cross = await env.request("/org/sso", {
      method: "POST",
      headers: {
        origin: "https://evil.example",
        cookie: owner.cookie!,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({ ...FORM, domains: "evil-nojs.example" }).toString(),
      redirect: "manual",
    });
    expect(cross.status).toBe(403);
    expect((await owner.get("/web/orgs/current/sso")).body.sso.domains).toEqual(["nojs-sso.example"]);
  });
});
