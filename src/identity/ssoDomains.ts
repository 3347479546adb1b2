/**
 * Proof of an SSO domain. Saving SSO with `domains` only claims them: a claim routes sign-in
 * (`/login`, `/api/auth/sso/:domain`) and enforces SSO only once it is verified, either by a
 * DNS TXT record `_talentd-challenge.<domain>` holding `talentd-verification=<token>` (asked of
 * the system resolver's servers, or those of DNS_SERVERS; only a TXT owned by exactly that name
 * counts, never one reached through a CNAME), or by a platform administrator's
 * approval. Several organizations may claim one domain; one at most holds it verified (a partial
 * unique index decides inside the write). Without this, any organization's owner could name
 * someone else's domain and sign in as its people.
 */
import { record, type AuditActor } from "../audit/record";
import { Resolver } from "node:dns/promises";
import { randomBytes } from "node:crypto";
import { and, eq, inArray, isNotNull, isNull, ne } from "drizzle-orm";
import { keptUnbounded } from "../lib/kept";
import type { Config } from "../config";
import type { Database, Tx } from "../db/client";
import { organizations, ssoDomains } from "../db/schema";
import { AppError, notFound } from "../http/errors";
import { iso } from "../lib/time";
import { DnsCnameError, lookupTxt, parseDnsServer, type DnsServer } from "../lib/dnsTxt";

/** The DNS name under which an organization proves a domain. */
export const CHALLENGE_LABEL = "_talentd-challenge";
const VALUE_PREFIX = "talentd-verification=";

/** A claim as the organization's admins see it, with the record that proves it. */
export interface DomainClaim {
  domain: string;
  status: "pending" | "verified";
  record: { type: "TXT"; name: string; value: string };
  verifiedAt: string | null;
  verifiedBy: "dns" | "admin" | null;
}

/** Looks up TXT records: each record is the list of its strings (node:dns's shape). */
export type TxtLookup = (name: string) => Promise<string[][]>;

const lookups = keptUnbounded<string, TxtLookup>("TXT resolver by DNS servers", {
  clock: "none",
  bound: "one per DNS_SERVERS setting (one per process)",
});

/**
 * The TXT lookup of this configuration: the system resolver's servers, or DNS_SERVERS (an
 * operator's internal resolver; tests name a local one). It reads the answer itself
 * (`lib/dnsTxt.ts`): only TXT records owned by exactly the name asked count, and a CNAME there
 * is refused (DnsCnameError). A short timeout: a person waits on the answer.
 */
export function txtLookup(config: Pick<Config, "dnsServers">): TxtLookup {
  const key = config.dnsServers.join(",");
  let found = lookups.get(key);
  if (!found) {
    const named = config.dnsServers.length > 0 ? config.dnsServers : new Resolver().getServers();
    const servers = named.map(parseDnsServer).filter((s): s is DnsServer => s !== null);
    found = (name) => lookupTxt(servers, name, { timeoutMs: 3000, tries: 2 });
    lookups.set(key, found);
  }
  return found;
}

function claimOf(row: { domain: string; token: string; verifiedAt: number | null; verifiedBy: string | null }): DomainClaim {
  return {
    domain: row.domain,
    status: row.verifiedAt === null ? "pending" : "verified",
    record: { type: "TXT", name: `${CHALLENGE_LABEL}.${row.domain}`, value: `${VALUE_PREFIX}${row.token}` },
    verifiedAt: row.verifiedAt === null ? null : iso(row.verifiedAt),
    verifiedBy: row.verifiedBy === null ? null : row.verifiedBy === "dns" ? "dns" : "admin",
  };
}

/** The organization's claims, verified or not, in domain order. */
export async function domainClaims(database: Database | Tx, organizationId: string): Promise<DomainClaim[]> {
  const db = "db" in database ? database.db : database;
  const rows = await db
    .select({ domain: ssoDomains.domain, token: ssoDomains.token, verifiedAt: ssoDomains.verifiedAt, verifiedBy: ssoDomains.verifiedBy })
    .from(ssoDomains)
    .where(eq(ssoDomains.organizationId, organizationId))
    .orderBy(ssoDomains.domain);
  return rows.map(claimOf);
}

/**
 * Replaces the organization's claims with `domains` inside the caller's transaction: a kept
 * domain keeps its token and its verification, a new one starts pending with a fresh token.
 * A domain another organization holds verified → 409 conflict naming it.
 */
export async function saveDomainClaims(tx: Tx, organizationId: string, domains: string[]): Promise<void> {
  const taken = await tx
    .select({ d: ssoDomains.domain })
    .from(ssoDomains)
    .where(and(inArray(ssoDomains.domain, domains), ne(ssoDomains.organizationId, organizationId), isNotNull(ssoDomains.verifiedAt)));
  if (taken.length > 0) {
    const list = [...new Set(taken.map((t) => t.d))].sort();
    throw new AppError(
      "conflict",
      `${list.join(", ")} ${list.length === 1 ? "is" : "are"} verified by another organization: a domain belongs to one organization at most.`,
      { domains: list, field: "domains" },
    );
  }
  const kept = new Set(
    (await tx.select({ d: ssoDomains.domain }).from(ssoDomains).where(eq(ssoDomains.organizationId, organizationId))).map((r) => r.d),
  );
  const gone = [...kept].filter((d) => !domains.includes(d));
  if (gone.length > 0)
    await tx.delete(ssoDomains).where(and(eq(ssoDomains.organizationId, organizationId), inArray(ssoDomains.domain, gone)));
  const added = domains.filter((d) => !kept.has(d));
  const now = Date.now();
  if (added.length > 0) {
    await tx
      .insert(ssoDomains)
      .values(added.map((domain) => ({ organizationId, domain, token: randomBytes(16).toString("hex"), createdAt: now })));
  }
}

