/**
 * The agent loop against ceilings of the same work, each ratio taken in one run of one
 * server (bench/ceiling-server.ts: the real application plus two bench-only ceiling routes), with
 * wrk -t1 over loopback. 5,000 generated talents (lazy after start), 50 installed, 10 designated.
 * 1. prepare-task at 64 connections ≥ 0.5 × the serialization ceiling (same bytes, no key,
 *    write or trace);
 * 2. GET /api/catalog?limit=1 with a key ≥ 0.8 × the same handler with no guard and no trace;
 * 3. prepare-task p99 at 10 connections ≤ the fsync p99 of the same disk + 5 ms, the fsync p99
 *    measured here (bare one-row commits, synchronous=FULL, a file in the same folder);
 * 4. search "area1" over the catalog at 10 connections: p99 < 5 ms.
 * 5. a tool call through MCP (svc_doctor, POST /mcp) ≥ 0.5 × GET /api/doctor called directly
 *    (10 conn), and the sequential overhead < 0.3 ms at p50 (one client, 500 calls each).
 * Also the floors of 1 and 3: prepare-task with everything but its durable write, on a second
 * listener of the same server (bench/ceiling-server.ts FLOOR_PORT), and the same answered a turn
 * later (DEFER_FLOOR_PORT), as any answer after a commit on another thread is, and answered after
 * a bare durable commit of the same writer thread (BARE_FLOOR_PORT): target 3 step by step.
 * Every measured run is preceded by a warm-up of the same requests and connections
 * (BENCH_WARMUP seconds, 2 by default; 0 for none), not measured: without it the first run of
 * a route carried the JIT's compiles of its code (the JIT thread at 8–10% of a core during
 * prepare-task's 8 s, ~1% once warm) on the two cores the server shares with wrk.
 */
import { createClient } from "@libsql/client";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { freePort, generateCatalog, percentile, printTable, runWrk, seedInstalled } from "./lib";

