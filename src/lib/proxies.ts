/**
 * Trusted reverse proxies (TRUSTED_PROXIES): which peers may tell the client's address in
 * `X-Forwarded-For`, and how that address is read from the header. Pure functions over parsed
 * addresses (IPv4 and IPv6 as one 128-bit space, IPv4 as IPv4-mapped IPv6), so an
 * `::ffff:10.0.0.1` peer matches a `10.0.0.0/8` entry and every address has one spelling.
 */
import { isIPv4, isIPv6 } from "node:net";

/** One address range: the first `bits` bits of `base` (a /32 or /128 is one address). */
interface Range {
  base: bigint;
  bits: number;
}

/** The parsed TRUSTED_PROXIES setting; `none` trusts nobody (the header is always ignored). */
export interface TrustedProxies {
  readonly ranges: readonly Range[];
}

/** No trusted proxy: every request's address is its socket's. */
export const NO_TRUSTED_PROXIES: TrustedProxies = { ranges: [] };

const MAPPED = 0xffffn << 32n;
const ALL = (1n << 128n) - 1n;

/** An IPv4 or IPv6 address (brackets and a zone id allowed) as a 128-bit number, or null. */
export function parseAddress(raw: string): bigint | null {
  const s = raw
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "");
  if (isIPv4(s)) return MAPPED | s.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  if (!isIPv6(s)) return null;
  let text = s.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const n = parseAddress(v4)! & 0xffffffffn;
    text = text.slice(0, -v4.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** The one spelling of an address: dotted IPv4 (IPv4-mapped too), else compressed lower-case IPv6. */
export function formatAddress(n: bigint): string {
  if (n >> 32n === 0xffffn) return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
  // the longest run of two or more zero groups becomes `::` (RFC 5952)
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/** An address in its one spelling, or null when it is not an address. */
export function normalizeAddress(raw: string): string | null {
  const n = parseAddress(raw);
  return n === null ? null : formatAddress(n);
}

/**
 * Parses TRUSTED_PROXIES: addresses and CIDRs separated by commas or spaces (`10.0.0.0/8`,
 * `127.0.0.1`, `fd00::/8`). Throws an Error naming the first entry that is neither.
 */
export function parseTrustedProxies(raw: string): TrustedProxies {
  const ranges: Range[] = [];
  for (const entry of raw.split(/[\s,]+/).filter(Boolean)) {
    const [addr, prefix, extra] = entry.split("/");
    const base = parseAddress(addr!);
    const v4 = isIPv4(addr!);
    const max = v4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (base === null || extra !== undefined || !(bits >= 0 && bits <= max)) {
      throw new Error(`"${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, 127.0.0.1, fd00::/8)`);
    }
    const total = v4 ? 96 + bits : bits;
    ranges.push({ base: base & mask(total), bits: total });
  }
  return { ranges };
}

function mask(bits: number): bigint {
  return bits === 0 ? 0n : (ALL >> BigInt(128 - bits)) << BigInt(128 - bits);
}

/** Whether `address` (parsed) is in one of the trusted ranges. */
function isTrusted(trusted: TrustedProxies, address: bigint): boolean {
  return trusted.ranges.some((r) => (address & mask(r.bits)) === r.base);
}

/** An `X-Forwarded-For` entry without the port a few proxies add (`1.2.3.4:5678`, `[::1]:80`). */
function withoutPort(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry);
  return v4 ? v4[1]! : entry;
}

/**
 * The client's address for a request from `peer` carrying `forwardedFor` (the X-Forwarded-For
 * header, or null). Only a trusted peer's header counts: it is walked from the right, skipping
 * trusted hops, and the first untrusted hop is the client (one the client cannot have written,
 * whatever it put on the left). When every hop is trusted, the left-most is the client; an
 * entry that is not an address ends the walk at the last hop vouched for. Null without a peer.
 */
export function clientAddress(peer: string | null, forwardedFor: string | null, trusted: TrustedProxies): string | null {
  if (peer === null) return null;
  // every request takes this path without a header to read: the socket's address (as the system
  // spells it), an IPv4-mapped one as IPv4; ~0.1 µs where parsing takes ~3.5 µs
  if (forwardedFor === null || trusted.ranges.length === 0)
    return peer.startsWith("::ffff:") && isIPv4(peer.slice(7)) ? peer.slice(7) : peer;
  const peerN = parseAddress(peer);
  if (peerN === null) return peer;
  let client = peerN;
  if (forwardedFor !== null && trusted.ranges.length > 0 && isTrusted(trusted, peerN)) {
    const hops = forwardedFor
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseAddress(withoutPort(hops[i]!));
      if (hop === null) break;
      client = hop;
      if (!isTrusted(trusted, hop)) break;
    }
  }
  return formatAddress(client);
}
