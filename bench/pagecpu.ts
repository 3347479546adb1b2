/**
 * CPU time per request of the dashboard's pages and the catalog routes for people, in process
 * (`app.handle`, no socket): the process's user+system CPU over N sequential requests, divided
 * by N. Robust to other load on the machine (it counts this process's CPU, not wall time), so it
 * is the figure to compare before and after a change; wrk over the built binary (webcatalog)
 * stays the figure of record. 5,000 generated talents (lazy, as after start-up), 50 installed.
 */
import "../src/production";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { CATALOG_PAGE_MAX, catalogPage } from "../src/catalog/routes";
import { loadCatalog, offloadTalents } from "../src/catalog/startup";
import { intParam, strParam } from "../src/http/query";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { createLogger } from "../src/lib/log";
import { generateCatalog, printTable } from "./lib";

export async function benchPageCpu(): Promise<void> {
  const n = Number(process.env.BENCH_N ?? 300);
  const dir = mkdtempSync(join(tmpdir(), "talentd-pagecpu-"));
  try {
    const talents = join(dir, "talents");
    generateCatalog(talents, Number(process.env.BENCH_TALENTS ?? 5000));
    const log = createLogger("error", () => {});
    mkdirSync(join(dir, "data"));
    const config = loadConfig(
      { DATA_DIR: join(dir, "data"), BASE_URL: "http://localhost:8787", TALENTS_DIR: talents },
      {},
      { checkDataDir: false },
    );
    const database = await openDatabase(config.databaseUrl);
    await migrate(database.client);
    const { catalog, extraFolders } = await loadCatalog(talents, log);
    await offloadTalents(database, catalog, extraFolders);
    const app = createApp({ config, database, log, state: { catalog, draining: false } });
    // the key route's handler with no guard and no trace (as bench/ceiling-server.ts): the guard's and the trace's cost is the difference
    app.get("/bench/catalog", ({ query }) =>
      catalogPage(catalog, intParam(query, "limit", 1, CATALOG_PAGE_MAX, 50), strParam(query, "cursor", 200)),
    );
    const origin = "http://localhost:8787";
    let cookie = "";
    let bearer = "";
    const call = async (method: string, path: string, body?: unknown) => {
      const auth: Record<string, string> =
        (path.startsWith("/api/") || path === "/mcp") && bearer ? { authorization: `Bearer ${bearer}` } : {};
      if (path === "/mcp") auth.accept = "application/json, text/event-stream";
      const res = await app.handle(
        new Request(origin + path, {
          method,
          headers: { origin, cookie, ...auth, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }),
      );
      const set = res.headers.get("set-cookie");
      const m = set && /talentd_session=([^;]*)/.exec(set);
      if (m) cookie = `talentd_session=${m[1]}`;
      return res;
    };
    await call("POST", "/api/auth/sign-up", { email: "bench@example.com", password: "correct horse battery" });
    const org = (await (await call("POST", "/web/orgs", { name: "Bench" })).json()).organization;
    await database.client.execute({ sql: "UPDATE organizations SET status = 'approved' WHERE id = ?", args: [org.id] });
    const project = (await (await call("POST", "/web/projects", { name: "Bench project" })).json()).project;
    const inst = await call("POST", `/web/projects/${project.id}/talents`, {
      talents: Array.from({ length: 50 }, (_, i) => `gen-talent-${i}`),
    });
    if (inst.status !== 201) throw new Error(`install: ${inst.status} ${await inst.text()}`);
    bearer = (
      (await (
        await call("POST", `/web/projects/${project.id}/keys`, { name: "bench", tools: ["prepare_task", "deepen", "catalog", "doctor"] })
      ).json()) as { value: string }
    ).value;
    const only = process.env.BENCH_ONLY;
    const routes: [string, string[], unknown?][] = [
      [
        "POST /api/prepare-task (10 talents)",
        ["/api/prepare-task"],
        { talentIds: Array.from({ length: 10 }, (_, i) => `gen-talent-${10 + i}`) },
      ],
      ["GET /api/doctor (key)", ["/api/doctor"]],
      [
        "POST /mcp tools/call svc_doctor (key)",
        ["/mcp"],
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_doctor", arguments: {} } },
      ],
      ["GET /api/catalog?limit=1 (key)", ["/api/catalog?limit=1"]],
      ["GET /api/search?query=area1 (catalog, k=10)", ["/api/search?query=area1&scope=catalog&k=10"]],
      ["GET /bench/catalog?limit=1 (no guard, no trace)", ["/bench/catalog?limit=1"]],
      ["page /projects/:id (50 installed)", [`/projects/${project.id}`]],
      ["page /catalog", ["/catalog"]],
      ["page /", ["/"]],
      [
        "GET /web/catalog?query=… (8 in turn)",
        [
          "area12",
          "module7",
          "gen4321",
          "benchmarking the catalog",
          "pattern number 3",
          "typescript",
          "area96 module1",
          "generated talent 777",
        ].map((q) => `/web/catalog?query=${encodeURIComponent(q)}`),
      ],
      ["GET /web/catalog/:id (300 in turn)", Array.from({ length: 300 }, (_, i) => `/web/catalog/gen-talent-${(i * 16 + 7) % 5000}`)],
      ["GET /healthz", ["/healthz"]],
    ];
    const rows: (string | number)[][] = [];
    for (const [name, paths, body] of routes) {
      const method = body ? "POST" : "GET";
      if (only && !only.split(",").some((o) => name.startsWith(o))) continue;
      for (let i = 0; i < 30; i++) await (await call(method, paths[i % paths.length]!, body)).arrayBuffer();
      const each: number[] = [];
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const t = Bun.nanoseconds();
        const res = await call(method, paths[i % paths.length]!, body);
        await res.arrayBuffer();
        if (res.status !== (body && !paths[0]!.startsWith("/mcp") ? 201 : 200))
          throw new Error(`${paths[i % paths.length]}: ${res.status}`);
        each.push((Bun.nanoseconds() - t) / 1e6);
      }
      const c = process.cpuUsage(c0);
      each.sort((a, b) => a - b);
      const size = (await (await call(method, paths[0]!, body)).arrayBuffer()).byteLength;
      if (process.env.BENCH_DUMP)
        await Bun.write(`${process.env.BENCH_DUMP}-${rows.length}.html`, await (await call(method, paths[0]!, body)).text());
      rows.push([
        `${name} (${(size / 1024).toFixed(0)} KB)`,
        ((c.user + c.system) / 1000 / n).toFixed(3),
        each[Math.floor(n / 2)]!.toFixed(3),
        each[Math.floor(n * 0.99)]!.toFixed(3),
      ]);
    }
    const T = (globalThis as any).T;
    if (T) console.log(Object.fromEntries(Object.entries(T).map(([k, v]) => [k, k === "n" ? v : ((v as number) / T.n / 1e6).toFixed(3)])));
    printTable(`CPU per request in process (${n} sequential requests each)`, ["request", "CPU ms/req", "wall p50 ms", "wall p99 ms"], rows);
    database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main || process.env.BENCH_PAGECPU_RUN === "1") await benchPageCpu();
