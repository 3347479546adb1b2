/**
 * `talentd backup` while the server writes. The server once mapped `-shm` with
 * its own descriptor; closing it dropped every POSIX lock the process held on the file, so a
 * backup's connection believed it was alone, rebuilt the WAL index under the server, and the
 * server died of SIGBUS. No code may open SQLite's files behind SQLite's back.
 *
 * A real server process, real report writes over HTTP from several connections, backups in a
 * loop from other processes, and Debian's `sqlite3` reading the live file meanwhile. After:
 * the server is alive, every backup passed integrity_check (the command verifies it) and
 * every report the server acknowledged is in the live database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { BUN, ROOT, tempDir } from "../helpers";
import { freePort } from "../mcp-support";
import { agentSetup, postReport, waitReady } from "../proc";

const SQLITE3 = Bun.which("sqlite3");
const { dir, cleanup } = tempDir();
let proc: ReturnType<typeof Bun.spawn>;
let base: string;

beforeAll(async () => {
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  proc = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1", "--base-url", base], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ACCESS_LOG: "false", LOG_LEVEL: "error", AUTO_APPROVE_ORGS: "true" },
    stdout: "ignore",
    stderr: "pipe",
  });
  await waitReady(base);
});
afterAll(async () => {
  proc.kill("SIGTERM");
  await proc.exited;
  cleanup();
});

describe("backups while the server writes", () => {
  test("backups in a loop and sqlite3 reading the live file under concurrent report writes: the server stays alive, every backup passes integrity_check, every acknowledged report is kept", async () => {
    expect(SQLITE3).not.toBeNull(); // Debian's sqlite3 (.ci/run installs it)
    const { key, resolutionId } = await agentSetup(base);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const submissionId = `w${w}-${i}`;
        const r = await postReport(base, key, resolutionId, submissionId);
        if (r.status === 201) acknowledged.push(submissionId);
        else throw new Error(`report ${submissionId}: ${r.status} ${await r.text()}`);
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    const live = join(dir, "data", "talentd.db");
    try {
      for (let b = 0; b < 6; b++) {
        await Bun.sleep(150);
        const reader = Bun.spawn([SQLITE3!, live, "PRAGMA integrity_check;", "SELECT count(*) FROM reports;"], {
          stdout: "pipe",
          stderr: "pipe",
        });
        const backup = Bun.spawn([BUN, join(ROOT, "src", "main.ts"), "backup", join(dir, `snap-${b}.db`)], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "" },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [code, out, err] = await Promise.all([backup.exited, new Response(backup.stdout).text(), new Response(backup.stderr).text()]);
        expect({ code, err }).toEqual({ code: 0, err: "" });
        expect(out).toContain("integrity_check ok");
        const read = (await new Response(reader.stdout).text()).trim().split("\n");
        expect(await reader.exited).toBe(0);
        expect(read[0]).toBe("ok");
        expect(proc.exitCode).toBeNull(); // the server is alive
      }
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(proc.exitCode).toBeNull();
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(acknowledged.length).toBeGreaterThan(50);
    const db = createClient({ url: `file:${live}` });
    try {
      expect((await db.execute("PRAGMA integrity_check")).rows[0]![0]).toBe("ok");
      const stored = new Set((await db.execute("SELECT submission_id FROM reports")).rows.map((r) => String(r[0])));
      expect(acknowledged.filter((s) => !stored.has(s))).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});
