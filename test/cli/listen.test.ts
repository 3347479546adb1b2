import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { isLoopback, listenFailure, localUrl, publicUrlNotice } from "../../src/cli/listen";

const err = (code: string): Error => Object.assign(new Error("Failed to start server"), { code });

describe("serve: where it listens, said in one line", () => {
  test("a port already in use: one line naming the port and the address, and the way out", () => {
    expect(listenFailure(err("EADDRINUSE"), "0.0.0.0", 8787)).toBe(
      "port 8787 on 0.0.0.0 is already in use (another talentd?); stop it or pass --port",
    );
  });
  test("other socket errors get one line too; an error that is not about the socket gets none", () => {
    expect(listenFailure(err("EACCES"), "0.0.0.0", 80)).toBe(
      "port 80 on 0.0.0.0: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); pass --port",
    );
    expect(listenFailure(err("EADDRNOTAVAIL"), "192.0.2.1", 8787)).toBe(
      "cannot listen on 192.0.2.1: not an address of this machine; pass --host (0.0.0.0 for every interface)",
    );
    expect(listenFailure(err("EINVAL"), "no-such-host.invalid", 8787)).toContain("cannot listen on no-such-host.invalid port 8787");
    expect(listenFailure(new Error("boom"), "0.0.0.0", 8787)).toBeNull();
    expect(listenFailure(undefined, "0.0.0.0", 8787)).toBeNull();
  });

  test("the URL to open: localhost for the wildcard addresses, IPv6 in brackets", () => {
    expect(localUrl("0.0.0.0", 8787)).toBe("http://localhost:8787");
    expect(localUrl("::", 8787)).toBe("http://localhost:8787");
    expect(localUrl("127.0.0.1", 9000)).toBe("http://127.0.0.1:9000");
    expect(localUrl("::1", 9000)).toBe("http://[::1]:9000");
  });

  test("loopback: 127.0.0.0/8, ::1 and localhost; not the wildcard or a LAN address", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"]) expect(isLoopback(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "talentd.lan"]) expect(isLoopback(h)).toBe(false);
  });

  test("BASE_URL unset on a non-loopback address (the default HOST 0.0.0.0 included): the start log says which URL agents must use and how to set BASE_URL", () => {
    const line =
      "agents must use http://localhost:8787 (BASE_URL is not set); for agents on other machines restart with BASE_URL=http://<this machine's name or address>:8787";
    expect(publicUrlNotice(loadConfig({}), 8787)).toBe(line);
    expect(publicUrlNotice(loadConfig({ HOST: "192.168.1.5" }), 8787)).toBe(line);
    expect(publicUrlNotice(loadConfig({ HOST: "::" }), 8787)).toBe(line);
    expect(publicUrlNotice(loadConfig({ PORT: "9000" }), 9000)).toContain("agents must use http://localhost:9000 (BASE_URL is not set)");
  });
  test("no notice when BASE_URL is given, or when only this machine can connect (loopback HOST)", () => {
    expect(publicUrlNotice(loadConfig({ BASE_URL: "http://talentd.lan:8787" }), 8787)).toBeNull();
    expect(publicUrlNotice(loadConfig({}, { BASE_URL: "http://talentd.lan:8787" }), 8787)).toBeNull();
    expect(publicUrlNotice(loadConfig({ HOST: "127.0.0.1" }), 8787)).toBeNull();
    expect(publicUrlNotice(loadConfig({ HOST: "localhost" }), 8787)).toBeNull();
  });
});
