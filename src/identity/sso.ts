/**
 * Organization SSO (`GET, POST /web/orgs/current/sso`, `POST …/sso/test`; docs/api.md "Organization SSO"):
 * an organization's OIDC or SAML connection and the e-mail domains routed to it. A domain
 * belongs to one organization at most (409 conflict). The OIDC client secret is stored and
 * never answered. Only an approved organization's SSO is used to sign in.
 */
import { X509Certificate } from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import type { Config } from "../config";
import type { Database, Tx } from "../db/client";
import { members, organizations, ssoConnections, users } from "../db/schema";
import { validationFailed, type Issue } from "../http/errors";
import { egressDetail, safeFetch, type EgressPolicy } from "../lib/egress";
import { iso } from "../lib/time";
import { forgetOidcConfiguration, isLoopbackHttp, oidcConfiguration } from "./oidc";
import { domainClaims, saveDomainClaims, verifiedOwnerOf, type DomainClaim } from "./ssoDomains";

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}
export interface SamlSettings {
  entryPoint: string;
  idpCert: string;
  idpIssuer: string;
}
export interface SsoSettings {
  type: "oidc" | "saml";
  domains: string[];
  enforce: boolean;
  oidc?: OidcSettings;
  saml?: SamlSettings;
}

export const MAX_DOMAINS = 20;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The URLs an IdP administrator registers (docs/operations.md). */
export function serviceProvider(config: Config, organizationId: string) {
  return {
    oidcRedirectUri: `${config.baseUrl}/api/auth/sso/oidc/callback`,
    samlEntityId: `${config.baseUrl}/api/auth/saml/${organizationId}/metadata`,
    samlAcsUrl: `${config.baseUrl}/api/auth/saml/${organizationId}/acs`,
    samlMetadataUrl: `${config.baseUrl}/api/auth/saml/${organizationId}/metadata`,
  };
}

/** A PEM certificate from what a person pasted (PEM, or the bare base64 of IdP metadata), or null when it does not parse. */
export function normalizeCertificate(raw: string): { pem: string; cert: X509Certificate } | null {
  const body = raw.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) return null;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
  try {
    return { pem, cert: new X509Certificate(pem) };
  } catch {
    return null;
  }
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v.trim() : undefined);

/** A nested JSON field (`oidc.issuer`) or its flat form field (`oidc_issuer`). */
function pick(body: Record<string, unknown>, group: "oidc" | "saml", field: string, flat: string): string | undefined {
  const nested = body[group];
  if (nested && typeof nested === "object") return text((nested as Record<string, unknown>)[field]);
  return text(body[flat]);
}

function httpsUrl(value: string | undefined, path: string, issues: Issue[]): string | undefined {
  if (!value) {
    issues.push({ path, message: "is required" });
    return undefined;
  }
  try {
    const u = new URL(value);
    if (u.protocol === "https:" || isLoopbackHttp(u)) return value;
    issues.push({ path, message: "must be an https:// URL (plain http only on a loopback address)" });
  } catch {
    issues.push({ path, message: "is not a URL" });
  }
  return undefined;
}

/**
 * Reads a configuration from a JSON body (`{type, domains, enforce, oidc: {…}, saml: {…}}`)
 * or a form (`domains` separated by commas, spaces or lines; `oidc_issuer`, `saml_idp_cert`…).
 * An empty client secret keeps the stored one. 400 validation_failed lists every problem.
 */
