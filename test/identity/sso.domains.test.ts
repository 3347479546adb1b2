/**
 * SSO domains are proven before they route, and an identity someone else vouches for opens an
 * existing account only with that account's consent. Journeys against a live server, a SAML
 * IdP from npm (samlify) whose key the test generates and which the attacker controls, and a
 * DNS server on 127.0.0.1 reached through DNS_SERVERS:
 *   - takeover: an organization names someone else's domain with its own IdP and asserts the
 *     platform administrator's address → no session, ever;
 *   - squatting: the same claim with enforce → everyone outside still signs in with a password;
 *   - proof: a TXT record verifies a claim; one organization at most holds a domain verified;
 *   - consent: a verified account is linked only after its holder signs in and confirms;
 *   - pre-account hijacking: an unverified account made by someone else is reclaimed by the
 *     address's SSO holder (the squatter's password and sessions die);
 *   - e-mail verification at sign-up (a mailed link, confirmed by a button).
 */
import { afterAll, beforeAll, describe, expect, test as bunTest } from "bun:test";
import { fillTemplate, loginResponseValues, startSamlIdp, type SamlIdp } from "../idp-support";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { startTestDns, type TestDns } from "../dns-support";
import { approveSsoDomains, joinedMember, makePlatformAdmin, orgWithProject, signedUp, verifiedByMail, WebClient } from "../helpers";

const test = (name: string, fn: () => Promise<void>) => bunTest(name, fn, 60_000);

let live: LiveEnv;
let dns: TestDns;
let idp: SamlIdp;
const metadataUrls = new Map<string, string>();

beforeAll(async () => {
  dns = await startTestDns();
  live = await liveEnv({ DNS_SERVERS: dns.server });
  idp = await startSamlIdp(() => [...metadataUrls.values()][0]!);
}, 60_000);
afterAll(async () => {
  await idp?.stop();
  await live?.close();
  await dns?.stop();
});

/** Saves SAML SSO for the owner's organization with the test IdP; returns the SP metadata URL. */
async function samlSso(owner: WebClient, orgId: string, domains: string[], enforce = false): Promise<{ status: number; body: any }> {
  const r = await owner.post("/web/orgs/current/sso", {
    type: "saml",
    domains,
    enforce,
    saml: { entryPoint: idp.entryPoint, idpIssuer: idp.entityId, idpCert: idp.cert },
  });
  if (r.status === 200) metadataUrls.set(orgId, r.body.serviceProvider.samlMetadataUrl);
  return r;
}

let seq = 0;
/** Signs an assertion for `email` with the IdP's key and posts it to the organization's ACS, as a browser would (after starting at the domain's door when it routes). */
async function ssoAs(orgId: string, email: string, startDomain = email.split("@")[1]!) {
  const metadataUrl = metadataUrls.get(orgId)!;
  const sp = await idp.spFor(metadataUrl);
  // a request id of ours, when the domain routes; an invented one otherwise (refused anyway)
  const start = await fetch(`${live.base}/api/auth/sso/${startDomain}?next=/`, { redirect: "manual" });
  let requestId = `_invented${++seq}`;
  const location = start.headers.get("location") ?? "";
  if (start.status === 302 && location.startsWith(idp.entryPoint)) {
    const to = new URL(location);
    const parsed = (await idp.idp.parseLoginRequest(sp, "redirect", {
      query: Object.fromEntries(to.searchParams),
      octetString: "",
    } as never)) as unknown as { extract: { request: { id: string } } };
    requestId = parsed.extract.request.id;
  }
  const now = Date.now();
  const values = loginResponseValues({
    id: `_r${++seq}${now}`,
    assertionId: `_a${seq}${now}`,
    destination: `${live.base}/api/auth/saml/${orgId}/acs`,
    audience: metadataUrl,
    issuer: idp.entityId,
    inResponseTo: requestId,
    email,
    notBefore: new Date(now - 1000),
    notOnOrAfter: new Date(now + 5 * 60_000),
  });
  const signed = (await idp.idp.createLoginResponse(
    sp,
    {} as never,
    "post",
    { email },
    { customTagReplacement: (t: string) => ({ id: values.ID!, context: fillTemplate(t, values) }) },
  )) as { context: string };
  const r = await fetch(`${live.base}/api/auth/saml/${orgId}/acs`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(idp.entryPoint).origin },
    body: new URLSearchParams({ SAMLResponse: signed.context, RelayState: "/" }).toString(),
  });
  const setCookie = r.headers.get("set-cookie") ?? "";
  return {
    start: { status: start.status, location },
    status: r.status,
    location: r.headers.get("location") ?? "",
    session: /talentd_session=([^;]+)/.exec(setCookie)?.[1] ?? null,
    linkToken: /talentd_link=([^;]+)/.exec(setCookie)?.[1] ?? null,
  };
}

