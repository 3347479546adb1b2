/**
 * Several replicas of the built binary on one database (docs/operations.md "Several replicas"):
 * the binary (built once when it is missing or older than the sources), a replica process with
 * its log kept, and a round-robin HTTP proxy that does what a load balancer does (nginx's
 * `proxy_next_upstream error`): each request goes to the next upstream, and one whose connection
 * is refused is sent to the other.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers";
import { freePort } from "./proc";

export const BINARY = join(ROOT, "dist", "talentd");

/** The newest modification time (ms) of the files the binary is built from. */
function newestSource(): number {
  let newest = 0;
  const walk = (p: string) => {
    const s = statSync(p);
    if (s.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
    else newest = Math.max(newest, s.mtimeMs);
  };
  for (const p of ["src", "migrations", "migrations-pg", "talents", "public", "build.ts", "package.json"]) {
    if (existsSync(join(ROOT, p))) walk(join(ROOT, p));
  }
  return newest;
}

/**
 * dist/talentd, built first (`bun run build`, about 7 s on an idle 2-core machine) when it is
 * missing or older than any source: the replicas are the artifact that ships, not `bun src/main.ts`.
 */
export function builtBinary(): string {
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= newestSource()) return BINARY;
  const r = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`bun run build failed: ${r.stderr.toString()}${r.stdout.toString()}`);
  return BINARY;
}

export interface Replica {
  name: string;
  base: string;
  pid: number;
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything the process wrote so far (JSON log lines on stdout, stderr after). */
  log(): string;
  kill(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `talentd serve` (the built binary) with `env` on a free port; resolves once it listens (not necessarily ready). */
export async function startReplica(name: string, env: Record<string, string>, binary = builtBinary()): Promise<Replica> {
  const port = await freePort();
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--host", "127.0.0.1"], {
    env: { PATH: process.env.PATH ?? "", LOG_FORMAT: "json", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  let err = "";
  const drain = async (stream: ReadableStream<Uint8Array>, add: (s: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk));
  };
  void drain(proc.stdout as ReadableStream<Uint8Array>, (s) => (out += s));
  void drain(proc.stderr as ReadableStream<Uint8Array>, (s) => (err += s));
  return {
    name,
    base: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    proc,
    log: () => out + err,
    kill: async (signal = "SIGTERM") => {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

/** Waits until `replica` answers /readyz 200 (throws with its log when it exits or `ms` pass). */
export async function replicaReady(replica: Replica, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (replica.proc.exitCode !== null) throw new Error(`${replica.name} exited (${replica.proc.exitCode}): ${replica.log()}`);
    try {
      if ((await fetch(`${replica.base}/readyz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) throw new Error(`${replica.name} was not ready in ${ms} ms: ${replica.log()}`);
    await Bun.sleep(50);
  }
}

export interface Balancer {
  base: string;
  /** The upstream that answered each request so far, in order (its index), or -1 for none. */
  answered: number[];
  stop(): void;
}

/**
 * A round-robin HTTP proxy on a free port of 127.0.0.1 in front of `upstreams`: each request
 * goes to the next one; a refused connection (the replica is gone) is retried on the others, as
 * nginx does with `proxy_next_upstream error`. It sets X-Forwarded-For, -Host and -Proto as
 * docs/operations.md's nginx example does, and `x-upstream` (the index that answered) on the answer.
 * No upstream reachable: 502. `port`: a free port picked beforehand (the replicas' BASE_URL names it).
 */
export async function roundRobin(upstreams: string[], port?: number): Promise<Balancer> {
  port ??= await freePort();
  const answered: number[] = [];
  let next = 0;
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request, srv) {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const headers = new Headers(request.headers);
      const peer = srv.requestIP(request)?.address ?? "127.0.0.1";
      const forwarded = headers.get("x-forwarded-for");
      headers.set("x-forwarded-for", forwarded ? `${forwarded}, ${peer}` : peer);
      headers.set("x-forwarded-host", url.host);
      headers.set("x-forwarded-proto", "http");
      const first = next++ % upstreams.length;
      for (let i = 0; i < upstreams.length; i++) {
        const at = (first + i) % upstreams.length;
        try {
          const r = await fetch(upstreams[at] + url.pathname + url.search, {
            method: request.method,
            headers,
            body,
            redirect: "manual",
            decompress: false,
          });
          answered.push(at);
          const out = new Headers(r.headers);
          out.set("x-upstream", String(at));
          return new Response(r.body, { status: r.status, statusText: r.statusText, headers: out });
        } catch {
          /* refused or reset before an answer: the next upstream (proxy_next_upstream error) */
        }
      }
      answered.push(-1);
      return new Response("no upstream answered\n", { status: 502 });
    },
  });
  return { base: `http://127.0.0.1:${server.port}`, answered, stop: () => server.stop(true) };
}
