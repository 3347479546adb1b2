import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, tempDir } from "../helpers";
import { waitFor } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe("talentd serve as a process", () => {
  test("starts in an empty folder, creates its database, serves /readyz, and exits 0 on SIGTERM", async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const ready = await waitFor(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).catalog.talents).toBeGreaterThan(0);
      expect(await Bun.file(join(dir, "data", "talentd.db")).exists()).toBe(true);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const out = await new Response(proc.stdout).text();
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toContain("shutting down");
    expect(lines.at(-1).msg).toBe("stopped");
  });

  test("SIGTERM drains an in-flight request: its answer arrives complete, then the process exits 0", async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: join(dir, "drain") },
      stdout: "pipe",
      stderr: "pipe",
    });
    await waitFor(`http://127.0.0.1:${port}/readyz`);
    let push!: (s: string) => void;
    let end!: () => void;
    const body = new ReadableStream({
      start(c) {
        push = (s) => c.enqueue(new TextEncoder().encode(s));
        end = () => c.close();
      },
    });
    const inFlight = fetch(`http://127.0.0.1:${port}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    push('{"email":"nobody@example.com",');
    await Bun.sleep(150); // the request is in flight, its body half sent
    proc.kill("SIGTERM");
    await Bun.sleep(150);
    push('"password":"wrong password!"}');
    end();
    const r = await inFlight;
    expect(r.status).toBe(401);
    expect((await r.json()).error).toBe("invalid_credentials");
    expect(await proc.exited).toBe(0);
  });
});