async function sessionsOf(userId: string): Promise<number> {
  return Number(
    (await live.env.database.client.execute({ sql: "SELECT count(*) AS n FROM sessions WHERE user_id = ?", args: [userId] })).rows[0]!.n,
  );
}

async function passwordSignIn(email: string, password = "correct horse battery"): Promise<number> {
  return (await new WebClient(live.env).post("/api/auth/sign-in", { email, password })).status;
}

describe("an SSO domain claim routes nothing until proven", () => {
  test("takeover refused: an organization names the platform administrator's domain with its own IdP and signs an assertion for admin@ → no session, the domain does not route, nothing is linked", async () => {
    const admin = await signedUp(live.env, "admin@victim-corp.example");
    await makePlatformAdmin(live.env, admin.userId);
    const { owner: attacker, org } = await orgWithProject(live.env, "Attacker Org");
    expect((await samlSso(attacker, org.id, ["victim-corp.example"])).status).toBe(200);
    // the claim is pending: /login and the SSO door do not route it
    const r = await ssoAs(org.id, "admin@victim-corp.example");
    expect(r.start.location).toStartWith("/login?error=sso_unknown");
    expect(r.session).toBeNull();
    expect(r.location).toStartWith("/login?error=sso_not_approved");
    const login = await fetch(`${live.base}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: live.base },
      body: "email=admin%40victim-corp.example&password=",
    });
    expect(login.status).toBe(400);
    // the attacker proves a domain it does own, then asserts the administrator's address anyway
    dns.txt.set("_talentd-challenge.attacker-own.example", []);
    await samlSso(attacker, org.id, ["victim-corp.example", "attacker-own.example"]);
    const claim = (await attacker.get("/web/orgs/current/sso")).body.sso.domainClaims.find(
      (c: { domain: string }) => c.domain === "attacker-own.example",
    );
    dns.txt.set("_talentd-challenge.attacker-own.example", [claim.record.value]);
    expect((await attacker.post("/web/orgs/current/sso/domains/attacker-own.example/verify")).status).toBe(200);
    const again = await ssoAs(org.id, "admin@victim-corp.example", "attacker-own.example");
    expect(again.start.location).toStartWith(idp.entryPoint); // a real request of ours: only the address is wrong
    expect(again.session).toBeNull();
    expect(again.location).toStartWith("/login?error=sso_domain");
    const links = await live.env.database.client.execute({
      sql: "SELECT count(*) AS n FROM external_accounts WHERE user_id = ?",
      args: [admin.userId],
    });
    expect(Number(links.rows[0]!.n)).toBe(0);
  });

  test("a platform administrator never signs in through organization SSO, even on a domain the organization proved", async () => {
    const { owner, org } = await orgWithProject(live.env, "Admin Domain Org");
    const admin = await signedUp(live.env, "root@admin-domain.example");
    await makePlatformAdmin(live.env, admin.userId);
    await samlSso(owner, org.id, ["admin-domain.example"]);
    await approveSsoDomains(live.env, org.id, ["admin-domain.example"]);
    const r = await ssoAs(org.id, "root@admin-domain.example");
    expect(r.session).toBeNull();
    expect(r.location).toStartWith("/login?error=admin_sso");
  });

  test("squatting refused: an unproven claim with enforce locks nobody out; a proven one enforces only on the organization's own members", async () => {
    const admin = await signedUp(live.env, "ops@squatted.example");
    await makePlatformAdmin(live.env, admin.userId);
    const { owner: other } = await orgWithProject(live.env, "Real Tenant");
    const otherMember = await joinedMember(live.env, other, await signedUp(live.env, "dev@squatted.example"));
    const { owner: squatter, org } = await orgWithProject(live.env, "Squatter");
    expect((await samlSso(squatter, org.id, ["squatted.example"], true)).status).toBe(200);
    expect(await passwordSignIn(admin.email)).toBe(200);
    expect(await passwordSignIn(otherMember.email)).toBe(200);
    // even proven, enforcement reaches only the organization's members
    await approveSsoDomains(live.env, org.id, ["squatted.example"]);
    expect(await passwordSignIn(admin.email)).toBe(200);
    expect(await passwordSignIn(otherMember.email)).toBe(200);
  });

  test("proof by DNS: verify answers 409 domain_unverified with the record until the TXT record holds the token; a second organization cannot verify the same domain (409), and its pending claim never blocked the first", async () => {
    const { owner: first, org: org1 } = await orgWithProject(live.env, "Dns First");
    const { owner: second, org: org2 } = await orgWithProject(live.env, "Dns Second");
    // the second organization claims first: a pending claim blocks nobody
    expect((await samlSso(second, org2.id, ["proof.example"])).status).toBe(200);
    const saved = await samlSso(first, org1.id, ["proof.example"]);
    expect(saved.status).toBe(200);
    const claim = saved.body.sso.domainClaims[0];
    expect(claim).toMatchObject({
      domain: "proof.example",
      status: "pending",
      record: { type: "TXT", name: "_talentd-challenge.proof.example" },
    });
    expect(claim.record.value).toMatch(/^talentd-verification=[0-9a-f]{32}$/);
    expect(saved.body.sso.signInLinks).toEqual([]);
    const early = await first.post("/web/orgs/current/sso/domains/proof.example/verify");
    expect(`${early.status} ${early.body.error}`).toBe("409 domain_unverified");
    expect(early.body.record).toEqual(claim.record);
    expect(dns.asked).toContain("_talentd-challenge.proof.example");
    // a record holding another organization's token does not prove it for this one
    const secondClaim = (await second.get("/web/orgs/current/sso")).body.sso.domainClaims[0];
    dns.txt.set("_talentd-challenge.proof.example", [secondClaim.record.value, "v=spf1 -all"]);
    expect((await first.post("/web/orgs/current/sso/domains/proof.example/verify")).status).toBe(409);
    dns.txt.set("_talentd-challenge.proof.example", [claim.record.value, secondClaim.record.value]);
    const ok = await first.post("/web/orgs/current/sso/domains/proof.example/verify");
    expect(ok.status).toBe(200);
    expect(ok.body.claim).toMatchObject({ domain: "proof.example", status: "verified", verifiedBy: "dns" });
    // the proof is in the organization's audit log once (the refused attempts left nothing)
    const proofs = (await first.get("/web/orgs/current/audit-log?action=sso.domain_verified")).body.entries;
    expect(proofs.map((e: any) => [e.object.id, e.after, e.actor.id])).toEqual([["proof.example", { verifiedBy: "dns" }, first.userId]]);
    // one organization at most: the second cannot verify it, nor save it anew
    const taken = await second.post("/web/orgs/current/sso/domains/proof.example/verify");
    expect(`${taken.status} ${taken.body.error}`).toBe("409 conflict");
    const resave = await samlSso(second, org2.id, ["proof.example"]);
    expect(`${resave.status}`).toBe("409");
    // the proven domain routes to the first organization's IdP
    const door = await fetch(`${live.base}/api/auth/sso/proof.example`, { redirect: "manual" });
    expect(door.status).toBe(302);
    expect(door.headers.get("location")).toStartWith(idp.entryPoint);
    // saving again keeps the proof of a kept domain
    await samlSso(first, org1.id, ["proof.example", "more.example"]);
    const claims = (await first.get("/web/orgs/current/sso")).body.sso.domainClaims;
    expect(claims.map((c: { domain: string; status: string }) => `${c.domain} ${c.status}`)).toEqual([
      "more.example pending",
      "proof.example verified",
    ]);
  });

  test("proof by DNS refuses a TXT owned by another name (out of bailiwick) and a CNAME at the challenge name (the alias's target holds the token): 409 domain_unverified; a TXT at exactly the name proves it", async () => {
    const { owner, org } = await orgWithProject(live.env, "Dns Strict");
    const claim = (await samlSso(owner, org.id, ["strict-proof.example"])).body.sso.domainClaims[0];
    const name = "_talentd-challenge.strict-proof.example";
    // the answer carries the token, but in a record owned by another name
    dns.foreign.set(name, [{ owner: "attacker-zone.example", value: claim.record.value }]);
    const foreign = await owner.post("/web/orgs/current/sso/domains/strict-proof.example/verify");
    expect(`${foreign.status} ${foreign.body.error}`).toBe("409 domain_unverified");
    expect(foreign.body.found).toEqual([]);
    dns.foreign.delete(name);
    // the challenge name is an alias; the target (someone else's zone) holds the token
    dns.txt.set("token-host.attacker-zone.example", [claim.record.value]);
    dns.cname.set(name, "token-host.attacker-zone.example");
    const alias = await owner.post("/web/orgs/current/sso/domains/strict-proof.example/verify");
    expect(`${alias.status} ${alias.body.error}`).toBe("409 domain_unverified");
    expect(alias.body.message).toContain(`${name} is a CNAME`);
    expect((await owner.get("/web/orgs/current/sso")).body.sso.domainClaims[0].status).toBe("pending");
    dns.cname.delete(name);
    dns.txt.set(name, [claim.record.value]);
    const ok = await owner.post("/web/orgs/current/sso/domains/strict-proof.example/verify");
    expect(ok.body.claim).toMatchObject({ status: "verified", verifiedBy: "dns" });
  });

  test("the /org/sso page shows each pending domain's TXT record and verifies it from a form post", async () => {
    const { owner, org } = await orgWithProject(live.env, "Page Proof");
    await samlSso(owner, org.id, ["page-proof.example"]);
    const html = await (await owner.call("GET", "/org/sso")).text();
    const value = /talentd-verification=[0-9a-f]{32}/.exec(html)?.[0];
    expect(html).toContain("_talentd-challenge.page-proof.example");
    expect(value).toBeDefined();
    const form = (body: string) =>
      live.env.request("/org/sso/verify", {
        method: "POST",
        headers: { cookie: owner.cookie!, origin: live.base, "content-type": "application/x-www-form-urlencoded" },
        body,
      });
    const missing = await form("domain=page-proof.example");
    expect(missing.status).toBe(409);
    expect(await missing.text()).toContain("No TXT record _talentd-challenge.page-proof.example");
    dns.txt.set("_talentd-challenge.page-proof.example", [value!]);
    const done = await form("domain=page-proof.example");
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("page-proof.example is verified");
  });

  test("platform administrators list pending claims and approve one; members of organizations cannot (403)", async () => {
    const { owner, org } = await orgWithProject(live.env, "Approve Me");
    await samlSso(owner, org.id, ["approve-me.example"]);
    expect((await owner.get("/web/admin/sso-domains")).status).toBe(403);
    expect((await owner.post(`/web/admin/sso-domains/${org.id}/approve-me.example/approve`)).status).toBe(403);
    const admin = await signedUp(live.env);
    await makePlatformAdmin(live.env, admin.userId);
    const list = (await admin.get("/web/admin/sso-domains")).body.claims;
    expect(
      list.some((c: { domain: string; organization: { id: string } }) => c.domain === "approve-me.example" && c.organization.id === org.id),
    ).toBe(true);
    expect((await admin.post(`/web/admin/sso-domains/${org.id}/unclaimed.example/approve`)).status).toBe(404);
    const ok = await admin.post(`/web/admin/sso-domains/${org.id}/approve-me.example/approve`);
    expect(ok.body.claim).toMatchObject({ status: "verified", verifiedBy: "admin" });
  });
});

describe("an identity opens an existing account only with the account's consent", () => {
  test("a verified account is not linked by an SSO sign-in: the person signs in with the password and confirms at /account/link; then SSO signs in directly and the organization is joined", async () => {
    const { owner, org } = await orgWithProject(live.env, "Consent Org");
    await samlSso(owner, org.id, ["consent.example"]);
    await approveSsoDomains(live.env, org.id, ["consent.example"]);
    const { owner: inviter } = await orgWithProject(live.env, "Elsewhere");
    const person = await joinedMember(live.env, inviter, await verifiedByMail(live.env, await signedUp(live.env, "pat@consent.example")));
    const before = await sessionsOf(person.userId);
    const r = await ssoAs(org.id, "pat@consent.example");
    expect(r.session).toBeNull();
    expect(r.location).toStartWith("/login?error=link_required");
    expect(new URL(r.location, live.base).searchParams.get("next")).toBe("/account/link");
    expect(r.linkToken).toMatch(/^[0-9A-Za-z]{20,}$/);
    expect(await sessionsOf(person.userId)).toBe(before);
    const notice = await (await live.env.request(r.location)).text();
    expect(notice).toContain("An account with pat@consent.example already exists");
    // another account cannot confirm it
    const stranger = await signedUp(live.env);
    const wrong = await live.env.request("/account/link", {
      method: "POST",
      headers: {
        cookie: `${stranger.cookie}; talentd_link=${r.linkToken}`,
        origin: live.base,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "decision=link",
    });
    expect(wrong.status).toBe(410);
    // the holder signs in with the password, sees the question, confirms
    const holder = new WebClient(live.env);
    expect((await holder.post("/api/auth/sign-in", { email: "pat@consent.example", password: "correct horse battery" })).status).toBe(200);
    const ask = await live.env.request("/account/link", { headers: { cookie: `${holder.cookie}; talentd_link=${r.linkToken}` } });
    expect(await ask.text()).toContain("Consent Org");
    const yes = await live.env.request("/account/link", {
      method: "POST",
      headers: {
        cookie: `${holder.cookie}; talentd_link=${r.linkToken}`,
        origin: live.base,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "decision=link",
    });
    expect(yes.status).toBe(200);
    expect(await yes.text()).toContain("is linked to your account");
    const orgs = (await holder.get("/api/auth/session")).body.organizations.map((o: { id: string }) => o.id);
    expect(orgs).toContain(org.id);
    // from now on the SSO signs in directly
    const next = await ssoAs(org.id, "pat@consent.example");
    expect(next.session).not.toBeNull();
    // a used token confirms nothing again
    const replay = await live.env.request("/account/link", {
      method: "POST",
      headers: {
        cookie: `${holder.cookie}; talentd_link=${r.linkToken}`,
        origin: live.base,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "decision=link",
    });
    expect(replay.status).toBe(410);
  });

  test("declining at /account/link cancels only the pending link bound to the signed-in account: another account's decline with the token is 410 and the link stays; the holder's decline drops it", async () => {
    const { owner, org } = await orgWithProject(live.env, "Decline Org");
    await samlSso(owner, org.id, ["decline.example"]);
    await approveSsoDomains(live.env, org.id, ["decline.example"]);
    const person = await verifiedByMail(live.env, await signedUp(live.env, "kim@decline.example"));
    const r = await ssoAs(org.id, "kim@decline.example");
    expect(r.linkToken).toMatch(/^[0-9A-Za-z]{20,}$/);
    const pending = async () =>
      Number(
        (
          await live.env.database.client.execute({
            sql: "SELECT count(*) AS n FROM pending_links WHERE user_id = ?",
            args: [person.userId],
          })
        ).rows[0]!.n,
      );
    const decline = (cookie: string) =>
      live.env.request("/account/link", {
        method: "POST",
        headers: {
          cookie: `${cookie}; talentd_link=${r.linkToken}`,
          origin: live.base,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "decision=decline",
      });
    const stranger = await signedUp(live.env);
    const foreign = await decline(stranger.cookie!);
    expect(foreign.status).toBe(410);
    expect(await foreign.text()).toContain("No link to confirm");
    expect(await pending()).toBe(1);
    const mine = await decline(person.cookie!);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain("Nothing was linked");
    expect(await pending()).toBe(0);
  });

  test("pre-account hijacking refused: an unverified account someone else made at the address is reclaimed by the holder's SSO sign-in: the squatter's password and sessions stop working, the membership goes to the holder", async () => {
    const { owner, org } = await orgWithProject(live.env, "Reclaim Org");
    await samlSso(owner, org.id, ["reclaim.example"]);
    await approveSsoDomains(live.env, org.id, ["reclaim.example"]);
    const squatter = await signedUp(live.env, "victim@reclaim.example"); // never verified
    expect(await sessionsOf(squatter.userId)).toBe(1);
    const r = await ssoAs(org.id, "victim@reclaim.example");
    expect(r.session).not.toBeNull();
    expect(await passwordSignIn("victim@reclaim.example")).toBe(401);
    expect((await squatter.get("/api/auth/session")).status).toBe(401);
    const holder = new WebClient(live.env);
    holder.cookie = `talentd_session=${r.session}`;
    const s = (await holder.get("/api/auth/session")).body;
    expect(s.user.id).toBe(squatter.userId);
    expect(s.organizations.map((o: { id: string }) => o.id)).toContain(org.id);
    const event = await live.env.database.client.execute({
      sql: "SELECT detail FROM security_events WHERE kind = 'sign_in.success' AND user_id = ? ORDER BY created_at DESC LIMIT 1",
      args: [squatter.userId],
    });
    expect(String(event.rows[0]!.detail)).toContain('"reclaimed":true');
  });
});

describe("an invitation link never vouches for an address", () => {
  test("invitation pre-hijack refused: the inviter signs the invited address up with a password of their own; the account stays unverified, and the holder's SSO sign-in reclaims it (no consent asked, the inviter's password and session dead)", async () => {
    const { owner, org } = await orgWithProject(live.env, "Holder SSO Org");
    await samlSso(owner, org.id, ["prehijack.example"]);
    await approveSsoDomains(live.env, org.id, ["prehijack.example"]);
    const { owner: inviter, org: inviterOrg } = await orgWithProject(live.env, "Inviter Org");
    const inv = (await inviter.post("/web/orgs/current/invitations", { email: "holder@prehijack.example" })).body;
    // the inviter holds the link (the /org page shows it) and uses it before the mail is read
    const signUp = await live.env.request(`/accept-invitation/${inv.id}/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: live.base },
      body: new URLSearchParams({ email: "holder@prehijack.example", password: "the inviter's own secret" }).toString(),
    });
    expect(signUp.status).toBe(200);
    const attacker = new WebClient(live.env);
    attacker.cookie = /talentd_session=[^;]+/.exec(signUp.headers.get("set-cookie")!)![0];
    const account = (await attacker.get("/api/auth/session")).body.user.id as string;
    const verifiedAt = await live.env.database.client.execute({
      sql: "SELECT email_verified_at AS v FROM users WHERE id = ?",
      args: [account],
    });
    expect(verifiedAt.rows[0]!.v).toBeNull();
    // the real holder signs in through their organization's IdP: signed in at once, no link_required, no pending link
    const r = await ssoAs(org.id, "holder@prehijack.example");
    expect(r.location).not.toContain("link_required");
    expect(r.linkToken).toBeNull();
    expect(r.session).not.toBeNull();
    const pending = await live.env.database.client.execute({
      sql: "SELECT count(*) AS n FROM pending_links WHERE user_id = ?",
      args: [account],
    });
    expect(Number(pending.rows[0]!.n)).toBe(0);
    // the account is reclaimed: the inviter's password and session no longer open it; the holder's session is that account, now verified
    expect(await passwordSignIn("holder@prehijack.example", "the inviter's own secret")).toBe(401);
    expect((await attacker.get("/api/auth/session")).status).toBe(401);
    const holder = new WebClient(live.env);
    holder.cookie = `talentd_session=${r.session}`;
    const s = (await holder.get("/api/auth/session")).body;
    expect(s.user.id).toBe(account);
    expect(s.organizations.map((o: { id: string }) => o.id).sort()).toEqual([org.id, inviterOrg.id].sort());
    const event = await live.env.database.client.execute({
      sql: "SELECT detail FROM security_events WHERE kind = 'sign_in.success' AND user_id = ? ORDER BY created_at DESC LIMIT 1",
      args: [account],
    });
    expect(String(event.rows[0]!.detail)).toContain('"reclaimed":true');
    const after = await live.env.database.client.execute({ sql: "SELECT email_verified_at AS v FROM users WHERE id = ?", args: [account] });
    expect(after.rows[0]!.v).not.toBeNull();
  });
});

