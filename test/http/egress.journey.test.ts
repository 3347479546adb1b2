/**
 * The egress policy as an organization owner and a stranger meet it (SSRF through the SSO
 * settings): an owner points the OIDC issuer or the SAML entry point at an internal service (a
 * listener on 127.0.0.1 that counts connections) in several spellings and runs the test; a
 * stranger visits the domain's sign-in door. The internal service receives nothing, the answers
 * say only that the IdP could not be reached, and the security log keeps why. An operator's
 * EGRESS_ALLOW_HOSTS lets a LAN IdP (here the real `oidc-provider`) through; a failed discovery
 * is fetched once for 30 visits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countingListener, httpAnswer, type CountingListener } from "../egress-support";
import { selfSignedCert } from "../cert-support";
import { startOidcIdp, type OidcIdp } from "../idp-support";
import { approveSsoDomains, orgWithProject, testEnv, type TestEnv } from "../helpers";

const CERT = selfSignedCert("egress-journey-idp").cert;
let strict: TestEnv;
let internal: CountingListener;
let idp: OidcIdp;
let seq = 0;

beforeAll(async () => {
  strict = await testEnv(); // the default: no loopback, nothing allowed beyond the internet
  internal = await countingListener();
  idp = await startOidcIdp([
    { clientId: "egress-client", clientSecret: "egress-secret", redirectUris: ["http://localhost:8787/api/auth/sso/oidc/callback"] },
  ]);
}, 60_000);
afterAll(async () => {
  strict?.close();
  await internal?.stop();
  await idp?.stop();
});

/** An approved organization whose owner saved this SSO for a fresh, proven domain; the domain is returned. */
async function ssoOrg(env: TestEnv, sso: Record<string, unknown>) {
  const { owner, org } = await orgWithProject(env, `Egress ${++seq}`);
  const domain = `egress-${seq}.example`;
  const saved = await owner.post("/web/orgs/current/sso", { domains: [domain], ...sso });
  if (saved.status !== 200) throw new Error(`saving SSO failed: ${JSON.stringify(saved.body)}`);
  await approveSsoDomains(env, org.id, [domain]);
  return { owner, domain };
}

async function lastTestProblems(env: TestEnv): Promise<string[]> {
  const r = await env.database.client.execute(
    "SELECT detail FROM security_events WHERE kind = 'sso.tested' ORDER BY created_at DESC, id DESC LIMIT 1",
  );
  return JSON.parse(String(r.rows[0]!.detail)).problems;
}

