import { afterAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { join } from "node:path";
import { BUN, ROOT, runCli, tempDir } from "./helpers";
import { freePort, refuses, waitFor } from "./proc";

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
    expect(r.stderr).toBe("talentd: cannot listen on 192.0.2.1: not an address of this machine; pass --host (0.0.0.0 for every interface)\n");
  });
});
