/** Benchmark helpers: generated catalogs, spawning the built binary, timing, tables. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const BINARY = join(ROOT, "dist", "talentd");

/** Writes `n` valid, realistic-size talents (TALENT.md + one reference) into `dir`. */
export function generateCatalog(dir: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const id = `gen-talent-${i}`;
    const rules = Array.from({ length: 6 }, (_, r) => {
      const rid = `G${i}-${String(r + 1).padStart(3, "0")}`.slice(0, 14);
      return `  - id: ${rid.length <= 14 ? rid : `G-${r}`}\n    severity: ${r < 2 ? "blocking" : "advisory"}\n    title: Rule ${r + 1} of generated talent ${i}, stated as one imperative sentence of moderate length.\n    check: Look in the diff for the pattern number ${r + 1} of talent ${i}; a reviewer can verify it quickly.`;
    });
    const prefix = `G${i}`.slice(0, 10);
    const ruleIds = Array.from({ length: 6 }, (_, r) => `${prefix}-${String(r + 1).padStart(3, "0")}`);
    const yaml = [
      `id: ${id}`,
      `title: Generated talent ${i}`,
      `summary: Conventions number ${i} for benchmarking the catalog. Designate when a task touches area ${i % 97} or module ${i % 13}.`,
      "version: 1.0.0",
      "roles: [backend, frontend]",
      "languages: [typescript]",
      `triggers: { files: ["src/area${i % 97}/**/*.ts", "**/*.gen${i % 7}"], keywords: [area${i % 97}, module${i % 13}, gen${i}] }`,
      i > 0 && i % 3 === 0 ? `requires: [gen-talent-${i - 1}]` : "requires: []",
      "conflicts: []",
      "budget: 1200",
      "rules:",
      ...rules.map((r, k) => r.replace(/id: .*/, `id: ${ruleIds[k]}`)),
      "tests:",
      ...ruleIds.slice(0, 2).map((rid) => `  - rule: ${rid}\n    pass: "ok()"\n    fail: "bad()"`),
    ].join("\n");
    const body = [
      `Guidance for area ${i % 97}. ${"Write small functions, name things after the domain, and keep side effects at the edges. ".repeat(8)}`,
      "",
      `Go deeper: [details](talent://${id}/references/details.md)`,
    ].join("\n");
    mkdirSync(join(dir, id, "references"), { recursive: true });
    writeFileSync(join(dir, id, "TALENT.md"), `---\n${yaml}\n---\n${body}\n`);
    writeFileSync(
      join(dir, id, "references", "details.md"),
      `# Details ${i}\n\n${"More depth on the rules, with examples. ".repeat(40)}\n`,
    );
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/** CPU seconds (user + system) a process has used so far (Linux /proc, 100 ticks a second). */
export function cpuSeconds(pid: number): number {
  const stat = require("node:fs").readFileSync(`/proc/${pid}/stat`, "utf8") as string;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Bytes a process caused to be written to storage so far (Linux /proc/<pid>/io). */
export function bytesWritten(pid: number): number {
  const io = require("node:fs").readFileSync(`/proc/${pid}/io`, "utf8") as string;
  return Number(/write_bytes: (\d+)/.exec(io)?.[1] ?? 0);
}

/** Resident memory of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

/** Prints rows as an aligned text table. */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  const line = (r: string[]) => "| " + r.map((x, c) => x.padEnd(widths[c]!)).join(" | ") + " |";
  console.log(`\n${title}`);
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const r of cells.slice(1)) console.log(line(r));
}

export interface Running {
  base: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts dist/talentd in a fresh temp folder; resolves once /readyz is 200. `stop()` removes the folder. */
export async function startBinary(env: Record<string, string> = {}): Promise<Running> {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "talentd-bench-"));
  const running = await startBinaryIn(dir, env);
  return {
    base: running.base,
    pid: running.pid,
    stop: async () => {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs up, creates an (auto-approved) organization and a project; returns cookie, project id and a key with every scope. */
export async function seedProject(
  base: string,
): Promise<{ cookie: string; projectId: string; key: string; email: string; password: string }> {
  const email = `bench-${Date.now()}@example.com`;
  const password = "bench password 123";
  const headers = { "content-type": "application/json", origin: base };
  const up = await fetch(`${base}/api/auth/sign-up`, { method: "POST", headers, body: JSON.stringify({ email, password }) });
  const cookie = /talentd_session=[^;]+/.exec(up.headers.get("set-cookie") ?? "")![0];
  const h = { ...headers, cookie };
  await fetch(`${base}/web/orgs`, { method: "POST", headers: h, body: JSON.stringify({ name: `Bench ${Date.now()}` }) });
  const project = (await (
    await fetch(`${base}/web/projects`, { method: "POST", headers: h, body: JSON.stringify({ name: "bench" }) })
  ).json()) as { project: { id: string } };
  const tools = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];
  const key = (await (
    await fetch(`${base}/web/projects/${project.project.id}/keys`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ name: "bench", tools }),
    })
  ).json()) as { value: string };
  return { cookie, projectId: project.project.id, key: key.value, email, password };
}

