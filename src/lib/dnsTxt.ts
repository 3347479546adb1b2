/**
 * A TXT lookup that reads the DNS answer itself, for proofs of control over a name (an SSO
 * domain's `_talentd-challenge.<domain>`). node:dns's `resolveTxt` hands back every TXT record
 * of the answer section whatever name owns it, and a recursive resolver answers a name that is
 * a CNAME with the alias and the target's records: either way the proof would be a record
 * someone else published. Here only TXT records whose owner is exactly the name asked count
 * (a record owned by another name, out of bailiwick, is ignored), and a CNAME at the name is a
 * refusal (`DnsCnameError`): the proof must be a TXT at that very name.
 *
 * One question per server (UDP with EDNS, TCP when the answer is truncated), servers in order,
 * each tried `tries` times within `timeoutMs`. NXDOMAIN and an empty answer are no records.
 */
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { connect, isIP } from "node:net";

const TYPE_CNAME = 5;
const TYPE_TXT = 16;
const TYPE_OPT = 41;
const CLASS_IN = 1;
/** The EDNS payload size asked for (the DNS flag day's advice): larger answers come over TCP. */
const EDNS_SIZE = 1232;

/** The name asked is an alias: its TXT records are another name's. */
export class DnsCnameError extends Error {
  override name = "DnsCnameError";
  constructor(
    readonly owner: string,
    readonly target: string,
  ) {
    super(`${owner} is a CNAME to ${target}`);
  }
}

/** No server gave a usable answer (timeouts, SERVFAIL, REFUSED, a malformed answer). */
export class DnsLookupError extends Error {
  override name = "DnsLookupError";
}

export interface DnsServer {
  host: string;
  port: number;
}

/** A server as DNS_SERVERS or node:dns's `getServers()` spell it: `10.0.0.2`, `127.0.0.1:5353`, `::1`, `[::1]:53`. */
export function parseDnsServer(s: string): DnsServer | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(s);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? { host: bracketed[1]!, port: Number(bracketed[2] ?? 53) } : null;
  if (isIP(s)) return { host: s, port: 53 };
  const v4 = /^([\d.]+):(\d{1,5})$/.exec(s);
  return v4 && isIP(v4[1]!) === 4 ? { host: v4[1]!, port: Number(v4[2]) } : null;
}

/** The question: a random id, recursion desired, one TXT question, an EDNS OPT record. */
function question(name: string): { id: number; message: Buffer } {
  const labels = name.replace(/\.$/, "").split(".");
  const parts: Buffer[] = [];
  for (const label of labels) {
    const bytes = Buffer.from(label, "latin1");
    if (bytes.length === 0 || bytes.length > 63) throw new DnsLookupError(`${name} is not a DNS name`);
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  const id = randomBytes(2).readUInt16BE(0);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // RD
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(1, 10); // ARCOUNT: the OPT record
  const tail = Buffer.alloc(4 + 11);
  tail.writeUInt16BE(TYPE_TXT, 0);
  tail.writeUInt16BE(CLASS_IN, 2);
  // OPT: root name, type, payload size, extended rcode and flags 0, no data
  tail.writeUInt8(0, 4);
  tail.writeUInt16BE(TYPE_OPT, 5);
  tail.writeUInt16BE(EDNS_SIZE, 7);
  return { id, message: Buffer.concat([header, ...parts, Buffer.from([0]), tail]) };
}

/** Reads a (possibly compressed) name at `offset`: the name in lower case and where the record goes on. */
function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  let end = -1;
  for (let jumps = 0; ; ) {
    if (i >= msg.length) throw new DnsLookupError("a name runs past the answer");
    const len = msg[i]!;
    if (len === 0) break;
    if ((len & 0xc0) === 0xc0) {
      if (++jumps > 32 || i + 1 >= msg.length) throw new DnsLookupError("a name's pointers loop");
      if (end < 0) end = i + 2;
      i = ((len & 0x3f) << 8) | msg[i + 1]!;
      continue;
    }
    if (len > 63 || i + 1 + len > msg.length) throw new DnsLookupError("a label runs past the answer");
    labels.push(msg.subarray(i + 1, i + 1 + len).toString("latin1"));
    i += 1 + len;
  }
  return { name: labels.join(".").toLowerCase(), end: end < 0 ? i + 1 : end };
}

