import { afterAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { BUN, ROOT, runCli, tempDir } from "../helpers";
import { alive, descendants, eventually, freePort, refuses, serversBelow, waitFor } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

function startServer(port: number, dataDir: string) {
  return Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir },
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe("a port already in use stops the start with one line, exit 2", () => {
  test("a second talentd on a port held by a first one exits 2 with `port N on HOST is already in use`, and the first keeps serving (no shared port)", async () => {
    const port = await freePort();
    const data = join(dir, "shared");
    const first = startServer(port, data);
    try {
      expect((await waitFor(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      // the same data folder, as when `npm start` is run twice
      const second = await runCli(["serve", "--port", String(port), "--host", "127.0.0.1"], { cwd: dir, env: { DATA_DIR: data } });
      expect(second.code).toBe(2);
      expect(second.stderr).toBe(`talentd: port ${port} on 127.0.0.1 is already in use (another talentd?); stop it or pass --port\n`);
      expect(second.stdout).not.toContain("talentd listening");
      expect(second.stdout).not.toContain("setupLink"); // a failed start hands out no setup link
      // every connection still reaches the first server (with SO_REUSEPORT the kernel would split them)
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { connection: "close" } });
        expect(r.status).toBe(200);
      }
      expect(first.exitCode).toBeNull();
    } finally {
      first.kill("SIGTERM");
    }
    expect(await first.exited).toBe(0);
  });

  test("a port held by a plain listener that is not talentd: exit 2, the same line, the listener untouched", async () => {
    const holder = createServer((socket) => socket.end("not talentd\n"));
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const r = await runCli(["serve", "--port", String(port), "--host", "127.0.0.1"], { cwd: dir, env: { DATA_DIR: join(dir, "plain") } });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`talentd: port ${port} on 127.0.0.1 is already in use (another talentd?); stop it or pass --port\n`);
      expect(await refuses(port)).toBe(false);
    } finally {
      holder.close();
    }
  });

  test("an address that is not this machine's (HOST=192.0.2.1, TEST-NET): exit 2, one line naming it", async () => {
    const r = await runCli(["serve", "--port", "0", "--host", "192.0.2.1"], { cwd: dir, env: { DATA_DIR: join(dir, "notmine") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "talentd: cannot listen on 192.0.2.1: not an address of this machine; pass --host (0.0.0.0 for every interface)\n",
    );
  });
});

describe("`npm start` stopped leaves no server behind", () => {
  const started: number[] = [];
  // a failed assertion must not leave a server running: kill what is left, by pid
  afterAll(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
  });

  async function npmStart(): Promise<{ npm: ChildProcess; port: number; servers: number[] }> {
    const port = await freePort();
    // detached: npm leads a process group of its own, as in a terminal, so Ctrl-C can be sent to the group
    const npm = spawn("npm", ["start"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: join(dir, `npm-${port}`),
      },
      detached: true,
      stdio: "ignore",
    });
    await waitFor(`http://127.0.0.1:${port}/readyz`, 20_000);
    const servers = serversBelow(npm.pid!);
    started.push(npm.pid!, ...servers);
    return { npm, port, servers };
  }

  async function stoppedCleanly(npm: ChildProcess, port: number, servers: number[]): Promise<void> {
    const below = descendants(npm.pid!).map((p) => p.pid);
    const npmGone = await eventually(() => npm.exitCode !== null || npm.signalCode !== null, 10_000);
    const allGone = await eventually(() => [...servers, ...below].every((pid) => !alive(pid)), 10_000);
    try {
      expect(npmGone).toBe(true);
      expect(allGone).toBe(true);
      expect(await refuses(port)).toBe(true);
    } finally {
      for (const pid of [...servers, ...below]) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  }

  test("Ctrl-C (SIGINT to npm's process group): npm and the bun server below it end, the port refuses connections", async () => {
    const { npm, port, servers } = await npmStart();
    expect(servers).toHaveLength(1);
    process.kill(-npm.pid!, "SIGINT");
    await stoppedCleanly(npm, port, servers);
  }, 40_000);

  test("SIGTERM to npm's pid (a process manager, `kill`): the server ends too, the port refuses connections", async () => {
    const { npm, port, servers } = await npmStart();
    expect(servers).toHaveLength(1);
    process.kill(npm.pid!, "SIGTERM");
    await stoppedCleanly(npm, port, servers);
  }, 40_000);
});
