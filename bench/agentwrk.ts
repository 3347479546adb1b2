/**
 * The agent's first two calls under wrk (docs/performance.md "Agent loop"): POST /api/prepare-task (10 designated of 50
 * installed) and discovery — its key route GET /api/discovery/playbook, and svc_discover_codebase as an MCP tools/call
 * (a stateless 2025-06-18 POST to /mcp/<project>) — on a project with an empty selection — and the validation playbook of
 * a prepared resolution (svc_validate's key route: the index, and the first designated talent's detail), at 10 and 64 connections
 * (wrk -t1). The catalog is 5,000 generated talents in TALENTS_DIR (BENCH_CATALOG=shipped: the shipped one, three of its
 * talents designated). Each server runs from source (`bun src/main.ts serve`); with BENCH_BASE=<another checkout> that
 * checkout's server runs too, both up, one loaded at a time, interleaved rounds (the first side alternates), and the
 * table gives each side's medians: req/s, p99 and the server's CPU µs per request (user + system, /proc). The discovery
 * answer's size on each side is printed first (tokens as the budgets estimate them: characters / 4).
 * BENCH_ROUNDS (default 3) rounds of BENCH_SECONDS (default 3) per run, after a 1 s warm-up run each; wrk's request timeout
 * is 10 s (an answer slower than that is a socket error, outside p99). BENCH_ROUTES=<words> runs only the routes whose
 * label holds one of the comma-separated words (e.g. `playbook`).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, type Side, startFromSource } from "./edge";
import { cpuSeconds, generateCatalog, printTable, ROOT, runWrk, seedInstalled, type WrkRequest } from "./lib";

const CONNECTIONS = [10, 64];
/** wrk's per-request timeout (its default is 2 s): a slower answer is counted as a socket error, not in the latencies. */
const TIMEOUT = 10;
/** Generated catalog: gen-talent-1000 … 1049 installed, ten designated; shipped: three talents present in every tree. */
const GENERATED = Array.from({ length: 50 }, (_, i) => `gen-talent-${1000 + i}`);
const SHIPPED = ["javascript-base", "typescript-strict", "conventional-commits"];

interface Loop extends Side {
  /** The key of a project with the designated talents installed (prepare-task). */
  loopKey: string;
  /** The project of `key`, with an empty selection (discovery). */
  emptyProject: string;
  /** A resolution of the designated talents, for the validation playbook. */
  resolutionId: string;
}

