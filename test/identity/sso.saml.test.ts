/**
 * SAML correctness, against a real SAML IdP from npm (`samlify` in its IdP
 * role, signing with a certificate made by openssl): the happy path in Chromium (e-mail on
 * /login → the IdP → the signed Response posted to the ACS → signed in, member of the
 * organization); then responses crafted with samlify's IdP API and posted to the ACS with
 * fetch, each refused: unsigned, signed by another key, wrong audience, wrong destination,
 * expired, InResponseTo naming no request of ours, and a replay.
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import type { Browser } from "playwright-core";
import * as samlify from "samlify";
import { createApp } from "../../src/app";
import { createLogger } from "../../src/lib/log";
import { axeViolations, launchChromium, newPage } from "../browser-support";
import { fillTemplate, loginResponseValues, selfSignedCert, startSamlIdp, type SamlIdp } from "../idp-support";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { approveSsoDomains, orgWithProject, WebClient } from "../helpers";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 90_000);

let live: LiveEnv;
let saml: SamlIdp;
let org: { id: string };
let owner: WebClient;
let metadataUrl = "";
const DOMAIN = "saml-corp.example";

beforeAll(async () => {
  live = await liveEnv();
  saml = await startSamlIdp(() => metadataUrl);
  const o = await orgWithProject(live.env, "Saml Corp");
  org = o.org;
  owner = o.owner;
  const r = await owner.post("/web/orgs/current/sso", {
    type: "saml",
    domains: [DOMAIN],
    enforce: false,
    saml: { entryPoint: saml.entryPoint, idpIssuer: saml.entityId, idpCert: saml.cert },
  });
  expect(r.status).toBe(200);
  metadataUrl = r.body.serviceProvider.samlMetadataUrl;
  await approveSsoDomains(live.env, org.id, [DOMAIN]);
}, 60_000);
afterAll(async () => {
  await saml?.stop();
  await live?.close();
});

/** Starts an SSO sign-in as a browser would and returns the AuthnRequest id talentd stored. */
async function authnRequestId(): Promise<string> {
  const r = await fetch(`${live.base}/api/auth/sso/${DOMAIN}?next=/`, { redirect: "manual" });
  expect(r.status).toBe(302);
  const to = new URL(r.headers.get("location")!);
  expect(to.origin + to.pathname).toBe(saml.entryPoint);
  const sp = await saml.spFor(metadataUrl);
  const parsed = (await saml.idp.parseLoginRequest(sp, "redirect", {
    query: Object.fromEntries(to.searchParams),
    octetString: "",
  } as never)) as unknown as { extract: { request: { id: string } } };
  return parsed.extract.request.id;
}

let seq = 0;
/** A Response signed by the test IdP, with the given changes to samlify's default values. */
async function crafted(
  over: Partial<Parameters<typeof loginResponseValues>[0]> & { requestId?: string; idp?: ReturnType<typeof samlify.IdentityProvider> } = {},
): Promise<string> {
  const sp = await saml.spFor(metadataUrl);
  const now = Date.now();
  const values = loginResponseValues({
    id: `_resp${++seq}${now}`,
    assertionId: `_assert${seq}${now}`,
    destination: `${live.base}/api/auth/saml/${org.id}/acs`,
    audience: metadataUrl,
    issuer: saml.entityId,
    inResponseTo: over.requestId ?? (await authnRequestId()),
    email: `person${seq}@${DOMAIN}`,
    notBefore: new Date(now - 1000),
    notOnOrAfter: new Date(now + 5 * 60_000),
    ...over,
  });
  const r = (await (over.idp ?? saml.idp).createLoginResponse(
    sp,
    {} as never,
    "post",
    { email: values.NameID },
    { customTagReplacement: (template: string) => ({ id: values.ID!, context: fillTemplate(template, values) }) },
  )) as { context: string };
  return r.context;
}

/** Posts a SAMLResponse to the ACS as the IdP's page would; the redirect's target and cookie. */
async function postAcs(samlResponse: string, base = live.base) {
  const r = await fetch(`${base}/api/auth/saml/${org.id}/acs`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(saml.entryPoint).origin },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: "/" }).toString(),
  });
  return {
    status: r.status,
    location: r.headers.get("location") ?? "",
    signedIn: /talentd_session=[^;]+/.test(r.headers.get("set-cookie") ?? ""),
  };
}

