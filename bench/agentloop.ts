/**
 * Agent-loop figures (docs/performance.md), on the built binary over loopback, with a generated catalog of 5,000 talents
 * in TALENTS_DIR and 50 of them installed in the project:
 * 1. POST /api/prepare-task with 10 designated talents: p50/p99 and req/s, against /healthz in
 *    the same run (targets: p99 < 10 ms, throughput ≥ 0.25 × /healthz);
 * 2. GET /api/search over the 5,000 talents (scope=catalog, k=10), a query matching many
 *    talents and one matching one (target p99 < 5 ms);
 * 3. POST /api/talents/get of 20 uris pinned by one resolution (target p99 < 10 ms);
 * 4. POST /api/validation/reports: req/s (synchronous=FULL; a new submissionId per request),
 *    and the data-loss check: kill -9 mid-load, restart on the same data folder, every report
 *    that got a 2xx is listed, and PRAGMA integrity_check is ok.
 *
 * Each latency figure is measured twice: autocannon with 10 connections for BENCH_SECONDS (the
 * throughput and the latency under load; autocannon rounds latencies to whole ms), and one
 * client sending requests one after another (fetch, timed with performance.now(), so sub-ms
 * resolution; the latency of one agent).
 */
import { createClient } from "@libsql/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, generateCatalog, load, percentile, printTable, seedProject, startBinary, startBinaryIn, type LoadResult } from "./lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const CATALOG_SIZE = 5000;
/** The installed talents: gen-talent-1000 … gen-talent-1049 (every third requires the one before). */
const INSTALLED = Array.from({ length: 50 }, (_, i) => `gen-talent-${1000 + i}`);
/** The designated talents: ten of the installed ones. */
const DESIGNATED = INSTALLED.slice(10, 20);
/** A query matching many generated talents (keyword area1, area10 … area19) and one matching one. */
const QUERY_MANY = "area1";
const QUERY_FEW = "gen4321";

interface Seq {
  count: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
}

/** Sends requests one after another for at most `ms` or `max` requests; latency per request, body read. */
async function sequential(make: () => Promise<Response>, budgetMs = Math.min(3000, SECONDS * 600), max = 3000): Promise<Seq> {
  for (let i = 0; i < 50; i++) await (await make()).arrayBuffer(); // warm-up
  const times: number[] = [];
  let non2xx = 0;
  const start = performance.now();
  const end = start + budgetMs;
  while (times.length < max && performance.now() < end) {
    const t0 = performance.now();
    const r = await make();
    await r.arrayBuffer();
    times.push(performance.now() - t0);
    if (r.status < 200 || r.status > 299) non2xx++;
  }
  const rps = times.length / ((performance.now() - start) / 1000);
  times.sort((a, b) => a - b);
  return { count: times.length, rps, p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1)!, non2xx };
}

const verdict = (ok: boolean) => (ok ? "met" : "**not met**");
const ms = (x: number) => x.toFixed(2);
const loadRow = (name: string, r: LoadResult): (string | number)[] => [
  name,
  `${CONNECTIONS} (autocannon)`,
  r.rps.toFixed(0),
  r.p50,
  r.p99,
  r.non2xx + r.errors,
];
const seqRow = (name: string, r: Seq): (string | number)[] => [
  name,
  `1 (sequential, ${r.count} reqs)`,
  r.rps.toFixed(0),
  ms(r.p50),
  ms(r.p99),
  r.non2xx,
];

/** The number of generated talents whose searchable text contains `word` (keywords, as generated). */
function generatedMatches(word: string): number {
  let n = 0;
  for (let i = 0; i < CATALOG_SIZE; i++) if ([`area${i % 97}`, `module${i % 13}`, `gen${i}`].some((k) => k.includes(word))) n++;
  return n;
}

