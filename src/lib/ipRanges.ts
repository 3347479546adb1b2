/**
 * IP addresses and the ranges a server-side fetch must never reach (loopback, private,
 * link-local and cloud metadata, unique-local, multicast, reserved), IPv4 and IPv6 alike,
 * with the IPv4 address inside IPv4-mapped, NAT64 and 6to4 IPv6 addresses checked as IPv4.
 * Addresses are numbers here (a bigint), so every spelling of one address is one value.
 */
import { isIPv4, isIPv6 } from "node:net";

/** An address: its family and its value (32 or 128 bits). */
export interface IpAddress {
  v: 4 | 6;
  n: bigint;
}

/** A range: an address and its prefix length. */
export interface IpRange extends IpAddress {
  bits: number;
}

/** Why an address is refused, as a word for logs and tests. */
export type RefusedKind = "loopback" | "private" | "link-local" | "unique-local" | "multicast" | "reserved" | "unspecified";

const width = (v: 4 | 6): bigint => (v === 4 ? 32n : 128n);

/**
 * Parses an address as written in DNS answers and URL host names (IPv6 without brackets, or
 * with them; an IPv6 zone `%eth0` is dropped), or null when it is not an address. Only the
 * canonical dotted IPv4 form is read: the URL parser has already turned `127.1`, `0x7f000001`
 * and `2130706433` into `127.0.0.1`.
 */
export function parseIp(text: string): IpAddress | null {
  const t = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (isIPv4(t)) return { v: 4, n: t.split(".").reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n) };
  const bare = t.replace(/%.*$/, "");
  if (!isIPv6(bare)) return null;
  let head = bare;
  let tail4: bigint | null = null;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (dotted) {
    tail4 = parseIp(dotted[1]!)!.n;
    head = bare.slice(0, -dotted[1]!.length) + "0:0";
  }
  const [left, right] = head.includes("::") ? head.split("::") : [head, undefined];
  const words = (s: string | undefined): number[] =>
    s
      ? s
          .split(":")
          .filter((w) => w !== "")
          .map((w) => parseInt(w, 16))
      : [];
  const l = words(left);
  const r = words(right);
  const all = right === undefined ? l : [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  let n = all.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
  if (tail4 !== null) n = (n & ~0xffffffffn) | tail4;
  return { v: 6, n };
}

/** Parses `10.0.0.0/8`, `fd00::/8` or a bare address (a range of one); null when it is neither. */
export function parseRange(text: string): IpRange | null {
  const slash = text.lastIndexOf("/");
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip) return null;
  const max = Number(width(ip.v));
  if (slash < 0) return { ...ip, bits: max };
  const raw = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > max) return null;
  return { ...ip, bits: Number(raw) };
}

/** Whether `ip` lies in `range` (same family only). */
export function inRange(ip: IpAddress, range: IpRange): boolean {
  if (ip.v !== range.v) return false;
  const shift = width(ip.v) - BigInt(range.bits);
  return ip.n >> shift === range.n >> shift;
}

const R = (text: string): IpRange => parseRange(text)!;

const REFUSED_V4: [IpRange, RefusedKind][] = [
  [R("0.0.0.0/8"), "unspecified"],
  [R("10.0.0.0/8"), "private"],
  [R("100.64.0.0/10"), "private"], // shared address space (carrier-grade NAT; some clouds' metadata)
  [R("127.0.0.0/8"), "loopback"],
  [R("169.254.0.0/16"), "link-local"], // cloud metadata (169.254.169.254)
  [R("172.16.0.0/12"), "private"],
  [R("192.0.0.0/24"), "reserved"], // IETF protocol assignments
  [R("192.0.2.0/24"), "reserved"], // documentation
  [R("192.88.99.0/24"), "reserved"], // 6to4 relay anycast
  [R("192.168.0.0/16"), "private"],
  [R("198.18.0.0/15"), "reserved"], // benchmarking
  [R("198.51.100.0/24"), "reserved"], // documentation
  [R("203.0.113.0/24"), "reserved"], // documentation
  [R("224.0.0.0/4"), "multicast"],
  [R("240.0.0.0/4"), "reserved"], // and 255.255.255.255
];

const REFUSED_V6: [IpRange, RefusedKind][] = [
  [R("::/128"), "unspecified"],
  [R("::1/128"), "loopback"],
  [R("::/96"), "reserved"], // IPv4-compatible (deprecated)
  [R("64:ff9b:1::/48"), "private"], // local-use NAT64
  [R("100::/64"), "reserved"], // discard
  [R("2001::/23"), "reserved"], // IETF protocol assignments, Teredo among them
  [R("2001:db8::/32"), "reserved"], // documentation
  [R("3fff::/20"), "reserved"], // documentation
  [R("fc00::/7"), "unique-local"], // fd00:ec2::254 (a cloud's metadata) among them
  [R("fe80::/10"), "link-local"],
  [R("fec0::/10"), "private"], // site-local (deprecated)
  [R("ff00::/8"), "multicast"],
];

/** IPv6 ranges that carry an IPv4 address, and where (bits from the right). */
const EMBEDS_V4: [IpRange, bigint][] = [
  [R("::ffff:0:0/96"), 0n], // IPv4-mapped
  [R("64:ff9b::/96"), 0n], // NAT64
  [R("2002::/16"), 80n], // 6to4
];

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), or null. */
export function embeddedIpv4(ip: IpAddress): IpAddress | null {
  if (ip.v !== 6) return null;
  for (const [range, shift] of EMBEDS_V4) if (inRange(ip, range)) return { v: 4, n: (ip.n >> shift) & 0xffffffffn };
  return null;
}

/**
 * Why a fetch must not reach this address, or null when it may (a public address). An IPv6
 * address carrying an IPv4 one is judged by that IPv4 address.
 */
export function refusedKind(ip: IpAddress): RefusedKind | null {
  const v4 = embeddedIpv4(ip);
  if (v4) return refusedKind(v4);
  for (const [range, kind] of ip.v === 4 ? REFUSED_V4 : REFUSED_V6) if (inRange(ip, range)) return kind;
  return null;
}

/** The address as a URL host: IPv4 dotted, IPv6 in brackets (canonical, lower case). */
export function urlHost(ip: IpAddress): string {
  if (ip.v === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.n >> s) & 0xffn)).join(".");
  const words = Array.from({ length: 8 }, (_, i) => ((ip.n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return new URL(`http://[${words.join(":")}]/`).hostname;
}
