/**
 * Start-up of dist/talentd to the first /readyz 200, binary size, and RSS after start, with the
 * shipped catalog and with a generated catalog of 5,000 talents in TALENTS_DIR.
 * Targets (docs/performance.md): < 300 ms and < 2 s; RSS < 120 MB with 5,000 talents.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, freePort, generateCatalog, percentile, printTable, rssMiB } from "./lib";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function startOnce(env: Record<string, string>): Promise<{ ms: number; rss: number; settled: number; talents: number }> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-bench-"));
  const port = await freePort();
  const t0 = performance.now();
  const proc = Bun.spawn([BINARY, "serve", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ACCESS_LOG: "false", LOG_LEVEL: "error", ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (r.status === 200) {
          const ms = performance.now() - t0;
          const body = (await r.json()) as { catalog: { talents: number } };
          await Bun.sleep(200);
          const rss = rssMiB(proc.pid);
          await Bun.sleep(1800); // the allocator returns freed start-up memory to the OS within ~1 s
          return { ms, rss, settled: rssMiB(proc.pid), talents: body.catalog.talents };
        }
      } catch {
        /* not listening yet */
      }
      if (performance.now() - t0 > 30_000) throw new Error("no /readyz 200 within 30 s");
      await Bun.sleep(2);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStartup(): Promise<void> {
  if (!(await Bun.file(BINARY).exists())) throw new Error("dist/talentd is missing: run `bun run build` first");
  const gen = mkdtempSync(join(tmpdir(), "talentd-gen-"));
  generateCatalog(gen, 5000);
  const rows: (string | number)[][] = [];
  for (const [name, env, target] of [
    ["shipped catalog", {}, "< 300 ms"],
    ["+ 5,000 generated talents", { TALENTS_DIR: gen }, "< 2000 ms, RSS < 120 MB"],
  ] as const) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await startOnce(env));
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    const rss = runs.map((r) => r.rss).sort((a, b) => a - b);
    const settled = runs.map((r) => r.settled).sort((a, b) => a - b);
    rows.push([
      name,
      runs[0]!.talents,
      percentile(ms, 50).toFixed(0),
      ms.at(-1)!.toFixed(0),
      percentile(rss, 50).toFixed(1),
      percentile(settled, 50).toFixed(1),
      target,
    ]);
  }
  rmSync(gen, { recursive: true, force: true });
  printTable(
    `dist/talentd start-up (${RUNS} runs each; binary ${(statSync(BINARY).size / 1024 / 1024).toFixed(1)} MiB)`,
    ["catalog", "talents", "ready p50 ms", "ready max ms", "RSS at ready+0.2 s MiB", "RSS at ready+2 s MiB", "target"],
    rows,
  );
}
