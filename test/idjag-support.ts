/**
 * The IdP's side of enterprise-managed authorization on the test oidc-provider: an RFC 8693
 * token exchange (`requested_token_type=urn:ietf:params:oauth:token-type:id-jag`) registered as
 * a grant type of the provider, which checks the subject ID token with the provider's own
 * validation and answers an ID-JAG signed with the provider's signing key (the key its jwks_uri
 * publishes). oidc-provider has no ID-JAG issuance of its own: this handler is the part the
 * extension leaves to the IdP's policy. Also a code flow over fetch to get the ID token.
 */
// @ts-ignore oidc-provider ships no types
import { errors } from "oidc-provider";
import { SignJWT } from "jose";
import type { OidcIdp } from "./idp-support";

export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

/**
 * Registers the token exchange on a provider (pass as startOidcIdp's `setup`). `clientIdAt` maps
 * the IdP's client to its client_id at the resource authorization server (the draft's
 * "record of each client_id", kept by the IdP).
 */
export function idJagTokenExchange(opts: { issuer: string; key: CryptoKey; kid: string; clientIdAt: (idpClientId: string) => string }) {
  return (provider: any): void => {
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx: any) => {
        const p = ctx.oidc.params;
        if (p.requested_token_type !== ID_JAG_TOKEN_TYPE || p.subject_token_type !== ID_TOKEN_TYPE)
          throw new errors.InvalidRequest("only ID token → ID-JAG exchanges are served here");
        if (!p.audience) throw new errors.InvalidRequest("audience is required");
        let idToken: { payload: Record<string, unknown> };
        try {
          idToken = await provider.IdToken.validate(p.subject_token, ctx.oidc.client); // signature, issuer, aud = this client
        } catch {
          throw new errors.InvalidGrant("the subject token is not an ID token of this IdP for this client");
        }
        const now = Math.floor(Date.now() / 1000);
        if (Number(idToken.payload.exp) < now) throw new errors.InvalidGrant("the subject token has expired");
        const jag = await new SignJWT({
          jti: crypto.randomUUID(),
          iss: opts.issuer,
          sub: String(idToken.payload.sub),
          ...(typeof idToken.payload.email === "string" ? { email: idToken.payload.email } : {}),
          aud: p.audience,
          ...(p.resource ? { resource: p.resource } : {}),
          client_id: opts.clientIdAt(ctx.oidc.client.clientId),
          ...(p.scope ? { scope: p.scope } : {}),
          iat: now,
          exp: now + 300,
        })
          .setProtectedHeader({ alg: "RS256", typ: "oauth-id-jag+jwt", kid: opts.kid })
          .sign(opts.key);
        ctx.body = {
          issued_token_type: ID_JAG_TOKEN_TYPE,
          access_token: jag,
          token_type: "N_A",
          expires_in: 300,
          ...(p.scope ? { scope: p.scope } : {}),
        };
      },
      ["subject_token", "subject_token_type", "requested_token_type", "audience", "resource", "scope"],
    );
  };
}

/** Signs in at the IdP as `idp.account` with the code flow over fetch (its interactions need no page) and returns the ID token. */
export async function idTokenAt(idp: OidcIdp, client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<string> {
  const jar = new Map<string, string>();
  let url = `${idp.issuer}/oauth/authorize?${new URLSearchParams({
    client_id: client.clientId,
    response_type: "code",
    scope: "openid email",
    redirect_uri: client.redirectUri,
    state: crypto.randomUUID(),
    nonce: crypto.randomUUID(),
  })}`;
  let code: string | null = null;
  for (let hop = 0; hop < 12 && code === null; hop++) {
    const r = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
    for (const c of r.headers.getSetCookie()) {
      const pair = c.split(";")[0]!;
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      if (value === "") jar.delete(name);
      else jar.set(name, value);
    }
    const location = r.headers.get("location");
    if (!location) throw new Error(`the IdP stopped at ${url}: ${r.status} ${await r.text()}`);
    const next = new URL(location, idp.issuer);
    if (next.href.startsWith(client.redirectUri)) code = next.searchParams.get("code");
    url = next.href;
  }
  if (!code) throw new Error(`no code came back: ${url}`);
  const token = await fetch(`${idp.issuer}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  const body = (await token.json()) as { id_token?: string };
  if (!body.id_token) throw new Error(`no ID token: ${JSON.stringify(body)}`);
  return body.id_token;
}
