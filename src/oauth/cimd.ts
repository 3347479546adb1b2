/**
 * Client ID metadata documents (the MCP authorization of 2026-07-28; the IETF draft "OAuth
 * Client ID Metadata Document"): a `client_id` that is an https URL names the client's own
 * metadata, which this server fetches through the egress policy (at most CIMD_MAX_BYTES, within
 * CIMD_TIMEOUT_MS, no redirect) and keeps per URL for its Cache-Control max-age, bounded. The
 * document's `client_id` must be its URL; its `redirect_uris` are the only ones an authorization
 * request may name. Nothing is written until a user consents: then the client gets its
 * `oauth_clients` row (id = the URL), which its codes and tokens refer to.
 *
 * A document is fetched only for a signed-in person (the consent page and form) or for a client
 * an identity provider vouched for (the jwt-bearer grant, after the assertion verified), within
 * a per-address and a global budget (`MetadataFetchBudget`); an anonymous visitor and the sign-in
 * page see only a document already kept. Whatever went wrong with a fetched document, the person
 * reads one sentence ("could not be verified"): nothing of the target's answer (status, content
 * type, fields) is shown back; the reason goes to the log.
 */
import type { Tx } from "../db/client";
import { oauthClients } from "../db/schema";
import { EgressError, egressPolicyKey, safeFetch, type EgressPolicy } from "../lib/egress";
import { kept } from "../lib/kept";
import type { Logger } from "../lib/log";
import { SlidingWindowLimiter } from "../lib/rateLimit";
import type { Database } from "../db/database";
import { type SharedWindow, sharedWindow } from "../identity/sharedLimits";
import { REDIRECT_URIS_MAX, redirectUriProblem, type OAuthClient } from "./clients";
import { OAuthError } from "./errors";

/** The largest document accepted (the draft suggests 5 KB). */
export const CIMD_MAX_BYTES = 5 * 1024;
/** How long the fetch of a document may take. */
export const CIMD_TIMEOUT_MS = 5_000;
const KEEP_MIN_MS = 60_000;
const KEEP_DEFAULT_MS = 10 * 60_000;
const KEEP_MAX_MS = 24 * 3600_000;
const ID_MAX = 2000;
const NAME_MAX = 200;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** What the fetch of a document obeys (config.ts: `egress`, `oauthClientMetadataLoopback`). */
export interface MetadataSettings {
  egress: EgressPolicy;
  /** OAUTH_CLIENT_METADATA_LOOPBACK: loopback client ids (development). */
  allowLoopback: boolean;
  /** Where the reason of a refused document is written (the person is told only that the client could not be verified). */
  log?: Logger;
}

/**
 * Documents fetched in a minute, per client address (OAUTH_METADATA_FETCH_LIMIT_PER_MINUTE) and
 * in all (OAUTH_METADATA_FETCH_GLOBAL_LIMIT_PER_MINUTE); one per app. Documents already kept, and
 * failures already kept, are answered without a fetch and count nothing.
 */
export class MetadataFetchBudget {
  readonly #perAddress: SlidingWindowLimiter;
  readonly #all: SlidingWindowLimiter;
  /** On PostgreSQL: the same two limits counted in the database, across replicas (identity/sharedLimits.ts). */
  readonly #shared: { mine: SharedWindow; all: SharedWindow } | null;
  constructor(perAddress: number, all: number, database?: Database) {
    this.#perAddress = new SlidingWindowLimiter(perAddress, 60_000);
    this.#all = new SlidingWindowLimiter(all, 60_000);
    this.#shared =
      database?.dialect === "postgres"
        ? { mine: sharedWindow(database, "cimd-fetch", perAddress, 60_000), all: sharedWindow(database, "cimd-fetch-all", all, 60_000) }
        : null;
  }

  /** Counts one fetch for `address` (null: no socket, counted as one address), or says in how many seconds to retry. */
  async take(address: string | null, now = Date.now()): Promise<{ allowed: boolean; retryAfter: number }> {
    const key = address ?? "-";
    if (this.#shared) {
      const mine = await this.#shared.mine.take(key, now);
      if (!mine.allowed) return mine;
      const all = await this.#shared.all.take("all", now);
      if (!all.allowed) await mine.giveBack();
      return { allowed: all.allowed, retryAfter: all.retryAfter };
    }
    const mine = this.#perAddress.check(key, now);
    const all = this.#all.check("all", now);
    if (!mine.allowed || !all.allowed) return { allowed: false, retryAfter: Math.max(mine.retryAfter, all.retryAfter) };
    this.#perAddress.hit(key, now);
    this.#all.hit("all", now);
    return { allowed: true, retryAfter: 0 };
  }
}