/** What an answer says about `name`: its TXT records (each the list of its strings), or NXDOMAIN (none); truncated → null. */
export function readTxtAnswer(msg: Buffer, id: number, name: string): string[][] | null {
  if (msg.length < 12 || msg.readUInt16BE(0) !== id) throw new DnsLookupError("an answer to another question");
  const flags = msg.readUInt16BE(2);
  if ((flags & 0x8000) === 0) throw new DnsLookupError("not an answer");
  if (flags & 0x0200) return null;
  const rcode = flags & 0x0f;
  if (rcode === 3) return [];
  if (rcode !== 0) throw new DnsLookupError(`the server answered rcode ${rcode}`);
  const asked = name.replace(/\.$/, "").toLowerCase();
  let at = 12;
  for (let q = msg.readUInt16BE(4); q > 0; q--) {
    const n = readName(msg, at);
    if (n.name !== asked) throw new DnsLookupError("an answer to another name");
    at = n.end + 4;
  }
  const records: string[][] = [];
  for (let a = msg.readUInt16BE(6); a > 0; a--) {
    const owner = readName(msg, at);
    if (owner.end + 10 > msg.length) throw new DnsLookupError("a record runs past the answer");
    const type = msg.readUInt16BE(owner.end);
    const cls = msg.readUInt16BE(owner.end + 2);
    const length = msg.readUInt16BE(owner.end + 8);
    const data = owner.end + 10;
    if (data + length > msg.length) throw new DnsLookupError("a record runs past the answer");
    at = data + length;
    if (owner.name !== asked) continue; // out of bailiwick: another name's record
    if (type === TYPE_CNAME) throw new DnsCnameError(asked, readName(msg, data).name);
    if (type !== TYPE_TXT || cls !== CLASS_IN) continue;
    const strings: string[] = [];
    for (let i = data; i < data + length; ) {
      const n = msg[i]!;
      if (i + 1 + n > data + length) throw new DnsLookupError("a TXT string runs past its record");
      strings.push(msg.subarray(i + 1, i + 1 + n).toString("utf8"));
      i += 1 + n;
    }
    records.push(strings);
  }
  return records;
}

function overUdp(server: DnsServer, message: Buffer, id: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(server.host) === 6 ? "udp6" : "udp4");
    let finished = false;
    const done = (f: () => void) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.close();
      f();
    };
    const timer = setTimeout(() => done(() => reject(new DnsLookupError(`${server.host} did not answer`))), timeoutMs);
    socket.on("error", (e) => done(() => reject(e)));
    socket.on("message", (msg, from) => {
      // an answer from another address, or to another question, is not ours
      if (from.port !== server.port || msg.length < 2 || msg.readUInt16BE(0) !== id) return;
      done(() => resolve(msg));
    });
    socket.send(message, server.port, server.host);
  });
}

function overTcp(server: DnsServer, message: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    let got = Buffer.alloc(0);
    const done = (f: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      f();
    };
    const timer = setTimeout(() => done(() => reject(new DnsLookupError(`${server.host} did not answer over TCP`))), timeoutMs);
    socket.on("error", (e) => done(() => reject(e)));
    socket.on("connect", () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length, 0);
      socket.write(Buffer.concat([length, message]));
    });
    socket.on("data", (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) done(() => resolve(got.subarray(2, 2 + got.readUInt16BE(0))));
    });
    socket.on("end", () => done(() => reject(new DnsLookupError(`${server.host} closed the TCP answer early`))));
  });
}

/**
 * The TXT records owned by exactly `name` (each the list of its strings), asked of `servers` in
 * order. Throws DnsCnameError when the name is a CNAME, DnsLookupError when no server answered usably.
 */
export async function lookupTxt(
  servers: readonly DnsServer[],
  name: string,
  opts: { timeoutMs: number; tries: number } = { timeoutMs: 3000, tries: 2 },
): Promise<string[][]> {
  let last: unknown = new DnsLookupError("no DNS server");
  for (const server of servers) {
    for (let attempt = 0; attempt < opts.tries; attempt++) {
      const { id, message } = question(name);
      try {
        const answer = readTxtAnswer(await overUdp(server, message, id, opts.timeoutMs), id, name);
        if (answer) return answer;
        return readTxtAnswer(await overTcp(server, message, opts.timeoutMs), id, name) ?? [];
      } catch (e) {
        if (e instanceof DnsCnameError) throw e;
        last = e;
      }
    }
  }
  throw last;
}
