/**
 * CPU time per request of the key route (`GET /api/catalog?limit=1`), a catalog search and the validation playbook of a
 * prepared resolution of three shipped talents (its index, and one talent's detail: svc_validate's key route), in process
 * (`app.handle`, no socket), for this checkout and each checkout named in BENCH_TREES (comma-separated
 * folders with node_modules), alternating between them BENCH_ROUNDS (default 3) times. Each tree runs in its
 * own process through its own test helpers, so the figures compare code (and catalog) only; the process's
 * user+system CPU over BENCH_N (default 3,000) sequential requests, best and median of 5 runs. Robust to
 * other load on the machine much more than throughput is.
 */
import { join } from "node:path";
import { printTable, ROOT } from "./lib";

const PATHS = { search: "/api/search?query=typescript&scope=catalog&k=10", key: "/api/catalog?limit=1" } as const;
/** The validation playbook of a prepared resolution (svc_validate's key route): its index and one talent's detail. */
const PLAYBOOK = { playbook: "", "playbook detail": "&talent=javascript-base" } as const;
const LOOP = ["javascript-base", "typescript-strict", "conventional-commits"];
const TOOLS = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/** Runs in the child: one tree's app, a key, then N requests per path, five times. Prints one JSON line. */
async function child(root: string): Promise<void> {
  await import(join(root, "src", "production.ts"));
  const h = await import(join(root, "test", "helpers.ts"));
  const env = await h.testEnv({ ACCESS_LOG: "false", LOG_LEVEL: "error" });
  const { owner, project } = await h.orgWithProject(env);
  const { value } = await h.createKey(owner, project.id, TOOLS);
  await owner.post(`/web/projects/${project.id}/talents`, { talents: LOOP });
  const prep = await h.withKey(env, value, "/api/prepare-task", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ talentIds: LOOP }),
  });
  const { resolutionId } = (await prep.json()) as { resolutionId: string };
  const paths: Record<string, string> = { ...PATHS };
  for (const [name, q] of Object.entries(PLAYBOOK)) paths[name] = `/api/validation/playbook?resolutionId=${resolutionId}${q}`;
  const n = Number(process.env.BENCH_N ?? 3000);
  const out: Record<string, number[]> = {};
  for (const [name, path] of Object.entries(paths)) {
    for (let i = 0; i < 500; i++) await (await h.withKey(env, value, path)).text();
    const runs: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await (await h.withKey(env, value, path)).text();
      const t = process.cpuUsage(t0);
      runs.push((t.user + t.system) / n);
    }
    out[name] = runs.sort((a, b) => a - b);
  }
  console.log(JSON.stringify(out));
}

export async function benchRouteCpu(): Promise<void> {
  const trees = [ROOT, ...(process.env.BENCH_TREES ?? "").split(",").filter(Boolean)];
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seen = new Map<string, Record<string, number[]>[]>(trees.map((t) => [t, []]));
  for (let r = 0; r < rounds; r++) {
    for (const tree of trees) {
      const p = Bun.spawnSync([process.execPath, join(ROOT, "bench", "routecpu.ts"), "--child", tree], {
        cwd: tree,
        env: { ...process.env },
      });
      if (p.exitCode !== 0) throw new Error(`${tree}: ${p.stderr.toString()}`);
      const lines = p.stdout.toString().trim().split("\n");
      seen.get(tree)!.push(JSON.parse(lines[lines.length - 1]!));
    }
  }
  const rows: (string | number)[][] = [];
  for (const name of [...Object.keys(PATHS), ...Object.keys(PLAYBOOK)]) {
    for (const tree of trees) {
      const best = seen.get(tree)!.map((x) => x[name]![0]!);
      const med = seen.get(tree)!.map((x) => x[name]![2]!);
      rows.push([
        name,
        tree === ROOT ? "this checkout" : tree,
        best.map((x) => x.toFixed(1)).join(" "),
        med.map((x) => x.toFixed(1)).join(" "),
      ]);
    }
  }
  printTable(
    `routecpu: in process, µs CPU a request, ${rounds} alternations`,
    ["route", "tree", "best per round", "median per round"],
    rows,
  );
}

if (process.argv[2] === "--child") {
  await child(process.argv[3]!);
  process.exit(0);
}