export function readSsoSettings(body: unknown, stored: SsoSettings | null): SsoSettings {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  const type = b.type;
  if (type !== "oidc" && type !== "saml") issues.push({ path: "type", message: "must be oidc or saml" });
  const rawDomains = Array.isArray(b.domains) ? b.domains : typeof b.domains === "string" ? b.domains.split(/[\s,]+/) : null;
  const domains = [
    ...new Set(
      (rawDomains ?? []).map((d) => (typeof d === "string" ? d.trim().toLowerCase().replace(/^@/, "") : "")).filter((d) => d !== ""),
    ),
  ];
  if (rawDomains === null || domains.length === 0)
    issues.push({ path: "domains", message: "name at least one e-mail domain (e.g. example.com)" });
  if (domains.length > MAX_DOMAINS) issues.push({ path: "domains", message: `at most ${MAX_DOMAINS} domains` });
  domains.forEach((d, i) => {
    if (!DOMAIN.test(d)) issues.push({ path: `domains/${i}`, message: `"${d.slice(0, 100)}" is not an e-mail domain` });
  });
  const e = b.enforce;
  const enforce = e === true || e === "true" || e === "on" || e === "1";
  if (e !== undefined && typeof e !== "boolean" && typeof e !== "string")
    issues.push({ path: "enforce", message: "must be true or false" });
  const out: SsoSettings = { type: type === "saml" ? "saml" : "oidc", domains, enforce };
  if (type === "oidc") {
    const issuer = httpsUrl(pick(b, "oidc", "issuer", "oidc_issuer"), "oidc/issuer", issues);
    const clientId = pick(b, "oidc", "clientId", "oidc_client_id") ?? "";
    let clientSecret = pick(b, "oidc", "clientSecret", "oidc_client_secret") ?? "";
    if (clientId === "" || clientId.length > 300) issues.push({ path: "oidc/clientId", message: "is required (at most 300 characters)" });
    if (clientSecret === "" && stored?.oidc) clientSecret = stored.oidc.clientSecret;
    if (clientSecret === "" || clientSecret.length > 1000)
      issues.push({ path: "oidc/clientSecret", message: "is required (at most 1000 characters)" });
    if (issuer) out.oidc = { issuer, clientId, clientSecret };
  } else if (type === "saml") {
    const entryPoint = httpsUrl(pick(b, "saml", "entryPoint", "saml_entry_point"), "saml/entryPoint", issues);
    const idpIssuer = pick(b, "saml", "idpIssuer", "saml_idp_issuer") ?? "";
    if (idpIssuer === "" || idpIssuer.length > 500)
      issues.push({ path: "saml/idpIssuer", message: "is required: the IdP's entity ID (at most 500 characters)" });
    const rawCert = pick(b, "saml", "idpCert", "saml_idp_cert") ?? "";
    const cert = rawCert.length <= 20_000 ? normalizeCertificate(rawCert) : null;
    if (!cert)
      issues.push({ path: "saml/idpCert", message: "is not an X.509 certificate (paste the IdP's signing certificate, PEM or base64)" });
    if (entryPoint && cert) out.saml = { entryPoint, idpIssuer, idpCert: cert.pem };
  }
  if (issues.length > 0) throw validationFailed(issues);
  return out;
}

