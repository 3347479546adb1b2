/**
 * The jwt-bearer grant with an ID-JAG, its edges: `aud` must be this server's issuer as one string
 * (a list naming it among others is refused), an assertion without `scope` gets nothing (never
 * every scope, never install), a client identified by its metadata document's URL is served as
 * the documentation says (its document fetched only after the assertion verified, its row written
 * with the token), and turning the grant off — or removing the SSO — revokes the tokens it issued
 * in the same transaction, while tokens a person consented to stay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { enterpriseWorld, type EnterpriseWorld, type Setup } from "../enterprise-support";
import { countingListener, httpAnswer, type CountingListener } from "../egress-support";
import { s256 } from "../../src/oauth/grants";
import { jwtBearerGrant } from "../../src/oauth/jwtBearer";
import { Browser, consentInBrowser, PASSWORD } from "../mcp-support";

let w: EnterpriseWorld;
let docs: CountingListener;
const docUrl = (name: string) => `http://127.0.0.1:${docs.port}/${name}`;
const fetchesOf = (name: string) => docs.heads.filter((h) => h.startsWith(`GET /${name} `)).length;

beforeAll(async () => {
  docs = await countingListener((head) => {
    const path = (/^GET (\S+)/.exec(head)?.[1] ?? "").slice(1);
    if (path.startsWith("missing")) return httpAnswer(404, {}, "no");
    const body = JSON.stringify({ client_id: docUrl(path), client_name: "Document Agent", redirect_uris: ["http://127.0.0.1:9/cb"] });
    return httpAnswer(200, { "content-type": "application/json" }, body);
  });
  // the IdP is on 127.0.0.1 (EGRESS_ALLOW_LOOPBACK), and so are the client documents (OAUTH_CLIENT_METADATA_LOOPBACK)
  w = await enterpriseWorld({ OAUTH_CLIENT_METADATA_LOOPBACK: "true" });
}, 60_000);
afterAll(async () => {
  await w?.stop();
  await docs?.stop();
});

/** A tools/list on the token's project with `token` as bearer: the status. */
async function use(s: Setup, token: string): Promise<number> {
  const r = await fetch(s.resource, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await r.body?.cancel();
  return r.status;
}

describe("ID-JAG: aud is this server's issuer, as one string", () => {
  test("an aud list that contains BASE_URL → 400 invalid_grant, nothing issued (a list, even of one, is refused)", async () => {
    const s = await w.setup();
    for (const aud of [[w.live.base, "https://other-as.example"], ["https://other-as.example", w.live.base], [w.live.base]]) {
      const r = await w.token(s, await w.idJag(s, { aud }));
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_grant");
      expect(String(r.body.error_description)).toContain("single string");
    }
    expect(await w.tokensOf(s.project.id)).toBe(0);
    expect((await w.token(s, await w.idJag(s, { aud: w.live.base }))).status).toBe(200);
  });
});

describe("ID-JAG: an assertion without scope gets no scope", () => {
  test("no scope claim → 400 invalid_grant, nothing issued — with or without a scope parameter (install never granted by default)", async () => {
    const s = await w.setup();
    for (const extra of [{}, { scope: "install" }, { scope: "doctor" }] as Record<string, string>[]) {
      const r = await w.token(s, await w.idJag(s, { scope: undefined }), extra);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_grant");
      expect(String(r.body.error_description)).toContain("no scope");
    }
    expect(await w.tokensOf(s.project.id)).toBe(0);
  });
});

describe("ID-JAG: a client identified by its metadata document's URL", () => {
  test("its URL as client_id (no row yet): the document is fetched once the assertion verified; the token is issued and the row written with it", async () => {
    const s = await w.setup();
    const id = docUrl("agent.json");
    const doc = { ...s, clientId: id };
    const r = await w.token(doc, await w.idJag(doc));
    expect(r.status).toBe(200);
    expect(r.body.scope).toBe("doctor catalog");
    expect(await use(s, String(r.body.access_token))).toBe(200);
    const row = await w.live.env.database.client.execute({
      sql: "SELECT name, CASE WHEN created_at < last_used_at THEN 1 ELSE 0 END AS used FROM oauth_clients WHERE id = ?", // 0/1 on both engines
      args: [id],
    });
    expect(row.rows[0]).toMatchObject({ name: "Document Agent", used: 1 });
    // the second time the row answers: no fetch
    expect((await w.token(doc, await w.idJag(doc))).status).toBe(200);
    expect(fetchesOf("agent.json")).toBe(1);
  });

  test("an assertion that does not verify (another audience, a stranger's key, another client) fetches nothing: invalid_grant", async () => {
    const s = await w.setup();
    const doc = { ...s, clientId: docUrl("never.json") };
    const bad = [
      await w.idJag(doc, { aud: "https://other-as.example" }),
      await w.idJag(doc, {}, { key: w.strangerKey }),
      await w.idJag(doc, { client_id: docUrl("someone-else.json") }),
    ];
    for (const assertion of bad) expect((await w.token(doc, assertion)).body.error).toBe("invalid_grant");
    expect(fetchesOf("never.json") + fetchesOf("someone-else.json")).toBe(0);
    expect(await w.tokensOf(s.project.id)).toBe(0);
  });

  test("a document that cannot be used → 401 invalid_client (could not be verified), nothing issued, no row", async () => {
    const s = await w.setup();
    const doc = { ...s, clientId: docUrl("missing.json") };
    const r = await w.token(doc, await w.idJag(doc));
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_client");
    expect(String(r.body.error_description)).toContain("could not be verified");
    expect(await w.tokensOf(s.project.id)).toBe(0);
    const rows = await w.live.env.database.client.execute({
      sql: "SELECT count(*) AS n FROM oauth_clients WHERE id = ?",
      args: [doc.clientId],
    });
    expect(Number(rows.rows[0]!.n)).toBe(0);
  });
});

describe("ID-JAG: turning the grant off revokes what it issued", () => {
  /** Tokens a person consented to for the setup's project, through the authorization code flow. */
  async function consented(s: Setup): Promise<string> {
    const reg = await fetch(`${w.live.base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Consent Agent", redirect_uris: ["http://127.0.0.1:9/cb"] }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString("base64url");
    const url = `${w.live.base}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:9/cb",
      code_challenge: s256(verifier),
      code_challenge_method: "S256",
      resource: s.resource,
      state: "st",
    })}`;
    const { code } = await consentInBrowser(new Browser(w.live.base), url, { email: s.owner.email, password: PASSWORD });
    const t = await fetch(`${w.live.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: clientId,
        code: code!,
        code_verifier: verifier,
        redirect_uri: "http://127.0.0.1:9/cb",
        resource: s.resource,
      }),
    });
    return ((await t.json()) as { access_token: string }).access_token;
  }

  test("turned off: the ID-JAG's token fails at its next use (401); a token a person consented to still works", async () => {
    const s = await w.setup();
    const jag = String((await w.token(s, await w.idJag(s))).body.access_token);
    const consent = await consented(s);
    expect(await use(s, jag)).toBe(200);
    expect(await use(s, consent)).toBe(200);
    expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: false })).status).toBe(200);
    expect(await use(s, jag)).toBe(401);
    expect(await use(s, consent)).toBe(200);
    // turning it on again does not revive it
    expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: true })).status).toBe(200);
    expect(await use(s, jag)).toBe(401);
  });

  test("turned off while a request is being verified: its token transaction reads the setting again and issues nothing", async () => {
    const s = await w.setup();
    const id = docUrl("racing.json");
    const assertion = await w.idJag({ ...s, clientId: id });
    const turnedOffMeanwhile = async () => {
      // runs after the first check of the setting and the verification, before the token's transaction
      expect((await s.owner.post("/web/orgs/current/sso/enterprise", { enabled: false })).status).toBe(200);
      return {
        id,
        name: "Racing Agent",
        redirectUris: ["http://127.0.0.1:9/cb"],
        authMethod: "none" as const,
        secretHash: null,
        from: "x",
      };
    };
    const input = { clientId: id, assertion, scope: undefined, resource: undefined, document: turnedOffMeanwhile };
    await expect(jwtBearerGrant(w.live.env, input)).rejects.toMatchObject({ code: "invalid_grant" });
    expect(await w.tokensOf(s.project.id)).toBe(0);
  });

  test("saving another issuer (which turns the grant off) and removing the SSO revoke them too", async () => {
    const other = await w.setup();
    const jag1 = String((await w.token(other, await w.idJag(other))).body.access_token);
    const moved = await other.owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: [other.domain],
      oidc: { issuer: "http://127.0.0.1:1/another-idp", clientId: "talentd-org", clientSecret: "" },
    });
    expect(moved.body.sso.enterpriseGrant).toBe(false);
    expect(await use(other, jag1)).toBe(401);

    const s = await w.setup();
    const jag2 = String((await w.token(s, await w.idJag(s))).body.access_token);
    expect(await use(s, jag2)).toBe(200);
    expect((await s.owner.del("/web/orgs/current/sso")).status).toBe(200);
    expect(await use(s, jag2)).toBe(401);
  });
});
