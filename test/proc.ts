/** Test helpers for real processes: free ports, readiness, the process tree read from /proc. */
import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer } from "node:net";

/** A port on 127.0.0.1 that was free a moment ago (the kernel picked it, then we let it go). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Fetches `url` until it answers (any status), for up to `ms`. */
export async function waitFor(url: string, ms = 10_000): Promise<Response> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await fetch(url);
    } catch (e) {
      if (Date.now() > until) throw e;
      await Bun.sleep(50);
    }
  }
}

/** Polls `base`/readyz until it answers 200, for up to `ms` (a server process starting). */
export async function waitReady(base: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) throw new Error(`${base} did not become ready in ${ms} ms`);
    await Bun.sleep(50);
  }
}

/** True when a TCP connection to 127.0.0.1:`port` is refused (nothing listens there). */
export function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (e: NodeJS.ErrnoException) => resolve(e.code === "ECONNREFUSED"));
  });
}

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function readProc(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so cut at the last ")"
    const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return { pid, ppid: Number(after[1]), state: after[0]!, cmdline };
  } catch {
    return null; // gone meanwhile
  }
}

/** Every process below `pid` (children, grandchildren, …) with its command line, read from /proc. */
export function descendants(pid: number): ProcInfo[] {
  const all = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is ProcInfo => p !== null);
  const found: ProcInfo[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** The bun processes below `pid` running src/main.ts: the server, not a shell (`sh -c`) between them. */
export function serversBelow(pid: number): number[] {
  return descendants(pid)
    .filter((p) => /(^|\/)bun(\.exe)?$/.test(p.cmdline.split(" ")[0]!) && p.cmdline.includes("src/main.ts"))
    .map((p) => p.pid);
}

/** True while `pid` is a live process (a zombie, exited but not yet reaped, counts as gone). */
export function alive(pid: number): boolean {
  const p = readProc(pid);
  return p !== null && p.state !== "Z" && p.state !== "X";
}

/** Waits up to `ms` for `check` to hold; returns whether it did. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await Bun.sleep(50);
  }
}

/** The key and resolution a report needs, set up through the web routes as a person would (sign-up, organization, project with a talent, key, one prepared task). */
export async function agentSetup(base: string): Promise<{ key: string; resolutionId: string }> {
  let cookie = "";
  const web = async (path: string, body: unknown) => {
    const r = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, cookie },
      body: JSON.stringify(body),
    });
    const set = r.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0]!;
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<any>;
  };
  await web("/api/auth/sign-up", { email: "writer@example.com", password: "correct horse battery" });
  await web("/web/orgs", { name: "Writers" });
  const project = (await web("/web/projects", { name: "load" })).project;
  await web(`/web/projects/${project.id}/talents`, { talents: ["typescript-strict"] });
  const key = (await web(`/web/projects/${project.id}/keys`, { name: "writer", tools: ["prepare_task", "record_validation"] }))
    .value as string;
  const prep = await fetch(`${base}/api/prepare-task`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ talentIds: ["typescript-strict"] }),
  });
  return { key, resolutionId: ((await prep.json()) as { resolutionId: string }).resolutionId };
}

/** Posts one validation report (a pass for typescript-strict) with a project key. */
export function postReport(base: string, key: string, resolutionId: string, submissionId: string): Promise<Response> {
  return fetch(`${base}/api/validation/reports`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ submissionId, resolutionId, expertiseResults: [{ id: "typescript-strict", verdict: "pass" }] }),
  });
}
