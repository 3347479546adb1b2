/**
 * Real identity providers from npm for the sign-in tests, on 127.0.0.1 only:
 *   - `oidc-provider` (OpenID Connect; also serves GitLab's `/oauth/authorize` and
 *     `/oauth/token` paths, so arctic's GitLab client can be pointed at it), with a tiny
 *     interaction that signs in the account the test sets and grants the scopes asked;
 *   - a SAML IdP with `samlify` in its IdP role (redirect-binding AuthnRequest in, an
 *     auto-posting form with the signed Response out).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
// @ts-ignore oidc-provider ships no types
import Provider from "oidc-provider";
import { freePort } from "./mcp-support";
import { selfSignedCert } from "./cert-support";

export { selfSignedCert };

export interface IdpAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface OidcIdp {
  issuer: string;
  port: number;
  /** Who the next sign-in at the IdP is. */
  account: IdpAccount;
  /** Authorization codes live this long (seconds). */
  codeTtl: number;
  /** The person cancels at the IdP: the interaction ends with error=access_denied (oidc-provider's own answer). */
  deny: boolean;
  /** Tampering in the test's hands: rewrites an incoming authorization request (e.g. its nonce) before the IdP reads it. */
  rewriteAuthorize?: (url: URL) => void;
  /** Tampering in the test's hands: rewrites the IdP's final redirect to the client's callback (e.g. its state, or holds it). */
  rewriteCallback?: (location: string) => string;
  stop(): Promise<void>;
}

/**
 * Starts oidc-provider on `port` (default a free one) with one confidential client per
 * `clients` entry (client_secret_basic unless `authMethod`, code flow plus `grantTypes`, the given
 * redirect URIs). `jwks`: the provider's signing keys (private JWKs), for tests that sign with
 * them as the IdP does; `setup`: called with the provider before it serves (e.g. to register a grant type).
 */
