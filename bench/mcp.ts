/**
 * Figure (docs/performance.md): tool-call overhead of the MCP adapter. `svc_doctor` through `POST /mcp`
 * (a fresh MCP server per request, the call forwarded to the backend through app.handle)
 * against `GET /api/doctor` directly, on the built binary, same server, same run.
 * Target: overhead < 2 ms at p50.
 */
import { load, printTable, seedProject, startBinary } from "./lib";

export async function benchMcp(): Promise<void> {
  const server = await startBinary();
  try {
    const seed = await seedProject(server.base);
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const auth = { authorization: `Bearer ${seed.key}` };
    const direct = await load({ url: `${server.base}/api/doctor`, headers: auth, seconds });
    const viaMcp = await load({
      url: `${server.base}/mcp`,
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_doctor", arguments: {} } }),
      seconds,
    });
    // sequential latency (one connection), the figure the target names
    const seq = async (fn: () => Promise<Response>) => {
      const times: number[] = [];
      for (let i = 0; i < 500; i++) {
        const t0 = performance.now();
        const r = await fn();
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`status ${r.status}`);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)]!;
    };
    const p50Direct = await seq(() => fetch(`${server.base}/api/doctor`, { headers: auth }));
    const p50Mcp = await seq(() =>
      fetch(`${server.base}/mcp`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_doctor", arguments: {} } }),
      }),
    );
    printTable(
      `MCP tool-call overhead (autocannon, 10 connections, ${seconds} s each; sequential p50 over 500 calls)`,
      ["route", "req/s", "p50 ms (load)", "p99 ms (load)", "non-2xx", "sequential p50 ms"],
      [
        ["GET /api/doctor", direct.rps.toFixed(0), direct.p50, direct.p99, direct.non2xx, p50Direct.toFixed(2)],
        ["svc_doctor via POST /mcp", viaMcp.rps.toFixed(0), viaMcp.p50, viaMcp.p99, viaMcp.non2xx, p50Mcp.toFixed(2)],
      ],
    );
    printTable(
      "Overhead of the adapter",
      ["req/s ratio (MCP / direct)", "sequential p50 overhead ms", "target"],
      [[(viaMcp.rps / direct.rps).toFixed(2), (p50Mcp - p50Direct).toFixed(2), "< 2 ms p50"]],
    );
  } finally {
    await server.stop();
  }
}