/** Each thread's CPU time (user + system, clock ticks) of a process, by thread id, with its name (Linux /proc). */
function threadTimes(pid: number): Map<string, { name: string; ticks: number }> {
  const out = new Map<string, { name: string; ticks: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      out.set(tid, { name: `${name} (${tid === String(pid) ? "main" : tid})`, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      /* a thread that ended */
    }
  }
  return out;
}

const METRICS = "bench-metrics-token-0123456789";

/** The writer thread's group commits so far: count and total seconds (the server's /metrics). */
async function batchCommits(base: string): Promise<{ count: number; sum: number; buckets: Map<number, number> }> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
  const value = (name: string) => Number(new RegExp(`^${name}\\{kind="batch"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  const buckets = new Map<number, number>();
  for (const m of text.matchAll(/^talentd_db_commit_duration_seconds_bucket\{kind="batch",le="([^"]+)"\} (\S+)$/gm))
    buckets.set(Number(m[1]), Number(m[2]));
  return { count: value("talentd_db_commit_duration_seconds_count"), sum: value("talentd_db_commit_duration_seconds_sum"), buckets };
}

/** The share of the group commits between two readings that took at most each bound (ms → fraction), from /metrics' cumulative buckets. */
function commitShares(
  a: Awaited<ReturnType<typeof batchCommits>>,
  b: Awaited<ReturnType<typeof batchCommits>>,
  boundsMs: number[],
): number[] {
  const n = b.count - a.count;
  return boundsMs.map((ms) => ((b.buckets.get(ms / 1000) ?? NaN) - (a.buckets.get(ms / 1000) ?? NaN)) / Math.max(1, n));
}

/** Bytes a process caused to be written to storage so far (Linux /proc/<pid>/io). */
function bytesWritten(pid: number): number {
  const m = /write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  return m ? Number(m[1]) : 0;
}

/** The threads' CPU share of one core between two readings `seconds` apart, busiest first (100 ticks a second). */
function threadShares(
  before: Map<string, { name: string; ticks: number }>,
  after: Map<string, { name: string; ticks: number }>,
  seconds: number,
) {
  return [...after]
    .map(([tid, t]) => ({ name: t.name, share: (t.ticks - (before.get(tid)?.ticks ?? 0)) / 100 / seconds }))
    .sort((a, b) => b.share - a.share);
}

const INSTALLED = Array.from({ length: 50 }, (_, i) => `gen-talent-${1000 + i}`);
const DESIGNATED = INSTALLED.slice(10, 20);

/** p50/p99 of bare commits with synchronous=FULL on a file in `dir` (the disk the server writes to). */
async function fsyncLatency(dir: string, n = 400): Promise<{ p50: number; p99: number }> {
  const db = createClient({ url: `file:${join(dir, "fsync-probe.db")}` });
  await db.execute("PRAGMA journal_mode=WAL");
  await db.execute("PRAGMA synchronous=FULL");
  await db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await db.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [`row ${i}`] });
    times.push(performance.now() - t);
  }
  db.close();
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export async function benchCeilings(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const warmup = Number(process.env.BENCH_WARMUP ?? 2);
  const dir = mkdtempSync(join(tmpdir(), "talentd-ceilings-"));
  const talents = join(dir, "talents");
  const data = join(dir, "data");
  mkdirSync(data);
  generateCatalog(talents, 5000);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const floorPort = await freePort();
  const floorBase = `http://127.0.0.1:${floorPort}`;
  const deferFloorPort = await freePort();
  const deferFloorBase = `http://127.0.0.1:${deferFloorPort}`;
  const bareFloorPort = await freePort();
  const bareFloorBase = `http://127.0.0.1:${bareFloorPort}`;
  const traceFloorPort = await freePort();
  const traceFloorBase = `http://127.0.0.1:${traceFloorPort}`;
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "ceiling-server.ts")], {
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: data,
      TALENTS_DIR: talents,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      ACCESS_LOG: "false",
      LOG_LEVEL: "error",
      AUTO_APPROVE_ORGS: "true",
      ...(process.env.SIGNING ? { SIGNING: process.env.SIGNING } : {}), // SIGNING=false: the same run without signatures
      METRICS_TOKEN: METRICS,
      FLOOR_PORT: String(floorPort),
      DEFER_FLOOR_PORT: String(deferFloorPort),
      BARE_FLOOR_PORT: String(bareFloorPort),
      TRACE_FLOOR_PORT: String(traceFloorPort),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const until = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/readyz`)).status === 200) break;
      } catch {
        /* not yet */
      }
      if (proc.exitCode !== null || Date.now() > until) throw new Error("the ceiling server did not start");
      await Bun.sleep(20);
    }
    await Bun.sleep(3000); // the start-up slimming makes the generated talents lazy, as in production
    const s = await seedInstalled(base, INSTALLED);
    const api = s.api;
    const prepareBody = JSON.stringify({ talentIds: DESIGNATED });
    const prepare = [{ method: "POST", path: "/api/prepare-task", headers: api, body: prepareBody }];
    const ceiling = [{ method: "POST", path: "/bench/prepare-ceiling", headers: api, body: prepareBody }];
    const real = await fetch(base + "/api/prepare-task", { method: "POST", headers: api, body: prepareBody });
    const first = await fetch(base + "/bench/prepare-ceiling", { method: "POST", headers: api, body: prepareBody });
    if (real.status !== 201 || first.status !== 201)
      throw new Error(`prepare-task ${real.status}, ceiling ${first.status}: ${await first.text()}`);
    const bytes = (await real.arrayBuffer()).byteLength;
    const withKey = [{ method: "GET", path: "/api/catalog?limit=1", headers: { authorization: `Bearer ${s.key}` } }];
    const noGuard = [{ method: "GET", path: "/bench/catalog?limit=1", headers: {} }];
    const guardOnly = [{ method: "GET", path: "/bench/catalog-guarded?limit=1", headers: { authorization: `Bearer ${s.key}` } }];
    const search = [{ method: "GET", path: "/api/search?query=area1&scope=catalog&k=10", headers: { authorization: `Bearer ${s.key}` } }];
    const doctor = [{ method: "GET", path: "/api/doctor", headers: { authorization: `Bearer ${s.key}` } }];
    const mcpHeaders = {
      authorization: `Bearer ${s.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const mcpBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_doctor", arguments: {} } });
    const viaMcp = [{ method: "POST", path: "/mcp", headers: mcpHeaders, body: mcpBody }];
    const mcpCheck = await fetch(base + "/mcp", { method: "POST", headers: mcpHeaders, body: mcpBody });
    const mcpText = await mcpCheck.text();
    if (mcpCheck.status !== 200 || mcpText.includes('"isError":true')) throw new Error(`mcp: ${mcpCheck.status} ${mcpText.slice(0, 300)}`);
    for (const r of [...withKey, ...noGuard, ...guardOnly, ...search]) {
      const res = await fetch(base + r.path, { headers: r.headers });
      if (res.status !== 200) throw new Error(`${r.path}: ${res.status} ${await res.text()}`);
    }

    /** A wrk run of `seconds` after a warm-up of the same requests and connections (not measured). */
    const measured = async (url: string, requests: Parameters<typeof runWrk>[1], connections: number, name: string) => {
      if (warmup > 0) await runWrk(url, requests, { connections, seconds: warmup, dir, name: `${name}-warmup` });
      return runWrk(url, requests, { connections, seconds, dir, name });
    };
    const c64 = await measured(base, ceiling, 64, "ceiling64");
    if (warmup > 0) await runWrk(base, prepare, { connections: 64, seconds: warmup, dir, name: "prepare64-warmup" });
    const before = threadTimes(proc.pid); // the threads, disk and commits of the measured run only
    const wroteBefore = bytesWritten(proc.pid);
    const commitsBefore = await batchCommits(base);
    const p64 = await runWrk(base, prepare, { connections: 64, seconds, dir, name: "prepare64" });
    const threads = threadShares(before, threadTimes(proc.pid), seconds);
    const wrote = bytesWritten(proc.pid) - wroteBefore;
    const commitsAfter = await batchCommits(base);
    const batches = commitsAfter.count - commitsBefore.count;
    const gN = await measured(base, noGuard, 10, "noguard");
    const gK = await measured(base, withKey, 10, "withkey");
    const gG = await measured(base, guardOnly, 10, "guardonly");
    const gT = await measured(traceFloorBase, withKey, 10, "tracefloor");
    if (warmup > 0) await runWrk(base, prepare, { connections: 10, seconds: warmup, dir, name: "prepare10-warmup" });
    const commits10Before = await batchCommits(base);
    const p10 = await runWrk(base, prepare, { connections: 10, seconds, dir, name: "prepare10" });
    const commits10After = await batchCommits(base);
    const COMMIT_BOUNDS_MS = [0.5, 1, 2.5, 5, 10];
    const shares10 = commitShares(commits10Before, commits10After, COMMIT_BOUNDS_MS);
    const floorCheck = await fetch(floorBase + "/api/prepare-task", { method: "POST", headers: api, body: prepareBody });
    if (floorCheck.status !== 201) throw new Error(`floor prepare-task: ${floorCheck.status}`);
    const deferCheck = await fetch(deferFloorBase + "/api/prepare-task", { method: "POST", headers: api, body: prepareBody });
    if (deferCheck.status !== 201) throw new Error(`deferred floor prepare-task: ${deferCheck.status}`);
    const bareCheck = await fetch(bareFloorBase + "/api/prepare-task", { method: "POST", headers: api, body: prepareBody });
    if (bareCheck.status !== 201) throw new Error(`bare-commit floor prepare-task: ${bareCheck.status}`);
    const f64 = await measured(floorBase, prepare, 64, "floor64");
    const f10 = await measured(floorBase, prepare, 10, "floor10");
    const d64 = await measured(deferFloorBase, prepare, 64, "deferfloor64");
    const d10 = await measured(deferFloorBase, prepare, 10, "deferfloor10");
    const b10 = await measured(bareFloorBase, prepare, 10, "barefloor10");
    // the real route once more, right after its floors: the tail of one 8 s run moves with this disk's stalls
    const p10b = await measured(base, prepare, 10, "prepare10b");
    const fs = await fsyncLatency(data);
    const sr = await measured(base, search, 10, "search");
    const sT = await measured(traceFloorBase, search, 10, "searchnotrace");
    const dd = await measured(base, doctor, 10, "doctor");
    const dm = await measured(base, viaMcp, 10, "mcp");
    const sequentialP50 = async (make: () => Promise<Response>) => {
      for (let i = 0; i < 50; i++) await (await make()).arrayBuffer();
      const times: number[] = [];
      for (let i = 0; i < 500; i++) {
        const t = performance.now();
        await (await make()).arrayBuffer();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      return percentile(times, 50);
    };
    const seqDirect = await sequentialP50(() => fetch(base + "/api/doctor", { headers: doctor[0]!.headers }));
    const seqMcp = await sequentialP50(() => fetch(base + "/mcp", { method: "POST", headers: mcpHeaders, body: mcpBody }));

    const verdict = (ok: boolean) => (ok ? "met" : "not met");
    printTable(
      `The agent loop against its ceilings (wrk -t1, ${seconds}s each after ${warmup}s of warm-up, one server; prepare-task answer ${bytes} bytes)`,
      ["target", "ceiling", "measured", "ratio / margin", "verdict"],
      [
        [
          "1. prepare-task ≥ 0.5 × serialization ceiling (64 conn)",
          `${c64.rps.toFixed(0)} req/s (p99 ${c64.p99.toFixed(1)} ms)`,
          `${p64.rps.toFixed(0)} req/s (p99 ${p64.p99.toFixed(1)} ms)`,
          (p64.rps / c64.rps).toFixed(2),
          verdict(p64.rps >= 0.5 * c64.rps),
        ],
        [
          "2. key route ≥ 0.8 × no guard, no trace (catalog?limit=1, 10 conn)",
          `${gN.rps.toFixed(0)} req/s`,
          `${gK.rps.toFixed(0)} req/s`,
          (gK.rps / gN.rps).toFixed(2),
          verdict(gK.rps >= 0.8 * gN.rps),
        ],
        [
          "   (the guard alone, no trace: where the gap is)",
          `${gN.rps.toFixed(0)} req/s`,
          `${gG.rps.toFixed(0)} req/s`,
          (gG.rps / gN.rps).toFixed(2),
          "—",
        ],
        [
          "   (guard and trace, the trace's insert dropped: its floor)",
          `${gN.rps.toFixed(0)} req/s`,
          `${gT.rps.toFixed(0)} req/s`,
          (gT.rps / gN.rps).toFixed(2),
          "—",
        ],
        [
          "3. prepare-task p99 (10 conn) ≤ fsync p99 + 5 ms",
          `fsync p50 ${fs.p50.toFixed(2)} / p99 ${fs.p99.toFixed(2)} ms`,
          `p50 ${p10.p50.toFixed(2)} / p99 ${p10.p99.toFixed(2)} ms (${p10.rps.toFixed(0)} req/s)`,
          `${(p10.p99 - fs.p99).toFixed(2)} ms over`,
          verdict(p10.p99 <= fs.p99 + 5),
        ],
        [
          "4. search area1, 5,000 talents: p99 < 5 ms (10 conn)",
          "—",
          `p50 ${sr.p50.toFixed(2)} / p99 ${sr.p99.toFixed(2)} ms (${sr.rps.toFixed(0)} req/s)`,
          "—",
          verdict(sr.p99 < 5),
        ],
        [
          "   (the same, the trace's insert dropped: its share of the tail)",
          "—",
          `p50 ${sT.p50.toFixed(2)} / p99 ${sT.p99.toFixed(2)} ms (${sT.rps.toFixed(0)} req/s)`,
          "—",
          "—",
        ],
        [
          "   (any route's tail here: /bench/catalog, no guard, no trace, no search)",
          "—",
          `p50 ${gN.p50.toFixed(2)} / p99 ${gN.p99.toFixed(2)} ms (${gN.rps.toFixed(0)} req/s)`,
          "—",
          "—",
        ],
        [
          "5a. svc_doctor via MCP ≥ 0.5 × GET /api/doctor (10 conn)",
          `${dd.rps.toFixed(0)} req/s`,
          `${dm.rps.toFixed(0)} req/s`,
          (dm.rps / dd.rps).toFixed(2),
          verdict(dm.rps >= 0.5 * dd.rps),
        ],
        [
          "5b. MCP sequential overhead < 0.3 ms p50",
          `direct p50 ${seqDirect.toFixed(3)} ms`,
          `MCP p50 ${seqMcp.toFixed(3)} ms`,
          `${(seqMcp - seqDirect).toFixed(3)} ms`,
          verdict(seqMcp - seqDirect < 0.3),
        ],
      ],
    );
    printTable(
      "Where prepare-task's time goes at 64 connections: the server's busiest threads, CPU share of one core over the run",
      ["thread", "CPU %"],
      threads.slice(0, 5).map((t) => [t.name, (t.share * 100).toFixed(0)]),
    );
    printTable(
      "prepare-task at 64 connections: what the server wrote to disk (/proc/<pid>/io write_bytes: the WAL and its checkpoints) and its group commits (/metrics talentd_db_commit_duration_seconds, kind=batch)",
      ["MB/s", "KB per call", "group commits/s", "calls per commit", "mean commit ms"],
      [
        [
          (wrote / 1e6 / seconds).toFixed(1),
          (wrote / 1024 / Math.max(1, p64.rps * seconds)).toFixed(1),
          (batches / seconds).toFixed(0),
          ((p64.rps * seconds) / Math.max(1, batches)).toFixed(1),
          (((commitsAfter.sum - commitsBefore.sum) * 1000) / Math.max(1, batches)).toFixed(2),
        ],
      ],
    );
    printTable(
      "Target 3's commit path: prepare-task's group commits during its 10-connection run (/metrics talentd_db_commit_duration_seconds, kind=batch: the writer thread's rows, COMMIT and fsync under this load; an answer waits for the commit in flight, then its own), against the bare fsync commits measured alone",
      ["group commits/s", "calls per commit", ...COMMIT_BOUNDS_MS.map((ms) => `≤ ${ms} ms`), "bare fsync p99 ms"],
      [
        [
          ((commits10After.count - commits10Before.count) / seconds).toFixed(0),
          ((p10.rps * seconds) / Math.max(1, commits10After.count - commits10Before.count)).toFixed(1),
          ...shares10.map((x) => `${(x * 100).toFixed(1)}%`),
          fs.p99.toFixed(2),
        ],
      ],
    );
    printTable(
      "Floors of 1 and 3: prepare-task doing everything but its durable write (bench-only second listener: same app and database, the resolution's job dropped; key, designation, answer and trace as usual)",
      ["connections", "req/s", "× ceiling", "p50 ms", "p99 ms"],
      [
        ["64", f64.rps.toFixed(0), (f64.rps / c64.rps).toFixed(2), f64.p50.toFixed(2), f64.p99.toFixed(2)],
        ["10", f10.rps.toFixed(0), "—", f10.p50.toFixed(2), `${f10.p99.toFixed(2)} (bound of 3: ${(fs.p99 + 5).toFixed(2)})`],
      ],
    );
    printTable(
      "The same, answered a turn later (bench-only fourth listener: the dropped job's promise resolves at setImmediate, as an answer after a commit on another thread must): the floor of any answer after its durable write",
      ["connections", "req/s", "× ceiling", "p50 ms", "p99 ms"],
      [
        ["64", d64.rps.toFixed(0), (d64.rps / c64.rps).toFixed(2), d64.p50.toFixed(2), d64.p99.toFixed(2)],
        ["10", d10.rps.toFixed(0), "—", d10.p50.toFixed(2), `${d10.p99.toFixed(2)} (bound of 3: ${(fs.p99 + 5).toFixed(2)})`],
      ],
    );
    const bound3 = `(bound of 3: ${(fs.p99 + 5).toFixed(2)})`;
    printTable(
      "Target 3 step by step at 10 connections: the same prepare-task call with no durable write, answered a turn later, answered after a bare durable group commit (bench-only fifth listener: the resolution's job replaced by a one-row update, same writer thread and fsync), and the real route (its two runs)",
      ["answered", "req/s", "p50 ms", "p99 ms"],
      [
        ["at once, no durable write", f10.rps.toFixed(0), f10.p50.toFixed(2), f10.p99.toFixed(2)],
        ["a turn later, no durable write", d10.rps.toFixed(0), d10.p50.toFixed(2), d10.p99.toFixed(2)],
        ["after a bare durable commit", b10.rps.toFixed(0), b10.p50.toFixed(2), b10.p99.toFixed(2)],
        [
          "after its resolution's commit (the route)",
          `${p10.rps.toFixed(0)} / ${p10b.rps.toFixed(0)}`,
          `${p10.p50.toFixed(2)} / ${p10b.p50.toFixed(2)}`,
          `${p10.p99.toFixed(2)} / ${p10b.p99.toFixed(2)} ${bound3}`,
        ],
      ],
    );
    // the runtime alone: the same body given in the request's turn or a turn later (no app, no database)
    const runtimeRows: string[][] = [];
    for (const size of [4096, 15000, bytes]) {
      const rps: number[] = [];
      for (const when of ["same", "later", "late-answer"]) {
        const rport = await freePort();
        const rproc = Bun.spawn([process.execPath, join(import.meta.dir, "deferred-server.ts")], {
          env: { PATH: process.env.PATH ?? "", PORT: String(rport), SIZE: String(size), WHEN: when },
          stdout: "pipe",
          stderr: "inherit",
        });
        try {
          for (let i = 0; i < 100; i++) {
            if (
              await fetch(`http://127.0.0.1:${rport}/`).then(
                (r) => r.ok,
                () => false,
              )
            )
              break;
            await Bun.sleep(20);
          }
          rps.push(
            (await measured(`http://127.0.0.1:${rport}`, [{ method: "GET", path: "/", headers: {} }], 64, `runtime-${size}-${when}`)).rps,
          );
        } finally {
          rproc.kill("SIGTERM");
          await rproc.exited;
        }
      }
      runtimeRows.push([
        String(size),
        rps[0]!.toFixed(0),
        rps[1]!.toFixed(0),
        (rps[1]! / rps[0]!).toFixed(2),
        rps[2]!.toFixed(0),
        (rps[2]! / rps[0]!).toFixed(2),
      ]);
    }
    printTable(
      "The runtime's share (target 1): Bun.serve alone, no app or database, the same body answered in the request's turn, a turn later (setImmediate) as a plain body, or a turn later as src/http/answer.ts lateAnswer sends it (above 15,000 characters: a direct stream of 8 KB writes), 64 connections",
      ["body bytes", "same turn req/s", "later, plain req/s", "plain / same", "later, lateAnswer req/s", "lateAnswer / same"],
      runtimeRows,
    );
    const errors = [c64, p64, gN, gK, gG, gT, p10, p10b, f64, f10, d64, d10, b10, sr, sT, dd, dm].reduce(
      (a, r) => a + r.non2xx + r.socketErrors,
      0,
    );
    if (errors > 0) console.log(`(${errors} non-2xx answers or socket errors during the runs)`);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchCeilings();