describe("SSRF through the SSO settings: an internal service receives nothing", () => {
  test("egress policy: an OIDC issuer on an internal address (every spelling) → the test says only 'could not reach the issuer', the sign-in door says unavailable, the service gets no connection", async () => {
    const spellings = ["127.0.0.1", "127.1", "0x7f000001", "2130706433", "localhost"];
    const messages = new Set<string>();
    for (const host of spellings) {
      const issuer = `http://${host}:${internal.port}`;
      const { owner, domain } = await ssoOrg(strict, { type: "oidc", oidc: { issuer, clientId: "c", clientSecret: "s" } });
      const t = await owner.post("/web/orgs/current/sso/test");
      expect(t.status).toBe(200);
      expect(t.body.ok).toBe(false);
      expect(t.body.checks).toHaveLength(1);
      messages.add(t.body.checks[0].message.replace(issuer, "ISSUER"));
      expect(JSON.stringify(t.body)).not.toMatch(/ECONNREFUSED|answered \d|TLS|loopback|timed out/i);
      expect((await lastTestProblems(strict)).join(" ")).toContain("is a loopback address");
      const door = await strict.request(`/api/auth/sso/${domain}`);
      expect(`${door.status} ${door.headers.get("location")}`).toBe("303 /login?error=unavailable");
    }
    expect([...messages]).toEqual(["Could not reach the issuer ISSUER, or it answered no OpenID configuration."]);
    expect(internal.connections).toBe(0);
  });

  test("egress policy: a SAML entry point on an internal address (http or https, by address or name) → 'could not reach the entry point', no connection", async () => {
    for (const entryPoint of [
      `http://127.0.0.1:${internal.port}/sso`,
      `https://localhost:${internal.port}/sso`,
      `http://[::1]:${internal.port}/sso`,
    ]) {
      const { owner } = await ssoOrg(strict, { type: "saml", saml: { entryPoint, idpIssuer: "urn:internal", idpCert: CERT } });
      const t = await owner.post("/web/orgs/current/sso/test");
      expect(t.body.checks.map((c: { name: string; ok: boolean }) => `${c.name}:${c.ok}`)).toEqual([
        "certificate:true",
        "entryPoint:false",
      ]);
      expect(t.body.checks[1].message).toBe(`Could not reach the entry point ${entryPoint}.`);
      // the page (the same checks, rendered) says no more
      const page = await (await owner.call("POST", "/org/sso/test", undefined, { accept: "text/html" })).text();
      expect(page).toContain(`Could not reach the entry point ${entryPoint}.`);
      expect(page).not.toMatch(/ECONNREFUSED|answered \d|loopback/);
    }
    expect(internal.connections).toBe(0);
  });

  test("egress policy: the real oidc-provider on 127.0.0.1 is refused by default and discovered once the operator allows it (EGRESS_ALLOW_HOSTS)", async () => {
    const sso = { type: "oidc", oidc: { issuer: idp.issuer, clientId: "egress-client", clientSecret: "egress-secret" } };
    const refused = await ssoOrg(strict, sso);
    expect((await refused.owner.post("/web/orgs/current/sso/test")).body.ok).toBe(false);
    const lan = await testEnv({ EGRESS_ALLOW_HOSTS: "127.0.0.1" });
    try {
      const allowed = await ssoOrg(lan, sso);
      const t = await allowed.owner.post("/web/orgs/current/sso/test");
      expect(t.body.checks.map((c: { name: string; ok: boolean }) => `${c.name}:${c.ok}`)).toEqual([
        "discovery:true",
        "pkce:true",
        "jwks:true",
      ]);
      const door = await lan.request(`/api/auth/sso/${allowed.domain}`);
      expect(door.status).toBe(302);
      expect(door.headers.get("location")).toStartWith(`${idp.issuer}/oauth/authorize?`);
    } finally {
      lan.close();
    }
  });

  test("egress policy: EGRESS_ALLOW_HOSTS lets an operator's LAN entry point through (a range); the service is reached and the test passes", async () => {
    const lan = await testEnv({ EGRESS_ALLOW_HOSTS: "127.0.0.0/8" });
    const service = await countingListener();
    try {
      const { owner } = await ssoOrg(lan, {
        type: "saml",
        saml: { entryPoint: `http://127.0.0.1:${service.port}/sso`, idpIssuer: "urn:lan", idpCert: CERT },
      });
      const t = await owner.post("/web/orgs/current/sso/test");
      expect(t.body.ok).toBe(true);
      expect(t.body.checks[1]).toEqual({ name: "entryPoint", ok: true, message: "The entry point answered." });
      expect(service.connections).toBe(1);
    } finally {
      lan.close();
      await service.stop();
    }
  });
});

describe("failed discoveries are cached", () => {
  test("egress policy: 30 unauthenticated visits to the sign-in door of an issuer whose discovery fails → at most 1 discovery fetch", async () => {
    const env = await testEnv({ EGRESS_ALLOW_LOOPBACK: "true" });
    const broken = await countingListener(async () => {
      await Bun.sleep(100); // slow, then broken
      return httpAnswer(500, {}, "down");
    });
    try {
      const { domain } = await ssoOrg(env, {
        type: "oidc",
        oidc: { issuer: `http://127.0.0.1:${broken.port}`, clientId: "c", clientSecret: "s" },
      });
      const visit = async () => (await env.request(`/api/auth/sso/${domain}`)).headers.get("location");
      const first = await Promise.all(Array.from({ length: 10 }, visit));
      const rest: (string | null)[] = [];
      for (let i = 0; i < 20; i++) rest.push(await visit());
      expect(new Set([...first, ...rest])).toEqual(new Set(["/login?error=unavailable"]));
      expect(broken.heads.filter((h) => h.includes("/.well-known/openid-configuration")).length).toBe(1);
    } finally {
      env.close();
      await broken.stop();
    }
  });
});
