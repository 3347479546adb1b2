/**
 * Identity figures (docs/performance.md), on the built binary over loopback:
 * - key guard overhead: requests/s of GET /api/catalog?limit=1 (a key route) against /healthz
 *   in the same run, with autocannon (target ratio ≥ 0.7);
 * - sign-in latency (argon2id, m=19 MiB, t=2) p50.
 */
import { load, percentile, printTable, seedProject, startBinary } from "./lib";

export async function benchIdentity(): Promise<void> {
  const server = await startBinary();
  try {
    const seed = await seedProject(server.base);
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const health = await load({ url: `${server.base}/healthz`, seconds });
    const keyed = await load({ url: `${server.base}/api/catalog?limit=1`, headers: { authorization: `Bearer ${seed.key}` }, seconds });
    printTable(
      `Key guard overhead (autocannon, 10 connections, ${seconds} s each, same server)`,
      ["route", "req/s", "p50 ms", "p99 ms", "non-2xx", "ratio to /healthz", "target"],
      [
        ["GET /healthz", health.rps.toFixed(0), health.p50, health.p99, health.non2xx, "1.00", ""],
        [
          "GET /api/catalog?limit=1 (key)",
          keyed.rps.toFixed(0),
          keyed.p50,
          keyed.p99,
          keyed.non2xx,
          (keyed.rps / health.rps).toFixed(2),
          "≥ 0.70",
        ],
      ],
    );
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const r = await fetch(`${server.base}/api/auth/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.base },
        body: JSON.stringify({ email: seed.email, password: seed.password }),
      });
      if (r.status !== 200) throw new Error(`sign-in ${r.status}`);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    printTable(
      "Sign-in latency (argon2id m=19456 KiB t=2; 30 sequential sign-ins)",
      ["p50 ms", "p90 ms", "max ms"],
      [[percentile(times, 50).toFixed(1), percentile(times, 90).toFixed(1), times.at(-1)!.toFixed(1)]],
    );
  } finally {
    await server.stop();
  }
}
