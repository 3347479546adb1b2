/**
 * Organization SSO over SAML 2.0 with `@node-saml/node-saml`, as the service provider:
 *   - the response or its assertion must carry a valid signature by the configured IdP
 *     certificate (node-saml refuses a message with neither);
 *   - the assertion's Audience must be our entity ID, its Issuer the configured IdP's;
 *   - the Response's Destination (and the SubjectConfirmationData's Recipient when present)
 *     must be our ACS URL;
 *   - InResponseTo must name an AuthnRequest this server sent less than 10 minutes ago, for
 *     this organization: request ids are stored in `sso_nonces` (they survive a restart) and
 *     consumed on use; over https the request is also bound to the browser that started it
 *     (the `talentd_saml` cookie, SameSite=None; Secure), so a response cannot be replayed
 *     into someone else's browser (login CSRF);
 *   - clock skew is bounded to 60 s on NotBefore / NotOnOrAfter;
 *   - an assertion id is accepted once: consumed ids stay in `sso_nonces` until the
 *     assertion would have expired anyway, so a replay is refused.
 */
import type { CacheProvider, Profile, SAML } from "@node-saml/node-saml";
import { and, eq, gt } from "drizzle-orm";
import type { Config } from "../config";
import type { Database } from "../db/client";
import { ssoNonces } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { onFirstUse } from "../lib/onFirstUse";
import type { SamlSettings } from "./sso";
import { serviceProvider } from "./sso";

export const SAML_REQUEST_TTL_MS = 10 * 60 * 1000;
export const SAML_CLOCK_SKEW_MS = 60 * 1000;
/** How long a consumed assertion id is kept when its assertion names no expiry. */
const ASSERTION_KEEP_MS = 24 * 3600 * 1000;

/** A SAML response refused, with the reason (for the security log; /login shows a sentence). */
export class SamlRefused extends Error {
  override name = "SamlRefused";
}

/**
 * node-saml's request-id cache, backed by `sso_nonces` (kind saml_request) for one
 * organization. A stored request carries the hash of the browser binding (`binding`, the
 * `talentd_saml` cookie's value); what was read is kept in `seen` for the ACS's check.
 */
function requestStore(
  database: Database,
  organizationId: string,
  binding: string | null = null,
  seen: Map<string, string> = new Map(),
): CacheProvider {
  return {
    async saveAsync(key, value) {
      const now = Date.now();
      // node-saml reads the value back as the request's issue instant: the binding's hash goes after a newline
      const stored = binding ? `${value}\n${binding}` : value;
      await database.write((tx) =>
        tx
          .insert(ssoNonces)
          .values({ kind: "saml_request", id: key, organizationId, value: stored, expiresAt: now + SAML_REQUEST_TTL_MS, createdAt: now })
          .onConflictDoNothing(),
      );
      return { value, createdAt: now };
    },
    async getAsync(key) {
      const row = (
        await database.db
          .select({ value: ssoNonces.value })
          .from(ssoNonces)
          .where(
            and(
              eq(ssoNonces.kind, "saml_request"),
              eq(ssoNonces.id, key),
              eq(ssoNonces.organizationId, organizationId),
              gt(ssoNonces.expiresAt, Date.now()),
            ),
          )
          .limit(1)
      )[0];
      if (!row) return null;
      const [instant, hash] = row.value.split("\n");
      seen.set(key, hash ?? "");
      return instant ?? null;
    },
    async removeAsync(key) {
      if (key === null) return null;
      await database.write((tx) => tx.delete(ssoNonces).where(and(eq(ssoNonces.kind, "saml_request"), eq(ssoNonces.id, key))));
      return key;
    },
  };
}

/** node-saml and the XML parser, loaded with the first SAML request (~20 MiB and ~0.1 s at start-up otherwise). */
const samlLibraries = onFirstUse(async () => ({
  ...(await import("@node-saml/node-saml")),
  DOMParser: (await import("@xmldom/xmldom")).DOMParser,
}));

async function samlFor(
  config: Config,
  database: Database,
  organizationId: string,
  s: SamlSettings,
  store: CacheProvider = requestStore(database, organizationId),
): Promise<SAML> {
  const sp = serviceProvider(config, organizationId);
  const { SAML, ValidateInResponseTo } = await samlLibraries();
  return new SAML({
    entryPoint: s.entryPoint,
    idpCert: s.idpCert,
    idpIssuer: s.idpIssuer,
    issuer: sp.samlEntityId,
    audience: sp.samlEntityId,
    callbackUrl: sp.samlAcsUrl,
    wantAssertionsSigned: false, // a signed Response is enough; node-saml still demands one of the two signatures
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_MS,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    cacheProvider: store,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
  });
}

/** The IdP URL (HTTP-Redirect binding) carrying a fresh AuthnRequest; its id is stored first, with the hash of the browser binding. */
export async function samlAuthorizeUrl(
  config: Config,
  database: Database,
  organizationId: string,
  s: SamlSettings,
  relayState: string,
  browserBinding: string,
): Promise<string> {
  return (
    await samlFor(config, database, organizationId, s, requestStore(database, organizationId, sha256Hex(browserBinding)))
  ).getAuthorizeUrlAsync(relayState, undefined, {});
}

