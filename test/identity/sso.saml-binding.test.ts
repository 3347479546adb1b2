/**
 * SAML and login CSRF: over https a Response is accepted only from the browser that started
 * the sign-in (the `talentd_saml` cookie, SameSite=None; Secure, so the IdP's cross-site POST
 * carries it). Someone who starts a sign-in and makes another person's browser post the
 * resulting Response cannot sign that person in as themselves. Responses come from samlify's
 * IdP; requests go through app.handle with an https BASE_URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as samlify from "samlify";
import * as xmllint from "@authenio/samlify-node-xmllint";
import { selfSignedCert } from "../cert-support";
import { approveSsoDomains, orgWithProject, testEnv, type TestEnv } from "../helpers";

samlify.setSchemaValidator(xmllint);

const BASE = "https://talentd.example";
const DOMAIN = "binding.example";
let env: TestEnv;
let orgId = "";
let idp: ReturnType<typeof samlify.IdentityProvider>;
let sp: ReturnType<typeof samlify.ServiceProvider>;

beforeAll(async () => {
  env = await testEnv({ BASE_URL: BASE });
  const { key, cert } = selfSignedCert("binding-idp");
  idp = samlify.IdentityProvider({
    entityID: "urn:binding-idp",
    signingCert: cert,
    privateKey: key,
    wantAuthnRequestsSigned: false,
    nameIDFormat: ["urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"],
    singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: "https://idp.binding.example/sso" }],
  });
  const { owner, org } = await orgWithProject(env, "Binding Org");
  orgId = org.id;
  const r = await owner.post("/web/orgs/current/sso", {
    type: "saml",
    domains: [DOMAIN],
    saml: { entryPoint: "https://idp.binding.example/sso", idpIssuer: "urn:binding-idp", idpCert: cert },
  });
  expect(r.status).toBe(200);
  await approveSsoDomains(env, org.id, [DOMAIN]);
  sp = samlify.ServiceProvider({ metadata: await (await env.request(`/api/auth/saml/${orgId}/metadata`)).text() });
});
afterAll(() => env.close());

/** A browser starts a sign-in: its binding cookie and the IdP's signed Response to that request. */
async function startAndAnswer(email: string): Promise<{ cookie: string; response: string }> {
  const start = await env.request(`/api/auth/sso/${DOMAIN}`);
  expect(start.status).toBe(302);
  const setCookie = start.headers.get("set-cookie") ?? "";
  expect(setCookie).toMatch(/talentd_saml=[^;]+; Path=\/api\/auth\/saml; HttpOnly; Max-Age=600; SameSite=None; Secure/);
  const cookie = /talentd_saml=[^;]+/.exec(setCookie)![0];
  const to = new URL(start.headers.get("location")!);
  const parsed = await idp.parseLoginRequest(sp, "redirect", { query: Object.fromEntries(to.searchParams), octetString: "" } as never);
  const r = (await idp.createLoginResponse(sp, parsed as never, "post", { email })) as { context: string };
  return { cookie, response: r.context };
}

const acs = (response: string, cookie?: string) =>
  env.request(`/api/auth/saml/${orgId}/acs`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams({ SAMLResponse: response, RelayState: "/" }).toString(),
  });

describe("SAML over https: the Response is bound to the browser that started the sign-in", () => {
  test("posted from a browser without the binding cookie (someone else's) → refused; from another sign-in's browser → refused", async () => {
    const attacker = await startAndAnswer(`attacker@${DOMAIN}`);
    const victimWithout = await acs(attacker.response);
    expect(victimWithout.status).toBe(303);
    expect(victimWithout.headers.get("location")).toStartWith("/login?error=saml");
    expect(victimWithout.headers.get("set-cookie") ?? "").not.toContain("talentd_session=");
    const detail = String(
      (
        await env.database.client.execute(
          "SELECT detail FROM security_events WHERE kind = 'sign_in.failure' ORDER BY created_at DESC LIMIT 1",
        )
      ).rows[0]!.detail,
    );
    expect(detail).toContain("did not start in this browser");

    const a = await startAndAnswer(`a@${DOMAIN}`);
    const b = await startAndAnswer(`b@${DOMAIN}`);
    const crossed = await acs(a.response, b.cookie);
    expect(crossed.headers.get("set-cookie") ?? "").not.toContain("talentd_session=");
  });

  test("posted from the browser that started it → signed in, and the binding cookie is cleared", async () => {
    const mine = await startAndAnswer(`me@${DOMAIN}`);
    const r = await acs(mine.response, mine.cookie);
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/");
    const cookies = r.headers.getSetCookie();
    expect(cookies.some((c) => /^__Host-talentd_session=[^;]+;.*Secure/.test(c))).toBe(true);
    expect(cookies.some((c) => /^talentd_saml=;.*Max-Age=0/.test(c))).toBe(true);
  });
});