async function lastFailure(): Promise<string> {
  const r = await live.env.database.client.execute(
    "SELECT detail FROM security_events WHERE kind = 'sign_in.failure' ORDER BY created_at DESC, id DESC LIMIT 1",
  );
  return String(r.rows[0]?.detail ?? "");
}

describe("SAML sign-in in Chromium (samlify IdP)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
  });

  test("a person of the domain types only the e-mail on /login, is sent to the IdP, and comes back signed in as a member of the organization", async () => {
    const w = await newPage(browser);
    const email = `browser.person@${DOMAIN}`;
    saml.email = email;
    await w.page.goto(`${live.base}/login`);
    await w.page.fill("#email", email);
    await w.page.click('form[action="/login"] button[type="submit"]');
    await w.page.waitForURL(`${live.base}/`);
    const cookie = (await w.context.cookies()).find((c) => c.name === "talentd_session")!;
    const c = new WebClient(live.env);
    c.cookie = `talentd_session=${cookie.value}`;
    const s = (await c.get("/api/auth/session")).body;
    expect(s.user.email).toBe(email);
    expect(s.activeOrganizationId).toBe(org.id);
    expect(s.organizations[0].role).toBe("member");
    expect(await axeViolations(w.page)).toEqual([]);
    await w.context.close();
  });
});

