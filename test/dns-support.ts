/**
 * A DNS server on 127.0.0.1 for tests: answers TXT and A questions from maps the test fills
 * (aliases and records owned by another name too), and NXDOMAIN for the rest. The service reaches it through node:dns's Resolver (DNS_SERVERS), the
 * same code path the system resolver takes, so domain proofs are checked over the real protocol.
 */
import { createSocket, type Socket } from "node:dgram";

export interface TestDns {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  server: string;
  /** TXT records by name (lower case): each record one string. */
  txt: Map<string, string[]>;
  /** A records by name (lower case): IPv4 addresses. */
  a: Map<string, string[]>;
  /**
   * Aliases by name (lower case): a question for the name is answered as a recursive resolver
   * does, the CNAME record (owned by the name) followed by the target's records of the type asked
   * (owned by the target).
   */
  cname: Map<string, string>;
  /**
   * Out-of-bailiwick answers by name (lower case): a TXT question for the name is answered with
   * these TXT records, each owned by its `owner` (another name), in the answer section.
   */
  foreign: Map<string, { owner: string; value: string }[]>;
  /** The names asked, in order. */
  asked: string[];
  stop(): Promise<void>;
}

interface Tables {
  txt: Map<string, string[]>;
  a: Map<string, string[]>;
  cname: Map<string, string>;
  foreign: Map<string, { owner: string; value: string }[]>;
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (msg[i]! > 0) {
    const len = msg[i]!;
    labels.push(msg.subarray(i + 1, i + 1 + len).toString("latin1"));
    i += len + 1;
  }
  return { name: labels.join("."), end: i + 1 };
}

function encodeName(name: string): Buffer {
  return Buffer.concat([
    ...name.split(".").map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, "latin1")])),
    Buffer.from([0]),
  ]);
}

/** One resource record; `owner` null: the question's name (a pointer to it). */
function rr(owner: string | null, type: number, data: Buffer): Buffer {
  const name = owner === null ? Buffer.from([0xc0, 0x0c]) : encodeName(owner);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(0, 4); // TTL 0: a resolver that caches asks again after each change
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([name, fixed, data]);
}

const txtData = (value: string) => {
  const data = Buffer.from(value, "utf8");
  return Buffer.concat([Buffer.from([data.length]), data]);
};

/** The records of `name` for `qtype` from the plain tables (TXT, A), owned by `owner`. */
function recordsOf(t: Tables, name: string, qtype: number, owner: string | null): Buffer[] {
  if (qtype === 16) return (t.txt.get(name) ?? []).map((v) => rr(owner, 16, txtData(v)));
  if (qtype === 1) return (t.a.get(name) ?? []).map((ip) => rr(owner, 1, Buffer.from(ip.split(".").map(Number))));
  return [];
}

function answer(query: Buffer, t: Tables, asked: string[]): Buffer {
  const { name: raw, end } = readName(query, 12);
  const name = raw.toLowerCase();
  const qtype = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  asked.push(name);
  let records: Buffer[];
  let known = t.txt.has(name) || t.a.has(name) || t.cname.has(name) || t.foreign.has(name);
  const alias = t.cname.get(name);
  if (alias) records = [rr(null, 5, encodeName(alias)), ...recordsOf(t, alias, qtype, alias)];
  else if (qtype === 16 && t.foreign.has(name)) records = t.foreign.get(name)!.map((f) => rr(f.owner, 16, txtData(f.value)));
  else records = recordsOf(t, name, qtype, null);
  known ||= records.length > 0;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); // response, RD+RA, NXDOMAIN when unknown
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, question, ...records]);
}

/** Starts the server on a free UDP port of 127.0.0.1. */
export async function startTestDns(): Promise<TestDns> {
  const tables: Tables = { txt: new Map(), a: new Map(), cname: new Map(), foreign: new Map() };
  const asked: string[] = [];
  const socket: Socket = createSocket("udp4");
  socket.on("message", (msg, peer) => {
    try {
      socket.send(answer(msg, tables, asked), peer.port, peer.address);
    } catch {
      /* a malformed question gets no answer */
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  return { server: `127.0.0.1:${port}`, ...tables, asked, stop: () => new Promise((resolve) => socket.close(() => resolve())) };
}