/** seedProject, then `talents` installed through the web route (201 or it throws); with the key API's headers. */
export async function seedInstalled(base: string, talents: readonly string[]) {
  const s = await seedProject(base);
  const web = { "content-type": "application/json", origin: base, cookie: s.cookie };
  const inst = await fetch(`${base}/web/projects/${s.projectId}/talents`, {
    method: "POST",
    headers: web,
    body: JSON.stringify({ talents }),
  });
  if (inst.status !== 201) throw new Error(`install: ${inst.status} ${await inst.text()}`);
  return { ...s, api: { authorization: `Bearer ${s.key}`, "content-type": "application/json" } };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against one request for `seconds`. */
export async function load(opts: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  seconds?: number;
  connections?: number;
  /** Replace each `[<id>]` in the body with a fresh unique id per request (autocannon's idReplacement). */
  idReplacement?: boolean;
}): Promise<LoadResult> {
  const autocannon = (await import("autocannon")).default;
  const r = await autocannon({
    url: opts.url,
    method: (opts.method ?? "GET") as "GET",
    headers: opts.headers,
    body: opts.body,
    duration: opts.seconds ?? 5,
    connections: opts.connections ?? 10,
    ...(opts.idReplacement ? { idReplacement: true } : {}),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export interface RunningIn extends Running {
  /** The process's folder (cwd); its data is in `<dir>/data` unless DATA_DIR says otherwise. */
  dir: string;
  /** `kill -9`: no shutdown, no flush; resolves when the process is gone. The folder is kept. */
  kill(): Promise<void>;
}

/**
 * Starts dist/talentd with `dir` as its working folder (so DATA_DIR ./data is `<dir>/data`),
 * which survives the process: `stop()` (SIGTERM) and `kill()` (SIGKILL) keep the folder, so a
 * second start on the same folder sees the same database. Resolves once /readyz is 200. `binary`: another
 * checkout's build (bench mcp's BENCH_V1), or a command that runs one (`[bun, "src/main.ts"]`: from source).
 */
export async function startBinaryIn(dir: string, env: Record<string, string> = {}, binary: string | string[] = BINARY): Promise<RunningIn> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([...[binary].flat(), "serve", "--port", String(port), "--host", "127.0.0.1", "--base-url", base], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ACCESS_LOG: "false", LOG_LEVEL: "error", AUTO_APPROVE_ORGS: "true", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null) throw new Error(`binary exited with ${proc.exitCode} before becoming ready`);
    if (Date.now() > until) {
      proc.kill("SIGKILL");
      throw new Error("binary did not become ready");
    }
    await Bun.sleep(10);
  }
  return {
    base,
    pid: proc.pid,
    dir,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
    kill: async () => {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

// ---- wrk (Debian): throughput and latency from a load generator that leaves the server its core

function luaString(s: string): string {
  return JSON.stringify(s); // a JSON string literal is a valid Lua string literal for these ASCII values
}

/** A wrk script cycling through `requests`; `%d` in a body becomes a unique number per request. */
export function wrkScript(requests: { method: string; path: string; headers: Record<string, string>; body?: string }[]): string {
  const items = requests
    .map(
      (r) =>
        `{ method = ${luaString(r.method)}, path = ${luaString(r.path)}, body = ${r.body ? luaString(r.body) : "nil"}, headers = { ${Object.entries(
          r.headers,
        )
          .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
          .join(", ")} } }`,
    )
    .join(",\n  ");
  return `local reqs = {\n  ${items}\n}
local i = 0
local n = 0
request = function()
  i = i % #reqs + 1
  n = n + 1
  local r = reqs[i]
  local body = r.body
  if body ~= nil then body = string.gsub(body, "%%d", tostring(n) .. "-" .. tostring(math.random(1, 1000000000))) end
  return wrk.format(r.method, r.path, r.headers, body)
end
`;
}

/** Parses wrk's --latency summary. */
export function parseWrk(out: string): { rps: number; p50: number; p99: number; requests: number; non2xx: number; socketErrors: number } {
  const ms = (v: string, unit: string) => Number(v) * (unit === "s" ? 1000 : unit === "us" ? 0.001 : 1);
  const lat = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? ms(m[1]!, m[2]!) : NaN;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: lat("50"),
    p99: lat("99"),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

/** A request wrk sends (headers as given; `%d` in a body becomes unique per request). */
export interface WrkRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Runs `wrk -t1 --latency` cycling through `requests` against `base`. */
export async function runWrk(
  base: string,
  requests: WrkRequest[],
  opts: { connections?: number; seconds?: number; dir: string; name?: string; timeoutSeconds?: number },
) {
  const { writeFileSync } = await import("node:fs");
  const script = join(opts.dir, `${opts.name ?? "wrk"}.lua`);
  writeFileSync(script, wrkScript(requests));
  const p = Bun.spawn(
    [
      "wrk",
      "-t1",
      `-c${opts.connections ?? 10}`,
      `-d${opts.seconds ?? 10}s`,
      `--timeout`,
      `${opts.timeoutSeconds ?? 2}s`,
      "--latency",
      "-s",
      script,
      base,
    ],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const out = await new Response(p.stdout).text();
  await p.exited;
  return parseWrk(out);
}
