/**
 * The egress policy's mechanism (src/lib/egress.ts, src/lib/ipRanges.ts): which addresses a
 * server-side fetch may reach, in every spelling the URL parser and the resolver accept; that
 * the connection goes to the checked address (Host header and TLS name kept); redirects
 * checked hop by hop; size and time capped; the operator's settings. Real listeners on
 * 127.0.0.1 stand for internal services and count the connections they get.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { ConfigError } from "../../src/configParsers";
import { checkedAddresses, EgressError, EGRESS_LIMITS, nameAllowed, safeFetch, type EgressPolicy } from "../../src/lib/egress";
import { parseIp, refusedKind, urlHost } from "../../src/lib/ipRanges";
import { certFor, countingListener, httpAnswer, type CountingListener } from "../egress-support";
import { startTestDns, type TestDns } from "../dns-support";

const STRICT: EgressPolicy = { allowHosts: [], allowLoopback: false };
const reason = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return "allowed";
  } catch (e) {
    return e instanceof EgressError ? e.reason : `unexpected ${(e as Error).message}`;
  }
};
const check = (url: string, policy: EgressPolicy = STRICT) => reason(checkedAddresses(new URL(url), policy, AbortSignal.timeout(5000)));

describe("egress policy: refused addresses", () => {
  const refused: [string, string][] = [
    ["http://127.0.0.1/", "loopback"],
    ["http://127.1/", "loopback (short form)"],
    ["http://0x7f000001/", "loopback (hex)"],
    ["http://2130706433/", "loopback (decimal)"],
    ["http://017700000001/", "loopback (octal)"],
    ["http://0177.0.0.01/", "loopback (octal parts)"],
    ["http://127.255.255.254/", "loopback (the whole /8)"],
    ["http://localhost/", "loopback by name (resolved)"],
    ["http://LOCALHOST./", "loopback by name, upper case with the root dot"],
    ["http://[::1]/", "IPv6 loopback"],
    ["http://[0:0:0:0:0:0:0:1]/", "IPv6 loopback, long form"],
    ["http://[::ffff:127.0.0.1]/", "IPv4-mapped loopback"],
    ["http://[::ffff:7f00:1]/", "IPv4-mapped loopback, hex"],
    ["http://[::127.0.0.1]/", "IPv4-compatible"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://0/", "unspecified, one number"],
    ["http://[::]/", "IPv6 unspecified"],
    ["http://10.1.2.3/", "private 10/8"],
    ["http://172.16.0.1/", "private 172.16/12"],
    ["http://172.31.255.255/", "private 172.16/12, its end"],
    ["http://192.168.1.1/", "private 192.168/16"],
    ["http://100.64.0.1/", "shared address space"],
    ["http://100.100.100.200/", "a cloud's metadata in 100.64/10"],
    ["http://169.254.169.254/", "link-local: cloud metadata"],
    ["http://0xa9fea9fe/", "cloud metadata (hex)"],
    ["http://[::ffff:169.254.169.254]/", "IPv4-mapped metadata"],
    ["http://[64:ff9b::a9fe:a9fe]/", "NAT64 of the metadata address"],
    ["http://[2002:7f00:1::]/", "6to4 of loopback"],
    ["http://[2002:a00:1::]/", "6to4 of 10.0.0.1"],
    ["http://[fd00:ec2::254]/", "unique-local: a cloud's IPv6 metadata"],
    ["http://[fc00::1]/", "unique-local fc00::/7"],
    ["http://[fe80::1]/", "IPv6 link-local"],
    ["http://[febf::1]/", "IPv6 link-local, its end"],
    ["http://[fec0::1]/", "IPv6 site-local"],
    ["http://[ff02::1]/", "IPv6 multicast"],
    ["http://[2001::1]/", "Teredo"],
    ["http://[2001:db8::1]/", "IPv6 documentation"],
    ["http://[64:ff9b:1::1]/", "local-use NAT64"],
    ["http://224.0.0.1/", "multicast"],
    ["http://239.255.255.250/", "multicast (SSDP)"],
    ["http://240.0.0.1/", "reserved"],
    ["http://255.255.255.255/", "broadcast"],
    ["http://192.0.0.1/", "IETF protocol assignments"],
    ["http://198.18.0.1/", "benchmarking"],
    ["https://127.0.0.1:8443/", "loopback over https"],
  ];
  for (const [url, what] of refused) {
    test(`refuses ${what}: ${url}`, async () => {
      expect(await check(url)).toBe("refused");
    });
  }

  test("allows public addresses, whatever the spelling (IPv4, IPv6, mapped and NAT64 of a public IPv4)", async () => {
    for (const url of [
      "http://8.8.8.8/",
      "http://0x08080808/",
      "http://[2606:4700:4700::1111]/",
      "http://[::ffff:8.8.8.8]/",
      "http://[64:ff9b::808:808]/",
      "http://[2002:808:808::1]/",
      "http://172.32.0.1/",
      "http://100.128.0.1/",
    ]) {
      expect(`${url} ${await check(url)}`).toBe(`${url} allowed`);
    }
  });

  test("refuses what is not http(s)", async () => {
    for (const url of ["file:///etc/passwd", "ftp://8.8.8.8/", "gopher://8.8.8.8/"]) expect(await check(url)).toBe("url");
  });

  test("EGRESS_ALLOW_LOOPBACK lets loopback through and nothing else; EGRESS_ALLOW_HOSTS lets listed names, patterns and ranges through", async () => {
    const loop: EgressPolicy = { allowHosts: [], allowLoopback: true };
    for (const url of ["http://127.1/", "http://localhost/", "http://[::1]/", "http://[::ffff:127.0.0.1]/"])
      expect(`${url} ${await check(url, loop)}`).toBe(`${url} allowed`);
    for (const url of ["http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00::1]/", "http://0.0.0.0/"])
      expect(`${url} ${await check(url, loop)}`).toBe(`${url} refused`);
    const lan: EgressPolicy = { allowHosts: ["10.1.0.0/16", "fd12::/16", "192.168.7.7", "localhost"], allowLoopback: false };
    expect(await check("http://10.1.200.3/", lan)).toBe("allowed");
    expect(await check("http://10.2.0.1/", lan)).toBe("refused");
    expect(await check("http://[fd12::5]/", lan)).toBe("allowed");
    expect(await check("http://192.168.7.7/", lan)).toBe("allowed");
    expect(await check("http://192.168.7.8/", lan)).toBe("refused");
    expect(await check("http://localhost/", lan)).toBe("allowed"); // by name
    expect(await check("http://127.0.0.1/", lan)).toBe("refused"); // the name, not its address
    expect(await check("http://localhost/", { allowHosts: ["*.localhost"], allowLoopback: false })).toBe("refused"); // a pattern names subdomains only
    const pattern: EgressPolicy = { allowHosts: ["*.corp.lan", "IdP.Example.COM."], allowLoopback: false };
    expect(
      ["idp.corp.lan", "a.b.corp.lan", "corp.lan", "evilcorp.lan", "idp.example.com", "x.idp.example.com"].map(
        (h) => `${h}:${nameAllowed(pattern, h)}`,
      ),
    ).toEqual([
      "idp.corp.lan:true",
      "a.b.corp.lan:true",
      "corp.lan:false",
      "evilcorp.lan:false",
      "idp.example.com:true",
      "x.idp.example.com:false",
    ]);
  });

  test("address helpers: one value per address whatever its spelling; the embedded IPv4 decides", () => {
    expect(parseIp("::ffff:127.0.0.1")).toEqual(parseIp("::ffff:7f00:1"));
    expect(parseIp("[::1]")).toEqual(parseIp("0:0:0:0:0:0:0:1"));
    expect(parseIp("fe80::1%eth0")).toEqual(parseIp("fe80::1"));
    expect(parseIp("not an address")).toBeNull();
    expect(refusedKind(parseIp("64:ff9b::7f00:1")!)).toBe("loopback");
    expect(urlHost(parseIp("0:0::ffff:a9fe:a9fe")!)).toBe("[::ffff:a9fe:a9fe]");
    expect(urlHost(parseIp("10.0.0.1")!)).toBe("10.0.0.1");
  });
});

describe("egress policy: the connection", () => {
  let internal: CountingListener;
  let front: CountingListener;
  let hops = 0;
  beforeAll(async () => {
    internal = await countingListener();
    front = await countingListener((head) => {
      const path = head.split(" ")[1] ?? "/";
      if (path === "/to-internal") return httpAnswer(302, { location: `http://127.0.0.1:${internal.port}/secret` });
      if (path === "/to-internal-mapped") return httpAnswer(307, { location: `http://[::ffff:7f00:1]:${internal.port}/secret` });
      if (path === "/to-self") return httpAnswer(302, { location: "/landed" });
      if (path === "/loop") return (hops++, httpAnswer(302, { location: "/loop" }));
      if (path === "/big") return httpAnswer(200, {}, "x".repeat(EGRESS_LIMITS.maxBytes + 1));
      if (path === "/silent") return null;
      return httpAnswer(200, { "x-host": /\r\nhost: ([^\r]*)/i.exec(head)?.[1] ?? "" }, `at ${path}`);
    });
  });
  afterAll(async () => {
    await internal.stop();
    await front.stop();
  });
  const viaName: EgressPolicy = { allowHosts: ["localhost"], allowLoopback: false };

  test("a refused address gets no connection at all (the internal service counts none)", async () => {
    for (const host of ["127.0.0.1", "127.1", "0x7f000001", "localhost", "[::ffff:127.0.0.1]"]) {
      expect(await reason(safeFetch(`http://${host}:${internal.port}/secret`, {}, STRICT))).toBe("refused");
    }
    expect(internal.connections).toBe(0);
  });

  test("the request goes to the checked address with the host name in the Host header; the answer's body is read whole", async () => {
    const r = await safeFetch(`http://localhost:${front.port}/hello?x=1`, {}, viaName);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("at /hello?x=1");
    expect(r.headers.get("x-host")).toBe(`localhost:${front.port}`);
  });

  test("redirects: each hop is checked; a redirect from an allowed host to a refused one is refused and the internal service gets nothing", async () => {
    expect(await reason(safeFetch(`http://localhost:${front.port}/to-internal`, {}, viaName))).toBe("refused");
    expect(await reason(safeFetch(`http://localhost:${front.port}/to-internal-mapped`, {}, viaName))).toBe("refused");
    expect(internal.connections).toBe(0);
    const same = await safeFetch(`http://localhost:${front.port}/to-self`, {}, viaName);
    expect(await same.text()).toBe("at /landed");
    const manual = await safeFetch(`http://localhost:${front.port}/to-internal`, { redirect: "manual" }, viaName);
    expect(manual.status).toBe(302); // answered as it is, not followed
    expect(internal.connections).toBe(0);
  });

  test("at most 3 redirects are followed", async () => {
    hops = 0;
    expect(await reason(safeFetch(`http://localhost:${front.port}/loop`, {}, viaName))).toBe("redirects");
    expect(hops).toBe(EGRESS_LIMITS.maxRedirects + 1);
  });

  test("size and time are capped: a body over 1 MiB → too_large; a host that never answers → timeout", async () => {
    expect(await reason(safeFetch(`http://localhost:${front.port}/big`, {}, viaName))).toBe("too_large");
    const started = Date.now();
    expect(await reason(safeFetch(`http://localhost:${front.port}/silent`, {}, viaName, { ...EGRESS_LIMITS, timeoutMs: 300 }))).toBe(
      "timeout",
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test("the error's message says nothing of the network; its detail (for the log) says why", async () => {
    try {
      await safeFetch(`http://127.0.0.1:${internal.port}/`, {}, STRICT);
      throw new Error("not refused");
    } catch (e) {
      expect((e as Error).message).toBe("The server could not be reached.");
      expect((e as EgressError).detail).toContain("127.0.0.1 is a loopback address");
    }
  });

  test("https: the checked address is connected to and the certificate is still verified against the host name", async () => {
    const { key, cert } = certFor("localhost");
    const tls = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { key, cert },
      fetch: (req) => new Response(`tls host ${req.headers.get("host")}`),
    });
    try {
      const r = await safeFetch(`https://localhost:${tls.port}/`, { tls: { ca: cert } } as RequestInit, viaName);
      expect(await r.text()).toBe(`tls host localhost:${tls.port}`);
      const other = certFor("idp.example");
      expect(await reason(safeFetch(`https://localhost:${tls.port}/`, { tls: { ca: other.cert } } as RequestInit, viaName))).toBe(
        "unreachable",
      );
    } finally {
      tls.stop(true);
    }
  });
});

describe("egress resolution through DNS_SERVERS", () => {
  let dns: TestDns;
  let service: CountingListener;
  beforeAll(async () => {
    dns = await startTestDns();
    service = await countingListener((head) => httpAnswer(200, {}, `at ${head.split(" ")[1]}`));
  });
  afterAll(async () => {
    await service.stop();
    await dns.stop();
  });

  test("with DNS_SERVERS set, a host name is resolved by those servers, not the system's: a name only they know is reached at the address they give", async () => {
    dns.a.set("idp.egress-dns.example", ["127.0.0.1"]);
    const policy: EgressPolicy = { allowHosts: [], allowLoopback: true, dnsServers: [dns.server] };
    const r = await safeFetch(`http://idp.egress-dns.example:${service.port}/hello`, {}, policy);
    expect(await r.text()).toBe("at /hello");
    expect(dns.asked).toContain("idp.egress-dns.example");
    // the system's resolver does not know the name: without DNS_SERVERS it does not resolve
    expect(await check("http://idp.egress-dns.example/", { allowHosts: [], allowLoopback: true })).toBe("unreachable");
  });

  test("with DNS_SERVERS set, the addresses those servers give are what the policy judges: a private one is refused, no connection made; an unknown name is unreachable", async () => {
    dns.a.set("inside.egress-dns.example", ["10.20.30.40"]);
    dns.a.set("loop.egress-dns.example", ["127.0.0.1"]);
    const policy: EgressPolicy = { allowHosts: [], allowLoopback: false, dnsServers: [dns.server] };
    expect(await check("http://inside.egress-dns.example/", policy)).toBe("refused");
    const before = service.connections;
    expect(await reason(safeFetch(`http://loop.egress-dns.example:${service.port}/`, {}, policy))).toBe("refused");
    expect(service.connections).toBe(before);
    expect(await check("http://nowhere.egress-dns.example/", policy)).toBe("unreachable");
    // localhost is loopback by its own rule, asked of no server
    dns.asked.length = 0;
    expect(await check("http://localhost/", policy)).toBe("refused");
    expect(dns.asked).toEqual([]);
  });
});

describe("egress settings", () => {
  test("EGRESS_ALLOW_HOSTS takes names, *.patterns, addresses and CIDRs (commas or spaces); EGRESS_ALLOW_LOOPBACK is false unless set; DNS_SERVERS resolves egress too", () => {
    expect(loadConfig({}).egress).toEqual({ allowHosts: [], allowLoopback: false, dnsServers: [] });
    expect(loadConfig({ DNS_SERVERS: "127.0.0.1:5353" }).egress.dnsServers).toEqual(["127.0.0.1:5353"]);
    const c = loadConfig({ EGRESS_ALLOW_HOSTS: "idp.corp.lan, *.corp.lan 10.0.0.0/8,fd00::/8 192.168.1.5", EGRESS_ALLOW_LOOPBACK: "true" });
    expect(c.egress).toEqual({
      allowHosts: ["idp.corp.lan", "*.corp.lan", "10.0.0.0/8", "fd00::/8", "192.168.1.5"],
      allowLoopback: true,
      dnsServers: [],
    });
    for (const bad of ["http://idp.corp.lan", "10.0.0.0/33", "idp;corp", "a..b"]) {
      expect(() => loadConfig({ EGRESS_ALLOW_HOSTS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ EGRESS_ALLOW_LOOPBACK: "maybe" })).toThrow("EGRESS_ALLOW_LOOPBACK");
  });
});
