/**
 * Activity-summary figure (docs/performance.md), on the built binary over loopback: GET /web/projects/:id/traces/summary
 * (the default 30-day window) over a project holding 1,000,000 trace events spread evenly over
 * the 90 days of the default retention before now (about 11,100 a day, 463 an hour), with the resolutions,
 * audits and reports of an agent loop (a resolution per 10 events, half of them audited, a
 * report per 20). Target: p99 < 50 ms. Measured: the first call after start (every past day
 * cold), one sequential client (a dashboard), and wrk -c10; then days=90, and the other
 * activity routes (usage, organization summary, insights, adoption) for the record.
 * BENCH_EVENTS and BENCH_SECONDS override.
 */
import Native from "libsql";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { orderedId } from "../src/lib/ids";
import { parseWrk, wrkScript } from "./lib";
import { percentile, printTable, rssMiB, seedProject, startBinaryIn } from "./lib";

const DAY = 86_400_000;
const KINDS = ["search", "read", "doctor", "designable", "catalog", "read", "search", "discover"];
const CLIENTS = ["claude-code/1.0.33", "cursor/1.2.0", "codex-cli/0.9.1", "curl/8.5.0", null];

/** Writes the project's history straight into the stopped server's database; returns counts. */
export function seedHistory(dbPath: string, projectId: string, n: number) {
  const db = new Native(dbPath);
  const event = db.prepare(
    `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
     VALUES (?, ?, ?, 'api', 'key', 'key_bench', 'bench', ?, '[]', '[]', ?, ?, 1, ?, ?)`,
  );
  const resolution = db.prepare(
    `INSERT INTO resolutions (id, project_id, language, tokens, catalog_digest, author_type, author_id, via, created_at, designation_id) VALUES (?1, ?2, NULL, 900, 'sha256:bench', 'key', 'key_bench', 'api', ?3, ?1)`,
  );
  const item = db.prepare(
    `INSERT INTO designation_items (designation_id, position, project_id, talent_id, kind, version, digest, definition_digest, files, expertise_id) VALUES (?1, 0, (SELECT project_id FROM resolutions WHERE id = ?1), 'typescript-strict', 'talent', ?2, 'sha256:c', 'sha256:d', '{}', NULL)`,
  );
  const report = db.prepare(
    `INSERT INTO reports (id, project_id, resolution_id, submission_id, payload_digest, response, author_type, author_id, created_at) VALUES (?, ?, ?, ?, 'x', '{}', 'key', 'key_bench', ?)`,
  );
  const result = db.prepare(
    `INSERT INTO report_results (report_id, talent_id, kind, verdict, evidence, missing, note) VALUES (?, 'typescript-strict', 'talent', ?, ?, '[]', NULL)`,
  );
  // evenly over the 90 days before now (about 463 events an hour), the last one a second ago
  const now = Date.now() - 1000;
  const at = (i: number) => Math.floor(now - 90 * DAY + ((i + 1) * 90 * DAY) / n);
  const counts = { events: 0, resolutions: 0, audited: 0, reports: 0 };
  let lastResolution: string | null = null;
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const t = at(i);
      const id = `trc_${orderedId(t, i)}`;
      const client = CLIENTS[(i >> 3) % CLIENTS.length] ?? null;
      let kind = KINDS[i % KINDS.length]!;
      let resolutionId: string | null = null;
      let status = 200;
      let detail: string | null = null;
      const m = i % 20;
      if (m === 0 || m === 10) {
        kind = "prepare_task";
        status = 201;
        resolutionId = lastResolution = `res_${orderedId(t, i)}`;
        resolution.run(resolutionId, projectId, t);
        item.run(resolutionId, i < n / 2 ? "0.9.0" : "1.0.0");
        counts.resolutions++;
      } else if (m === 1 && lastResolution) {
        kind = "validate"; // the resolution of m = 0 is audited, the one of m = 10 is not
        resolutionId = lastResolution;
        counts.audited++;
      } else if (m === 2 && lastResolution) {
        kind = "record_validation";
        status = 201;
        resolutionId = lastResolution;
        const reportId = `rep_${orderedId(t, i)}`;
        report.run(reportId, projectId, lastResolution, `bench-${i}`, t);
        result.run(reportId, i % 40 === 2 ? "fail" : "pass", i % 40 === 2 ? '["src/a.ts:1"]' : "[]");
        counts.reports++;
      } else if (i % 37 === 5) {
        status = i % 2 ? 400 : 404;
        detail = JSON.stringify({ error: status === 400 ? "validation_failed" : "not_found" });
      }
      event.run(id, projectId, kind, client, resolutionId, status, detail, t);
      counts.events++;
    }
  });
  for (let i = 0; i < n; i += 50_000) batch(i, Math.min(n, i + 50_000));
  let sizes: string;
  try {
    const rows = db
      .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'trace_events%' GROUP BY name ORDER BY name")
      .all() as { name: string; bytes: number }[];
    sizes = rows.map((r) => `${r.name} ${(Number(r.bytes) / 2 ** 20).toFixed(0)} MiB`).join(", ");
  } catch {
    sizes = "(dbstat not available)";
  }
  db.close();
  return { ...counts, sizes };
}

