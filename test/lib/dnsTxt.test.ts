import { describe, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { createServer } from "node:net";
import { DnsCnameError, DnsLookupError, lookupTxt, parseDnsServer, readTxtAnswer } from "../../src/lib/dnsTxt";

const name = (n: string) =>
  Buffer.concat([...n.split(".").map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
const rr = (owner: Buffer, type: number, data: Buffer) => {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([owner, fixed, data]);
};
const txt = (...parts: string[]) => Buffer.concat(parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p)])));
/** An answer to a TXT question for `q` with id 7 and the given records. */
function answer(q: string, records: Buffer[], flags = 0x8180): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(7, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, name(q), Buffer.from([0, 16, 0, 1]), ...records]);
}
const POINTER = Buffer.from([0xc0, 0x0c]); // the question's name

describe("readTxtAnswer: only TXT records owned by exactly the name asked; a CNAME there refused", () => {
  test("records owned by the name (by pointer or spelled out, any letter case) count, each the list of its strings; another name's are ignored", () => {
    const msg = answer("_c.example.com", [
      rr(POINTER, 16, txt("a", "b")),
      rr(name("_C.Example.COM"), 16, txt("c")),
      rr(name("other.example.com"), 16, txt("token")),
    ]);
    expect(readTxtAnswer(msg, 7, "_c.example.com")).toEqual([["a", "b"], ["c"]]);
  });

  test("a CNAME owned by the name is refused even when the target's TXT follows; NXDOMAIN is no records; truncated asks for TCP (null)", () => {
    const alias = answer("_c.example.com", [rr(POINTER, 5, name("t.evil.example")), rr(name("t.evil.example"), 16, txt("token"))]);
    expect(() => readTxtAnswer(alias, 7, "_c.example.com")).toThrow(DnsCnameError);
    expect(readTxtAnswer(answer("_c.example.com", [], 0x8183), 7, "_c.example.com")).toEqual([]);
    expect(readTxtAnswer(answer("_c.example.com", [], 0x8380), 7, "_c.example.com")).toBeNull();
  });

  test("malformed answers are errors, never records: another id, another question, SERVFAIL, a pointer loop, a record past the end", () => {
    const ok = answer("_c.example.com", [rr(POINTER, 16, txt("a"))]);
    expect(() => readTxtAnswer(ok, 8, "_c.example.com")).toThrow(DnsLookupError);
    expect(() => readTxtAnswer(ok, 7, "_d.example.com")).toThrow(DnsLookupError);
    expect(() => readTxtAnswer(answer("_c.example.com", [], 0x8182), 7, "_c.example.com")).toThrow(DnsLookupError);
    const loop = answer("_c.example.com", [rr(Buffer.from([0xc0, 0x00]), 16, txt("a"))]);
    loop.writeUInt16BE(0xc000 | (loop.length - 2 - 10 - 2), loop.length - 2 - 10 - 2); // the owner points at itself
    expect(() => readTxtAnswer(loop, 7, "_c.example.com")).toThrow(DnsLookupError);
    expect(() => readTxtAnswer(ok.subarray(0, ok.length - 1), 7, "_c.example.com")).toThrow(DnsLookupError);
  });

  test("servers as DNS_SERVERS and getServers() spell them", () => {
    expect(parseDnsServer("10.0.0.2")).toEqual({ host: "10.0.0.2", port: 53 });
    expect(parseDnsServer("127.0.0.1:5353")).toEqual({ host: "127.0.0.1", port: 5353 });
    expect(parseDnsServer("::1")).toEqual({ host: "::1", port: 53 });
    expect(parseDnsServer("[::1]:5353")).toEqual({ host: "::1", port: 5353 });
    expect(parseDnsServer("dns.example")).toBeNull();
  });
});

describe("lookupTxt over the network", () => {
  test("a truncated UDP answer is asked again over TCP on the same server; a server that never answers is a DnsLookupError", async () => {
    const reply = (query: Buffer, flags: number, records: Buffer[]) => {
      const head = Buffer.from(query.subarray(0, 12));
      head.writeUInt16BE(flags, 2);
      head.writeUInt16BE(records.length, 6);
      head.writeUInt16BE(0, 10);
      const qEnd = query.indexOf(0, 12) + 5; // the question: its name, type and class
      return Buffer.concat([head, query.subarray(12, qEnd), ...records]);
    };
    const udp = createSocket("udp4");
    udp.on("message", (msg, peer) => udp.send(reply(msg, 0x8380, []), peer.port, peer.address)); // TC
    await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
    const port = udp.address().port;
    const tcp = createServer((socket) => {
      socket.on("data", (d: Buffer) => {
        const answer = reply(d.subarray(2), 0x8180, [rr(POINTER, 16, txt("long", "record"))]);
        const length = Buffer.alloc(2);
        length.writeUInt16BE(answer.length, 0);
        socket.end(Buffer.concat([length, answer]));
      });
    });
    await new Promise<void>((r) => tcp.listen(port, "127.0.0.1", r));
    try {
      expect(await lookupTxt([{ host: "127.0.0.1", port }], "_c.example.com")).toEqual([["long", "record"]]);
      const silent = createSocket("udp4");
      await new Promise<void>((r) => silent.bind(0, "127.0.0.1", r));
      const quiet = { host: "127.0.0.1", port: silent.address().port };
      await expect(lookupTxt([quiet], "_c.example.com", { timeoutMs: 200, tries: 1 })).rejects.toBeInstanceOf(DnsLookupError);
      // the next server is asked when one does not answer
      expect(await lookupTxt([quiet, { host: "127.0.0.1", port }], "_c.example.com", { timeoutMs: 200, tries: 1 })).toEqual([
        ["long", "record"],
      ]);
      silent.close();
    } finally {
      udp.close();
      tcp.close();
    }
  });
});
