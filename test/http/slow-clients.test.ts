/**
 * Slow clients: a request's body has a total deadline (REQUEST_DEADLINE), and one address
 * holds at most MAX_CONNECTIONS_PER_ADDRESS requests in progress. Over raw sockets to a real
 * server; 127.0.0.2 is a second client address (any 127/8 address reaches the loopback on Linux).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { liveEnv, type LiveEnv } from "../mcp-support";

let live: LiveEnv;
beforeAll(async () => {
  live = await liveEnv({ REQUEST_DEADLINE: "2s", MAX_CONNECTIONS_PER_ADDRESS: "3" });
});
afterAll(async () => {
  await live.close();
});

interface Raw {
  socket: Socket;
  /** Everything the server sent, once it closed the connection (or the test gave up waiting). */
  closed: Promise<{ text: string; ms: number }>;
}

/** A raw connection from `from` that sends `head` and then `drip` (one body byte) every second, until closed. */
function trickle(head: string, drip = "a", from = "127.0.0.1", giveUpMs = 15_000): Raw {
  const port = Number(new URL(live.base).port);
  const socket = connect({ host: "127.0.0.1", port, localAddress: from });
  const t0 = performance.now();
  let text = "";
  socket.on("data", (d) => (text += d.toString()));
  socket.on("error", () => {});
  socket.write(head);
  const dripping = setInterval(() => socket.writable && socket.write(drip), 1000);
  const closed = new Promise<{ text: string; ms: number }>((resolve) => {
    const done = (): void => {
      clearInterval(dripping);
      clearTimeout(giveUp);
      resolve({ text, ms: performance.now() - t0 });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
      done();
    }, giveUpMs);
    socket.on("close", done);
  });
  return { socket, closed };
}

const slowPost = (length = 200) =>
  `POST /api/auth/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`;

/** A whole GET over a fresh connection from `from` (kept open unless `close`), until the server closes it. */
function get(path: string, from: string, close = true): Promise<string> {
  const port = Number(new URL(live.base).port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress: from });
    let text = "";
    socket.on("data", (d) => (text += d.toString()));
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${close ? "Connection: close\r\n" : ""}\r\n`);
  });
}

describe("REQUEST_DEADLINE: a body sent a byte a second is cut at the deadline", () => {
  test("408 request_timeout in the error model about 2 s after the headers, and the connection is closed", async () => {
    const slow = trickle(slowPost());
    const { text, ms } = await slow.closed;
    expect(text).toStartWith("HTTP/1.1 408");
    expect(text).toContain('"error":"request_timeout"');
    expect(ms).toBeGreaterThan(1500);
    expect(ms).toBeLessThan(6000); // not Bun's idle timeout (deadline + 5 s), nor never
  }, 20_000);

  test("a chunked body sent a byte a second is cut the same way", async () => {
    const head =
      "POST /api/auth/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n";
    const { text, ms } = await trickle(head, "1\r\n \r\n").closed;
    expect(text).toStartWith("HTTP/1.1 408");
    expect(ms).toBeLessThan(6000);
  }, 20_000);
});

describe("MAX_CONNECTIONS_PER_ADDRESS: one address cannot hold every connection", () => {
  test("past 3 requests in progress from 127.0.0.1 the next is refused (429, closed) while 127.0.0.2 is served; once they end 127.0.0.1 is served again", async () => {
    const held = [trickle(slowPost()), trickle(slowPost()), trickle(slowPost())];
    await Bun.sleep(300); // their headers have arrived: each is a request in progress
    const refused = await get("/healthz", "127.0.0.1", false); // a keep-alive request: the server closes it
    expect(refused).toStartWith("HTTP/1.1 429");
    expect(refused).toContain('"error":"too_many_connections"');
    expect(refused.toLowerCase()).toContain("connection: close");
    expect(await get("/healthz", "127.0.0.2")).toStartWith("HTTP/1.1 200");
    // the held ones end (the client goes away before the deadline): their places are given back
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await Bun.sleep(100);
    for (let i = 0; i < 4; i++) expect(await get("/healthz", "127.0.0.1")).toStartWith("HTTP/1.1 200");
  }, 20_000);
});
