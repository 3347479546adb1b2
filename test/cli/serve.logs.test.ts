import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, tempDir } from "../helpers";
import { alive, freePort, serversBelow, waitFor } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);

// util-linux `script` gives the server a pseudo-terminal as stdout, as a person's terminal does
const hasScript = Bun.which("script") !== null;
const MAIN = join(ROOT, "src", "main.ts");
const CLOCK = String.raw`\d\d:\d\d:\d\d`;

interface Run {
  port: number;
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Starts `talentd serve` on a free port of 127.0.0.1 (under a pseudo-terminal when `pty`), makes
 * one request to /readyz, stops the server with SIGTERM and returns what it wrote.
 */
async function serveOnce(opts: { pty: boolean; env?: Record<string, string>; name: string }): Promise<Run> {
  const port = await freePort();
  const argv = [BUN, MAIN, "serve", "--port", String(port), "--host", "127.0.0.1"];
  const proc = Bun.spawn(opts.pty ? ["script", "-qfec", argv.map((a) => `'${a}'`).join(" "), "/dev/null"] : argv, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: join(dir, opts.name), ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let server = proc.pid;
  try {
    const ready = await waitFor(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    const probe = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { "user-agent": "talentd-test" } });
    expect(probe.status).toBe(200);
    await probe.text();
    // its access log line is written after the answer: read stdout until it is there (at most 10 s), then stop
    const out = proc.stdout.getReader();
    const text = new TextDecoder();
    let stdout = "";
    let pending: ReturnType<typeof out.read> | null = null; // a read not yet answered is kept, never dropped
    const until = Date.now() + 10_000;
    while (!stdout.includes("talentd-test") && Date.now() < until) {
      pending ??= out.read();
      const next = await Promise.race([pending, Bun.sleep(200).then(() => null)]);
      if (next === null) continue;
      pending = null;
      if (next.done) break;
      stdout += text.decode(next.value, { stream: true });
    }
    if (opts.pty) {
      // the server is script's child: SIGTERM goes to it, script ends when it does
      const below = serversBelow(proc.pid);
      expect(below).toHaveLength(1);
      server = below[0]!;
    }
    process.kill(server, "SIGTERM");
    const rest = async () => {
      for (;;) {
        const { done, value } = await (pending ?? out.read());
        pending = null;
        if (done) return;
        stdout += text.decode(value, { stream: true });
      }
    };
    const [, stderr, code] = await Promise.all([rest(), new Response(proc.stderr).text(), proc.exited]);
    return { port, stdout: stdout.replace(/\r\n/g, "\n"), stderr, code };
  } finally {
    if (alive(server)) process.kill(server, "SIGKILL");
    if (alive(proc.pid)) proc.kill("SIGKILL");
  }
}

describe("logs a person can read: text on a terminal, JSON lines elsewhere", () => {
  test.skipIf(!hasScript)(
    "on a terminal (stdout a pseudo-terminal): one readable line per event, the setup link alone on its own line, access log lines in text too",
    async () => {
      const { port, stdout, code } = await serveOnce({ pty: true, name: "pty-text" });
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split("\n");
      expect(lines.filter((l) => l.startsWith("{"))).toEqual([]);
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${CLOCK} INFO  talentd listening  url=http://127\\.0\\.0\\.1:${port} baseUrl=http://localhost:${port} version=\\S+ database=file:\\S+ ms=\\d+ startup=\\{"code":\\d+,"database":\\d+,"catalog":\\d+,"routes":\\d+,"total":\\d+,"cpu":\\d+\\}$`,
          ),
        ),
      );
      const warn = lines.findIndex((l) => new RegExp(`^${CLOCK} WARN  no platform administrator yet: open this one-time link`).test(l));
      expect(warn).toBeGreaterThanOrEqual(0);
      expect(lines[warn + 1]).toMatch(new RegExp(`^  http://localhost:${port}/setup\\?token=[0-9A-Za-z]+$`));
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${CLOCK} INFO  request  requestId=\\S+ method=GET path=/readyz status=200 ms=[\\d.]+ ip=127\\.0\\.0\\.1 ua=talentd-test$`,
          ),
        ),
      );
      expect(lines.at(-1)).toMatch(new RegExp(`^${CLOCK} INFO  stopped$`));
      // a loopback address needs no BASE_URL advice: only this machine can connect
      expect(stdout).not.toContain("agents must use");
    },
    30_000,
  );

  test.skipIf(!hasScript)(
    "LOG_FORMAT=json on a terminal: JSON lines all the same",
    async () => {
      const { stdout, code } = await serveOnce({ pty: true, name: "pty-json", env: { LOG_FORMAT: "json" } });
      expect(code).toBe(0);
      const events = stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(events.map((e) => e.msg)).toContain("talentd listening");
      expect(events.find((e) => e.level === "warn").setupLink).toContain("/setup?token=");
    },
    30_000,
  );

  test("LOG_FORMAT=text without a terminal: text lines (stdout) and the setup link on its own line (stderr)", async () => {
    const { port, stdout, stderr, code } = await serveOnce({ pty: false, name: "pipe-text", env: { LOG_FORMAT: "text" } });
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${CLOCK} INFO  talentd listening  url=http://127\\.0\\.0\\.1:${port} `, "m"));
    expect(stdout).toMatch(new RegExp(`^${CLOCK} INFO  request  requestId=\\S+ method=GET path=/readyz status=200 `, "m"));
    expect(stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^${CLOCK} WARN  no platform administrator yet: `)),
      expect.stringMatching(new RegExp(`^  http://localhost:${port}/setup\\?token=[0-9A-Za-z]+$`)),
    ]);
  }, 30_000);

  test("no terminal and no LOG_FORMAT: JSON lines, as before", async () => {
    const { stdout, stderr, code } = await serveOnce({ pty: false, name: "pipe-json" });
    expect(code).toBe(0);
    const events = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.msg === "talentd listening")).toMatchObject({
      url: expect.stringContaining("http://127.0.0.1:"),
      version: expect.any(String),
    });
    expect(JSON.parse(stderr.trim()).setupLink).toContain("/setup?token=");
  }, 30_000);

  test("a bad LOG_FORMAT stops the start with one line, exit 2", async () => {
    const proc = Bun.spawn([BUN, MAIN, "serve", "--port", "0", "--host", "127.0.0.1"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: join(dir, "bad"), LOG_FORMAT: "pretty" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toBe('talentd: config: LOG_FORMAT: "pretty" is not one of auto, json, text\n');
  });
});
