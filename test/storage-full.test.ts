/**
 * A full disk is a clear, survivable state: the app over a real libSQL file on a small tmpfs,
 * filled with a filler file. Needs `mount -t tmpfs` (root); skipped with a printed reason where
 * mounting is impossible.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FLUSH_MS } from "../src/activity/journal";
import { createKey, orgWithProject, testEnv, withKey, type TestEnv } from "./helpers";

/** Mounts a tmpfs of `mib` MiB on a fresh temp folder; null (with the reason printed) where that is impossible. */
export function mountTmpfs(mib: number, prefix: string): { dir: string; unmount: () => void } | null {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const r = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${mib}m,mode=0750`, "tmpfs", dir], { stderr: "pipe" });
  if (r.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    console.warn(`SKIPPED (disk-full tests): cannot mount a tmpfs here (${r.stderr.toString().trim() || `exit ${r.exitCode}`}); they need root or CAP_SYS_ADMIN`);
    return null;
  }
  return {
    dir,
    unmount: () => {
      Bun.spawnSync(["umount", "-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the filesystem of `dir` with `file` until a write fails with ENOSPC; returns its size. */
export function fillDisk(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let size = 0;
  try {
    for (;;) {
      const n = writeSync(fd, chunk);
      size += n;
      if (n < chunk.length) break;
    }
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOSPC") throw e;
  } finally {
    closeSync(fd);
  }
  // the last few bytes a chunk could not use
  try {
    const fd2 = openSync(file, "a");
    try {
      for (;;) if (writeSync(fd2, Buffer.alloc(512, 1)) < 512) break;
    } catch {
      /* full */
    } finally {
      closeSync(fd2);
    }
  } catch {
    /* full */
  }
  return size;
}

const mount = mountTmpfs(24, "talentd-diskfull-");
let env: TestEnv;
let key: string;
let owner: Awaited<ReturnType<typeof orgWithProject>>["owner"];
const filler = () => join(mount!.dir, "filler");

const prepare = (): Promise<Response> =>
  withKey(env, key, "/api/prepare-task", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ talentIds: ["typescript-strict"] }) });

beforeAll(async () => {
  if (!mount) return;
  env = await testEnv({ DATA_DIR: mount.dir });
  const made = await orgWithProject(env);
  owner = made.owner;
  key = (await createKey(owner, made.project.id, ["prepare_task", "doctor", "catalog", "install"])).value;
  const installed = await withKey(env, key, "/api/projects/current/talents", {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ talents: ["typescript-strict", "javascript-base"] }),
  });
  expect(installed.status).toBe(200);
  expect((await prepare()).status).toBe(201);
  await env.database.idle();
});

afterAll(() => {
  if (!mount) return;
  env?.database.close();
  mount.unmount();
});

describe.skipIf(!mount)("disk full (a real tmpfs filled to the last byte)", () => {
  test("storage_full: writes answer 507 with Retry-After, reads work, /readyz 503 degraded, /api/doctor says why, one log line; all recover when space returns", async () => {
    fillDisk(filler());
    const logsBefore = env.logs.length;

    // a write job (the writer thread) and a write transaction (the request thread), several times each
    for (let i = 0; i < 5; i++) {
      const job = await prepare();
      expect(job.status).toBe(507);
      expect(job.headers.get("retry-after")).toBe("30");
      const body = (await job.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ error: "storage_full", storage: "full", retryAfter: 30 });
      expect(String(body.message)).toContain("disk is full");
      const tx = await owner.post("/web/orgs", { name: `Full ${i}` });
      expect(tx.status).toBe(507);
      expect(tx.body.error).toBe("storage_full");
      expect(tx.res.headers.get("retry-after")).toBe("30");
    }

    // reads keep working
    expect((await withKey(env, key, "/api/catalog?limit=1")).status).toBe(200);
    expect((await owner.get("/web/orgs/current/members")).status).toBe(200);

    const ready = await env.request("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("30");
    expect(await ready.json()).toMatchObject({ error: "storage_full", status: "degraded", storage: "full" });

    const doctor = (await (await withKey(env, key, "/api/doctor")).json()) as { service: Record<string, unknown> };
    expect(doctor.service).toMatchObject({ status: "degraded", reason: "storage_full", kind: "full" });
    expect(Number(doctor.service.refused)).toBeGreaterThanOrEqual(10);

    // one line for the state (the log interval is a minute): no stack per request, nor per failed
    // background write (the trace journal's flush, a key's last use), once their writes have run
    await Bun.sleep(FLUSH_MS * 2);
    await env.database.idle();
    const lines = env.logs.slice(logsBefore);
    const loud = lines.filter((l) => l.includes('"level":"error"') || l.includes('"level":"warn"'));
    expect(loud).toHaveLength(1);
    expect(loud[0]).toContain("disk is full");
    expect(JSON.parse(loud[0]!)).toMatchObject({ level: "error", storage: "full" });

    // space returns: writes succeed, readiness and doctor recover (the probe runs at most every 2 s)
    rmSync(filler());
    const after = await prepare();
    expect(after.status).toBe(201);
    expect((await owner.post("/web/orgs", { name: "After the disk emptied" })).status).toBe(201);
    let readyAgain: Response | null = null;
    for (let i = 0; i < 40; i++) {
      readyAgain = await env.request("/readyz");
      if (readyAgain.status === 200) break;
      await Bun.sleep(100);
    }
    expect(readyAgain!.status).toBe(200);
    const doctorAgain = (await (await withKey(env, key, "/api/doctor")).json()) as { service: Record<string, unknown> };
    expect(doctorAgain.service).toEqual({ status: "ok" });
    expect(env.logs.slice(logsBefore).some((l) => l.includes("storage writable again"))).toBe(true);
  }, 30_000);
});
