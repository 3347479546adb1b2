/**
 * Several replicas (docs/performance.md "Several replicas"): the built binary (dist/talentd) on the
 * embedded libSQL file, one replica on PostgreSQL, and two replicas on one PostgreSQL database,
 * under wrk (-t2) at 10 and 64 connections for two routes: POST /api/prepare-task (a durable write:
 * SQLite with synchronous=FULL, PostgreSQL with fsync and synchronous_commit on) and the key route
 * GET /api/catalog?limit=1. The two replicas are loaded without a proxy in between: wrk's Lua
 * setup gives each of its two threads one replica, so each replica holds half the connections
 * (a proxy written in JavaScript would take a core of its own on this machine). CPU per request is
 * read from /proc before and after each run: the talentd processes, and PostgreSQL's postmaster
 * with every backend. Then the cross-replica invalidation delay: a key used on B, revoked on A,
 * B polled until it refuses the key (BENCH_TRIES tries, default 30). The cluster comes from
 * test/pg-support.ts (Debian's server binaries), started durable for the bench.
 * BENCH_SECONDS (default 5) per run.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pgDatabase, type PgDatabase } from "../test/pg-support";
import { BINARY, cpuSeconds, parseWrk, percentile, printTable, type RunningIn, seedInstalled, startBinaryIn, wrkScript } from "./lib";

const CONNECTIONS = [10, 64];
const TALENTS = ["typescript-strict", "javascript-base", "conventional-commits"];

interface Setup {
  name: string;
  replicas: RunningIn[];
  key: string;
  /** Extra processes whose CPU counts (PostgreSQL's), read afresh at each run. */
  pids: () => number[];
}

/** PostgreSQL's postmaster and every process it started (backends, writer, WAL writer, …). */
function postgresPids(pg: PgDatabase): number[] {
  const file = join(pg.cluster.dir, "data", "postmaster.pid");
  if (!existsSync(file)) return [];
  const root = Number(readFileSync(file, "utf8").split("\n")[0]);
  const kids = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === root;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [root, ...kids];
}

/** CPU seconds of `pids` by pid (a process gone meanwhile counts 0). */
function cpuOf(pids: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const p of pids) {
    try {
      m.set(p, cpuSeconds(p));
    } catch {
      m.set(p, 0);
    }
  }
  return m;
}

/** wrk -t2 with each thread on one of `bases` (one base: both threads on it). */
async function wrk(
  bases: string[],
  req: { method: string; path: string; headers: Record<string, string>; body?: string },
  c: number,
  seconds: number,
  dir: string,
) {
  const ports = bases.map((b) => new URL(b).port);
  const assign = `local addrs = {}
for _, p in ipairs({ ${ports.map((p) => `"${p}"`).join(", ")} }) do table.insert(addrs, wrk.lookup("127.0.0.1", p)[1]) end
local k = 0
function setup(thread)
  k = k + 1
  thread.addr = addrs[(k - 1) % #addrs + 1]
end
`;
  const script = join(dir, "replicas.lua");
  writeFileSync(script, wrkScript([req]) + assign);
  const p = Bun.spawn(["wrk", "-t2", `-c${c}`, `-d${seconds}s`, "--timeout", "10s", "--latency", "-s", script, bases[0]!], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return parseWrk(out);
}

/** Waits (at most 30 s) until the servers spend under 2% of a core for half a second (start-up work done). */
async function settle(pids: number[]): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const a = cpuOf(pids);
    await Bun.sleep(500);
    const b = cpuOf(pids);
    const used = pids.reduce((s, p) => s + (b.get(p)! - a.get(p)!), 0);
    if (used < 0.01 * pids.length || Date.now() > until) return;
  }
}

/** Every route at every connection count for one setup: rows of the table. */
async function measure(s: Setup, seconds: number, dir: string): Promise<(string | number)[][]> {
  const api = { authorization: `Bearer ${s.key}`, "content-type": "application/json" };
  const routes = [
    {
      label: "POST /api/prepare-task",
      req: { method: "POST", path: "/api/prepare-task", headers: api, body: JSON.stringify({ talentIds: TALENTS }) },
    },
    {
      label: "GET /api/catalog?limit=1",
      req: { method: "GET", path: "/api/catalog?limit=1", headers: { authorization: `Bearer ${s.key}` } },
    },
  ];
  const rows: (string | number)[][] = [];
  const bases = s.replicas.map((r) => r.base);
  for (const route of routes) {
    for (const c of CONNECTIONS) {
      await settle(s.replicas.map((r) => r.pid));
      const talentd = s.replicas.map((r) => r.pid);
      const pg = s.pids();
      const before = cpuOf([...talentd, ...pg]);
      const r = await wrk(bases, route.req, c, seconds, dir);
      const after = cpuOf([...talentd, ...s.pids()]);
      const used = (pids: number[]) => pids.reduce((sum, p) => sum + Math.max(0, (after.get(p) ?? 0) - (before.get(p) ?? 0)), 0);
      const n = Math.max(1, r.requests);
      const pgAll = [...new Set([...pg, ...s.pids()])];
      rows.push([
        s.name,
        route.label,
        c,
        Math.round(r.rps),
        r.p50.toFixed(1),
        r.p99.toFixed(1),
        Math.round((used(talentd) / n) * 1e6),
        pgAll.length > 0 ? Math.round((used(pgAll) / n) * 1e6) : "–",
        r.non2xx + r.socketErrors,
      ]);
    }
  }
  return rows;
}

