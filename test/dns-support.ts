/**
 * A DNS server on 127.0.0.1 for tests: answers TXT questions from a map the test fills, and
 * NXDOMAIN for the rest. The service reaches it through node:dns's Resolver (DNS_SERVERS), the
 * same code path the system resolver takes, so domain proofs are checked over the real protocol.
 */
import { createSocket, type Socket } from "node:dgram";

export interface TestDns {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  server: string;
  /** TXT records by name (lower case): each record one string. */
  txt: Map<string, string[]>;
  /** The names asked, in order. */
  asked: string[];
  stop(): Promise<void>;
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

function answer(query: Buffer, txt: Map<string, string[]>, asked: string[]): Buffer {
  const { name, end } = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  asked.push(name.toLowerCase());
  const records = qtype === 16 ? (txt.get(name.toLowerCase()) ?? []) : [];
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(0x8180 | (records.length === 0 && !txt.has(name.toLowerCase()) ? 3 : 0), 2); // response, RD+RA, NXDOMAIN when unknown
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((value) => {
    const data = Buffer.from(value, "utf8");
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(16, 2);
    rr.writeUInt16BE(1, 4);
    rr.writeUInt32BE(0, 6); // TTL 0: a resolver that caches asks again after each change
    rr.writeUInt16BE(data.length + 1, 10);
    return Buffer.concat([rr, Buffer.from([data.length]), data]);
  });
  return Buffer.concat([header, question, ...answers]);
}

/** Starts the server on a free UDP port of 127.0.0.1. */
export async function startTestDns(): Promise<TestDns> {
  const txt = new Map<string, string[]>();
  const asked: string[] = [];
  const socket: Socket = createSocket("udp4");
  socket.on("message", (msg, peer) => {
    try {
      socket.send(answer(msg, txt, asked), peer.port, peer.address);
    } catch {
      /* a malformed question gets no answer */
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  return { server: `127.0.0.1:${port}`, txt, asked, stop: () => new Promise((resolve) => socket.close(() => resolve())) };
}
