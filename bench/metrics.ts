/**
 * Figure (docs/performance.md): "/metrics costs < 1% of request throughput at 10 connections (measured
 * with wrk, with and without scraping once a second)". On the built binary, over loopback, wrk
 * -t1 -c10 on the key route GET /api/catalog?limit=1 (the hot path, ~12k req/s):
 *
 *   off      METRICS_TOKEN unset (nothing recorded)
 *   on       METRICS_TOKEN set, nobody scrapes (the per-request recording only)
 *   scraped  METRICS_TOKEN set, GET /metrics once a second meanwhile
 *
 * `off` and `on` are two server processes started side by side; the three runs alternate in a
 * rotating order for BENCH_ROUNDS rounds (default 5) of BENCH_SECONDS each (default 10), and
 * the medians are compared. Throughput on a shared 2-core machine moves by more than the 1%
 * to be measured, so each run also reads the server's CPU time (every thread's run time from
 * /proc/PID/task/x/schedstat, in ns) per request answered: at saturation, throughput is the
 * inverse of it, and it moves far less with other load. Also: the CPU time of one scrape
 * (sequential scrapes of an idle server), which at one scrape a second is that fraction of a
 * core, the cost of one `HttpMetrics.record` call in-process, and a scrape's latency and size.
 */
import { readdirSync, readFileSync } from "node:fs";
import { HttpMetrics } from "../src/ops/metrics";
import { percentile, printTable, seedProject, startBinary, type Running } from "./lib";

const TOKEN = "bench-metrics-token-0123456789";

interface Wrk {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Server CPU time (all threads) per request answered, in µs. */
  cpuUs: number;
}

/** ns of CPU the process has run, all threads together (schedstat's first field). */
function cpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      /* a thread that ended meanwhile */
    }
  }
  return total;
}

