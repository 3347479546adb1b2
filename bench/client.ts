/**
 * Client figure (docs/performance.md), with the built binary end to end: `talentd check --staged` on a 2,000-line
 * staged diff (20 TypeScript files of 100 added lines) with 30 talents served, each with 6 rules
 * of which 3 carry detectors (90 detector rules), against `talentd serve` on loopback. Target:
 * < 300 ms wall time per run (process start, git, designable, prepare-task, playbook with
 * detectors, matching, output). Floors in the same run: `talentd version` (process start alone)
 * and `talentd check --staged RESOLUTION` (no designation: one request fewer, no resolution
 * written).
 * A second table, the goal as stated for every talent: the shipped catalog with every talent
 * installed and designated (`--talent` for each), on ~5,000 staged lines of real TypeScript (this
 * checkout's own src/, files in name order), with the findings report sent and with --no-report.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { BINARY, percentile, printTable, ROOT, seedProject, startBinary } from "./lib";

const TALENTS = 30;
const FILES = 20;
// BENCH_CLIENT_LINES=250: the 5,000-line diff of docs/precision.md's speed check
const LINES_PER_FILE = Number(process.env.BENCH_CLIENT_LINES ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

/** 30 talents matching src/**\/*.ts, each with 6 rules, 3 of them with a detector proven by a test. */
function writeTalents(dir: string): string[] {
  const ids: string[] = [];
  for (let i = 0; i < TALENTS; i++) {
    const id = `bench-client-${i}`;
    ids.push(id);
    const prefix = `BC${i}`;
    const rules = Array.from({ length: 6 }, (_, r) => {
      const rid = `${prefix}-${String(r + 1).padStart(3, "0")}`;
      const detect = r < 3 ? `\n    detect:\n      - pattern: '\\bforbidden${i}x${r}\\(|\\bvar\\s+legacy${i}x${r}\\b'` : "";
      return `  - id: ${rid}\n    severity: ${r < 2 ? "blocking" : "advisory"}\n    title: Rule ${r + 1} of bench talent ${i}.\n    check: Look for forbidden${i}x${r} calls.${detect}`;
    });
    const tests = Array.from(
      { length: 3 },
      (_, r) => `  - rule: ${prefix}-${String(r + 1).padStart(3, "0")}\n    pass: "allowed${i}x${r}()"\n    fail: "forbidden${i}x${r}()"`,
    );
    const yaml = [
      `id: ${id}`,
      `title: Bench client talent ${i}`,
      `summary: Conventions ${i} for the client benchmark. Designate when a task touches TypeScript under src.`,
      "version: 1.0.0",
      "roles: [backend]",
      "languages: [typescript]",
      `triggers: { files: ["src/**/*.ts"], keywords: [bench${i}] }`,
      "requires: []",
      "conflicts: []",
      "budget: 1200",
      "rules:",
      ...rules,
      "tests:",
      ...tests,
    ].join("\n");
    mkdirSync(join(dir, id, "references"), { recursive: true });
    writeFileSync(
      join(dir, id, "TALENT.md"),
      `---\n${yaml}\n---\nWrite it well.\n\nGo deeper: [details](talent://${id}/references/details.md)\n`,
    );
    writeFileSync(join(dir, id, "references", "details.md"), `# Details ${i}\n`);
  }
  return ids;
}

function git(cwd: string, args: string[]): void {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

/** A repository with one commit and 2,000 staged added lines, one in 50 hitting a detector. */
function stagedRepo(root: string): string {
  const repo = join(root, "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["config", "user.email", "bench@example.com"]);
  git(repo, ["config", "user.name", "Bench"]);
  writeFileSync(join(repo, "README.md"), "# bench\n");
  git(repo, ["add", "."]);
  git(repo, ["commit", "-q", "-m", "base"]);
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES_PER_FILE }, (_, l) =>
      l % 50 === 7
        ? `  forbidden${f % TALENTS}x${l % 3}(value${l}); // flagged`
        : `  const value${l} = compute(${f}, ${l}, "a realistic line of TypeScript with some text in it");`,
    );
    mkdirSync(join(repo, "src", `mod${f}`), { recursive: true });
    writeFileSync(join(repo, "src", `mod${f}`, `file${f}.ts`), `export function f${f}(): void {\n${lines.join("\n")}\n}\n`);
  }
  git(repo, ["add", "."]);
  return repo;
}

/** Wall time per run, and the client process's own CPU time (user + system), which load on a shared machine inflates less. */
async function timeRuns(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ times: number[]; cpu: number[]; code: number; stdout: string }> {
  const run = async () => {
    const t0 = performance.now();
    const proc = Bun.spawn([BINARY, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, , code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const ms = performance.now() - t0;
    const usage = proc.resourceUsage();
    const cpu = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : NaN;
    return { ms, cpu, code, stdout };
  };
  for (let i = 0; i < 3; i++) await run(); // warm-up: page cache, the server's caches
  const times: number[] = [];
  const cpu: number[] = [];
  let last = { ms: 0, cpu: 0, code: 0, stdout: "" };
  for (let i = 0; i < RUNS; i++) {
    last = await run();
    times.push(last.ms);
    cpu.push(last.cpu);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { times, cpu, code: last.code, stdout: last.stdout };
}

/** Files of this checkout's src/ (TypeScript, in name order) until `lines` lines: real code for the detectors. */
function realSources(lines: number): string[] {
  const all: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const f = join(d, name);
      if (statSync(f).isDirectory()) walk(f);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".test.ts")) all.push(f);
    }
  };
  walk(join(ROOT, "src"));
  const picked: string[] = [];
  let total = 0;
  for (const f of all) {
    if (total >= lines) break;
    picked.push(f);
    total += readFileSync(f, "utf8").split("\n").length;
  }
  return picked;
}