/**
 * Whether a document may be fetched now: for whom (the client address of a signed-in person, or
 * of a jwt-bearer request whose assertion verified) and within which budget. null: only a
 * document already kept is used (an anonymous visitor, the sign-in page).
 */
export type MetadataFetch = { budget: MetadataFetchBudget; address: string | null } | null;

/** The one sentence a person reads when a fetched document is refused, whatever the reason. */
export function unverifiedSentence(id: string): string {
  return (
    `The application ${id.slice(0, 200)} could not be verified: its client metadata document could not be used. ` +
    "Start the connection again from the application, or ask its publisher."
  );
}

/** A document refused: the person reads `unverifiedSentence`, the log gets `reason`. */
export class UnverifiedClient extends OAuthError {
  constructor(
    id: string,
    readonly reason: string,
  ) {
    super("invalid_client", unverifiedSentence(id));
  }
}

const documents = kept<string, { client: OAuthClient; until: number }>("Client ID metadata documents by URL and settings", {
  clock: "time",
  limit: 1000,
  order: "used",
});
/** A fetch that failed is kept this long: a visitor repeating the request makes one fetch per URL in that time, not one each. */
export const FAILED_FETCH_MS = 30_000;
const failures = kept<string, { error: OAuthError; until: number }>("Client ID metadata documents that failed, by URL and settings", {
  clock: "time",
  limit: 1000,
  order: "inserted",
});

/** Why `id` cannot name a metadata document, or null when it can. */
export function metadataUrlProblem(id: string, allowLoopback: boolean): string | null {
  if (id.length > ID_MAX) return `is longer than ${ID_MAX} characters`;
  let u: URL;
  try {
    u = new URL(id);
  } catch {
    return "is not a URL";
  }
  if (u.username !== "" || u.password !== "") return "must not carry a user name or password";
  if (id.includes("#")) return "must not contain a fragment";
  if (u.pathname === "/") return "must have a path (the location of the client's metadata document)";
  // compared as strings everywhere: a URL a parser would rewrite (dot segments, case, default port) is refused
  if (u.href !== id) return `must be written in its normal form (${u.href.slice(0, 200)})`;
  if (LOOPBACK_HOSTS.has(u.hostname)) {
    return allowLoopback ? null : "is on a loopback address, accepted only with OAUTH_CLIENT_METADATA_LOOPBACK=true (development)";
  }
  return u.protocol === "https:" ? null : "must be an https URL";
}

const FETCH_FAILURES: Record<EgressError["reason"], string> = {
  // refused and unreachable read the same: the page must not tell which names resolve inside the network
  refused: "the host could not be reached",
  unreachable: "the host could not be reached",
  timeout: `it did not answer within ${CIMD_TIMEOUT_MS / 1000} s`,
  too_large: `the document is larger than ${CIMD_MAX_BYTES / 1024} KB`,
  redirects: "it answered with a redirect",
  url: "the URL cannot be fetched",
};

/** How long a document may be kept: its max-age within [1 min, 24 h]; not at all under no-store. */
function keepFor(cacheControl: string | null): number {
  const cc = (cacheControl ?? "").toLowerCase();
  if (/(^|[\s,])no-store([\s,]|$)/.test(cc)) return 0;
  const maxAge = /(^|[\s,])max-age=(\d+)/.exec(cc);
  const ms = maxAge ? Number(maxAge[2]) * 1000 : KEEP_DEFAULT_MS;
  return Math.min(KEEP_MAX_MS, Math.max(KEEP_MIN_MS, ms));
}

const invalid = (description: string): OAuthError => new OAuthError("invalid_client", description);
/** A fetched document's refusal: the reason for the log only. */
const unverified = (id: string, reason: string): OAuthError => new UnverifiedClient(id, reason);

/** The client a document describes, or an invalid_client error saying which rule it breaks. */
export function clientOfDocument(id: string, doc: unknown): OAuthClient {
  const where = `The client metadata document at ${id.slice(0, 200)}`;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw invalid(`${where} is not a JSON object.`);
  const d = doc as Record<string, unknown>;
  if (d.client_id !== id) {
    throw invalid(`${where} names another client_id (${JSON.stringify(String(d.client_id).slice(0, 200))}); it must be its own URL.`);
  }
  if ("client_secret" in d || "client_secret_expires_at" in d) throw invalid(`${where} carries a client_secret; it must not.`);
  const method = d.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    throw invalid(`${where} asks for token_endpoint_auth_method ${JSON.stringify(method)}; this server takes public clients ("none").`);
  }
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string")) {
    throw invalid(`${where} has no redirect_uris (a non-empty array of URLs).`);
  }
  if (uris.length > REDIRECT_URIS_MAX) throw invalid(`${where} lists more than ${REDIRECT_URIS_MAX} redirect_uris.`);
  // as registration does: URIs that are neither https nor loopback http are dropped
  const redirectUris = [...new Set(uris as string[])].filter((u) => redirectUriProblem(u) === null);
  if (redirectUris.length === 0) throw invalid(`${where} lists no redirect_uri that is https or loopback http.`);
  const host = new URL(id).host;
  const name = (typeof d.client_name === "string" ? d.client_name : "").trim().slice(0, NAME_MAX) || host;
  return { id, name, redirectUris, from: host, authMethod: "none", secretHash: null };
}