/** A 2025-06-18 stateless MCP tools/call (no session: the server answers each POST on its own). */
function mcpCall(s: Loop, tool: string): WrkRequest {
  return {
    method: "POST",
    path: `/mcp/${s.emptyProject}`,
    headers: {
      authorization: `Bearer ${s.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: {} } }),
  };
}

/** The validation playbook of the loop's resolution (svc_validate's key route): the index, or one talent's detail. */
function playbook(s: Loop, talent?: string): WrkRequest {
  const q = `resolutionId=${s.resolutionId}${talent ? `&talent=${encodeURIComponent(talent)}` : ""}`;
  return { method: "GET", path: `/api/validation/playbook?${q}`, headers: { authorization: `Bearer ${s.loopKey}` } };
}

async function seedLoop(side: Side, installed: string[], designated: string[]): Promise<Loop> {
  await Bun.sleep(5); // seedProject names its account by the millisecond
  const loop = await seedInstalled(side.base, installed);
  const prep = await fetch(`${side.base}/api/prepare-task`, {
    method: "POST",
    headers: loop.api,
    body: JSON.stringify({ talentIds: designated }),
  });
  if (prep.status !== 201) throw new Error(`${side.name} prepare-task: ${prep.status} ${await prep.text()}`);
  const { resolutionId } = (await prep.json()) as { resolutionId: string };
  return { ...side, loopKey: loop.key, emptyProject: side.projectId, resolutionId };
}

/** Waits (at most 60 s) until the server spends under 2% of a core for half a second: start-up work done in the background
 * (catalog, search index) would otherwise be billed to the first runs' requests. */
async function settle(s: Side): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const cpu0 = cpuSeconds(s.proc.pid);
    await Bun.sleep(500);
    if (cpuSeconds(s.proc.pid) - cpu0 < 0.01 || Date.now() > until) return;
  }
}

/** Runs the agentwrk bench (one side, or interleaved against BENCH_BASE). */
export async function benchAgentWrk(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const shipped = process.env.BENCH_CATALOG === "shipped";
  const dir = mkdtempSync(join(tmpdir(), "talentd-agentwrk-"));
  const roots: [string, string][] = [["this checkout", ROOT]];
  if (process.env.BENCH_BASE) roots.push([`base (${process.env.BENCH_BASE})`, process.env.BENCH_BASE]);
  const sides: Loop[] = [];
  try {
    // 64 connections from one address meet the per-address cap (64 in progress) whenever the next request on a connection
    // arrives before the previous one's slot is returned: the bench measures the routes, not the cap
    const env: Record<string, string> = { MAX_CONNECTIONS_PER_ADDRESS: "1000" };
    if (process.env.SIGNING) env.SIGNING = process.env.SIGNING; // SIGNING=false: this checkout without signatures (the base has none)
    if (!shipped) {
      env.TALENTS_DIR = join(dir, "talents");
      generateCatalog(env.TALENTS_DIR, 5000);
    }
    const installed = shipped ? SHIPPED : GENERATED;
    const designated = shipped ? SHIPPED : GENERATED.slice(10, 20);
    for (const [i, [name, root]] of roots.entries()) {
      mkdirSync(join(dir, `side${i}`));
      const side = await startFromSource(name, root, join(dir, `side${i}`), env);
      sides.push(await seedLoop(side, installed, designated));
    }
    const catalog = shipped ? "shipped catalog" : "5,000 generated talents";
    await discoverySizes(sides, catalog);
    for (const s of sides) await settle(s);
    const prepareBody = JSON.stringify({ talentIds: designated });
    const routes: [string, (s: Loop) => WrkRequest][] = [
      [
        "POST /api/prepare-task",
        (s) => ({
          method: "POST",
          path: "/api/prepare-task",
          headers: { authorization: `Bearer ${s.loopKey}`, "content-type": "application/json" },
          body: prepareBody,
        }),
      ],
      [
        "GET /api/discovery/playbook",
        (s) => ({ method: "GET", path: "/api/discovery/playbook", headers: { authorization: `Bearer ${s.key}` } }),
      ],
      ["MCP svc_discover_codebase", (s) => mcpCall(s, "svc_discover_codebase")],
      ["GET /api/validation/playbook (index)", (s) => playbook(s)],
      [`GET /api/validation/playbook (detail: ${designated[0]})`, (s) => playbook(s, designated[0])],
    ];
    // BENCH_ROUTES=<words>: only the routes whose label holds one of the comma-separated words (e.g. "playbook")
    const only = process.env.BENCH_ROUTES?.split(",").filter(Boolean);
    const chosen = only ? routes.filter(([label]) => only.some((w) => label.includes(w))) : routes;
    await measure(sides, chosen, { rounds, seconds, dir, catalog, designated: designated.length, installed: installed.length });
  } finally {
    for (const s of sides) {
      s.proc.kill("SIGTERM");
      await s.proc.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The discovery answer on each side, over the key route and over MCP: bytes and estimated tokens. */
async function discoverySizes(sides: Loop[], catalog: string): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const s of sides) {
    const r = await fetch(`${s.base}/api/discovery/playbook`, { headers: { authorization: `Bearer ${s.key}` } });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`${s.name} discovery: ${r.status} ${text.slice(0, 200)}`);
    const m = mcpCall(s, "svc_discover_codebase");
    const mr = await fetch(`${s.base}${m.path}`, { method: "POST", headers: m.headers, body: m.body });
    const mtext = await mr.text();
    if (mr.status !== 200 || mtext.includes('"isError":true'))
      throw new Error(`${s.name} MCP discovery: ${mr.status} ${mtext.slice(0, 300)}`);
    const body = JSON.parse(text) as { catalog?: { talents?: unknown[]; left?: number } };
    rows.push([
      s.name,
      text.length,
      Math.ceil(text.length / 4),
      body.catalog?.talents?.length ?? "-",
      body.catalog?.left ?? "-",
      mtext.length,
    ]);
  }
  printTable(
    `Discovery answer, empty selection, ${catalog}`,
    ["server", "key route chars", "≈ tokens (chars/4)", "listed", "left", "MCP answer chars"],
    rows,
  );
}

async function measure(
  sides: Loop[],
  routes: [string, (s: Loop) => WrkRequest][],
  o: { rounds: number; seconds: number; dir: string; catalog: string; designated: number; installed: number },
): Promise<void> {
  const runs = new Map<string, { rps: number[]; p99: number[]; us: number[]; errors: number }>();
  for (let r = -1; r < o.rounds; r++) {
    // alternate which side goes first, so neither always runs right after the other
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const connections of CONNECTIONS)
      for (const [route, req] of routes)
        for (const s of order) {
          const cpu0 = cpuSeconds(s.proc.pid);
          const res = await runWrk(s.base, [req(s)], {
            connections,
            seconds: r < 0 ? 1 : o.seconds,
            dir: o.dir,
            name: "agentwrk",
            timeoutSeconds: TIMEOUT,
          });
          if (res.non2xx > 0) throw new Error(`${s.name} ${route} -c${connections}: ${res.non2xx} non-2xx`);
          if (r < 0) continue;
          const k = `${route}|${connections}|${s.name}`;
          const x = runs.get(k) ?? { rps: [], p99: [], us: [], errors: 0 };
          // a run that completed nothing (every request past wrk's 2 s timeout) counts as 0 req/s, with no latency or CPU figure
          x.rps.push(res.rps);
          if (res.requests > 0) x.p99.push(res.p99);
          if (res.requests > 0) x.us.push(((cpuSeconds(s.proc.pid) - cpu0) / res.requests) * 1e6);
          x.errors += res.socketErrors;
          runs.set(k, x);
        }
  }
  printTable(
    `agentwrk: wrk -t1, ${o.rounds} × ${o.seconds} s interleaved, ${o.catalog}, prepare-task: ${o.designated} designated of ${o.installed} installed`,
    ["route", "conns", "server", "median req/s", "p99 ms (median)", "CPU µs/request (median)", "socket errors", "req/s runs", "µs runs"],
    [...runs].map(([k, x]) => {
      const [route, connections, name] = k.split("|");
      return [
        route!,
        connections!,
        name!,
        Math.round(median(x.rps)),
        x.p99.length > 0 ? median(x.p99).toFixed(2) : "-",
        x.us.length > 0 ? median(x.us).toFixed(0) : "-",
        x.errors,
        x.rps.map(Math.round).join(" "),
        x.us.map((u) => u.toFixed(0)).join(" "),
      ];
    }),
  );
}