/** The shipped catalog, every talent installed and designated, ~5,000 staged lines of this checkout's src/. */
async function shippedCatalogRuns(root: string): Promise<{ rows: (string | number)[][]; p50: number }> {
  const ids = readdirSync(join(ROOT, "talents")).filter((d) => !d.startsWith("_") && statSync(join(ROOT, "talents", d)).isDirectory());
  const server = await startBinary();
  try {
    const seeded = await seedProject(server.base);
    for (const talent of ids) {
      const r = await fetch(`${server.base}/web/projects/${seeded.projectId}/talents`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.base, cookie: seeded.cookie },
        body: JSON.stringify({ talent }),
      });
      if (r.status !== 201) throw new Error(`install ${talent}: ${r.status} ${await r.text()}`);
    }
    const repo = join(root, "real");
    mkdirSync(repo, { recursive: true });
    git(repo, ["init", "-q", "-b", "main"]);
    git(repo, ["config", "user.email", "bench@example.com"]);
    git(repo, ["config", "user.name", "Bench"]);
    writeFileSync(join(repo, "README.md"), "# bench\n");
    git(repo, ["add", "."]);
    git(repo, ["commit", "-q", "-m", "base"]);
    for (const f of realSources(5_000)) {
      const to = join(repo, relative(ROOT, f));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(f, to);
    }
    git(repo, ["add", "."]);
    const env = { TALENTD_URL: server.base, TALENTD_KEY: seeded.key };
    const designate = ids.flatMap((id) => ["--talent", id]);
    const reported = await timeRuns(["check", "--staged", "--json", ...designate], repo, env);
    const out = JSON.parse(reported.stdout);
    const silent = await timeRuns(["check", "--staged", "--no-report", ...designate], repo, env);
    const label = `${out.checked.lines} lines, ${ids.length} talents, ${out.checked.rules} detector rules, ${out.findings.length} findings`;
    return {
      rows: [row(`shipped catalog, every talent designated (${label})`, reported), row("the same with --no-report", silent)],
      p50: percentile(reported.times, 50),
    };
  } finally {
    await server.stop();
  }
}

/** A table row: wall min/p50/p95/max and client CPU p50 of a series of runs. */
function row(name: string, r: { times: number[]; cpu: number[] }): (string | number)[] {
  const t = r.times;
  return [
    name,
    RUNS,
    t[0]!.toFixed(0),
    percentile(t, 50).toFixed(0),
    percentile(t, 95).toFixed(0),
    t.at(-1)!.toFixed(0),
    percentile(r.cpu, 50).toFixed(0),
  ];
}

export async function benchClient(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "talentd-bench-client-"));
  const talentsDir = join(root, "talents");
  const ids = writeTalents(talentsDir);
  const server = await startBinary({ TALENTS_DIR: talentsDir });
  try {
    const seeded = await seedProject(server.base);
    const installed = await fetch(`${server.base}/web/projects/${seeded.projectId}/talents`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.base, cookie: seeded.cookie },
      body: JSON.stringify({ talents: ids }),
    });
    if (installed.status !== 201) throw new Error(`install: ${installed.status} ${await installed.text()}`);
    const repo = stagedRepo(root);
    const env = { TALENTD_URL: server.base, TALENTD_KEY: seeded.key };
    const check = await timeRuns(["check", "--staged", "--json"], repo, env);
    const out = JSON.parse(check.stdout);
    if (out.checked.lines !== FILES * (LINES_PER_FILE + 2))
      throw new Error(`expected ${FILES * (LINES_PER_FILE + 2)} added lines, got ${out.checked.lines}`);
    const pinned = await timeRuns(["check", "--staged", out.resolutionId], repo, env);
    const version = await timeRuns(["version"], repo, {});
    const shipped = await shippedCatalogRuns(root);
    const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
    printTable(
      `talentd check --staged: ${out.checked.lines} added lines in ${out.checked.files} files, ${ids.length} talents served, ${out.checked.rules} rules with detectors, ${out.findings.length} findings; load average ${load} on ${navigator.hardwareConcurrency} cores (target < 300 ms: p50 ${percentile(check.times, 50) < 300 ? "met" : "**not met**"}, p95 ${percentile(check.times, 95) < 300 ? "met" : "**not met**"}; shipped catalog p50 ${shipped.p50 < 300 ? "met" : "**not met**"})`,
      ["command (built binary, wall time per run)", "runs", "min ms", "p50 ms", "p95 ms", "max ms", "client CPU p50 ms"],
      [
        row("check --staged (designate + prepare + playbook + match)", check),
        row("check --staged RESOLUTION (playbook + match)", pinned),
        row("version (process start alone)", version),
        ...shipped.rows,
      ],
    );
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchClient();