interface ConnectionRow {
  organizationId: string;
  protocol: "oidc" | "saml";
  config: Record<string, unknown>;
  enforce: boolean;
  enterpriseGrant: boolean;
  testedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

function settingsOf(row: ConnectionRow, domains: string[]): SsoSettings {
  const c = row.config as { oidc?: OidcSettings; saml?: SamlSettings };
  return { type: row.protocol, domains, enforce: row.enforce, ...(row.protocol === "oidc" ? { oidc: c.oidc } : { saml: c.saml }) };
}

/** Stored settings plus what only the server reads: the claims and which of them are verified. */
export type StoredSso = SsoSettings & {
  /** Enterprise-managed authorization (ssoEnterprise.ts): this OIDC IdP's ID-JAGs are accepted at /oauth/token. */
  enterpriseGrant: boolean;
  testedAt: number | null;
  updatedAt: number;
  claims: DomainClaim[];
  verifiedDomains: string[];
};

/** The stored settings of an organization (secrets included: for the server only), or null. */
export async function loadSso(database: Database | Tx, organizationId: string): Promise<StoredSso | null> {
  const db = "db" in database ? database.db : database;
  const row = (await db.select().from(ssoConnections).where(eq(ssoConnections.organizationId, organizationId)).limit(1))[0] as
    | ConnectionRow
    | undefined;
  if (!row) return null;
  const claims = await domainClaims(database, organizationId);
  const domains = claims.map((c) => c.domain);
  const verifiedDomains = claims.filter((c) => c.status === "verified").map((c) => c.domain);
  return {
    ...settingsOf(row, domains),
    enterpriseGrant: row.enterpriseGrant,
    testedAt: row.testedAt,
    updatedAt: row.updatedAt,
    claims,
    verifiedDomains,
  };
}

/** What leaves the server: the settings without the client secret, plus the URLs to register. */
export function publicSso(config: Config, organizationId: string, s: StoredSso | null) {
  const sp = serviceProvider(config, organizationId);
  if (!s) return { sso: null, serviceProvider: sp };
  const cert = s.saml ? normalizeCertificate(s.saml.idpCert)?.cert : undefined;
  return {
    sso: {
      type: s.type,
      domains: s.domains,
      domainClaims: s.claims,
      enforce: s.enforce,
      enterpriseGrant: s.enterpriseGrant,
      oidc: s.oidc ? { issuer: s.oidc.issuer, clientId: s.oidc.clientId, clientSecretSet: s.oidc.clientSecret !== "" } : null,
      saml: s.saml
        ? {
            entryPoint: s.saml.entryPoint,
            idpIssuer: s.saml.idpIssuer,
            idpCert: s.saml.idpCert,
            certificate: cert
              ? { subject: cert.subject, validTo: new Date(cert.validTo).toISOString(), fingerprint256: cert.fingerprint256 }
              : null,
          }
        : null,
      testedAt: s.testedAt === null ? null : iso(s.testedAt),
      updatedAt: iso(s.updatedAt),
      signInLinks: s.verifiedDomains.map((d) => `${config.baseUrl}/api/auth/sso/${d}`),
    },
    serviceProvider: sp,
  };
}

/**
 * Stores an organization's SSO and its domain claims in one transaction. A domain another
 * organization holds verified → 409 conflict naming it (decided inside the write); a new
 * domain starts pending until proven (ssoDomains.ts).
 */
export async function saveSso(tx: Tx, organizationId: string, s: SsoSettings): Promise<void> {
  const now = Date.now();
  const config = s.type === "oidc" ? { oidc: s.oidc } : { saml: s.saml };
  await tx
    .insert(ssoConnections)
    .values({ organizationId, protocol: s.type, config, enforce: s.enforce, enabled: true, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: ssoConnections.organizationId,
      set: { protocol: s.type, config, enforce: s.enforce, enabled: true, testedAt: null, updatedAt: now },
    });
  await saveDomainClaims(tx, organizationId, s.domains);
}

/** Removes an organization's SSO (its domains go with it). True when there was one. */
export async function deleteSso(tx: Tx, organizationId: string): Promise<boolean> {
  const gone = await tx
    .delete(ssoConnections)
    .where(eq(ssoConnections.organizationId, organizationId))
    .returning({ id: ssoConnections.organizationId });
  return gone.length > 0;
}

/** The SSO a verified domain routes to, with its organization's status; null when no organization holds it verified. */
export async function ssoForDomain(database: Database, domain: string) {
  const owner = await verifiedOwnerOf(database, domain);
  if (!owner) return null;
  const settings = await loadSso(database, owner.id);
  return settings ? { organization: owner, settings } : null;
}

/** The domain's SSO when it is usable for sign-in (verified, and an approved organization's), else null. */
export async function usableSsoForDomain(database: Database, domain: string) {
  const s = await ssoForDomain(database, domain);
  return s && s.organization.status === "approved" ? s : null;
}

/** The organization's SSO when it can sign people in: approved, with at least one verified domain. */
export async function usableSsoOf(database: Database, organizationId: string): Promise<StoredSso | null> {
  const settings = await loadSso(database, organizationId);
  if (!settings || settings.verifiedDomains.length === 0) return null;
  const org = (
    await database.db.select({ status: organizations.status }).from(organizations).where(eq(organizations.id, organizationId)).limit(1)
  )[0];
  return org?.status === "approved" ? settings : null;
}

/**
 * Whether password (and external provider) sign-in is refused for this e-mail: its verified
 * domain's approved organization enforces SSO and the account is one of that organization's
 * members. Enforcement never reaches people outside the organization (a platform administrator,
 * another tenant's member). Returns the domain, or null.
 */
export async function ssoEnforcedFor(database: Database, email: string): Promise<string | null> {
  const at = email.lastIndexOf("@");
  if (at <= 0) return null;
  const domain = email.slice(at + 1).toLowerCase();
  const s = await usableSsoForDomain(database, domain);
  if (!s?.settings.enforce) return null;
  const member = await database.db
    .select({ id: users.id })
    .from(users)
    .innerJoin(members, and(eq(members.userId, users.id), eq(members.organizationId, s.organization.id)))
    .where(and(eq(users.email, email.toLowerCase()), ne(users.role, "admin")))
    .limit(1);
  return member.length > 0 ? domain : null;
}

/**
 * Checks a configuration against its IdP: OIDC discovery (issuer, endpoints, the signing
 * keys' URL); SAML certificate (parses, in its validity period) and entry point (a URL that
 * answers). Returns each check with its outcome. Every fetch goes through the egress policy,
 * and a failed one says only that the IdP could not be reached (a refused address, a closed
 * port and a slow host read alike: the test is no port scanner); `problems` says why, for the
 * security log.
 */
export async function testSso(
  s: SsoSettings,
  policy: EgressPolicy,
): Promise<{ ok: boolean; checks: { name: string; ok: boolean; message: string }[]; problems: string[] }> {
  const checks: { name: string; ok: boolean; message: string }[] = [];
  const problems: string[] = [];
  if (s.type === "oidc" && s.oidc) {
    forgetOidcConfiguration(s.oidc.issuer);
    try {
      const c = await oidcConfiguration(s.oidc, policy);
      const m = c.serverMetadata();
      checks.push({
        name: "discovery",
        ok: true,
        message: `Discovered ${m.issuer}: authorization ${m.authorization_endpoint}, token ${m.token_endpoint}.`,
      });
      const pkce = m.code_challenge_methods_supported?.includes("S256");
      checks.push({
        name: "pkce",
        ok: pkce !== false,
        message: pkce ? "PKCE S256 is supported." : "The issuer does not announce PKCE S256; sign-in will still send it.",
      });
      checks.push({
        name: "jwks",
        ok: typeof m.jwks_uri === "string",
        message: m.jwks_uri ? `Signing keys at ${m.jwks_uri}.` : "The issuer names no jwks_uri: ID tokens cannot be verified.",
      });
    } catch (e) {
      problems.push((e as Error).message);
      checks.push({
        name: "discovery",
        ok: false,
        message: `Could not reach the issuer ${s.oidc.issuer}, or it answered no OpenID configuration.`,
      });
    }
  } else if (s.type === "saml" && s.saml) {
    const cert = normalizeCertificate(s.saml.idpCert);
    if (!cert) checks.push({ name: "certificate", ok: false, message: "The IdP certificate does not parse." });
    else {
      const now = Date.now();
      const from = Date.parse(cert.cert.validFrom);
      const to = Date.parse(cert.cert.validTo);
      const valid = from <= now && now <= to;
      checks.push({
        name: "certificate",
        ok: valid,
        message: valid
          ? `Certificate ${cert.cert.subject.replace(/\n/g, ", ")} valid until ${new Date(to).toISOString()}.`
          : `The certificate is outside its validity period (${new Date(from).toISOString()} – ${new Date(to).toISOString()}).`,
      });
    }
    let answered = false;
    try {
      const r = await safeFetch(s.saml.entryPoint, { method: "GET", redirect: "manual" }, policy);
      answered = r.status < 500;
      if (!answered) problems.push(`the entry point answered ${r.status}`);
    } catch (e) {
      problems.push(`the entry point: ${egressDetail(e)}`);
    }
    checks.push({
      name: "entryPoint",
      ok: answered,
      message: answered ? "The entry point answered." : `Could not reach the entry point ${s.saml.entryPoint}.`,
    });
  }
  return { ok: checks.length > 0 && checks.every((c) => c.ok), checks, problems };
}

/** Marks a configuration as tested (shown on the page). */
export async function markTested(tx: Tx, organizationId: string): Promise<void> {
  await tx.update(ssoConnections).set({ testedAt: Date.now() }).where(eq(ssoConnections.organizationId, organizationId));
}