describe("the new routes' failure paths", () => {
  test("domain verify, admin approval, e-mail verification, consent: signed out, wrong role, another organization's claim, unknown resource, bad bodies → the documented status and code", async () => {
    const { owner, org } = await orgWithProject(live.env, "Failure Paths");
    await samlSso(owner, org.id, ["failure-paths.example"]);
    const { owner: other, org: otherOrg } = await orgWithProject(live.env, "Other Failure Paths");
    await samlSso(other, otherOrg.id, ["other-failure.example"]);
    const member = await joinedMember(live.env, owner);
    const anon = new WebClient(live.env);
    const cases: [string, WebClient, string, unknown, string][] = [
      ["signed out", anon, "/web/orgs/current/sso/domains/failure-paths.example/verify", undefined, "401 unauthenticated"],
      ["a member, not an admin", member, "/web/orgs/current/sso/domains/failure-paths.example/verify", undefined, "403 forbidden"],
      ["another organization's claim", owner, "/web/orgs/current/sso/domains/other-failure.example/verify", undefined, "404 not_found"],
      ["a domain nobody claims", owner, "/web/orgs/current/sso/domains/nobody-claims.example/verify", undefined, "404 not_found"],
      ["admin list, not a platform administrator", owner, "/web/admin/sso-domains", null, "403 forbidden"],
      ["approval, signed out", anon, `/web/admin/sso-domains/${org.id}/failure-paths.example/approve`, undefined, "401 unauthenticated"],
      ["verify-email without a token", anon, "/api/auth/verify-email", {}, "400 validation_failed"],
      ["verify-email with a token too long", anon, "/api/auth/verify-email", { token: "x".repeat(201) }, "400 validation_failed"],
      [
        "verify-email with an unknown token",
        anon,
        "/api/auth/verify-email",
        { token: "unknownToken0123456789abc" },
        "410 verification_link_invalid",
      ],
      ["resend, signed out", anon, "/api/auth/verify-email/resend", undefined, "401 unauthenticated"],
    ];
    for (const [why, client, path, body, expected] of cases) {
      const r = body === null ? await client.get(path) : await client.post(path, body ?? {});
      expect(`${why}: ${r.status} ${r.body?.error}`).toBe(`${why}: ${expected}`);
    }
    // a cross-site post of the verification is refused before anything is read
    const cross = await owner.json(
      "POST",
      "/web/orgs/current/sso/domains/failure-paths.example/verify",
      {},
      { origin: "https://evil.example" },
    );
    expect(`${cross.status} ${cross.body.error}`).toBe("403 csrf_rejected");
    // the resend route takes its session guard from its descriptor: signed in, a cross-site post is
    // refused (403); signed out, 401 comes first, as on every session route
    const resendCross = await owner.json("POST", "/api/auth/verify-email/resend", {}, { origin: "https://evil.example" });
    expect(`${resendCross.status} ${resendCross.body.error}`).toBe("403 csrf_rejected");
    const resendAnon = await anon.json("POST", "/api/auth/verify-email/resend", {}, { origin: "https://evil.example" });
    expect(`${resendAnon.status} ${resendAnon.body.error}`).toBe("401 unauthenticated");
    // the consent page: signed out → sign in first; a post with no pending link → 410 page
    const page = await live.env.request("/account/link");
    expect(`${page.status} ${page.headers.get("location")}`).toBe("303 /login?next=%2Faccount%2Flink");
    const none = await live.env.request("/account/link", {
      method: "POST",
      headers: { cookie: owner.cookie!, origin: live.base, "content-type": "application/x-www-form-urlencoded" },
      body: "decision=link",
    });
    expect(none.status).toBe(410);
  });
});