async function claimRow(database: Database | Tx, organizationId: string, domain: string) {
  const db = "db" in database ? database.db : database;
  const row = (
    await db
      .select()
      .from(ssoDomains)
      .where(and(eq(ssoDomains.organizationId, organizationId), eq(ssoDomains.domain, domain)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`This organization does not claim ${domain.slice(0, 253)} for its single sign-on.`);
  return row;
}

/** Marks a claim verified inside `tx`; another organization's verified claim on it → 409. */
async function markVerified(tx: Tx, organizationId: string, domain: string, by: string): Promise<void> {
  const other = await tx
    .select({ o: ssoDomains.organizationId })
    .from(ssoDomains)
    .where(and(eq(ssoDomains.domain, domain), ne(ssoDomains.organizationId, organizationId), isNotNull(ssoDomains.verifiedAt)))
    .limit(1);
  if (other.length > 0)
    throw new AppError("conflict", `${domain} is already verified by another organization: a domain belongs to one organization at most.`, {
      domains: [domain],
    });
  await tx
    .update(ssoDomains)
    .set({ verifiedAt: Date.now(), verifiedBy: by })
    .where(and(eq(ssoDomains.organizationId, organizationId), eq(ssoDomains.domain, domain), isNull(ssoDomains.verifiedAt)));
}

/**
 * Checks the claim's DNS TXT record and, when it holds the token, marks the claim verified.
 * No such record → 409 domain_unverified with the record to publish and what was found.
 */
export async function verifyDomainByDns(
  database: Database,
  lookup: TxtLookup,
  organizationId: string,
  domain: string,
  actor: AuditActor,
): Promise<DomainClaim> {
  const row = await claimRow(database, organizationId, domain);
  if (row.verifiedAt !== null) return claimOf(row);
  const claim = claimOf(row);
  let found: string[] = [];
  try {
    found = (await lookup(claim.record.name)).map((parts) => parts.join(""));
  } catch (e) {
    if (e instanceof DnsCnameError)
      throw new AppError(
        "domain_unverified",
        `${claim.record.name} is a CNAME (to ${e.target}): the proof must be a TXT record at exactly that name, ` +
          "not an alias. Replace the CNAME with the TXT record, then verify again.",
        { record: claim.record, found: [] },
      );
    found = []; // NXDOMAIN, no TXT, a resolver that did not answer: the record is not there (yet)
  }
  if (!found.includes(claim.record.value)) {
    throw new AppError(
      "domain_unverified",
      `No TXT record ${claim.record.name} holds ${claim.record.value} yet. Publish it at your DNS provider, wait for it to propagate, then verify again.`,
      { record: claim.record, found: found.filter((v) => v.startsWith(VALUE_PREFIX)).slice(0, 10) },
    );
  }
  await database.write(async (tx) => {
    await markVerified(tx, organizationId, domain, "dns");
    await record(tx, {
      organizationId,
      actor,
      action: "sso.domain_verified",
      object: { kind: "sso_domain", id: domain },
      after: { verifiedBy: "dns" },
    });
  });
  return claimOf(await claimRow(database, organizationId, domain));
}

/** A platform administrator's approval of a claim (an IdP domain without public DNS, say). */
export async function approveDomainClaim(tx: Tx, organizationId: string, domain: string, adminId: string): Promise<DomainClaim> {
  await claimRow(tx, organizationId, domain);
  await markVerified(tx, organizationId, domain, `admin:${adminId}`);
  return claimOf(await claimRow(tx, organizationId, domain));
}

/** Every pending claim, for the platform administrators' list (oldest first). */
export async function pendingDomainClaims(
  database: Database,
): Promise<(DomainClaim & { organization: { id: string; name: string; status: string } })[]> {
  const rows = await database.db
    .select({
      domain: ssoDomains.domain,
      token: ssoDomains.token,
      verifiedAt: ssoDomains.verifiedAt,
      verifiedBy: ssoDomains.verifiedBy,
      id: organizations.id,
      name: organizations.name,
      status: organizations.status,
    })
    .from(ssoDomains)
    .innerJoin(organizations, eq(organizations.id, ssoDomains.organizationId))
    .where(isNull(ssoDomains.verifiedAt))
    .orderBy(ssoDomains.createdAt)
    .limit(500);
  return rows.map((r) => ({ ...claimOf(r), organization: { id: r.id, name: r.name, status: r.status } }));
}

/** The organization holding `domain` verified, or null: the only claim that routes or enforces. */
export async function verifiedOwnerOf(database: Database, domain: string): Promise<{ id: string; name: string; status: string } | null> {
  const row = (
    await database.db
      .select({ id: organizations.id, name: organizations.name, status: organizations.status })
      .from(ssoDomains)
      .innerJoin(organizations, eq(organizations.id, ssoDomains.organizationId))
      .where(and(eq(ssoDomains.domain, domain.toLowerCase()), isNotNull(ssoDomains.verifiedAt)))
      .limit(1)
  )[0];
  return row ?? null;
}
