/**
 * The egress policy: every server-side fetch of a URL someone else chose (an organization's
 * OIDC issuer and what its discovery names, a SAML entry point, an identity provider's API)
 * goes through `safeFetch`. It resolves the host name (through DNS_SERVERS when set, else the
 * system's resolver), refuses loopback, private, link-local
 * (cloud metadata), unique-local, multicast and reserved addresses unless the operator allows
 * them (EGRESS_ALLOW_HOSTS, EGRESS_ALLOW_LOOPBACK), connects to the address it checked (the
 * URL's host becomes that address; the Host header and TLS server name stay the name),
 * follows at most a few redirects, each checked the same way, and caps the time and size of
 * the answer. Every failure is one `EgressError` whose message says nothing about the inside
 * of the network; the reason is in `detail`, for the log only.
 */
import { lookup, Resolver } from "node:dns/promises";
import { keptUnbounded } from "./kept";
import { inRange, parseIp, parseRange, refusedKind, urlHost, type IpAddress, type IpRange } from "./ipRanges";

/** What the operator allows beyond the public internet (config.ts, `egress`). */
export interface EgressPolicy {
  /** Host names (`idp.corp.lan`), name patterns (`*.corp.lan`), addresses and ranges (`10.1.0.0/16`). */
  allowHosts: readonly string[];
  /** Loopback addresses (127.0.0.0/8, ::1) are reached only when true. */
  allowLoopback: boolean;
  /** DNS_SERVERS: when any, host names are resolved by these servers (A and AAAA), not the system's resolver. */
  dnsServers?: readonly string[];
}

/** The policy as a cache key (what a fetch through it may reach and how names resolve). */
export function egressPolicyKey(p: EgressPolicy): string {
  return `${p.allowLoopback}|${p.allowHosts.join(",")}|${(p.dnsServers ?? []).join(",")}`;
}

const resolvers = keptUnbounded<string, Resolver>("Egress resolver by DNS servers", {
  clock: "none",
  bound: "one per DNS_SERVERS setting (one per process)",
});

/**
 * The addresses of `host`: asked of DNS_SERVERS when the policy names them (A and AAAA, in
 * parallel; `localhost` and names under it are loopback without asking, RFC 6761), else the
 * system's resolver (getaddrinfo: /etc/hosts included).
 */
async function resolveHost(host: string, policy: EgressPolicy): Promise<string[]> {
  const servers = policy.dnsServers ?? [];
  if (servers.length === 0) return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  if (host === "localhost" || host.endsWith(".localhost")) return ["127.0.0.1", "::1"];
  const key = servers.join(",");
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = new Resolver({ timeout: 2000, tries: 2 });
    resolver.setServers([...servers]);
    resolvers.set(key, resolver);
  }
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
  if (found.length === 0 && v4.status === "rejected") throw v4.reason;
  return found;
}

/** Limits of one fetch (redirects included). */
export interface EgressLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export const EGRESS_LIMITS: EgressLimits = { timeoutMs: 5_000, maxBytes: 1024 * 1024, maxRedirects: 3 };

/** A fetch the policy refused or that failed; `message` is safe to show, `detail` is for the log. */
export class EgressError extends Error {
  override name = "EgressError";
  constructor(
    readonly reason: "refused" | "unreachable" | "timeout" | "too_large" | "redirects" | "url",
    readonly detail: string,
  ) {
    super("The server could not be reached.");
  }
}

/** An entry of EGRESS_ALLOW_HOSTS, or null when it is neither a host name, a `*.` pattern nor an address or range. */
export function parseAllowEntry(entry: string): { name: string } | { range: IpRange } | null {
  const e = entry.trim().toLowerCase().replace(/\.$/, "");
  const range = parseRange(e);
  if (range) return { range };
  return /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(e) ? { name: e } : null;
}

/** Whether the operator allows this host name (listed, or under a listed `*.` pattern) whatever its addresses. */
export function nameAllowed(policy: EgressPolicy, host: string): boolean {
  for (const raw of policy.allowHosts) {
    const e = parseAllowEntry(raw);
    if (!e || !("name" in e)) continue;
    if (e.name === host || (e.name.startsWith("*.") && host.endsWith(e.name.slice(1)))) return true;
  }
  return false;
}

/** Why the policy refuses this address, or null when it may be reached. */
export function addressRefusal(policy: EgressPolicy, ip: IpAddress): string | null {
  for (const raw of policy.allowHosts) {
    const e = parseAllowEntry(raw);
    if (e && "range" in e && inRange(ip, e.range)) return null;
  }
  const kind = refusedKind(ip);
  if (kind === null || (kind === "loopback" && policy.allowLoopback)) return null;
  return `${urlHost(ip)} is a ${kind} address`;
}

/**
 * The addresses to connect to for `url` after the policy's checks: the URL's own address, or
 * its host name's addresses when every one of them may be reached (a name with one refused
 * address is refused: the resolver could hand out either).
 */
