/**
 * The world of the enterprise-managed authorization tests (test/mcp/oauth.enterprise*.test.ts): a
 * live server, an organization's OIDC IdP (oidc-provider on 127.0.0.1) that issues ID-JAGs by token
 * exchange (idjag-support.ts), and the helpers that set an organization up and craft, sign and
 * present ID-JAGs.
 */
import { expect } from "bun:test";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { approveSsoDomains, joinedMember, orgWithProject, signedUp, verifiedByMail, type WebClient } from "./helpers";
import { startOidcIdp, type OidcIdp } from "./idp-support";
import { idJagTokenExchange, TOKEN_EXCHANGE } from "./idjag-support";
import { freePort, liveEnv, type LiveEnv } from "./mcp-support";

const KID = "idp-signing-1";
/** The MCP client's registration at the IdP. */
export const AGENT = { clientId: "mcp-agent", clientSecret: "agent-secret", redirectUri: "http://127.0.0.1:9/idp-callback" };

export interface Setup {
  owner: WebClient & { email: string; userId: string };
  org: { id: string };
  project: { id: string };
  domain: string;
  resource: string;
  clientId: string;
  member: WebClient & { email: string; userId: string };
}

export interface EnterpriseWorld {
  live: LiveEnv;
  idp: OidcIdp;
  /** A key the IdP does not publish. */
  strangerKey: CryptoKey;
  /** The MCP client's client_id here, as the IdP records it (the `client_id` claim of the ID-JAGs it issues). */
  agentHere: string;
  /** Organizations set up so far (names and domains are numbered by it). */
  seq: number;
  setup(enable?: boolean): Promise<Setup>;
  idJag(s: Setup, over?: Record<string, unknown>, sign?: { key?: CryptoKey; kid?: string; typ?: string }): Promise<string>;
  token(s: Setup, assertion: string, extra?: Record<string, string>): Promise<{ status: number; body: Record<string, string | number> }>;
  tokensOf(projectId: string): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the server (EGRESS_ALLOW_LOOPBACK: the IdP is on 127.0.0.1, and `settings`) and the IdP. */
export async function enterpriseWorld(settings: Record<string, string> = {}): Promise<EnterpriseWorld> {
  const live = await liveEnv({ EGRESS_ALLOW_LOOPBACK: "true", ...settings });
  const pair = await generateKeyPair("RS256", { extractable: true });
  const idpKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.privateKey)), kid: KID, alg: "RS256", use: "sig" };
  const port = freePort();
  const w = {} as EnterpriseWorld;
  const idp = await startOidcIdp(
    [
      { clientId: "talentd-org", clientSecret: "org-secret", redirectUris: [`${live.base}/api/auth/sso/oidc/callback`] },
      { ...AGENT, redirectUris: [AGENT.redirectUri], grantTypes: [TOKEN_EXCHANGE], authMethod: "client_secret_post" },
    ],
    port,
    {
      jwks: { keys: [jwk] },
      setup: idJagTokenExchange({ issuer: `http://127.0.0.1:${port}`, key: idpKey, kid: KID, clientIdAt: () => w.agentHere }),
    },
  );
  Object.assign(w, {
    live,
    idp,
    strangerKey: (await generateKeyPair("RS256")).privateKey,
    agentHere: "",
    seq: 0,
    stop: async () => {
      await idp.stop();
      await live.close();
    },
  });

  /** An organization with a project, OIDC SSO at the test IdP for a proven domain, a member at that domain, a registered MCP client. */
  w.setup = async (enable = true) => {
    const seq = ++w.seq;
    const { owner, org, project } = await orgWithProject(live.env, `Enterprise Org ${seq}`);
    const domain = `enterprise${seq}.example`;
    const saved = await owner.post("/web/orgs/current/sso", {
      type: "oidc",
      domains: [domain],
      oidc: { issuer: idp.issuer, clientId: "talentd-org", clientSecret: "org-secret" },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.sso.enterpriseGrant).toBe(false); // off by default
    await approveSsoDomains(live.env, org.id, [domain]);
    if (enable) {
      const on = await owner.post("/web/orgs/current/sso/enterprise", { enabled: true });
      expect(on.status).toBe(200);
      expect(on.body.sso.enterpriseGrant).toBe(true);
    }
    const member = await joinedMember(live.env, owner, await verifiedByMail(live.env, await signedUp(live.env, `person${seq}@${domain}`)));
    const reg = await fetch(`${live.base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Enterprise Agent",
        redirect_uris: ["http://127.0.0.1:9/callback"],
        grant_types: ["urn:ietf:params:oauth:grant-type:jwt-bearer"], // registration accepts the grant type
      }),
    });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    return { owner, org, project, domain, resource: `${live.base}/mcp/${project.id}`, clientId, member };
  };

  /** An ID-JAG as the IdP's token exchange issues it; `over` replaces claims, `key`/`kid`/`typ` the signing. */
  w.idJag = async (s, over = {}, sign = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      jti: crypto.randomUUID(),
      iss: idp.issuer,
      sub: `idp-${s.member.userId}`,
      email: s.member.email,
      aud: live.base,
      resource: s.resource,
      client_id: s.clientId,
      scope: "doctor catalog",
      iat: now,
      exp: now + 300,
      ...over,
    };
    for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", typ: sign.typ ?? "oauth-id-jag+jwt", kid: sign.kid ?? KID })
      .sign(sign.key ?? idpKey);
  };

  /** POST /oauth/token with the jwt-bearer grant; returns status and body. */
  w.token = async (s, assertion, extra = {}) => {
    const r = await fetch(`${live.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion, client_id: s.clientId, ...extra }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, string | number> };
  };

  /** The number of OAuth tokens issued for a project (nothing issued on a refusal). */
  w.tokensOf = async (projectId) => {
    const r = await live.env.database.client.execute({
      sql: "SELECT count(*) AS n FROM oauth_tokens WHERE project_id = ?",
      args: [projectId],
    });
    return Number(r.rows[0]!.n);
  };
  return w;
}