/** Fetches and checks a document (throws invalid_client); returns the client and how long it may be kept. */
async function fetchDocument(id: string, s: MetadataSettings): Promise<{ client: OAuthClient; keepMs: number }> {
  const url = new URL(id);
  const policy = LOOPBACK_HOSTS.has(url.hostname) ? { ...s.egress, allowLoopback: true } : s.egress;
  const limits = { timeoutMs: CIMD_TIMEOUT_MS, maxBytes: CIMD_MAX_BYTES, maxRedirects: 0 };
  let r: Response;
  try {
    r = await safeFetch(url, { headers: { accept: "application/json" }, redirect: "manual" }, policy, limits);
  } catch (e) {
    if (e instanceof EgressError) throw unverified(id, `it could not be fetched: ${FETCH_FAILURES[e.reason]}`);
    throw e;
  }
  if (r.status !== 200) throw unverified(id, `it answered HTTP ${r.status} (200 expected)`);
  let doc: unknown;
  try {
    doc = JSON.parse(await r.text());
  } catch {
    throw unverified(id, "it is not JSON");
  }
  try {
    return { client: clientOfDocument(id, doc), keepMs: keepFor(r.headers.get("cache-control")) };
  } catch (e) {
    if (e instanceof OAuthError) throw unverified(id, e.description);
    throw e;
  }
}

/** The key of a document and of its failure: two apps in one process (tests) may have different settings. */
const keyOf = (id: string, s: MetadataSettings) => `${s.allowLoopback}|${egressPolicyKey(s.egress)}|${id}`;

/**
 * The client a URL client_id describes: kept for the document's max-age (within bounds), else
 * fetched and checked when `access` allows it (within its budget: else 429 too_many_requests).
 * Returns null when the document is not kept and may not be fetched. Throws OAuthError
 * invalid_client: the id's own problem in words, a fetched document's as `unverifiedSentence`
 * (a failure is kept FAILED_FETCH_MS and answered again without a fetch).
 */
export async function metadataClient(
  id: string,
  s: MetadataSettings,
  access: MetadataFetch,
  now = Date.now(),
): Promise<OAuthClient | null> {
  const problem = metadataUrlProblem(id, s.allowLoopback);
  if (problem) throw invalid(`The client_id ${id.slice(0, 200)} ${problem}.`);
  const key = keyOf(id, s);
  const hit = documents.get(key);
  if (hit && hit.until > now) return hit.client;
  documents.delete(key);
  if (!access) return null;
  const failed = failures.get(key);
  if (failed && failed.until > now) throw failed.error;
  failures.delete(key);
  const budget = await access.budget.take(access.address, now);
  if (!budget.allowed) {
    const e = new OAuthError("too_many_requests", `Too many applications were looked up just now; retry in ${budget.retryAfter} s.`);
    e.headers = { "retry-after": String(budget.retryAfter) };
    throw e;
  }
  try {
    const { client, keepMs } = await fetchDocument(id, s);
    if (keepMs > 0) documents.set(key, { client, until: now + keepMs });
    return client;
  } catch (e) {
    if (e instanceof UnverifiedClient) {
      failures.set(key, { error: e, until: now + FAILED_FETCH_MS });
      s.log?.info("client metadata document refused", { clientId: id.slice(0, 200), reason: e.reason });
    }
    throw e;
  }
}

/** Writes (or refreshes) the row of a metadata-document client, inside the consent's transaction. */
export async function rememberMetadataClient(tx: Tx, client: OAuthClient, now: number): Promise<void> {
  const metadata = { client_id_metadata_document: true, token_endpoint_auth_method: "none" };
  await tx
    .insert(oauthClients)
    .values({ id: client.id, name: client.name, redirectUris: client.redirectUris, metadata, createdAt: now, lastUsedAt: now })
    // last_used_at is left as it is: only a token marks a client used (its live code keeps it from housekeeping meanwhile)
    .onConflictDoUpdate({ target: oauthClients.id, set: { name: client.name, redirectUris: client.redirectUris } });
}
