/**
 * `talentd calibrate` (docs/design.md "What blocks a commit"): wall time of a replay, and what it proposes, against
 * `talentd serve` from this checkout on loopback. Cases: a generated repository whose every commit adds an exported
 * function without a return type (TS-005 blocks each one), and this repository's own first-parent history (a real
 * TypeScript codebase), with the talents a TypeScript service designates installed. BENCH_CALIBRATE_HISTORY: the
 * commits of the checkout replayed (default 200).
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, printTable, ROOT, seedInstalled } from "./lib";

const HISTORY = Number(process.env.BENCH_CALIBRATE_HISTORY ?? 200);
const TALENTS = [
  "typescript-strict",
  "javascript-base",
  "open-redirect",
  "ssrf",
  "sql-query-safety",
  "input-validation",
  "secrets-handling",
  "xss-output-encoding",
  "ci-pipelines",
  "dockerfiles",
];

/** `talentd serve` from the checkout (bun and src/main.ts), in a temp folder; resolves once /readyz is 200. */
export async function startServer(dir: string): Promise<{ base: string; stop: () => Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(
    [process.execPath, join(ROOT, "src/main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1", "--base-url", base],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", ACCESS_LOG: "false", LOG_LEVEL: "error", AUTO_APPROVE_ORGS: "true" },
      stdout: "ignore",
      stderr: "inherit",
    },
  );
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null || Date.now() > until) throw new Error("the server did not become ready");
    await Bun.sleep(20);
  }
  return {
    base,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

function git(cwd: string, args: string[]): void {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

/** A repository of `n` commits, each adding src/fN.ts with an exported function without a return type. */
function generated(dir: string, n: number): string {
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main"]);
  git(dir, ["config", "user.email", "bench@example.com"]);
  git(dir, ["config", "user.name", "Bench"]);
  git(dir, ["config", "commit.gpgsign", "false"]);
  mkdirSync(join(dir, "src"), { recursive: true });
  for (let i = 1; i <= n; i++) {
    writeFileSync(join(dir, `src/f${i}.ts`), `export function add${i}(a: number) {\n  return a + ${i};\n}\n`);
    git(dir, ["add", "."]);
    git(dir, ["commit", "-q", "-m", `commit ${i}`]);
  }
  return dir;
}

interface Replay {
  commits: number;
  designations: number;
  rules: { rule: string; findings: number; blocked: number; ranOn: number; proposal: string | null }[];
  proposals: Record<string, string>;
}

async function calibrate(repo: string, env: Record<string, string>, history: number): Promise<{ r: Replay; seconds: number }> {
  const t0 = performance.now();
  const p = Bun.spawnSync([process.execPath, join(ROOT, "src/main.ts"), "calibrate", "--json", "--history", String(history)], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "", HOME: repo, ...env },
  });
  const seconds = (performance.now() - t0) / 1000;
  if (p.exitCode !== 0) throw new Error(`calibrate: ${p.stderr.toString()}`);
  return { r: JSON.parse(p.stdout.toString()) as Replay, seconds };
}

export async function benchCalibrate(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "talentd-bench-calibrate-"));
  const server = await startServer(join(dir, "server"));
  try {
    const rows: (string | number)[][] = [];
    const cases: [string, string, number][] = [
      ["generated: 200 commits, each an untyped export", generated(join(dir, "gen"), 200), 200],
      [`this repository, last ${HISTORY} first-parent commits`, ROOT, HISTORY],
    ];
    for (const [name, repo, history] of cases) {
      const s = await seedInstalled(server.base, TALENTS);
      const { r, seconds } = await calibrate(repo, { TALENTD_URL: server.base, TALENTD_KEY: s.key }, history);
      const blocking = r.rules.filter((x) => x.blocked > 0);
      const blockedCommits = Math.max(0, ...blocking.map((x) => x.blocked));
      rows.push([
        name,
        r.commits,
        r.designations,
        r.rules.map((x) => `${x.rule} ${x.findings}/${x.blocked}/${x.ranOn}`).join(", ") || "-",
        blockedCommits,
        Object.keys(r.proposals).join(", ") || "-",
        seconds.toFixed(2),
      ]);
    }
    printTable(
      "talentd calibrate (docs/design.md 'What blocks a commit')",
      ["case", "commits", "designations", "rules: findings/blocked/ran on", "most blocked by one rule", "proposed advise", "wall s"],
      rows,
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