async function wrk(base: string, key: string, seconds: number, pid: number): Promise<Wrk> {
  const cpu0 = cpuNs(pid);
  const p = Bun.spawn(
    ["wrk", "-t1", "-c10", `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${key}`, `${base}/api/catalog?limit=1`],
    { stdout: "pipe" },
  );
  const out = await new Response(p.stdout).text();
  await p.exited;
  const cpu = cpuNs(pid) - cpu0;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const ms = (v: string, unit: string) => Number(v) * (unit === "s" ? 1000 : unit === "us" ? 0.001 : 1);
  const lat = (q: string) => {
    const m = new RegExp(`\\s${q}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? ms(m[1]!, m[2]!) : NaN;
  };
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: lat("50"),
    p99: lat("99"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    cpuUs: cpu / 1000 / requests,
  };
}

/** GET /metrics once a second until stopped; returns each scrape's latency (ms) and the last body's size. */
function scraper(base: string): { stop: () => Promise<{ ms: number[]; bytes: number; failures: number }> } {
  let running = true;
  const ms: number[] = [];
  let bytes = 0;
  let failures = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await r.text();
      ms.push(performance.now() - t0);
      if (r.status !== 200) failures++;
      bytes = text.length;
      await Bun.sleep(1000);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { ms, bytes, failures };
    },
  };
}

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

export async function benchMetrics(): Promise<void> {
  // the hot path in isolation: one record() per request
  const h = new HttpMetrics();
  const routes = ["/api/catalog", "/api/doctor", "/web/projects/:id", "/healthz", undefined];
  const n = 2_000_000;
  for (let i = 0; i < 100_000; i++) h.record("GET", routes[i % 5], 200, 0.0004);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) h.record("GET", routes[i % 5], i % 50 === 0 ? 404 : 200, 0.0004 + (i % 7) * 0.0003);
  const nsPerRecord = ((performance.now() - t0) * 1e6) / n;

  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const off = await startBinary();
  const on = await startBinary({ METRICS_TOKEN: TOKEN });
  try {
    const keys = { off: (await seedProject(off.base)).key, on: (await seedProject(on.base)).key };
    const runs: Record<"off" | "on" | "scraped", Wrk[]> = { off: [], on: [], scraped: [] };
    const scrapes: number[] = [];
    let bytes = 0;
    let failures = 0;
    const order: ("off" | "on" | "scraped")[] = ["off", "on", "scraped"];
    // warm-up: JIT and caches of both processes
    await wrk(off.base, keys.off, 3, off.pid);
    await wrk(on.base, keys.on, 3, on.pid);
    // one scrape's CPU time: sequential scrapes of the idle server (after a few requests of each route)
    const scrapesN = 300;
    const c0 = cpuNs(on.pid);
    for (let i = 0; i < scrapesN; i++) await (await fetch(`${on.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const scrapeCpuUs = (cpuNs(on.pid) - c0) / 1000 / scrapesN;
    for (let r = 0; r < rounds; r++) {
      for (const which of [...order.slice(r % 3), ...order.slice(0, r % 3)]) {
        const server: Running = which === "off" ? off : on;
        const key = which === "off" ? keys.off : keys.on;
        if (which === "scraped") {
          const s = scraper(on.base);
          runs.scraped.push(await wrk(server.base, key, seconds, server.pid));
          const got = await s.stop();
          scrapes.push(...got.ms);
          bytes = got.bytes;
          failures += got.failures;
        } else {
          runs[which].push(await wrk(server.base, key, seconds, server.pid));
        }
      }
    }
    const base = median(runs.off.map((x) => x.rps));
    const baseCpu = median(runs.off.map((x) => x.cpuUs));
    const pct = (x: number, of: number) => `${x >= of ? "+" : ""}${(((x - of) / of) * 100).toFixed(1)}%`;
    const row = (name: string, xs: Wrk[]) => {
      const rps = median(xs.map((x) => x.rps));
      const cpu = median(xs.map((x) => x.cpuUs));
      return [
        name,
        rps.toFixed(0),
        `${Math.min(...xs.map((x) => x.rps)).toFixed(0)}–${Math.max(...xs.map((x) => x.rps)).toFixed(0)}`,
        pct(rps, base),
        cpu.toFixed(1),
        `${Math.min(...xs.map((x) => x.cpuUs)).toFixed(1)}–${Math.max(...xs.map((x) => x.cpuUs)).toFixed(1)}`,
        pct(cpu, baseCpu),
        median(xs.map((x) => x.p50)).toFixed(2),
        median(xs.map((x) => x.p99)).toFixed(2),
        xs.reduce((a, x) => a + x.non2xx, 0),
      ];
    };
    printTable(
      `Key route GET /api/catalog?limit=1 (wrk -t1 -c10 -d${seconds}s, ${rounds} rounds in rotating order, medians)`,
      ["metrics", "req/s", "range", "vs off", "server CPU µs/request", "range", "vs off", "p50 ms", "p99 ms", "non-2xx"],
      [row("off (METRICS_TOKEN unset)", runs.off), row("on, not scraped", runs.on), row("on, scraped 1/s", runs.scraped)],
    );
    const onRps = median(runs.on.map((x) => x.rps));
    const scrapedRps = median(runs.scraped.map((x) => x.rps));
    const onCpu = median(runs.on.map((x) => x.cpuUs));
    const scrapedCpu = median(runs.scraped.map((x) => x.cpuUs));
    printTable(
      "Cost of /metrics",
      ["what", "figure", "target"],
      [
        ["scraped 1/s vs on, not scraped: req/s | CPU per request", `${pct(scrapedRps, onRps)} | ${pct(scrapedCpu, onCpu)}`, "< 1%"],
        ["on and scraped 1/s vs off: req/s | CPU per request", `${pct(scrapedRps, base)} | ${pct(scrapedCpu, baseCpu)}`, "< 1%"],
        [
          "one scrape's server CPU (idle server, 300 in a row)",
          `${scrapeCpuUs.toFixed(0)} µs: at 1/s, ${(scrapeCpuUs / 1e4).toFixed(2)}% of one core`,
          "< 1%",
        ],
        [
          "HttpMetrics.record, in-process",
          `${nsPerRecord.toFixed(0)} ns per request (${((nsPerRecord / 1000 / baseCpu) * 100).toFixed(2)}% of the route's CPU)`,
          "",
        ],
        [
          "one scrape's latency under load",
          `p50 ${median(scrapes).toFixed(1)} ms, max ${Math.max(...scrapes).toFixed(1)} ms, ${bytes} bytes, ${failures} failures`,
          "",
        ],
      ],
    );
  } finally {
    await off.stop();
    await on.stop();
  }
}
