/**
 * Web catalog figures (docs/performance.md), on the built binary over loopback with wrk (-t1, 10 connections): with
 * 5,000 generated talents in TALENTS_DIR (slimmed to lazy talents after start, as in
 * production), `GET /web/catalog?query=…` (one-word and two-word queries in turn) and
 * `GET /web/catalog/:id` (the talent sheet, 300 different ids in turn, so the lazy-talent LRU
 * is exercised). Targets: p99 < 10 ms each.
 * Page figures (docs/performance.md), same server: the pages `GET /catalog` (5,000 talents: the specializations
 * block and the first cards) and `GET /projects/:id` with 50 installed talents. Target: p99 < 15 ms
 * server render at 10 connections.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCatalog, printTable, runWrk, seedProject, startBinaryIn } from "./lib";

export async function benchWebCatalog(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const dir = mkdtempSync(join(tmpdir(), "talentd-webcatalog-"));
  try {
    const talents = join(dir, "talents");
    generateCatalog(talents, 5000);
    const server = await startBinaryIn(join(dir, "run"), { TALENTS_DIR: talents });
    try {
      await Bun.sleep(3000); // let the start-up slimming make the generated talents lazy
      const seed = await seedProject(server.base);
      const cookie = { cookie: seed.cookie };
      const queries = [
        "area12",
        "module7",
        "gen4321",
        "benchmarking the catalog",
        "pattern number 3",
        "typescript",
        "area96 module1",
        "generated talent 777",
      ];
      const searches = queries.map((q) => ({ method: "GET", path: `/web/catalog?query=${encodeURIComponent(q)}`, headers: cookie }));
      // 2,000 different queries (the 8 above with a number), more than the searches kept: each one cold
      const cold = Array.from({ length: 2000 }, (_, i) => ({
        method: "GET",
        path: `/web/catalog?query=${encodeURIComponent(`${queries[i % queries.length]} ${i}`)}`,
        headers: cookie,
      }));
      const sheets = Array.from({ length: 300 }, (_, i) => ({
        method: "GET",
        path: `/web/catalog/gen-talent-${(i * 16 + 7) % 5000}`,
        headers: cookie,
      }));
      // 2,000 different talents in turn, more than the 1,024 sheets kept: each one rebuilt from stored bytes
      const coldSheets = Array.from({ length: 2000 }, (_, i) => ({
        method: "GET",
        path: `/web/catalog/gen-talent-${(i * 7 + 3) % 5000}`,
        headers: cookie,
      }));
      for (const r of [...searches, sheets[0]!]) {
        const res = await fetch(server.base + r.path, { headers: r.headers });
        if (res.status !== 200) throw new Error(`${r.path}: ${res.status} ${await res.text()}`);
      }
      if (process.env.BENCH_EACH === "1") {
        const rows: (string | number)[][] = [];
        for (const r of [...searches, sheets[0]!]) {
          const one = await runWrk(server.base, [r], { seconds: 3, dir, name: "one" });
          rows.push([r.path, one.rps.toFixed(0), one.p50.toFixed(2), one.p99.toFixed(2)]);
        }
        printTable("Each request alone (wrk -t1 -c10 -d3s)", ["request", "req/s", "p50 ms", "p99 ms"], rows);
      }
      // 50 installed talents (gen-talent-0…49; their prerequisites are among them)
      const install = await fetch(`${server.base}/web/projects/${seed.projectId}/talents`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.base, cookie: seed.cookie },
        body: JSON.stringify({ talents: Array.from({ length: 50 }, (_, i) => `gen-talent-${i}`) }),
      });
      if (install.status !== 201) throw new Error(`install: ${install.status} ${await install.text()}`);
      const catalogPage = [{ method: "GET", path: "/catalog", headers: cookie }];
      const projectPage = [{ method: "GET", path: `/projects/${seed.projectId}`, headers: cookie }];
      for (const r of [...catalogPage, ...projectPage]) {
        const res = await fetch(server.base + r.path, { headers: r.headers });
        const html = await res.text();
        if (res.status !== 200 || !html.includes("<html")) throw new Error(`${r.path}: ${res.status} ${html.slice(0, 300)}`);
      }
      const s = await runWrk(server.base, searches, { seconds, dir, name: "search" });
      const sc = await runWrk(server.base, cold, { seconds, dir, name: "search-cold" });
      const cp = await runWrk(server.base, catalogPage, { seconds, dir, name: "catalog-page" });
      const pp = await runWrk(server.base, projectPage, { seconds, dir, name: "project-page" });
      const t = await runWrk(server.base, sheets, { seconds, dir, name: "sheet" });
      const tc = await runWrk(server.base, coldSheets, { seconds, dir, name: "sheet-cold" });
      printTable(
        `Catalog for people with 5,050 talents (wrk -t1 -c10 -d${seconds}s)`,
        ["request", "req/s", "p50 ms", "p99 ms", "non-2xx", "target"],
        [
          [
            `GET /web/catalog?query=… (${queries.length} queries in turn)`,
            s.rps.toFixed(0),
            s.p50.toFixed(2),
            s.p99.toFixed(2),
            s.non2xx + s.socketErrors,
            "p99 < 10 ms",
          ],
          [
            `GET /web/catalog?query=… (2,000 different queries, none repeated within the kept 512)`,
            sc.rps.toFixed(0),
            sc.p50.toFixed(2),
            sc.p99.toFixed(2),
            sc.non2xx + sc.socketErrors,
            "(cold: no target)",
          ],
          [
            "GET /web/catalog/:id (300 lazy talents in turn)",
            t.rps.toFixed(0),
            t.p50.toFixed(2),
            t.p99.toFixed(2),
            t.non2xx + t.socketErrors,
            "p99 < 10 ms",
          ],
          [
            "GET /web/catalog/:id (2,000 different talents, none kept)",
            tc.rps.toFixed(0),
            tc.p50.toFixed(2),
            tc.p99.toFixed(2),
            tc.non2xx + tc.socketErrors,
            "(cold: no target)",
          ],
          [
            "page GET /catalog (5,050 talents)",
            cp.rps.toFixed(0),
            cp.p50.toFixed(2),
            cp.p99.toFixed(2),
            cp.non2xx + cp.socketErrors,
            "p99 < 15 ms",
          ],
          [
            "page GET /projects/:id (50 installed)",
            pp.rps.toFixed(0),
            pp.p50.toFixed(2),
            pp.p99.toFixed(2),
            pp.non2xx + pp.socketErrors,
            "p99 < 15 ms",
          ],
        ],
      );
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
