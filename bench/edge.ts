/**
 * The edge's per-request cost (docs/performance.md "The edge's per-request cost"): `/healthz`, the key
 * route (`GET /api/catalog?limit=1` with a key) and a catalog search under wrk -t1 at 10 connections, the server run from
 * source (`bun src/main.ts serve`, ACCESS_LOG=false). With BENCH_BASE=<another checkout> the same
 * runs go to that checkout's server too, interleaved A/B/A/B (both servers up, one loaded at a time),
 * and the table gives each side's median: the only fair comparison on a shared, loaded machine. Besides
 * req/s, the server's CPU time per request (user + system of the whole process, /proc), which
 * the load of other processes disturbs much less than throughput.
 * BENCH_ROUNDS (default 5) rounds, BENCH_SECONDS (default 3) per run, after one warm-up run each.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, freePort, printTable, ROOT, runWrk, seedProject, type WrkRequest } from "./lib";

export interface Side {
  name: string;
  base: string;
  proc: Bun.Subprocess;
  key: string;
  /** The seeded project of `key` (nothing installed). */
  projectId: string;
}

/** Starts `bun <root>/src/main.ts serve` on a fresh folder (with `env` besides); resolves once /readyz is 200. */
export async function startFromSource(name: string, root: string, dir: string, env: Record<string, string> = {}): Promise<Side> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, join(root, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", BASE_URL: base, ACCESS_LOG: "false", LOG_LEVEL: "error", AUTO_APPROVE_ORGS: "true", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null || Date.now() > until) throw new Error(`${name}: the server did not start`);
    await Bun.sleep(20);
  }
  const { key, projectId } = await seedProject(base);
  return { name, base, proc, key, projectId };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Runs the edge bench (one side, or interleaved against BENCH_BASE). */
export async function benchEdge(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), "talentd-edge-"));
  const roots: [string, string][] = [["this checkout", ROOT]];
  if (process.env.BENCH_BASE) roots.push([`base (${process.env.BENCH_BASE})`, process.env.BENCH_BASE]);
  const sides: Side[] = [];
  try {
    for (const [i, [name, root]] of roots.entries()) {
      const d = join(dir, `side${i}`);
      (await import("node:fs")).mkdirSync(d);
      sides.push(await startFromSource(name, root, d));
    }
    const routes: [string, (s: Side) => WrkRequest[]][] = [
      ["/healthz", () => [{ method: "GET", path: "/healthz", headers: {} }]],
      ["key route", (s) => [{ method: "GET", path: "/api/catalog?limit=1", headers: { authorization: `Bearer ${s.key}` } }]],
      [
        "search",
        (s) => [{ method: "GET", path: "/api/search?query=typescript&scope=catalog&k=10", headers: { authorization: `Bearer ${s.key}` } }],
      ],
    ];
    const rps = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const p99 = new Map<string, number[]>();
    for (let r = -1; r < rounds; r++) {
      // alternate which side goes first, so neither always runs right after the other
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const [route, reqs] of routes) {
        for (const s of order) {
          const cpu0 = cpuSeconds(s.proc.pid);
          const res = await runWrk(s.base, reqs(s), { connections: 10, seconds: r < 0 ? 1 : seconds, dir, name: "edge" });
          if (res.non2xx > 0 || res.socketErrors > 0)
            throw new Error(`${s.name} ${route}: ${res.non2xx} non-2xx, ${res.socketErrors} errors`);
          if (r < 0) continue;
          const k = `${route}|${s.name}`;
          rps.set(k, [...(rps.get(k) ?? []), res.rps]);
          p99.set(k, [...(p99.get(k) ?? []), res.p99]);
          cpu.set(k, [...(cpu.get(k) ?? []), ((cpuSeconds(s.proc.pid) - cpu0) / res.requests) * 1e6]);
        }
      }
    }
    printTable(
      `edge: wrk -t1 -c10, ${rounds} × ${seconds} s interleaved (req/s)`,
      ["route", "server", "median req/s", "CPU µs/request (median)", "p99 ms (median)", "req/s runs", "µs runs"],
      [...rps].map(([k, xs]) => {
        const [route, name] = k.split("|");
        const us = cpu.get(k)!;
        return [
          route!,
          name!,
          Math.round(median(xs)),
          median(us).toFixed(1),
          median(p99.get(k)!).toFixed(2),
          xs.map(Math.round).join(" "),
          us.map((x) => x.toFixed(1)).join(" "),
        ];
      }),
    );
  } finally {
    for (const s of sides) {
      s.proc.kill("SIGTERM");
      await s.proc.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
