/**
 * CPU per view of the home feed (`/`) and a project's Activity tab, in process (`app.handle`, no
 * socket; docs/performance.md "Home feed and Activity"): the same organization as `BENCH_PAGES=feed
 * bench orgpages` (20 projects of 10,000 trace events each by default, seeded by its
 * `seedOrganization`), then N sequential views of each page; the process's user+system CPU over
 * them, divided by N. Robust to other load on the machine, so it is the figure to compare two
 * builds with (run it in each checkout, alternated); wrk over the binary stays the figure of record.
 * BENCH_N (300), BENCH_PROJECTS (20), BENCH_EVENTS (200,000); BENCH_ONLY=activity (or home) measures one page;
 * BENCH_KEEP=1 keeps the folder (printed) for EXPLAIN and profiling. BENCH_ALLOC=1 runs it again in a child with JSC's GC
 * log (`BUN_JSC_logGC=1`) and adds the bytes of JavaScript heap allocated per view: the heap's size when each collection
 * starts less its size after the one before, summed between a full collection before the views and one after them.
 */
import "../src/production";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadCatalog } from "../src/catalog/startup";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { createLogger } from "../src/lib/log";
import { printTable, seedProject } from "./lib";
import { seedExpertises, seedOrganization } from "./orgpages";

/** Heap kB allocated between the two markers of `name` in a GC log: each collection's size before less the last one's after. */
function allocatedKb(log: string, name: string): number {
  const part = log.slice(log.indexOf(`<<alloc ${name}>>`), log.indexOf(`<</alloc ${name}>>`));
  let total = 0;
  let after: number | null = null;
  for (const m of part.matchAll(/START M (\d+)kb => \w+,[\s\S]*? => (\d+)kb, p=/g)) {
    if (after !== null) total += Number(m[1]) - after;
    after = Number(m[2]);
  }
  return total;
}

/** BENCH_ALLOC=1: the same bench in a child with the GC log, then the bytes allocated per view of each page. */
async function withAllocations(n: number): Promise<void> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "run.ts"), "feedcpu"], {
    env: { ...process.env, BENCH_ALLOC: "child", BUN_JSC_logGC: "1" },
    stdout: "inherit",
    stderr: "pipe",
  });
  const log = await new Response(child.stderr).text();
  if ((await child.exited) !== 0) throw new Error(`feedcpu child failed:\n${log.slice(-2000)}`);
  const rows = [...log.matchAll(/<<alloc (.+?)>>/g)].map(([, name]) => [name!, (allocatedKb(log, name!) / n).toFixed(1)]);
  printTable(`JavaScript heap allocated per view (GC log, ${n} views each)`, ["request", "kB/view"], rows);
}

export async function benchFeedCpu(): Promise<void> {
  if (process.env.BENCH_ALLOC === "1") return withAllocations(Number(process.env.BENCH_N ?? 300));
  const n = Number(process.env.BENCH_N ?? 300);
  const projects = Number(process.env.BENCH_PROJECTS ?? 20);
  const events = Number(process.env.BENCH_EVENTS ?? 200_000);
  const dir = mkdtempSync(join(tmpdir(), "talentd-feedcpu-"));
  const log = createLogger("error", () => {});
  mkdirSync(join(dir, "data"));
  const config = loadConfig(
    { DATA_DIR: join(dir, "data"), BASE_URL: "http://localhost:8787", AUTO_APPROVE_ORGS: "true" },
    {},
    { checkDataDir: false },
  );
  const database = await openDatabase(config.databaseUrl);
  const server = { stop: () => {} };
  try {
    await migrate(database.client);
    const { catalog } = await loadCatalog(undefined, log);
    const app = createApp({ config, database, log, state: { catalog, draining: false } });
    const listening = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => app.handle(r) });
    server.stop = () => void listening.stop(true);
    const base = `http://127.0.0.1:${listening.port}`;
    const a = await seedProject(base);
    const status = (await (await fetch(`${base}/web/orgs/current/status`, { headers: { cookie: a.cookie } })).json()) as {
      organization?: { slug: string };
      slug?: string;
    };
    const expertises = await seedExpertises(base, a.cookie, status.organization?.slug ?? status.slug!, 10);
    const seeded = seedOrganization(join(dir, "data", "talentd.db"), a.projectId, expertises, projects, events);
    const pages: [string, string][] = [
      ["page / (home feed)", "/"],
      ["page /projects/:id?tab=activity", `/projects/${a.projectId}?tab=activity`],
    ];
    const view = async (path: string) => {
      const r = await app.handle(new Request(`http://localhost:8787${path}`, { headers: { cookie: a.cookie, accept: "text/html" } }));
      const body = await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
      return body.byteLength;
    };
    const rows: (string | number)[][] = [];
    for (const [name, path] of pages) {
      if (process.env.BENCH_ONLY && !name.includes(process.env.BENCH_ONLY)) continue;
      for (let i = 0; i < 30; i++) await view(path);
      const each: number[] = [];
      const logged = process.env.BENCH_ALLOC === "child";
      if (logged) {
        console.error(`<<alloc ${name}>>`);
        Bun.gc(true);
      }
      const c0 = process.cpuUsage();
      let size = 0;
      for (let i = 0; i < n; i++) {
        const t = Bun.nanoseconds();
        size = await view(path);
        each.push((Bun.nanoseconds() - t) / 1e6);
      }
      const c = process.cpuUsage(c0);
      if (logged) {
        Bun.gc(true);
        console.error(`<</alloc ${name}>>`);
      }
      each.sort((x, y) => x - y);
      rows.push([
        `${name} (${(size / 1024).toFixed(0)} KB)`,
        ((c.user + c.system) / 1000 / n).toFixed(3),
        each[Math.floor(n / 2)]!.toFixed(3),
        each[Math.floor(n * 0.99)]!.toFixed(3),
      ]);
    }
    printTable(
      `CPU per view in process (${n} sequential views each; ${projects} projects, ${seeded.events.toLocaleString("en")} trace events)`,
      ["request", "CPU ms/view", "wall p50 ms", "wall p99 ms"],
      rows,
    );
  } finally {
    server.stop();
    database.close();
    if (process.env.BENCH_KEEP === "1") console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
