/**
 * Load figures (docs/performance.md), on the built binary over loopback, with wrk (Debian; one thread, so
 * the load generator leaves the server a core):
 * - 60 s at 50 connections over a mixed workload — key routes of organization B (doctor,
 *   catalog, search, prepare-task, reports) and organization A's traces page as the dashboard
 *   asks for it (the default 50 events), whose project holds 1,000,000 trace events (the first
 *   page and deep keyset pages) — errors and p99;
 * - meanwhile, B's /api/doctor latency from one sequential client (what one tenant's traces
 *   cost another);
 * - RSS right after the run and after 10 s idle.
 * Targets: 0 errors, p99 < 50 ms, RSS < 120 MB. BENCH_SECONDS and BENCH_EVENTS override.
 */
import Native from "libsql";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { orderedId } from "../src/lib/ids";
import { parseWrk, percentile, printTable, rssMiB, seedProject, startBinaryIn, wrkScript } from "./lib";

/** Writes `n` trace events for a project straight into the stopped server's database. */
function seedTraces(dbPath: string, projectId: string, n: number): { deepIds: string[] } {
  const db = new Native(dbPath);
  const insert = db.prepare(
    `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
     VALUES (?, ?, 'doctor', 'api', 'key', 'key_bench', 'bench', 'wrk', '[]', '[]', NULL, 200, 1, NULL, ?)`,
  );
  const t0 = Date.now() - 30 * 24 * 3600 * 1000;
  const step = (30 * 24 * 3600 * 1000) / n;
  const deepIds: string[] = [];
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const at = Math.floor(t0 + i * step);
      const id = `trc_${orderedId(at, i)}`;
      insert.run(id, projectId, at);
      if (i % Math.floor(n / 20) === 0) deepIds.push(id);
    }
  });
  for (let i = 0; i < n; i += 50_000) batch(i, Math.min(n, i + 50_000));
  db.close();
  return { deepIds };
}