describe("sign-up verifies the e-mail by a mailed link", () => {
  test("sign-up queues a verification mail; the link's page asks to confirm (a GET changes nothing); confirming verifies the address once; resend answers 'already verified' after", async () => {
    const c = await signedUp(live.env, `new-${Date.now()}@mail-verify.example`);
    const row = async () =>
      (await live.env.database.client.execute({ sql: "SELECT email_verified_at AS v FROM users WHERE id = ?", args: [c.userId] })).rows[0]!
        .v;
    expect(await row()).toBeNull();
    const mail = (
      await live.env.database.client.execute({
        sql: "SELECT body, kind FROM mail_outbox WHERE to_address = ? ORDER BY created_at DESC LIMIT 1",
        args: [c.email],
      })
    ).rows[0]!;
    expect(mail.kind).toBe("email_verification");
    const link = /http\S+\/verify-email\?token=([0-9A-Za-z]+)/.exec(String(mail.body))!;
    const token = link[1]!;
    const pageRes = await live.env.request(`/verify-email?token=${token}`);
    expect(pageRes.status).toBe(200);
    expect(await pageRes.text()).toContain("Confirm my address");
    expect(await row()).toBeNull();
    expect((await live.env.request("/verify-email?token=nottherightoneatallxyz")).status).toBe(410);
    const confirm = await live.env.request("/verify-email", {
      method: "POST",
      headers: { origin: live.base, "content-type": "application/x-www-form-urlencoded" },
      body: `token=${token}`,
    });
    expect(confirm.status).toBe(200);
    expect(await row()).not.toBeNull();
    const again = await c.post("/api/auth/verify-email", { token });
    expect(`${again.status} ${again.body.error}`).toBe("410 verification_link_invalid");
    expect((await c.post("/api/auth/verify-email/resend")).body).toEqual({ sent: false, verified: true });
  });

  test("resend mails a new link to an unverified account, at most five an hour (429 after); without a session → 401", async () => {
    const c = await signedUp(live.env, `resend-${Date.now()}@mail-verify.example`);
    expect((await new WebClient(live.env).post("/api/auth/verify-email/resend")).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await c.post("/api/auth/verify-email/resend")).status);
    expect(statuses).toEqual([202, 202, 202, 202, 429]); // the sign-up's own mail counts
  });
});

