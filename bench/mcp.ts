/**
 * Figures (docs/performance.md "MCP adapter"): `svc_doctor` through `POST /mcp/<project>` against
 * `GET /api/doctor` (the direct key route) on the same server in the same run, at 10 and 64
 * connections (wrk -t1, BENCH_ROUNDS rounds of BENCH_SECONDS each, the routes' order alternating), for
 * both protocol eras: a plain 2025-11-25 `tools/call` and a 2026-07-28 one (its `_meta` envelope and
 * Mcp-Method/Mcp-Name headers). The server's CPU per request (/proc stat), and its RSS when ready, after
 * 10,000 calls of each era (10 at a time) and after the load; then each call's sequential p50 overhead (500
 * calls one at a time, target < 2 ms). BENCH_V1=<checkout> adds the same
 * figures for that checkout's build (`bun run build` there): a tree whose /mcp ran on SDK v1 (before
 * SDK v2 it served only the 2025 era), e.g. `git archive 23401a9 | tar -x -C /tmp/v1`.
 */
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { cpuSeconds, printTable, rssMiB, runWrk, seedProject, startBinaryIn, type WrkRequest } from "./lib";

const CALL = { name: "svc_doctor", arguments: {} };
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/** The three requests compared: the direct route, and the same call over MCP in each era. */
function requests(key: string, projectId: string): Record<string, WrkRequest> {
  const auth = { authorization: `Bearer ${key}` };
  const mcp = { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  };
  return {
    direct: { method: "GET", path: "/api/doctor", headers: auth },
    [LEGACY]: {
      method: "POST",
      path: `/mcp/${projectId}`,
      headers: { ...mcp, "mcp-protocol-version": LEGACY },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: CALL }),
    },
    [MODERN]: {
      method: "POST",
      path: `/mcp/${projectId}`,
      headers: { ...mcp, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": CALL.name },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: envelope, ...CALL } }),
    },
  };
}

/** One request's answer: 200 and a JSON-RPC result that is not a tool error (or the direct route's 200). */
async function works(base: string, r: WrkRequest): Promise<boolean> {
  const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
  const text = await res.text();
  if (res.status !== 200) return false;
  if (r.method === "GET") return true;
  const body = JSON.parse(text) as { result?: { isError?: boolean } };
  return body.result !== undefined && body.result.isError !== true;
}

/** `n` calls of `r`, `parallel` at a time. */
async function calls(base: string, r: WrkRequest, n: number, parallel = 10): Promise<void> {
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${r.path}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** The median time of 500 calls of `r`, one at a time (ms). */
async function sequentialP50(base: string, r: WrkRequest): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t0 = performance.now();
    await (await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body })).arrayBuffer();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[250]!;
}

interface Side {
  name: string;
  running: Awaited<ReturnType<typeof startBinaryIn>>;
  routes: Record<string, WrkRequest>;
  rss: (string | number)[];
}

async function side(name: string, dir: string, binary?: string): Promise<Side> {
  const running = await startBinaryIn(dir, {}, binary);
  const seed = await seedProject(running.base);
  const all = requests(seed.key, seed.projectId);
  const routes: Record<string, WrkRequest> = {};
  for (const [k, r] of Object.entries(all)) if (await works(running.base, r)) routes[k] = r;
  if (!routes.direct || !routes[LEGACY]) throw new Error(`${name}: the direct route or the 2025 call fails`);
  const rss: (string | number)[] = [name, rssMiB(running.pid).toFixed(1)];
  for (const era of [LEGACY, MODERN]) {
    if (!routes[era]) rss.push("—");
    else await calls(running.base, routes[era]!, 10_000), rss.push(rssMiB(running.pid).toFixed(1));
  }
  return { name, running, routes, rss };
}

export async function benchMcp(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 4);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const dir = mkdtempSync(join(tmpdir(), "talentd-mcp-"));
  const sides: Side[] = [];
  try {
    sides.push(await side("this checkout (SDK v2)", join(dir, "this")));
    if (process.env.BENCH_V1)
      sides.push(await side(`BENCH_V1 (${process.env.BENCH_V1})`, join(dir, "v1"), join(process.env.BENCH_V1, "dist", "talentd")));
    const rows: (string | number)[][] = [];
    const rps = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const add = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
    for (let round = 0; round < rounds; round++)
      for (const connections of [10, 64])
        for (const s of sides) {
          const names = Object.keys(s.routes);
          for (const route of round % 2 ? names.reverse() : names) {
            const r = s.routes[route]!;
            await runWrk(s.running.base, [r], { connections, seconds: 1, dir, name: "warm" });
            const cpu0 = cpuSeconds(s.running.pid);
            const w = await runWrk(s.running.base, [r], { connections, seconds, dir, name: "run" });
            const us = ((cpuSeconds(s.running.pid) - cpu0) / Math.max(1, w.requests)) * 1e6;
            rows.push([
              round + 1,
              connections,
              s.name,
              route,
              Math.round(w.rps),
              w.p50.toFixed(2),
              w.p99.toFixed(2),
              Math.round(us),
              w.non2xx,
            ]);
            add(rps, `${s.name}|${connections}|${route}`, w.rps);
            add(cpu, `${s.name}|${connections}|${route}`, us);
          }
        }
    for (const s of sides) s.rss.push(rssMiB(s.running.pid).toFixed(1));
    const sequential: (string | number)[][] = [];
    for (const s of sides) {
      const direct = await sequentialP50(s.running.base, s.routes.direct!);
      for (const era of [LEGACY, MODERN].filter((e) => s.routes[e]))
        sequential.push([s.name, era, direct.toFixed(3), ((await sequentialP50(s.running.base, s.routes[era]!)) - direct).toFixed(3)]);
    }
    printTable(
      `tools/call svc_doctor over MCP and GET /api/doctor (wrk -t1, ${seconds} s each; req/s, ms, server CPU µs per request)`,
      ["round", "conns", "server", "route", "req/s", "p50", "p99", "CPU µs", "non-2xx"],
      rows,
    );
    const mean = (m: Map<string, number[]>, k: string) => (m.get(k) ?? [NaN]).reduce((a, b) => a + b, 0) / (m.get(k)?.length ?? 1);
    const summary: (string | number)[][] = [];
    for (const s of sides)
      for (const connections of [10, 64])
        for (const era of [LEGACY, MODERN]) {
          const k = (route: string) => `${s.name}|${connections}|${route}`;
          if (!s.routes[era]) {
            summary.push([s.name, connections, era, "not served", "", "", ""]);
            continue;
          }
          const ratio = mean(rps, k(era)) / mean(rps, k("direct"));
          const [dc, mc] = [mean(cpu, k("direct")), mean(cpu, k(era))];
          summary.push([
            s.name,
            connections,
            era,
            Math.round(mean(rps, k(era))),
            Math.round(mean(rps, k("direct"))),
            ratio.toFixed(2),
            `${Math.round(mc)} / ${Math.round(dc)}`,
          ]);
        }
    printTable(
      "MCP / direct (mean req/s over the rounds)",
      ["server", "conns", "era", "MCP req/s", "direct req/s", "ratio", "CPU µs MCP / direct"],
      summary,
    );
    printTable(
      "Sequential (one call at a time, 500 each): p50 ms",
      ["server", "era", "direct p50", "MCP overhead at p50 (target < 2)"],
      sequential,
    );
    printTable(
      "RSS (MiB)",
      ["server", "ready", `after 10,000 ${LEGACY} calls`, `then 10,000 ${MODERN} calls`, "after the load"],
      sides.map((s) => s.rss),
    );
  } finally {
    for (const s of sides) await s.running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