async function json<T>(r: Response, what: string, status?: number): Promise<T> {
  if (status !== undefined ? r.status !== status : r.status >= 300) throw new Error(`${what}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

/** Seeds a project, installs the 50 talents (web route, session cookie + origin) and prepares one resolution. */
async function seedLoop(base: string) {
  const seed = await seedProject(base);
  const web = { "content-type": "application/json", origin: base, cookie: seed.cookie };
  const api = { "content-type": "application/json", authorization: `Bearer ${seed.key}` };
  const installed = await json<{ installed: string[] }>(
    await fetch(`${base}/web/projects/${seed.projectId}/talents`, {
      method: "POST",
      headers: web,
      body: JSON.stringify({ talents: INSTALLED }),
    }),
    "install",
    201,
  );
  if (installed.installed.length !== INSTALLED.length) throw new Error(`installed ${installed.installed.length} of ${INSTALLED.length}`);
  const prepareBody = JSON.stringify({ talentIds: DESIGNATED });
  const res = await json<{ resolutionId: string }>(
    await fetch(`${base}/api/prepare-task`, { method: "POST", headers: api, body: prepareBody }),
    "prepare-task",
    201,
  );
  return { ...seed, web, api, prepareBody, resolutionId: res.resolutionId };
}

export async function benchAgentLoop(): Promise<void> {
  if (!(await Bun.file(BINARY).exists())) throw new Error("dist/talentd is missing: run `bun run build` first");
  const gen = mkdtempSync(join(tmpdir(), "talentd-gen-"));
  generateCatalog(gen, CATALOG_SIZE);
  try {
    await figures(gen);
    await dataLoss(gen);
  } finally {
    rmSync(gen, { recursive: true, force: true });
  }
}

async function figures(gen: string): Promise<void> {
  const server = await startBinary({ TALENTS_DIR: gen });
  try {
    const s = await seedLoop(server.base);
    const ready = (await (await fetch(`${server.base}/readyz`)).json()) as { catalog: { talents: number } };
    const base = server.base;

    // ---- 1. prepare-task, with /healthz of the same run
    const health = await load({ url: `${base}/healthz`, seconds: SECONDS, connections: CONNECTIONS });
    const prep = await load({
      url: `${base}/api/prepare-task`,
      method: "POST",
      headers: s.api,
      body: s.prepareBody,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    const prepSeq = await sequential(() => fetch(`${base}/api/prepare-task`, { method: "POST", headers: s.api, body: s.prepareBody }));
    const ratio = prep.rps / health.rps;
    printTable(
      `1. POST /api/prepare-task, 10 designated of 50 installed, catalog of ${ready.catalog.talents} talents (${SECONDS} s per autocannon run)`,
      ["route", "connections", "req/s", "p50 ms", "p99 ms", "non-2xx/errors"],
      [loadRow("GET /healthz", health), loadRow("POST /api/prepare-task", prep), seqRow("POST /api/prepare-task", prepSeq)],
    );
    printTable(
      "1. verdicts",
      ["target", "measured", "verdict"],
      [
        ["p99 < 10 ms (autocannon, 10 connections)", `${prep.p99} ms`, verdict(prep.p99 < 10)],
        ["p99 < 10 ms (one client, sequential)", `${ms(prepSeq.p99)} ms`, verdict(prepSeq.p99 < 10)],
        ["req/s ≥ 0.25 × /healthz", `${ratio.toFixed(3)} × (${prep.rps.toFixed(0)} / ${health.rps.toFixed(0)})`, verdict(ratio >= 0.25)],
      ],
    );

    // ---- 2. search over the catalog
    const searchUrl = (q: string) => `${base}/api/search?query=${encodeURIComponent(q)}&scope=catalog&k=10`;
    const searchRows: (string | number)[][] = [];
    const searchVerdicts: (string | number)[][] = [];
    for (const q of [QUERY_MANY, QUERY_FEW]) {
      const check = await json<{ results: unknown[] }>(await fetch(searchUrl(q), { headers: s.api }), `search ${q}`, 200);
      const label = `search "${q}" (${generatedMatches(q)} match, ${check.results.length} returned)`;
      const r = await load({ url: searchUrl(q), headers: s.api, seconds: SECONDS, connections: CONNECTIONS });
      const sq = await sequential(() => fetch(searchUrl(q), { headers: s.api }));
      searchRows.push(loadRow(label, r), seqRow(label, sq));
      searchVerdicts.push(
        [`"${q}" p99 < 5 ms (autocannon)`, `${r.p99} ms`, verdict(r.p99 < 5)],
        [`"${q}" p99 < 5 ms (sequential)`, `${ms(sq.p99)} ms`, verdict(sq.p99 < 5)],
      );
    }
    printTable(
      `2. GET /api/search?scope=catalog&k=10 over ${ready.catalog.talents} talents`,
      ["query", "connections", "req/s", "p50 ms", "p99 ms", "non-2xx/errors"],
      searchRows,
    );
    printTable("2. verdicts", ["target", "measured", "verdict"], searchVerdicts);

    // ---- 3. pinned read of 20 uris
    const uris = DESIGNATED.flatMap((id) => [{ uri: `talent://${id}` }, { uri: `talent://${id}/references/details.md` }]);
    const readBody = JSON.stringify({ resolutionId: s.resolutionId, uris });
    const readUrl = `${base}/api/talents/get`;
    const got = await json<{ files: { pinned: boolean; content: string }[] }>(
      await fetch(readUrl, { method: "POST", headers: s.api, body: readBody }),
      "read",
      200,
    );
    if (got.files.length !== 20 || !got.files.every((f) => f.pinned)) throw new Error("the read did not return 20 pinned files");
    const bytes = got.files.reduce((n, f) => n + f.content.length, 0);
    const read = await load({ url: readUrl, method: "POST", headers: s.api, body: readBody, seconds: SECONDS, connections: CONNECTIONS });
    const readSeq = await sequential(() => fetch(readUrl, { method: "POST", headers: s.api, body: readBody }));
    printTable(
      `3. POST /api/talents/get {resolutionId, uris: 20 pinned} (${(bytes / 1024).toFixed(0)} KiB of content per answer)`,
      ["route", "connections", "req/s", "p50 ms", "p99 ms", "non-2xx/errors"],
      [loadRow("read 20 pinned uris", read), seqRow("read 20 pinned uris", readSeq)],
    );
    printTable(
      "3. verdicts",
      ["target", "measured", "verdict"],
      [
        ["p99 < 10 ms (autocannon)", `${read.p99} ms`, verdict(read.p99 < 10)],
        ["p99 < 10 ms (sequential)", `${ms(readSeq.p99)} ms`, verdict(readSeq.p99 < 10)],
      ],
    );

    // ---- 4a. report recording throughput
    const reportBody = (submissionId: string) =>
      JSON.stringify({ submissionId, resolutionId: s.resolutionId, expertiseResults: [{ id: DESIGNATED[0], verdict: "pass" }] });
    const rep = await load({
      url: `${base}/api/validation/reports`,
      method: "POST",
      headers: s.api,
      body: reportBody("ac-[<id>]"),
      idReplacement: true,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    let n = 0;
    const repSeq = await sequential(() =>
      fetch(`${base}/api/validation/reports`, { method: "POST", headers: s.api, body: reportBody(`seq-${++n}`) }),
    );
    printTable(
      "4. POST /api/validation/reports (synchronous=FULL, WAL; a new submissionId per request)",
      ["route", "connections", "req/s", "p50 ms", "p99 ms", "non-2xx/errors"],
      [loadRow("record a report", rep), seqRow("record a report", repSeq)],
    );
  } finally {
    await server.stop();
  }
}

/** kill -9 mid-load; restart on the same folder; every acknowledged report is there; integrity_check. */
async function dataLoss(gen: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-kill-"));
  try {
    let server = await startBinaryIn(dir, { TALENTS_DIR: gen });
    const s = await seedLoop(server.base);
    const url = `${server.base}/api/validation/reports`;
    const acked = new Set<string>();
    const sent = new Set<string>();
    let refused = 0;
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const submissionId = `kill-${w}-${i}`;
        sent.add(submissionId);
        try {
          const r = await fetch(url, {
            method: "POST",
            headers: s.api,
            body: JSON.stringify({
              submissionId,
              resolutionId: s.resolutionId,
              expertiseResults: [{ id: DESIGNATED[0], verdict: "pass" }],
            }),
          });
          await r.arrayBuffer();
          if (r.status >= 200 && r.status < 300) acked.add(submissionId);
          else refused++;
        } catch {
          return; // the server is gone
        }
      }
    };
    const t0 = performance.now();
    const workers = Array.from({ length: CONNECTIONS }, (_, w) => worker(w));
    const killAfter = Math.min(2000, SECONDS * 400);
    await Bun.sleep(killAfter);
    const ackedAtKill = acked.size;
    await server.kill();
    const killedAt = performance.now() - t0;
    stop = true;
    await Promise.all(workers);
    const inFlight = sent.size - acked.size - refused;

    server = await startBinaryIn(dir, { TALENTS_DIR: gen });
    let listed: Set<string>;
    try {
      const r = await fetch(`${server.base}/web/projects/${s.projectId}/resolutions/${s.resolutionId}/reports`, {
        headers: { cookie: s.cookie },
      });
      const body = await json<{ reports: { submissionId: string }[] }>(r, "list reports", 200);
      listed = new Set(body.reports.map((x) => x.submissionId));
    } finally {
      await server.stop();
    }
    const lost = [...acked].filter((id) => !listed.has(id));
    const unacked = [...listed].filter((id) => id.startsWith("kill-") && !acked.has(id)).length;

    // integrity: directly on the database file, then through `talentd backup` (VACUUM INTO + integrity_check)
    const db = createClient({ url: `file:${join(dir, "data", "talentd.db")}` });
    let integrity: string;
    try {
      integrity = String((await db.execute("PRAGMA integrity_check")).rows[0]?.[0]);
    } finally {
      db.close();
    }
    const backup = Bun.spawnSync([BINARY, "backup", join(dir, "after-kill.db")], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "error" },
    });
    const backupOut = `${backup.stdout.toString()}${backup.stderr.toString()}`.trim();
    const backupOk = backup.exitCode === 0 && backupOut.includes("integrity_check ok");

    printTable(
      `4. Data-loss check: ${CONNECTIONS} concurrent clients recording reports, kill -9 after ${killedAt.toFixed(0)} ms, restart on the same DATA_DIR`,
      [
        "reports acknowledged (2xx)",
        "listed after restart",
        "acknowledged but missing",
        "listed, in flight at kill (no answer)",
        "requests without an answer",
        "integrity_check (file)",
        "talentd backup",
        "verdict",
      ],
      [
        [
          acked.size,
          [...listed].filter((id) => id.startsWith("kill-")).length,
          lost.length,
          unacked,
          inFlight,
          integrity,
          backupOk ? "ok" : backupOut,
          verdict(lost.length === 0 && integrity === "ok" && backupOk),
        ],
      ],
    );
    console.log(
      `(acknowledged when the kill was sent: ${ackedAtKill}; ${(acked.size / (killedAt / 1000)).toFixed(0)} reports/s before the kill)`,
    );
    if (lost.length > 0) console.log(`lost: ${lost.slice(0, 10).join(", ")}${lost.length > 10 ? " …" : ""}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
