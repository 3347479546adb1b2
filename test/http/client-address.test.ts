/**
 * The client address is looked up from the socket only when something needs it (client.ts
 * addressOf): the per-address cap past MAX_CONNECTIONS_PER_ADDRESS requests in progress, the access
 * log, a limiter or a security event. A lookup costs ~2–3 µs, a tenth of `/healthz`
 * (docs/performance.md "The edge's per-request cost"). Counted on the real server's `requestIP`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { liveEnv, type LiveEnv } from "../mcp-support";

let live: LiveEnv | undefined;
afterEach(async () => {
  await live?.close();
  live = undefined;
});

/** Counts the server's socket lookups from now on (the edge's `server` is the app's). */
function countLookups(env: LiveEnv): { n: number } {
  const server = env.env.app.server as unknown as { requestIP(r: Request): unknown };
  const original = server.requestIP.bind(server);
  const count = { n: 0 };
  server.requestIP = (r: Request) => {
    count.n++;
    return original(r);
  };
  return count;
}

describe("the client address is looked up lazily (only when a limit, a log line or an event needs it)", () => {
  test("below the cap, with the access log off, 20 requests to /healthz and the key-less API never ask the socket", async () => {
    live = await liveEnv({ MAX_CONNECTIONS_PER_ADDRESS: "3" });
    const lookups = countLookups(live);
    for (let i = 0; i < 10; i++) expect((await fetch(`${live.base}/healthz`)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await fetch(`${live.base}/api/catalog?limit=1`)).status).toBe(401);
    expect(lookups.n).toBe(0);
  });

  test("with the access log on, each request asks once and its line names the client", async () => {
    live = await liveEnv({ ACCESS_LOG: "true" });
    const lookups = countLookups(live);
    for (let i = 0; i < 5; i++) await fetch(`${live.base}/healthz`, { headers: { "x-request-id": `lazy-log-${i}` } });
    await Bun.sleep(20); // the line is written after the response
    expect(lookups.n).toBe(5);
    const lines = live.env.logs.map((l) => JSON.parse(l)).filter((l) => String(l.requestId).startsWith("lazy-log-"));
    expect(lines.map((l) => l.ip)).toEqual(Array(5).fill("127.0.0.1"));
  });

  test("a failed sign-in asks the socket for its security event, once", async () => {
    live = await liveEnv();
    const lookups = countLookups(live);
    const r = await fetch(`${live.base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: live.base },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong password 123" }),
    });
    expect(r.status).toBe(401);
    expect(lookups.n).toBe(1);
  });
});