export async function startOidcIdp(
  clients: { clientId: string; clientSecret: string; redirectUris: string[]; grantTypes?: string[]; authMethod?: string }[],
  port = freePort(),
  opts: { jwks?: { keys: object[] }; setup?: (provider: any) => void } = {},
): Promise<OidcIdp> {
  const issuer = `http://127.0.0.1:${port}`;
  const idp: OidcIdp = {
    issuer,
    port,
    account: { sub: "idp-user-1", email: "someone@example.com", email_verified: true, name: "Some One" },
    codeTtl: 60,
    deny: false,
    stop: async () => {},
  };
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ["authorization_code", ...(c.grantTypes ?? [])],
      response_types: ["code"],
      token_endpoint_auth_method: c.authMethod ?? "client_secret_basic",
    })),
    async findAccount(_ctx: unknown, id: string) {
      const a = { ...idp.account, sub: id };
      return { accountId: id, claims: async () => a };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => false },
    ttl: { AuthorizationCode: () => idp.codeTtl, Session: 60, Interaction: 600, Grant: 600, IdToken: 600, AccessToken: 600 },
    cookies: { keys: ["test-cookie-key-not-secret"] },
    ...(opts.jwks ? { jwks: opts.jwks } : {}),
    routes: { authorization: "/oauth/authorize", token: "/oauth/token", userinfo: "/oauth/userinfo" },
  });
  opts.setup?.(provider);
  const callback = provider.callback();
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (req.url?.startsWith("/oauth/authorize?") && idp.rewriteAuthorize) {
        const u = new URL(req.url, issuer);
        idp.rewriteAuthorize(u);
        req.url = u.pathname + u.search;
      }
      if (req.url?.startsWith("/oauth/authorize") && idp.rewriteCallback) {
        const set = res.setHeader.bind(res);
        res.setHeader = (name: string, value: number | string | readonly string[]) =>
          set(
            name,
            name.toLowerCase() === "location" && /^https?:/.test(String(value)) && !String(value).startsWith(issuer)
              ? idp.rewriteCallback!(String(value))
              : value,
          );
      }
      if (req.url === "/held") {
        res.end("held by the test");
        return;
      }
      if (req.url?.startsWith("/interaction/")) {
        const details = await provider.interactionDetails(req, res);
        if (idp.deny) {
          await provider.interactionFinished(
            req,
            res,
            { error: "access_denied", error_description: "End-User aborted interaction" },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        if (details.prompt.name === "login") {
          await provider.interactionFinished(req, res, { login: { accountId: idp.account.sub } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
        return;
      }
      callback(req, res);
    } catch (e) {
      res.statusCode = 500;
      res.end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  idp.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return idp;
}

// ---- SAML: samlify in its IdP role ----------------------------------------------------------

import * as samlify from "samlify";
import * as xmllint from "@authenio/samlify-node-xmllint";

samlify.setSchemaValidator(xmllint);

export interface SamlIdp {
  entityId: string;
  entryPoint: string;
  cert: string;
  /** The samlify IdP (to craft responses in protocol tests). */
  idp: ReturnType<typeof samlify.IdentityProvider>;
  /** Who the next browser sign-in is. */
  email: string;
  /** The samlify SP built from talentd's metadata for an organization. */
  spFor(metadataUrl: string): Promise<ReturnType<typeof samlify.ServiceProvider>>;
  stop(): Promise<void>;
}

const escapeXml = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A SAML IdP on 127.0.0.1: `GET /sso` reads the AuthnRequest (HTTP-Redirect binding) with
 * samlify, answers a page that posts the signed Response (HTTP-POST binding) to the ACS the
 * SP's metadata names. `metadataUrl` of the SP is read from talentd.
 */
export async function startSamlIdp(metadataUrlFor: () => string): Promise<SamlIdp> {
  const port = freePort();
  const entityId = `http://127.0.0.1:${port}/metadata`;
  const { key, cert } = selfSignedCert("talentd-test-idp");
  const idp = samlify.IdentityProvider({
    entityID: entityId,
    signingCert: cert,
    privateKey: key,
    wantAuthnRequestsSigned: false,
    nameIDFormat: ["urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"],
    singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: `http://127.0.0.1:${port}/sso` }],
  });
  const sps = new Map<string, ReturnType<typeof samlify.ServiceProvider>>();
  const saml: SamlIdp = {
    entityId,
    entryPoint: `http://127.0.0.1:${port}/sso`,
    cert,
    idp,
    email: "someone@example.com",
    async spFor(url) {
      let sp = sps.get(url);
      if (!sp) {
        sp = samlify.ServiceProvider({ metadata: await (await fetch(url)).text() });
        sps.set(url, sp);
      }
      return sp;
    },
    stop: async () => {},
  };
  const server = createServer(async (req, res) => {
    try {
      const u = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
      if (u.pathname !== "/sso") {
        res.statusCode = 404;
        res.end("not found");
        return;
      }
      const sp = await saml.spFor(metadataUrlFor());
      const query = Object.fromEntries(u.searchParams);
      const parsed = await idp.parseLoginRequest(sp, "redirect", { query, octetString: "" } as never);
      const r = (await idp.createLoginResponse(sp, parsed as never, "post", { email: saml.email }, { relayState: query.RelayState })) as {
        context: string;
        entityEndpoint: string;
        relayState?: string;
      };
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(`<!doctype html><html lang="en"><head><title>Test IdP</title></head><body>
<form id="f" method="post" action="${escapeXml(r.entityEndpoint)}"><input type="hidden" name="SAMLResponse" value="${escapeXml(r.context)}"><input type="hidden" name="RelayState" value="${escapeXml(query.RelayState ?? "")}"><button type="submit">Continue</button></form>
<script>document.getElementById("f").submit()</script></body></html>`);
    } catch (e) {
      res.statusCode = 500;
      res.end(`IdP error: ${(e as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  saml.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return saml;
}

/** The values samlify's default login response template takes, for a crafted response (protocol tests). */
export function loginResponseValues(opts: {
  id: string;
  assertionId: string;
  destination: string;
  audience: string;
  issuer: string;
  inResponseTo: string;
  email: string;
  notBefore: Date;
  notOnOrAfter: Date;
}): Record<string, string> {
  return {
    ID: opts.id,
    AssertionID: opts.assertionId,
    Destination: opts.destination,
    Audience: opts.audience,
    EntityID: opts.audience,
    SubjectRecipient: opts.destination,
    Issuer: opts.issuer,
    IssueInstant: opts.notBefore.toISOString(),
    AssertionConsumerServiceURL: opts.destination,
    StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
    ConditionsNotBefore: opts.notBefore.toISOString(),
    ConditionsNotOnOrAfter: opts.notOnOrAfter.toISOString(),
    SubjectConfirmationDataNotOnOrAfter: opts.notOnOrAfter.toISOString(),
    NameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    NameID: opts.email,
    InResponseTo: opts.inResponseTo,
    AuthnStatement: "",
    AttributeStatement: "",
  };
}

/** Fills a samlify template's `{Tag}` placeholders. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? escapeXml(values[k]!) : m));
}