/** The SP metadata (entity ID, ACS URL with the HTTP-POST binding) for the IdP's administrator. */
export async function samlMetadata(config: Config, database: Database, organizationId: string, s: SamlSettings): Promise<string> {
  return (await samlFor(config, database, organizationId, s)).generateServiceProviderMetadata(null, null);
}

const EMAIL_ATTRIBUTES = [
  "email",
  "mail",
  "urn:oid:0.9.2342.19200300.100.1.3",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
  "Email",
  "EmailAddress",
];

/** The attribute value or the first of a multi-valued attribute. */
function first(v: unknown): string | null {
  if (typeof v === "string" && v !== "") return v;
  if (Array.isArray(v) && typeof v[0] === "string") return v[0];
  return null;
}

/** An attribute of the document's root element when it is a SAML Response (`<samlp:Response … Destination="…">`), read by an XML parser. */
async function rootAttribute(xml: string, name: string): Promise<string | null> {
  const { DOMParser } = await samlLibraries();
  let root: Element | null = null;
  try {
    root = new DOMParser({ errorHandler: () => {} }).parseFromString(xml, "text/xml").documentElement;
  } catch {
    return null;
  }
  if (!root || root.localName !== "Response" || root.namespaceURI !== "urn:oasis:names:tc:SAML:2.0:protocol") return null;
  return root.hasAttribute(name) ? root.getAttribute(name) : null;
}

/**
 * Validates a posted SAMLResponse for an organization and returns the person. Throws
 * SamlRefused with the reason for anything that does not check out.
 */
export async function samlFinish(
  config: Config,
  database: Database,
  organizationId: string,
  s: SamlSettings,
  samlResponse: string,
  browserBinding: string | null,
): Promise<{ subject: string; email: string | null; name: string | null }> {
  const sp = serviceProvider(config, organizationId);
  let xml: string;
  try {
    xml = Buffer.from(samlResponse, "base64").toString("utf8");
  } catch {
    throw new SamlRefused("The SAMLResponse is not base64.");
  }
  const destination = await rootAttribute(xml, "Destination");
  if (destination !== sp.samlAcsUrl)
    throw new SamlRefused(
      destination === null ? "The Response names no Destination." : `The Response is for ${destination}, not this service's ACS URL.`,
    );
  let profile: Profile | null;
  const seen = new Map<string, string>();
  try {
    profile = (
      await (
        await samlFor(config, database, organizationId, s, requestStore(database, organizationId, null, seen))
      ).validatePostResponseAsync({ SAMLResponse: samlResponse })
    ).profile;
  } catch (e) {
    throw new SamlRefused((e as Error).message);
  }
  if (!profile) throw new SamlRefused("The response carries no assertion.");
  // login CSRF: over https the response must come back to the browser that started the sign-in
  // (the talentd_saml cookie, SameSite=None so the IdP's cross-site POST carries it)
  if (config.baseUrl.startsWith("https:")) {
    const bound = seen.get((await rootAttribute(xml, "InResponseTo")) ?? "") ?? "";
    if (!bound || !browserBinding || sha256Hex(browserBinding) !== bound)
      throw new SamlRefused("The response answers a sign-in that did not start in this browser.");
  }
  const assertion = profile.getAssertion?.() as
    | {
        Assertion?: {
          $?: { ID?: string };
          Subject?: { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { Recipient?: string } }[] }[] }[];
          Conditions?: { $?: { NotOnOrAfter?: string } }[];
        };
      }
    | undefined;
  const a = assertion?.Assertion;
  const recipient = a?.Subject?.[0]?.SubjectConfirmation?.[0]?.SubjectConfirmationData?.[0]?.$?.Recipient;
  if (recipient !== undefined && recipient !== sp.samlAcsUrl)
    throw new SamlRefused(`The assertion's Recipient ${recipient} is not this service's ACS URL.`);
  const assertionId = a?.$?.ID;
  if (!assertionId) throw new SamlRefused("The assertion has no ID.");
  const notOnOrAfter = Date.parse(a?.Conditions?.[0]?.$?.NotOnOrAfter ?? "");
  const keepUntil = (Number.isFinite(notOnOrAfter) ? notOnOrAfter : Date.now() + ASSERTION_KEEP_MS) + SAML_CLOCK_SKEW_MS;
  const fresh = await database.write(async (tx) => {
    const r = await tx
      .insert(ssoNonces)
      .values({
        kind: "saml_assertion",
        id: `${profile.issuer}|${assertionId}`,
        organizationId,
        expiresAt: keepUntil,
        createdAt: Date.now(),
      })
      .onConflictDoNothing()
      .returning({ id: ssoNonces.id });
    return r.length > 0;
  });
  if (!fresh) throw new SamlRefused(`Assertion ${assertionId} was already used: a replayed assertion is refused.`);
  let email: string | null = null;
  for (const k of EMAIL_ATTRIBUTES) email ??= first(profile[k]);
  if (!email && /@/.test(profile.nameID ?? "")) email = profile.nameID;
  const name = first(profile.displayName) ?? first(profile["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"]) ?? null;
  return { subject: profile.nameID, email, name };
}