describe("the consent to link, in Chromium", () => {
  test("a person with a verified account signs in through the organization's SAML: /login says the account exists, the password sign-in leads to /account/link, Link joins the organization; axe finds nothing serious", async () => {
    const { launchChromium, newPage, axeViolations, screenshot } = await import("../browser-support");
    const browser = await launchChromium();
    try {
      const { owner, org } = await orgWithProject(live.env, "Browser Consent");
      await samlSso(owner, org.id, ["browser-consent.example"]);
      await approveSsoDomains(live.env, org.id, ["browser-consent.example"]);
      metadataUrls.clear(); // the IdP's page answers the request of this organization's SP
      metadataUrls.set(org.id, (await owner.get("/web/orgs/current/sso")).body.serviceProvider.samlMetadataUrl);
      const { owner: inviter } = await orgWithProject(live.env, "Browser Elsewhere");
      const person = await joinedMember(
        live.env,
        inviter,
        await verifiedByMail(live.env, await signedUp(live.env, "sam@browser-consent.example")),
      );
      const w = await newPage(browser);
      const p = w.page;
      idp.email = person.email;
      await p.goto(`${live.base}/login`);
      await p.fill("#email", person.email);
      await p.click('form[action="/login"] button[type="submit"]');
      await p.waitForURL(/\/login\?error=link_required/);
      expect(await p.locator("main").textContent()).toContain(`An account with ${person.email} already exists`);
      await p.fill("#email", person.email);
      await p.fill("#password", "correct horse battery");
      await p.click('form[action="/login"] button[type="submit"]');
      await p.waitForURL(`${live.base}/account/link`);
      expect(await p.locator("main").textContent()).toContain("Browser Consent");
      expect(await axeViolations(p)).toEqual([]);
      await screenshot(p, "account-link");
      await p.click('button[value="link"]');
      await p.locator("main p[role=status]").waitFor();
      expect(await p.locator("main p[role=status]").textContent()).toContain("is linked to your account");
      const members = await live.env.database.client.execute({
        sql: "SELECT count(*) AS n FROM members WHERE organization_id = ? AND user_id = ?",
        args: [org.id, person.userId],
      });
      expect(Number(members.rows[0]!.n)).toBe(1);
      expect(w.problems.filter((x) => !/status of 400/.test(x))).toEqual([]);
      await w.context.close();
    } finally {
      await browser.close();
    }
  });
});