/** The cross-replica invalidation delay: a key used on B, revoked on A, B polled until 401; ms per try. */
async function invalidationDelays(a: RunningIn, b: RunningIn, tries: number): Promise<number[]> {
  const seeded = await seedInstalled(a.base, ["typescript-strict"]);
  const web = { "content-type": "application/json", origin: a.base, cookie: seeded.cookie };
  const delays: number[] = [];
  for (let i = 0; i < tries; i++) {
    const made = (await (
      await fetch(`${a.base}/web/projects/${seeded.projectId}/keys`, {
        method: "POST",
        headers: web,
        body: JSON.stringify({ name: `k${i}`, tools: ["catalog"] }),
      })
    ).json()) as { key: { id: string }; value: string };
    const onB = () => fetch(`${b.base}/api/catalog?limit=1`, { headers: { authorization: `Bearer ${made.value}` } }).then((r) => r.status);
    if ((await onB()) !== 200) throw new Error("the new key is refused on B");
    const del = await fetch(`${a.base}/web/projects/${seeded.projectId}/keys/${made.key.id}`, { method: "DELETE", headers: web });
    if (del.status !== 200) throw new Error(`revoke: ${del.status}`);
    const t0 = performance.now();
    while ((await onB()) !== 401) if (performance.now() - t0 > 10_000) throw new Error("B still accepts the revoked key after 10 s");
    delays.push(performance.now() - t0);
  }
  return delays.sort((x, y) => x - y);
}

/** Runs the replicas bench. */
export async function benchReplicas(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const tries = Number(process.env.BENCH_TRIES ?? 30);
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: npx bun run build`);
  const dir = mkdtempSync(join(tmpdir(), "talentd-replicas-bench-"));
  const env = { MAX_CONNECTIONS_PER_ADDRESS: "1000", ACCESS_LOG: "false", LOG_LEVEL: "error" };
  const running: RunningIn[] = [];
  const start = async (name: string, extra: Record<string, string>) => {
    mkdirSync(join(dir, name));
    const r = await startBinaryIn(join(dir, name), { ...env, ...extra });
    running.push(r);
    return r;
  };
  let pg: PgDatabase | null = null;
  const rows: (string | number)[][] = [];
  try {
    const embedded = await start("embedded", {});
    const k0 = (await seedInstalled(embedded.base, TALENTS)).key;
    rows.push(...(await measure({ name: "embedded libSQL", replicas: [embedded], key: k0, pids: () => [] }, seconds, dir)));
    await embedded.stop();
    pg = await pgDatabase("bench", { durable: true });
    const db = pg;
    const a = await start("a", { DATABASE_URL: db.url });
    const k1 = (await seedInstalled(a.base, TALENTS)).key;
    rows.push(...(await measure({ name: "1 replica, PostgreSQL", replicas: [a], key: k1, pids: () => postgresPids(db) }, seconds, dir)));
    const b = await start("b", { DATABASE_URL: db.url });
    rows.push(
      ...(await measure({ name: "2 replicas, PostgreSQL", replicas: [a, b], key: k1, pids: () => postgresPids(db) }, seconds, dir)),
    );
    printTable(
      `Several replicas (wrk -t2, ${seconds} s a run; µs of CPU per request: talentd processes, PostgreSQL's; errors: non-2xx + socket)`,
      ["setup", "route", "conn", "req/s", "p50 ms", "p99 ms", "talentd µs/req", "postgres µs/req", "errors"],
      rows,
    );
    const d = await invalidationDelays(a, b, tries);
    printTable(
      `Cross-replica invalidation: a key revoked on A, polled on B until refused (${tries} tries)`,
      ["p50 ms", "p99 ms", "max ms"],
      [[percentile(d, 50).toFixed(1), percentile(d, 99).toFixed(1), d.at(-1)!.toFixed(1)]],
    );
  } finally {
    for (const r of running) await r.stop().catch(() => {});
    pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