export async function benchHardening(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 60);
  const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), "talentd-hardening-"));
  try {
    // A: the project with a long history; B: another organization's agent traffic
    let server = await startBinaryIn(dir);
    const a = await seedProject(server.base);
    const b = await seedProject(server.base);
    const web = (seed: { cookie: string }, path: string, body: unknown) =>
      fetch(server.base + path, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.base, cookie: seed.cookie },
        body: JSON.stringify(body),
      });
    await web(b, `/web/projects/${b.projectId}/talents`, { talents: ["typescript-strict", "javascript-base"] });
    const prep = await fetch(`${server.base}/api/prepare-task`, {
      method: "POST",
      headers: { authorization: `Bearer ${b.key}`, "content-type": "application/json" },
      body: JSON.stringify({ talentIds: ["typescript-strict"] }),
    });
    const resolutionId = ((await prep.json()) as { resolutionId: string }).resolutionId;
    await server.stop();
    const t0 = performance.now();
    const { deepIds } = seedTraces(join(dir, "data", "talentd.db"), a.projectId, events);
    const seededS = (performance.now() - t0) / 1000;
    server = await startBinaryIn(dir);
    const pid = server.pid;
    const keyB = { authorization: `Bearer ${b.key}` };
    const json = { "content-type": "application/json" };
    const cookieA = { cookie: a.cookie };
    const requests = [
      { method: "GET", path: "/api/doctor", headers: keyB },
      { method: "GET", path: `/web/projects/${a.projectId}/traces`, headers: cookieA },
      { method: "GET", path: "/api/catalog?limit=1", headers: keyB },
      { method: "GET", path: "/api/search?query=typescript", headers: keyB },
      { method: "GET", path: `/web/projects/${a.projectId}/traces?before=${deepIds[10]}`, headers: cookieA },
      {
        method: "POST",
        path: "/api/prepare-task",
        headers: { ...keyB, ...json },
        body: JSON.stringify({ talentIds: ["typescript-strict", "javascript-base"] }),
      },
      { method: "GET", path: `/web/projects/${a.projectId}/traces?limit=50&before=${deepIds[19]}`, headers: cookieA },
      {
        method: "POST",
        path: "/api/validation/reports",
        headers: { ...keyB, ...json },
        body: JSON.stringify({ submissionId: "bench-%d", resolutionId, expertiseResults: [{ id: "typescript-strict", verdict: "pass" }] }),
      },
      { method: "GET", path: `/web/projects/${a.projectId}/traces?limit=50&before=${deepIds[2]}`, headers: cookieA },
      { method: "GET", path: "/healthz", headers: {} },
    ];
    // every request answers 2xx before the run (a wrong path would count as load)
    for (const r of requests) {
      const res = await fetch(server.base + r.path, { method: r.method, headers: r.headers, body: r.body?.replace("%d", "check") });
      if (res.status >= 300) throw new Error(`${r.method} ${r.path}: ${res.status} ${await res.text()}`);
    }
    if (process.env.BENCH_EACH === "1") {
      // each request alone (wrk -c10, 5 s): where the mixed run's time goes
      const rows: (string | number)[][] = [];
      for (const [k, r] of requests.entries()) {
        const one = join(dir, `one-${k}.lua`);
        writeFileSync(one, wrkScript([r]));
        const p = Bun.spawn(["wrk", "-t1", "-c10", "-d5s", "--latency", "-s", one, server.base], { stdout: "pipe" });
        const o = parseWrk(await new Response(p.stdout).text());
        rows.push([
          `${r.method} ${r.path.replace(/before=trc_\w+/, "before=…").slice(0, 70)}`,
          o.rps.toFixed(0),
          (1000 / o.rps).toFixed(3),
          o.p99.toFixed(2),
          o.non2xx,
        ]);
      }
      printTable("Each request alone (wrk -t1 -c10 -d5s)", ["request", "req/s", "ms of server per request", "p99 ms", "non-2xx"], rows);
    }
    const script = join(dir, "mixed.lua");
    writeFileSync(script, wrkScript(requests));
    const rssBefore = rssMiB(pid);

    // the other tenant's view, measured while the load runs
    const probe: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const t = performance.now();
        const r = await fetch(`${server.base}/api/doctor`, { headers: keyB });
        await r.arrayBuffer();
        if (r.status === 200) probe.push(performance.now() - t);
        await Bun.sleep(20);
      }
    })();
    const wrk = Bun.spawn(["wrk", "-t1", "-c50", `-d${seconds}s`, "--latency", "-s", script, server.base], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(wrk.stdout).text();
    await wrk.exited;
    probing = false;
    await prober;
    const w = parseWrk(out);
    const rssAfter = rssMiB(pid);
    await Bun.sleep(10_000);
    const rssIdle = rssMiB(pid);
    // the same mix below saturation: what latency is when requests do not queue behind 49 others
    const light = Bun.spawn(["wrk", "-t1", "-c10", `-d${Math.min(seconds, 20)}s`, "--latency", "-s", script, server.base], {
      stdout: "pipe",
    });
    const w10 = parseWrk(await new Response(light.stdout).text());
    probe.sort((x, y) => x - y);
    printTable(
      `Mixed load (wrk -t1 -c50 -d${seconds}s, ${requests.length} requests in turn; A's project holds ${events.toLocaleString("en")} trace events, seeded in ${seededS.toFixed(0)} s)`,
      ["connections", "req/s", "requests", "p50 ms", "p99 ms", "non-2xx", "socket errors", "target"],
      [
        ["50", w.rps.toFixed(0), w.requests, w.p50.toFixed(2), w.p99.toFixed(2), w.non2xx, w.socketErrors, "0 errors, p99 < 50 ms"],
        ["10", w10.rps.toFixed(0), w10.requests, w10.p50.toFixed(2), w10.p99.toFixed(2), w10.non2xx, w10.socketErrors, ""],
      ],
    );
    printTable(
      "Organization B's GET /api/doctor during the run (one sequential client, every 20 ms)",
      ["samples", "p50 ms", "p99 ms", "max ms"],
      [[probe.length, percentile(probe, 50).toFixed(2), percentile(probe, 99).toFixed(2), probe.at(-1)!.toFixed(2)]],
    );
    printTable(
      "Server RSS (MiB)",
      ["before the run", "right after", "after 10 s idle", "target"],
      [[rssBefore.toFixed(1), rssAfter.toFixed(1), rssIdle.toFixed(1), "< 120 MB"]],
    );
    await server.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