/** `count` sequential GETs; latencies in ms, sorted. */
async function sequential(url: string, cookie: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const r = await fetch(url, { headers: { cookie } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

/** One timed GET (the first after start: every past day is read cold). */
async function once(url: string, cookie: string): Promise<{ ms: number; body: unknown }> {
  const t = performance.now();
  const r = await fetch(url, { headers: { cookie } });
  const body = await r.json();
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t, body };
}

export async function benchActivity(): Promise<void> {
  const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const dir = mkdtempSync(join(tmpdir(), "talentd-activity-"));
  try {
    let server = await startBinaryIn(dir);
    const a = await seedProject(server.base);
    await fetch(`${server.base}/web/projects/${a.projectId}/talents`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.base, cookie: a.cookie },
      body: JSON.stringify({ talents: ["typescript-strict", "javascript-base"] }),
    });
    await server.stop();
    const t0 = performance.now();
    const seeded = seedHistory(join(dir, "data", "talentd.db"), a.projectId, events);
    const seededS = (performance.now() - t0) / 1000;
    server = await startBinaryIn(dir);
    const base = `${server.base}/web/projects/${a.projectId}`;
    const summary = `${base}/traces/summary`;

    const cold30 = await once(summary, a.cookie);
    const total = (cold30.body as { totals: { events: number } }).totals.events;
    const seq30 = await sequential(summary, a.cookie, 300);
    const script = join(dir, "summary.lua");
    writeFileSync(
      script,
      wrkScript([{ method: "GET", path: `/web/projects/${a.projectId}/traces/summary`, headers: { cookie: a.cookie } }]),
    );
    const wrk = Bun.spawn(["wrk", "-t1", "-c10", `-d${seconds}s`, "--latency", "-s", script, server.base], { stdout: "pipe" });
    const w = parseWrk(await new Response(wrk.stdout).text());
    const cold90 = await once(`${summary}?days=90`, a.cookie);
    const seq90 = await sequential(`${summary}?days=90`, a.cookie, 100);
    const row = (name: string, t: number[]) => [
      name,
      t.length,
      percentile(t, 50).toFixed(2),
      percentile(t, 99).toFixed(2),
      t.at(-1)!.toFixed(2),
    ];
    printTable(
      `GET /web/projects/:id/traces/summary over ${seeded.events.toLocaleString("en")} trace events (90 days, ${seeded.resolutions.toLocaleString("en")} resolutions, ${seeded.reports.toLocaleString("en")} reports; seeded in ${seededS.toFixed(0)} s; ${total.toLocaleString("en")} events in the 30-day window)`,
      ["measure", "requests", "p50 ms", "p99 ms", "max ms"],
      [
        ["first call after start, days=30 (29 cold days)", 1, cold30.ms.toFixed(2), "", ""],
        row("one client, days=30 (target p99 < 50 ms)", seq30),
        [
          `wrk -t1 -c10 -d${seconds}s, days=30 (${w.rps.toFixed(0)} req/s, non-2xx ${w.non2xx})`,
          w.requests,
          w.p50.toFixed(2),
          w.p99.toFixed(2),
          "",
        ],
        ["first call with days=90 (60 more cold days)", 1, cold90.ms.toFixed(2), "", ""],
        row("one client, days=90", seq90),
      ],
    );
    const others: [string, string][] = [
      ["GET …/talents/typescript-strict/usage (days=30)", `${base}/talents/typescript-strict/usage`],
      ["GET /web/activity/summary (days=30)", `${server.base}/web/activity/summary`],
      ["GET /web/orgs/current/insights (days=30)", `${server.base}/web/orgs/current/insights`],
      ["GET /web/orgs/current/talent-adoption (days=30)", `${server.base}/web/orgs/current/talent-adoption`],
    ];
    const rows = [];
    for (const [name, url] of others) rows.push(row(name, await sequential(url, a.cookie, 20)));
    printTable(
      "The other activity routes over the same project (one client, 20 calls each; for the record)",
      ["route", "requests", "p50 ms", "p99 ms", "max ms"],
      rows,
    );
    printTable(
      "Index sizes and server memory",
      ["trace_events indexes", "RSS after the run (MiB)"],
      [[seeded.sizes, rssMiB(server.pid).toFixed(1)]],
    );
    await server.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