describe("SAML responses that must be refused (crafted with samlify's IdP API, posted to the ACS)", () => {
  test("control: a correctly signed, fresh response to our own request signs in; the same response again is a replay and is refused", async () => {
    const response = await crafted();
    const first = await postAcs(response);
    expect(first).toMatchObject({ status: 303, location: "/", signedIn: true });
    const again = await postAcs(response);
    expect(again).toMatchObject({ status: 303, signedIn: false });
    expect(again.location).toStartWith("/login?error=saml");
  });

  test("a replayed assertion is refused even under a new request id: assertion ids are kept until they expire", async () => {
    const assertionId = `_replayed${Date.now()}`;
    expect((await postAcs(await crafted({ assertionId }))).signedIn).toBe(true);
    const replay = await postAcs(await crafted({ assertionId }));
    expect(replay.signedIn).toBe(false);
    expect(await lastFailure()).toContain("already used");
  });

  test("an unsigned response (signature removed) is refused", async () => {
    const xml = Buffer.from(await crafted(), "base64")
      .toString("utf8")
      .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, "");
    expect(xml).not.toContain("Signature");
    const r = await postAcs(Buffer.from(xml).toString("base64"));
    expect(r).toMatchObject({ status: 303, signedIn: false });
    expect(r.location).toStartWith("/login?error=saml");
    expect(await lastFailure()).toMatch(/signature/i);
  });

  test("a response signed by another key than the configured IdP certificate is refused", async () => {
    const other = selfSignedCert("impostor");
    const impostor = samlify.IdentityProvider({
      entityID: saml.entityId,
      signingCert: other.cert,
      privateKey: other.key,
      wantAuthnRequestsSigned: false,
      singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: saml.entryPoint }],
    });
    const r = await postAcs(await crafted({ idp: impostor }));
    expect(r.signedIn).toBe(false);
    expect(await lastFailure()).toMatch(/signature/i);
  });

  test("a response for another audience is refused", async () => {
    const r = await postAcs(await crafted({ audience: "https://another-service.example/saml" }));
    expect(r.signedIn).toBe(false);
    expect(await lastFailure()).toMatch(/audience/i);
  });

  test("a response for another destination is refused", async () => {
    const r = await postAcs(await crafted({ destination: "https://another-service.example/acs" }));
    expect(r.signedIn).toBe(false);
    expect(await lastFailure()).toContain("not this service's ACS URL");
    // our ACS URL written in a comment before the real root does not pass for the Destination (read by an XML parser)
    const xml = Buffer.from(await crafted({ destination: "https://another-service.example/acs" }), "base64").toString("utf8");
    const decoy = `<!-- <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" Destination="${live.base}/api/auth/saml/${org.id}/acs"> -->`;
    const fooled = await postAcs(Buffer.from(xml.startsWith("<?xml") ? xml.replace(/\?>/, `?>${decoy}`) : decoy + xml).toString("base64"));
    expect(fooled.signedIn).toBe(false);
    expect(await lastFailure()).toContain("another-service.example");
  });

  test("an expired assertion is refused (NotOnOrAfter 10 minutes ago, beyond the 60 s clock skew)", async () => {
    const now = Date.now();
    const r = await postAcs(await crafted({ notBefore: new Date(now - 20 * 60_000), notOnOrAfter: new Date(now - 10 * 60_000) }));
    expect(r.signedIn).toBe(false);
    // node-saml finds the subject confirmation's NotOnOrAfter past: no valid subject confirmation
    expect(await lastFailure()).toMatch(/expired|NotOnOrAfter|subject confirmation/i);
  });

  test("an assertion not yet valid beyond the clock skew (NotBefore in 5 minutes) is refused", async () => {
    const now = Date.now();
    const r = await postAcs(await crafted({ notBefore: new Date(now + 5 * 60_000), notOnOrAfter: new Date(now + 10 * 60_000) }));
    expect(r.signedIn).toBe(false);
  });

  test("InResponseTo must name a request this server made: an unsolicited or invented id is refused", async () => {
    const r = await postAcs(await crafted({ requestId: "_an-id-this-server-never-sent" }));
    expect(r.signedIn).toBe(false);
    expect(await lastFailure()).toContain("InResponseTo");
  });

  test("an assertion for an address outside the organization's domains is refused", async () => {
    const r = await postAcs(await crafted({ email: "ceo@another-company.example" }));
    expect(r.signedIn).toBe(false);
    expect(r.location).toStartWith("/login?error=sso_domain");
  });

  test("request ids live in the database: a response to a request made before a restart is accepted by the restarted server", async () => {
    const requestId = await authnRequestId();
    const response = await crafted({ requestId });
    // a second app over the same database file: nothing of the first one's memory
    const restarted = createApp({
      config: live.env.config,
      database: live.env.database,
      log: createLogger("error", () => {}),
      state: live.env.state,
    });
    const r = await restarted.handle(
      new Request(`${live.env.config.baseUrl}/api/auth/saml/${org.id}/acs`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ SAMLResponse: response, RelayState: "/" }).toString(),
      }),
    );
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/");
    expect(r.headers.get("set-cookie")).toContain("talentd_session=");
  });

  test("the SP metadata names our entity ID and ACS URL from BASE_URL; an organization without SAML has none (404)", async () => {
    const xml = await (await fetch(metadataUrl)).text();
    expect(xml).toContain(`entityID="${metadataUrl}"`);
    expect(xml).toContain(`Location="${live.base}/api/auth/saml/${org.id}/acs"`);
    expect((await fetch(`${live.base}/api/auth/saml/org_unknown/metadata`)).status).toBe(404);
  });

  test("a suspended organization's SAML is not used: sign-in start and ACS both refuse", async () => {
    const { owner: o2, org: org2 } = await orgWithProject(live.env, "Suspended Saml");
    const domain = "suspended-saml.example";
    expect(
      (
        await o2.post("/web/orgs/current/sso", {
          type: "saml",
          domains: [domain],
          saml: { entryPoint: saml.entryPoint, idpIssuer: saml.entityId, idpCert: saml.cert },
        })
      ).status,
    ).toBe(200);
    await approveSsoDomains(live.env, org2.id, [domain]);
    await live.env.database.client.execute({ sql: "UPDATE organizations SET status = 'suspended' WHERE id = ?", args: [org2.id] });
    const start = await fetch(`${live.base}/api/auth/sso/${domain}`, { redirect: "manual" });
    expect(start.status).toBe(303);
    expect(start.headers.get("location")).toStartWith("/login?error=sso_not_approved");
    const acs = await fetch(`${live.base}/api/auth/saml/${org2.id}/acs`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "SAMLResponse=x",
    });
    expect(acs.headers.get("location")).toStartWith("/login?error=sso_not_approved");
  });
});