export async function checkedAddresses(url: URL, policy: EgressPolicy, signal: AbortSignal): Promise<IpAddress[]> {
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new EgressError("url", `${url.protocol} is not http(s)`);
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const literal = parseIp(host);
  let addresses: IpAddress[];
  if (literal) addresses = [literal];
  else {
    let answers: string[];
    try {
      answers = await abortable(resolveHost(host, policy), signal);
    } catch (e) {
      if (e instanceof EgressError) throw e;
      throw new EgressError("unreachable", `${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    addresses = answers.map((a) => parseIp(a)).filter((a): a is IpAddress => a !== null);
    if (addresses.length === 0) throw new EgressError("unreachable", `${host} has no address`);
    if (nameAllowed(policy, host)) return addresses;
  }
  for (const ip of addresses) {
    const why = addressRefusal(policy, ip);
    if (why) throw new EgressError("refused", `${host}: ${why}`);
  }
  return addresses;
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new EgressError("timeout", "timed out"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new EgressError("timeout", "timed out resolving the host name"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The answer's body, read up to `max` bytes (more → too_large). */
async function cappedBody(r: Response, max: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(r.headers.get("content-length") ?? "0");
  if (declared > max) throw new EgressError("too_large", `the answer declares ${declared} bytes (at most ${max})`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (r.body) {
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > max) throw new EgressError("too_large", `the answer is larger than ${max} bytes`);
      chunks.push(chunk);
    }
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) out.set(c, at), (at += c.byteLength);
  return out;
}

/** One request to the checked address: the host name goes in the Host header and the TLS server name. */
async function pinnedFetch(url: URL, ip: IpAddress, init: RequestInit, signal: AbortSignal): Promise<Response> {
  const target = new URL(url.href);
  target.hostname = urlHost(ip);
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  const named = parseIp(url.hostname) === null;
  const serverName = named && url.protocol === "https:" ? { serverName: url.hostname } : {};
  const tls = { ...(init as { tls?: Record<string, unknown> }).tls, ...serverName };
  return fetch(target, { ...init, headers, redirect: "manual", signal, tls } as RequestInit);
}

/** The first of the checked addresses that answers (a host whose IPv6 address cannot be reached from here is tried over IPv4). */
async function firstConnected(url: URL, ips: IpAddress[], init: RequestInit, signal: AbortSignal): Promise<Response> {
  for (let i = 0; ; i++) {
    try {
      return await pinnedFetch(url, ips[i]!, init, signal);
    } catch (e) {
      if (signal.aborted || i + 1 >= ips.length || init.body instanceof ReadableStream) throw e;
    }
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([101, 204, 205, 304]);

/** The next hop of a redirect (method, body and credentials as browsers do), or null when it is not one. */
function nextHop(r: Response, url: URL, init: RequestInit): { url: URL; init: RequestInit } | null {
  const location = r.headers.get("location");
  if (!REDIRECTS.has(r.status) || !location) return null;
  const next = new URL(location, url);
  const method = (init.method ?? "GET").toUpperCase();
  const toGet = r.status === 303 || ((r.status === 301 || r.status === 302) && method === "POST");
  const headers = new Headers(init.headers);
  if (next.origin !== url.origin) for (const h of ["authorization", "cookie"]) headers.delete(h);
  return { url: next, init: { ...init, headers, ...(toGet ? { method: method === "HEAD" ? "HEAD" : "GET", body: undefined } : {}) } };
}

/**
 * Fetches `input` under the policy (see the top of this file). `init.redirect: "manual"`
 * answers a redirect as it is; otherwise at most `limits.maxRedirects` are followed, each
 * hop checked. The answer's body is read whole (capped) before it is returned. Throws EgressError.
 */
export async function safeFetch(
  input: string | URL,
  init: RequestInit,
  policy: EgressPolicy,
  limits: EgressLimits = EGRESS_LIMITS,
): Promise<Response> {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new EgressError("url", "not a URL");
  }
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  let current = init;
  for (let hop = 0; ; hop++) {
    const ips = await checkedAddresses(url, policy, signal);
    let r: Response;
    let body: Uint8Array<ArrayBuffer>;
    try {
      r = await firstConnected(url, ips, current, signal);
      body = await cappedBody(r, limits.maxBytes);
    } catch (e) {
      if (e instanceof EgressError) throw e;
      if (signal.aborted) throw new EgressError("timeout", `${url.host} did not answer within ${limits.timeoutMs} ms`);
      throw new EgressError("unreachable", `${url.host}: ${(e as { code?: string }).code ?? (e as Error).message}`);
    }
    const next = init.redirect === "manual" ? null : nextHop(r, url, current);
    if (!next) {
      const headers = new Headers(r.headers);
      for (const h of ["content-encoding", "content-length", "transfer-encoding"]) headers.delete(h);
      return new Response(NO_BODY.has(r.status) ? null : body, { status: r.status, statusText: r.statusText, headers });
    }
    if (hop >= limits.maxRedirects) throw new EgressError("redirects", `more than ${limits.maxRedirects} redirects`);
    url = next.url;
    current = next.init;
  }
}

/** A `fetch` with the policy already chosen. */
export type BoundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** safeFetch with the policy bound: the `fetch` to hand to a library (openid-client's customFetch). */
export function policyFetch(policy: EgressPolicy, limits: EgressLimits = EGRESS_LIMITS): BoundFetch {
  return (input, init = {}) => safeFetch(input, init, policy, limits);
}

/** What to log about a failed fetch: the EgressError's detail, else the error's message (and its cause's). */
export function egressDetail(e: unknown): string {
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 4; x = x.cause, depth++) if (x instanceof EgressError) return x.detail;
  const err = e as Error;
  return err?.cause instanceof Error ? `${err.message} (${err.cause.message})` : String(err?.message ?? e);
}
